"""API suite with numpy: batched products in the core, matmul as numpy.matmul,
and fused epilogues from Python.

Batches are checked against a float64 numpy reference (floats) or exactly
(int8), with one core call per batch; the whole batch is checked at once
(aliasing across matrices, an out with batch stride 0).
"""

import pytest

np = pytest.importorskip("numpy", reason="numpy is not installed")

import gemmkit  # noqa: E402
from apihelpers import assert_gemm_close, assert_narrow_close, np_dtype  # noqa: E402

as_strided = np.lib.stride_tricks.as_strided


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((7, 3, 5), (7, 5, 4)), ((1, 3, 5), (6, 5, 4)),
                                    ((6, 3, 5), (5, 4)), ((2, 1, 3, 5), (1, 3, 5, 2)),
                                    ((0, 3, 5), (5, 4)), ((200, 8, 8), (200, 8, 8)),
                                    ((3, 40, 33), (3, 33, 50))], ids=str)
def test_batched_matches_numpy(dtype, shapes):
    rng = np.random.default_rng(len(shapes[0]))
    a = rng.standard_normal(shapes[0]).astype(dtype)
    b = rng.standard_normal(shapes[1]).astype(dtype)
    got = gemmkit.gemm_batched(a, b)
    want = np.matmul(a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    for idx in np.ndindex(*want.shape[:-2]):
        assert_gemm_close(got[idx], np.broadcast_to(a, want.shape[:-2] + a.shape[-2:])[idx],
                          np.broadcast_to(b, want.shape[:-2] + b.shape[-2:])[idx])
    assert np.array_equal(gemmkit.matmul(a, b), got)


def test_batched_strided_views_and_c():
    rng = np.random.default_rng(1)
    base = rng.standard_normal((8, 10, 12))
    a = base[::2, 1:7, ::2]          # (4, 6, 6), every stride odd
    b = base[::-2, :6, 3:11][:, :, ::-1]
    c = rng.standard_normal((4, 1, 8))
    got = gemmkit.gemm_batched(a, b, c, alpha=0.5, beta=2.0)
    assert np.allclose(got, 0.5 * np.matmul(a, b) + 2.0 * c, rtol=1e-12, atol=1e-12)


def test_batched_int8_exact():
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, (9, 5, 33)).astype(np.int8)
    b = rng.integers(-128, 128, (9, 33, 7)).astype(np.int8)
    got = gemmkit.gemm_batched(a, b)
    assert got.dtype == np.int32
    assert np.array_equal(got, np.matmul(a.astype(np.int64), b.astype(np.int64)))
    assert np.array_equal(gemmkit.matmul(a, b), np.matmul(a, b))  # int8, wrapped like numpy


def test_batched_packed_rhs():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 6, 9)).astype(np.float32)
    b = rng.standard_normal((9, 4)).astype(np.float32)
    got = gemmkit.gemm_batched(a, gemmkit.prepack_rhs(b))
    for i in range(5):
        assert_gemm_close(got[i], a[i], b)


def test_batch_threads_give_the_same_bits():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((64, 24, 24)).astype(np.float32)
    b = rng.standard_normal((64, 24, 24)).astype(np.float32)
    before = gemmkit.get_num_threads()
    try:
        gemmkit.set_num_threads(1)
        one = gemmkit.gemm_batched(a, b)
        gemmkit.set_num_threads(2)
        two = gemmkit.gemm_batched(a, b)
    finally:
        gemmkit.set_num_threads(before)
    assert np.array_equal(one.view(np.uint32), two.view(np.uint32))


def test_out_aliasing_across_the_batch_is_refused():
    x = np.ones((2, 4, 4))
    b = np.ones((2, 4, 4))
    with pytest.raises(gemmkit.OverlapError):
        gemmkit.gemm_batched(x, b, out=x[::-1])
    out = as_strided(np.zeros((4, 4)), shape=(3, 4, 4), strides=(0, 32, 8))
    with pytest.raises(gemmkit.LayoutError, match="aliases itself"):
        gemmkit.gemm_batched(np.ones((3, 4, 4)), np.ones((3, 4, 4)), out=out)


def test_matmul_copies_an_input_out_overlaps_as_numpy_does():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 4))
    b = rng.standard_normal((2, 4, 4))
    want = np.matmul(x[::-1], b)
    got = gemmkit.matmul(x[::-1], b, out=x)
    assert got is x and np.allclose(x, want)


def test_matmul_follows_numpy_types_and_forms():
    a32 = np.arange(6, dtype=np.float32).reshape(2, 3)
    b64 = np.arange(6, dtype=np.float64).reshape(3, 2)
    assert gemmkit.matmul(a32, b64).dtype == np.float64
    v = np.arange(3.0)
    s = gemmkit.matmul(v, v)
    assert type(s) is np.float64 and s == 5.0
    out = np.zeros((2, 2))
    assert gemmkit.matmul(a32, a32.T, out=(out,)) is out   # float32 into float64: same_kind
    assert np.array_equal(out, np.matmul(a32, a32.T))
    with pytest.raises(gemmkit.DTypeError):
        gemmkit.matmul(a32, a32.T, out=np.zeros((2, 2), np.int32))
    with pytest.raises(gemmkit.DTypeError, match="out must be"):
        gemmkit.matmul(a32, a32.T, out=[[0, 0], [0, 0]])
    got = gemmkit.matmul(np.ones((2, 2), np.int32), np.full((2, 2), 3, np.int64))
    assert got.dtype == np.int64 and (got == 6).all()  # int32 converted, as numpy does
    with pytest.raises(gemmkit.ShapeError):
        gemmkit.matmul(a32, a32)


def test_matmul_subclasses_and_overrides():
    class Tagged(np.ndarray):
        pass

    a = np.eye(3).view(Tagged)
    assert type(gemmkit.matmul(a, np.eye(3))) is Tagged

    class Defer:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            return ("deferred", ufunc.__name__)

    assert gemmkit.matmul(np.eye(2), Defer()) == ("deferred", "matmul")

    class Boom:
        def __array__(self, dtype=None, copy=None):
            raise ZeroDivisionError("from __array__")

    with pytest.raises(ZeroDivisionError, match="from __array__"):
        gemmkit.matmul(Boom(), np.eye(2))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("bias_shape", [None, "col", "row", "scalar"])
@pytest.mark.parametrize("activation", [None, "relu", ("leaky_relu", 0.125), ("clip", -1.0, 1.5)],
                         ids=str)
def test_fused_epilogue(dtype, bias_shape, activation):
    dt = np_dtype(dtype)
    rng = np.random.default_rng(6)
    m, n, k = 37, 29, 19
    a = rng.uniform(-1.0, 1.0, (m, k)).astype(dt)
    b = rng.uniform(-1.0, 1.0, (k, n)).astype(dt)
    acc = np.float64 if dtype == "float64" else np.float32
    bias = {None: None, "col": rng.standard_normal(n), "row": rng.standard_normal((m, 1)),
            "scalar": 0.75}[bias_shape]
    got = gemmkit.gemm(a, b, bias=bias, activation=activation)
    assert got.dtype == dt
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if bias is not None:
        ref = ref + np.asarray(bias, acc).astype(np.float64)
    if activation == "relu":
        ref = np.maximum(ref, 0)
    elif activation is not None and activation[0] == "leaky_relu":
        ref = np.maximum(ref, 0) + activation[1] * np.minimum(ref, 0)
    elif activation is not None:
        ref = np.clip(ref, activation[1], activation[2])
    tol = {"float32": 1e-4, "float64": 1e-12, "float16": 2e-2, "bfloat16": 1e-1}[dtype]
    assert np.allclose(got.astype(np.float64), ref, rtol=tol, atol=tol * k), dtype
    if bias is None and activation is None and dtype in ("float16", "bfloat16"):
        assert_narrow_close(got, a, b)


def test_c_broadcasts_like_numpy():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((5, 3))
    b = rng.standard_normal((3, 4))
    for c in (2.0, rng.standard_normal(4), rng.standard_normal((1, 4)), rng.standard_normal((5, 1))):
        got = gemmkit.gemm(a, b, c, beta=0.5)
        assert np.allclose(got, a @ b + 0.5 * np.asarray(c))
    with pytest.raises(gemmkit.ShapeError):
        gemmkit.gemm(a, b, rng.standard_normal(3), beta=1.0)


def test_matmul_axes_like_numpy():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((3, 4, 5))
    for axes in ([(-2, -1), (-1, -2), (1, 2)], [(-2, -1), (-1, -2), (0, 1)],
                 [(1, 2), (2, 1), (-2, -1)]):
        assert np.allclose(gemmkit.matmul(a, a, axes=axes), np.matmul(a, a, axes=axes))
    v = rng.standard_normal(4)
    m = rng.standard_normal((4, 4))
    out = np.empty(4)
    assert gemmkit.matmul(v, m, out=out, axes=[(-1,), (-2, -1), (-1,)]) is out
    assert np.allclose(out, v @ m)
    with pytest.raises(ValueError):
        gemmkit.matmul(v, v, axes=[(-2, -1), (-2, -1), (-2, -1)])


def test_strict_entries_refuse_masked_arrays():
    a = np.ma.masked_array(np.ones((3, 3)), mask=np.eye(3, dtype=bool))
    with pytest.raises(gemmkit.DTypeError, match="masked"):
        gemmkit.gemm(a, np.ones((3, 3)))
    with pytest.raises(gemmkit.DTypeError, match="masked"):
        gemmkit.gemm_batched(np.ones((2, 3, 3)), a)


def test_packed_rhs_refuses_pickling_by_name():
    import pickle

    packed = gemmkit.prepack_rhs(np.ones((4, 3), np.float32))
    with pytest.raises(gemmkit.DTypeError, match="cannot be pickled"):
        pickle.dumps(packed)


def test_a_result_too_large_to_exist_is_gemmkits_error():
    a = as_strided(np.zeros(1), shape=(2**32, 1), strides=(0, 0))
    b = as_strided(np.zeros(1), shape=(1, 2**32), strides=(0, 0))
    with pytest.raises(gemmkit.WorkspaceError, match="cannot allocate"):
        gemmkit.gemm(a, b)


def test_views_larger_than_an_address_space_fail_closed():
    # Two rows 2**62 bytes apart cannot be real memory: refused before any
    # read (the gather's index arithmetic once wrapped and read row 0 twice).
    a = as_strided(np.zeros(8), shape=(2, 8), strides=(2**62, 8))
    with pytest.raises(gemmkit.LayoutError, match="too large to address"):
        gemmkit.gemm(a, np.ones((8, 3)))
    x = as_strided(np.zeros((4, 4)), shape=(2, 4, 4), strides=(2**61, 32, 8))
    with pytest.raises(gemmkit.LayoutError, match="too large to address"):
        gemmkit.gemm_batched(x, np.ones((4, 4)))


def test_matmul_with_a_packed_rhs_has_numpys_result_type():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
    rng = np.random.default_rng(9)
    for dt in (np.float32, np.float16, ml_dtypes.bfloat16, np.int8):
        a = (rng.standard_normal((5, 7)) * 4).astype(dt)
        b = (rng.standard_normal((7, 3)) * 4).astype(dt)
        got = gemmkit.matmul(a, gemmkit.prepack_rhs(b))
        assert got.dtype == np.matmul(a, b).dtype, dt
        assert np.array_equal(got, gemmkit.matmul(a, b)), dt


def test_in_place_batch_of_one_with_its_batch_stride():
    # c is out itself: a batch of one has a batch stride that is never used
    # (found by fuzz_gemm: it used to be refused as an overlap).
    rng = np.random.default_rng(12)
    a = rng.standard_normal((1, 3, 4))
    b = rng.standard_normal((1, 4, 2))
    out = rng.standard_normal((1, 3, 2))
    want = 2.0 * (a @ b) + out
    got = gemmkit.gemm_batched(a, b, out, alpha=2.0, beta=1.0, out=out)
    assert got is out and np.allclose(out, want)
