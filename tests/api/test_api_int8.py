"""API suite with numpy: int8 products (int32 accumulator and result, every
operation wrapping modulo 2^32).

Bit-exact against numpy in int64 reduced modulo 2^32 (apihelpers
np_int8_reference), over each kernel's tile and depth-multiple edges, every
layout of A and B, alpha/beta up to the int32 limits, and depths long enough
that -128 * -128 sums past 2^31 and wrap.  Skipped where numpy is missing
(the Pyodide run), where test_api_buffers covers int8 buffers.
"""

import pytest

np = pytest.importorskip(
    "numpy", reason="numpy is not installed (the numpy-free suite is test_api_buffers)"
)

import gemmkit  # noqa: E402
from apihelpers import (  # noqa: E402
    INT32_MAX,
    INT32_MIN,
    LAYOUTS,
    POISON_INT,
    Canaried,
    assert_int8_exact,
    np_layout,
    rand_int8,
    resolve_dim,
    tile,
)


def _dm():
    return int(gemmkit.dispatch_info()["int8"]["depth_multiple"])


def _operands(seed, m, n, k, la="C", lb="C", low=-128, high=127):
    rng = np.random.default_rng(seed)
    a = np_layout(rand_int8(rng, (m, k), low, high), la, fill=POISON_INT)
    b = np_layout(rand_int8(rng, (k, n), low, high), lb, fill=POISON_INT)
    return a, b


def _c(seed, m, n, low=INT32_MIN, high=INT32_MAX):
    return np.random.default_rng(seed).integers(low, high, (m, n), endpoint=True).astype(
        np.int32)


def _check_new(got, *args, **kwargs):
    assert isinstance(got, np.ndarray) and got.flags.c_contiguous
    assert_int8_exact(got, *args, **kwargs)


# ---------------------------------------------------------------- shapes

@pytest.mark.parametrize("m_spec", [1, 2, 7, "r-1", "r", "r+1", "2r+1"], ids=str)
@pytest.mark.parametrize("n_spec", [1, 2, "r-1", "r", "r+1", "3r"], ids=str)
def test_tile_edges(m_spec, n_spec):
    mr, nr = tile("int8")
    m, n = resolve_dim(m_spec, mr), resolve_dim(n_spec, nr)
    a, b = _operands(m * 100 + n, m, n, 13)
    _check_new(gemmkit.gemm(a, b), a, b)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 33, 64, 255, 257,
                               1025, 4099])
def test_depth_sweep(k):
    # Depths around the VNNI kernel's groups of four (and the bf16 pairs'
    # two), and past one cache panel.
    mr, nr = tile("int8")
    m, n = mr + 1, nr + 1
    a, b = _operands(k, m, n, k, "C", "F")
    _check_new(gemmkit.gemm(a, b), a, b)
    c = _c(k, m, n)
    _check_new(gemmkit.gemm(a, b, c, alpha=-3, beta=7), a, b, c, -3, 7)


@pytest.mark.parametrize("m, n, k", [(0, 5, 3), (5, 0, 3), (4, 3, 0), (1, 1, 1), (0, 0, 0)])
def test_zero_and_unit_dims(m, n, k):
    a, b = _operands(3, m, n, k)
    got = gemmkit.gemm(a, b)
    assert got.shape == (m, n) and got.dtype == np.int32
    _check_new(got, a, b)
    c = _c(4, m, n)
    _check_new(gemmkit.gemm(a, b, c, alpha=2, beta=-5), a, b, c, 2, -5)


@pytest.mark.parametrize("m, n, k", [(131, 257, 300), (64, 1000, 513), (1000, 3, 77)])
def test_larger_shapes(m, n, k):
    a, b = _operands(m + n + k, m, n, k, "F", "T")
    _check_new(gemmkit.gemm(a, b), a, b)


# ---------------------------------------------------------------- layouts

@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
def test_input_layouts(la, lb):
    mr, nr = tile("int8")
    m, n, k = mr + 3, nr + 2, 2 * _dm() + 19
    a, b = _operands(LAYOUTS.index(la) * 16 + LAYOUTS.index(lb), m, n, k, la, lb)
    _check_new(gemmkit.gemm(a, b), a, b)


@pytest.mark.parametrize("out_layout", Canaried.OUT_LAYOUTS)
def test_out_window_canaries(out_layout):
    mr, nr = tile("int8")
    m, n = 2 * mr + 1, nr + 3
    a, b = _operands(m + n, m, n, 21, "F", "rev_rows")
    out = Canaried((m, n), np.int32, out_layout, fill=-12345)
    res = gemmkit.gemm(a, b, alpha=3, out=out.view)
    assert res is out.view
    assert_int8_exact(out.view, a, b, None, 3)
    assert out.outside_untouched() is None, out.outside_untouched()


@pytest.mark.parametrize("c_layout", ["C", "F", "step", "rev_both", "neg_T"])
def test_in_place_out_is_c(c_layout):
    mr, nr = tile("int8")
    m, n, k = mr + 2, nr + 1, 23
    a, b = _operands(10, m, n, k, "rev_rows", "F")
    c0 = _c(11, m, n)
    c = np_layout(c0, c_layout, fill=POISON_INT)
    res = gemmkit.gemm(a, b, c, alpha=5, beta=-1, out=c)
    assert res is c
    assert_int8_exact(c, a, b, c0, 5, -1)


# ---------------------------------------------------------------- wrapping

@pytest.mark.parametrize("k, want", [(131071, 2**31 - 2**14), (131072, INT32_MIN),
                                     (131073, INT32_MIN + 2**14), (262144, 0)])
@pytest.mark.parametrize("layouts", [("C", "C"), ("F", "T"), ("rev_both", "step")], ids=str)
def test_sums_past_2_31_wrap(k, want, layouts):
    # -128 * -128 = 2^14 per term: 2^17 terms reach 2^31 exactly.
    m, n = 3, 5
    a = np_layout(np.full((m, k), -128, np.int8), layouts[0], fill=POISON_INT)
    b = np_layout(np.full((k, n), -128, np.int8), layouts[1], fill=POISON_INT)
    got = gemmkit.gemm(a, b)
    assert np.array_equal(got, np.full((m, n), want, np.int32)), got
    # Mixed signs around the limit: still the exact sum modulo 2^32.
    a2 = a.copy()
    a2[1, ::3] = 127
    a2[2, ::7] = 0
    _check_new(gemmkit.gemm(a2, b), a2, b)


@pytest.mark.parametrize("alpha, beta", [(INT32_MAX, 1), (INT32_MIN, 1), (1, INT32_MAX),
                                         (-1, INT32_MIN), (65537, -65537), (0, 3), (3, 0)])
def test_alpha_beta_wrap(alpha, beta):
    mr, nr = tile("int8")
    m, n, k = mr + 1, 2 * nr - 1, 33
    a, b = _operands(17, m, n, k, "C", "T")
    c = _c(3, m, n)
    _check_new(gemmkit.gemm(a, b, c, alpha=alpha, beta=beta), a, b, c, alpha, beta)


@pytest.mark.parametrize("alpha, beta", [(2.0, -1.0), (np.int64(3), np.int16(-2)),
                                         (np.float32(4.0), 0), (1, 2)], ids=str)
def test_integral_scalars_of_any_type(alpha, beta):
    # Integral floats and numpy integers are accepted (2.0 is 2).
    a, b = _operands(12, 6, 5, 4)
    c = _c(5, 6, 5, -1000, 1000)
    _check_new(gemmkit.gemm(a, b, c, alpha=alpha, beta=beta), a, b, c, int(alpha), int(beta))


def test_beta_zero_ignores_c_and_alpha_zero_scales_c():
    a, b = _operands(13, 9, 7, 11)
    c = _c(6, 9, 7)
    assert np.array_equal(gemmkit.gemm(a, b, c, beta=0), gemmkit.gemm(a, b))
    _check_new(gemmkit.gemm(a, b, c, alpha=0, beta=-3), a, b, c, 0, -3)


# ---------------------------------------------------------------- matmul

@pytest.mark.parametrize("shapes", [((3, 5), (5, 4)), ((5,), (5, 4)), ((3, 5), (5,)),
                                    ((5,), (5,)), ((2, 3, 5), (5, 4)),
                                    ((2, 1, 3, 5), (4, 5, 2))], ids=str)
def test_matmul_is_numpy_int8(shapes):
    # numpy.matmul keeps int8 and wraps at 8 bits: the int32 sums' low byte
    # (gemm returns the int32 accumulator itself).
    rng = np.random.default_rng(len(shapes[0]) + len(shapes[1]))
    a = rand_int8(rng, shapes[0])
    b = rand_int8(rng, shapes[1])
    got = gemmkit.matmul(a, b)
    ref = np.matmul(a.astype(np.int64), b.astype(np.int64))
    assert np.asarray(got).dtype == np.int8
    assert np.array_equal(got, ref.astype(np.int8))
    assert np.array_equal(got, np.matmul(a, b))
    out = np.empty(ref.shape, np.int32)
    # numpy computes in int8 and casts the result to out's int32 (same_kind).
    assert gemmkit.matmul(a, b, out=out) is out
    assert np.array_equal(out, ref.astype(np.int8))
