"""API suite with numpy: matmul() against numpy.matmul's semantics.

1-D promotion, batch broadcasting, strided batches and out=.  Values are
checked with the suite's tolerance formula; shapes must equal numpy's.
"""

import pytest

np = pytest.importorskip(
    "numpy", reason="numpy is not installed (the numpy-free suite is test_api_buffers)"
)

import gemmkit  # noqa: E402
from apihelpers import DTYPES, assert_gemm_close, error_message_ok, rand  # noqa: E402

CASES = [
    ((3, 4), (4, 5)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((1,), (1,)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((7, 3, 4), (4, 2)),
    ((3, 4), (6, 4, 2)),
    ((6, 3, 4), (4,)),
    ((4,), (6, 4, 2)),
    ((1, 3, 4), (2, 4, 5)),
    ((2, 2, 1, 3, 4), (1, 2, 1, 4, 6)),
    ((2, 0, 3), (3, 4)),
    ((0, 3, 4), (4, 2)),
    ((2, 3, 0), (0, 4)),
    ((3, 0), (0,)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape_a, shape_b", CASES, ids=str)
def test_matmul_matches_numpy(dtype, shape_a, shape_b):
    rng = np.random.default_rng(len(shape_a) * 10 + len(shape_b))
    a = rand(rng, shape_a, dtype)
    b = rand(rng, shape_b, dtype)
    expected_shape = np.matmul(a, b).shape
    got = gemmkit.matmul(a, b)
    assert np.shape(got) == expected_shape
    assert np.asarray(got).dtype == np.dtype(dtype)
    assert_gemm_close(np.asarray(got), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_strided_batches(dtype):
    rng = np.random.default_rng(5)
    base_a = rand(rng, (6, 9, 14), dtype)
    base_b = rand(rng, (3, 7, 11), dtype)
    a = base_a[::2, ::-2, 1::3]          # (3, 5, 5), negative and step strides
    b = base_b[:, 1:6, ::-2]             # (3, 5, 6)
    got = gemmkit.matmul(a, b)
    assert got.shape == (3, 5, 6)
    assert_gemm_close(got, a, b)
    a_t = np.swapaxes(rand(rng, (4, 5, 7), dtype), -1, -2)  # (4, 7, 5): transposed batch
    got = gemmkit.matmul(a_t, b[:1])
    assert got.shape == (4, 7, 6)
    assert_gemm_close(got, a_t, b[:1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape_a, shape_b", [((3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                                              ((6, 3, 4), (4,))], ids=str)
def test_matmul_out(dtype, shape_a, shape_b):
    rng = np.random.default_rng(9)
    a = rand(rng, shape_a, dtype)
    b = rand(rng, shape_b, dtype)
    shape = np.matmul(a, b).shape
    out = np.full(shape, np.nan, dtype)
    res = gemmkit.matmul(a, b, out=out)
    assert res is out
    assert_gemm_close(out, a, b)
    # A strided out (every other element of a larger NaN buffer).
    big = np.full(shape[:-1] + (2 * shape[-1],), np.nan, dtype)
    out = big[..., ::2]
    res = gemmkit.matmul(a, b, out=out)
    assert res is out
    assert_gemm_close(out, a, b)
    assert np.isnan(big[..., 1::2]).all()


def test_matmul_errors():
    a = np.ones((3, 4))
    with pytest.raises(gemmkit.ShapeError) as exc:
        gemmkit.matmul(a, np.ones((5, 2)))
    assert error_message_ok(exc.value, "shape", "dim", "rows", "cols") is None, exc.value
    with pytest.raises(gemmkit.ShapeError):
        gemmkit.matmul(np.ones((2, 3, 4)), np.ones((3, 4, 5)))  # batch 2 vs 3
    with pytest.raises(ValueError):
        gemmkit.matmul(np.float64(2.0), a)  # numpy rejects 0-d operands too
    with pytest.raises(gemmkit.ShapeError):
        gemmkit.matmul(a, np.ones((4, 5)), out=np.empty((3, 4)))
    with pytest.raises(gemmkit.DTypeError):  # no loop in numpy either
        gemmkit.matmul(np.ones((3, 4), "m8[s]"), np.ones((4, 2), "m8[s]"))
