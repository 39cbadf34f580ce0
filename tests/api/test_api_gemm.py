"""API suite with numpy: gemm() correctness over shapes, layouts, alpha/beta.

Cases derive from the running kernel's geometry (CONVENTIONS 11): m and n
sweep 1..mr+1 and nr neighbourhoods read from dispatch_info(); k crosses the
cache block (257, 513, 1025).  Every result is compared with an independent
wide reference under the one tolerance formula of apihelpers.  Skipped where
numpy is missing (the Pyodide run); test_api_buffers covers that case.
"""

import pytest

np = pytest.importorskip(
    "numpy", reason="numpy is not installed (the numpy-free suite is test_api_buffers)"
)

import gemmkit  # noqa: E402
from apihelpers import (  # noqa: E402
    DTYPES,
    LAYOUTS,
    Canaried,
    assert_gemm_close,
    np_layout,
    rand,
    resolve_dim,
    tile,
)

NAN = float("nan")


def _operands(seed, m, n, k, dtype, la="C", lb="C", kind="float"):
    rng = np.random.default_rng(seed)
    a = np_layout(rand(rng, (m, k), dtype, kind), la)
    b = np_layout(rand(rng, (k, n), dtype, kind), lb)
    return a, b


def _check_new_result(got, a, b, c=None, alpha=1.0, beta=0.0):
    assert isinstance(got, np.ndarray)
    assert got.flags.c_contiguous, "a new result must be C-contiguous"
    assert_gemm_close(got, a, b, c, alpha, beta)


# ---------------------------------------------------------------- shapes

M_SPECS = [1, 2, 7, 13, "r-1", "r", "r+1", "2r+1"]
N_SPECS = [1, 2, 5, "r-1", "r", "r+1", "3r"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m_spec", M_SPECS, ids=str)
@pytest.mark.parametrize("n_spec", N_SPECS, ids=str)
def test_tile_edges(dtype, m_spec, n_spec):
    mr, nr = tile(dtype)
    m, n = resolve_dim(m_spec, mr), resolve_dim(n_spec, nr)
    a, b = _operands(m * 1000 + n, m, n, 13, dtype)
    _check_new_result(gemmkit.gemm(a, b), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [1, 2, 3, 4, 7, 16, 64, 255, 256, 257, 513, 1025])
def test_depth_sweep(dtype, k):
    mr, nr = tile(dtype)
    m, n = mr + 1, nr + 1
    a, b = _operands(k, m, n, k, dtype, "C", "F")
    _check_new_result(gemmkit.gemm(a, b), a, b)
    c = rand(np.random.default_rng(k + 1), (m, n), dtype)
    _check_new_result(gemmkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, c, -0.75, 1.5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n, k", [(257, 257, 257), (513, 513, 513), (131, 517, 1025),
                                     (1023, 97, 300)])
def test_block_boundaries(dtype, m, n, k):
    a, b = _operands(m + n + k, m, n, k, dtype)
    _check_new_result(gemmkit.gemm(a, b), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m, n, k", [(0, 5, 3), (5, 0, 3), (0, 0, 4), (0, 0, 0), (4, 3, 0),
                                     (1, 1, 0), (1, 1, 1), (0, 1, 1)])
def test_zero_and_unit_dims(dtype, m, n, k):
    a, b = _operands(7, m, n, k, dtype)
    got = gemmkit.gemm(a, b)
    assert got.shape == (m, n) and got.dtype == np.dtype(dtype)
    _check_new_result(got, a, b)
    # k == 0: the product is empty, so the result is beta * C exactly.
    c = np.full((m, n), 3.0, dtype)
    got = gemmkit.gemm(a, b, c, alpha=2.0, beta=0.5)
    _check_new_result(got, a, b, c, 2.0, 0.5)
    if k == 0:
        assert np.array_equal(got, np.full((m, n), 1.5, dtype))
        c_nan = np.full((m, n), NAN, dtype)
        assert np.array_equal(gemmkit.gemm(a, b, c_nan, beta=0.0), np.zeros((m, n), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("length", [1, 2, 5, 17, 257, 1000])
@pytest.mark.parametrize("k", [1, 17, 513])
@pytest.mark.parametrize("layout", ["C", "F", "step", "rev_both"])
def test_gemv(dtype, length, k, layout):
    # m == 1 (row vector times matrix) and n == 1 (matrix times column).
    a, b = _operands(length * 7 + k, 1, length, k, dtype, layout, layout)
    _check_new_result(gemmkit.gemm(a, b), a, b)
    a, b = _operands(length * 11 + k, length, 1, k, dtype, layout, layout)
    _check_new_result(gemmkit.gemm(a, b), a, b)
    c = rand(np.random.default_rng(length), (length, 1), dtype)
    out = Canaried((length, 1), dtype, "step")
    res = gemmkit.gemm(a, b, c, alpha=0.5, beta=-2.0, out=out.view)
    assert res is out.view
    assert_gemm_close(out.view, a, b, c, 0.5, -2.0)
    assert out.outside_untouched() is None, out.outside_untouched()


# ---------------------------------------------------------------- layouts

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
def test_input_layouts(dtype, la, lb):
    mr, nr = tile(dtype)
    m, n, k = mr + 3, nr + 2, 19
    a, b = _operands(LAYOUTS.index(la) * 16 + LAYOUTS.index(lb), m, n, k, dtype, la, lb)
    _check_new_result(gemmkit.gemm(a, b), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out_layout", Canaried.OUT_LAYOUTS)
@pytest.mark.parametrize("shape_spec", [(1, 1), ("r-1", "r+1"), ("2r+1", "2r-1"), (37, 29)],
                         ids=str)
def test_out_window_canaries(dtype, out_layout, shape_spec):
    mr, nr = tile(dtype)
    m, n = resolve_dim(shape_spec[0], mr), resolve_dim(shape_spec[1], nr)
    a, b = _operands(m + n, m, n, 21, dtype, "F", "rev_rows")
    out = Canaried((m, n), dtype, out_layout)
    res = gemmkit.gemm(a, b, alpha=1.25, out=out.view)
    assert res is out.view
    assert_gemm_close(out.view, a, b, None, 1.25)
    assert out.outside_untouched() is None, out.outside_untouched()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out_order", ["C", "F"])
def test_out_plain(dtype, out_order):
    a, b = _operands(5, 40, 30, 50, dtype, "T", "step")
    out = np.full((40, 30), NAN, dtype, order=out_order)
    res = gemmkit.gemm(a, b, out=out)
    assert res is out
    assert_gemm_close(out, a, b)


# ---------------------------------------------------------------- alpha / beta

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("alpha", [1.0, -1.0, 0.5, 3.0, 0.0, 1e-3])
@pytest.mark.parametrize("beta", [0.0, 1.0, -0.5, 2.0])
@pytest.mark.parametrize("with_c", [True, False])
def test_alpha_beta(dtype, alpha, beta, with_c):
    mr, nr = tile(dtype)
    m, n, k = mr + 1, 2 * nr - 1, 33
    a, b = _operands(17, m, n, k, dtype, "C", "T")
    c = rand(np.random.default_rng(3), (m, n), dtype) if with_c else None
    got = gemmkit.gemm(a, b, c, alpha=alpha, beta=beta)
    # With c=None beta is ignored: the result is alpha * A @ B.
    _check_new_result(got, a, b, c, alpha, beta if with_c else 0.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("beta", [0.0, 1.0, -2.0])
def test_alpha_zero_never_reads_a_or_b(dtype, beta):
    m, n, k = 9, 7, 11
    a = np.full((m, k), NAN, dtype)
    b = np.full((k, n), np.inf, dtype)
    c = rand(np.random.default_rng(4), (m, n), dtype)
    got = gemmkit.gemm(a, b, c, alpha=0.0, beta=beta)
    assert np.array_equal(got, (np.dtype(dtype).type(beta) * c).astype(dtype))
    assert np.array_equal(gemmkit.gemm(a, b, alpha=0.0), np.zeros((m, n), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("poison", [NAN, np.inf, -np.inf])
@pytest.mark.parametrize("shape_spec", [(1, 1, 1), ("r+1", "r+1", 5), (64, 50, 300)], ids=str)
def test_beta_zero_never_reads_c(dtype, poison, shape_spec):
    mr, nr = tile(dtype)
    m, n, k = resolve_dim(shape_spec[0], mr), resolve_dim(shape_spec[1], nr), shape_spec[2]
    a, b = _operands(8, m, n, k, dtype)
    c = np.full((m, n), poison, dtype)
    got = gemmkit.gemm(a, b, c, alpha=1.0, beta=0.0)
    assert np.all(np.isfinite(got))
    assert_gemm_close(got, a, b)
    # The same through out=c (in place over a poisoned buffer).
    res = gemmkit.gemm(a, b, c, beta=0.0, out=c)
    assert res is c
    assert_gemm_close(c, a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_in_a_propagates_to_its_row_only(dtype):
    # IEEE propagation (not validated, not swallowed): NaN at A[i, p] makes
    # row i of the result NaN and leaves every other row finite; a kernel that
    # mixed rows while packing or skipped zero terms would fail this.
    mr, nr = tile(dtype)
    m, n, k = 2 * mr + 1, nr + 3, 40
    a, b = _operands(9, m, n, k, dtype)
    a = a.copy()
    rows = [0, mr, m - 1]
    for i in rows:
        a[i, (7 * i) % k] = NAN
    b[(7 * mr) % k, :] = 0.0  # NaN * 0 is still NaN
    got = gemmkit.gemm(a, b)
    nan_rows = np.where(np.isnan(got).any(axis=1))[0].tolist()
    assert nan_rows == rows
    assert np.isnan(got[rows]).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("c_layout", ["C", "F", "step", "rev_both", "neg_T"])
def test_in_place_out_is_c(dtype, c_layout):
    mr, nr = tile(dtype)
    m, n, k = mr + 2, nr + 1, 23
    a, b = _operands(10, m, n, k, dtype, "rev_rows", "F")
    c0 = rand(np.random.default_rng(11), (m, n), dtype)
    c = np_layout(c0, c_layout)
    res = gemmkit.gemm(a, b, c, alpha=0.5, beta=-1.5, out=c)
    assert res is c
    assert_gemm_close(c, a, b, c0, 0.5, -1.5)
    # "Exactly c" means the same view (pointer and strides); a fresh view
    # object over the same memory qualifies.
    c = np_layout(c0, c_layout)
    gemmkit.gemm(a, b, c, beta=1.0, out=c[...])
    assert_gemm_close(c, a, b, c0, 1.0, 1.0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [1, 64, 1025])
def test_exact_integers(dtype, k):
    # Small integers: every product and partial sum is exact in both types
    # (|sum| <= 16 * 1025 < 2**24), so the result must be bit-exact.
    mr, nr = tile(dtype)
    m, n = 2 * mr + 5, 2 * nr + 1
    a, b = _operands(k, m, n, k, dtype, "F", "step", kind="int")
    c = rand(np.random.default_rng(k), (m, n), dtype, kind="int")
    exact = (2 * (a.astype(np.int64) @ b.astype(np.int64)) - 3 * c.astype(np.int64)).astype(dtype)
    assert np.array_equal(gemmkit.gemm(a, b, c, alpha=2.0, beta=-3.0), exact)


def test_python_scalars_and_numpy_scalars_for_alpha_beta():
    a, b = _operands(12, 6, 5, 4, "float64")
    c = np.ones((6, 5))
    got = gemmkit.gemm(a, b, c, alpha=np.float32(2.0), beta=np.int64(3))
    assert_gemm_close(got, a, b, c, 2.0, 3.0)
    got = gemmkit.gemm(a, b, c, alpha=2, beta=3)
    assert_gemm_close(got, a, b, c, 2.0, 3.0)
