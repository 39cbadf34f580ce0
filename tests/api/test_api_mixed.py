"""API suite with numpy: float16 and bfloat16 products (float32 accumulator,
one rounding at the store) and their float32-output twins.

References are float64 products of the (already rounded) inputs, held to the
design's normwise gate 8 * k * eps (eps 2^-10 for float16, 2^-7 for
bfloat16) and to an elementwise float32-accumulation bound plus one output
rounding (apihelpers.np_check_narrow).  Shapes derive from each type's own
tile and depth multiple, read from dispatch_info().  bfloat16 cases need
ml_dtypes; skipped where numpy is missing (the Pyodide run), where
test_api_buffers covers float16 buffers.
"""

import pytest

np = pytest.importorskip(
    "numpy", reason="numpy is not installed (the numpy-free suite is test_api_buffers)"
)

import gemmkit  # noqa: E402
from apihelpers import (  # noqa: E402
    LAYOUTS,
    ML_DTYPES_SKIP,
    NARROW,
    Canaried,
    assert_narrow_close,
    matmul_slices,
    np_dtype,
    np_layout,
    rand_narrow,
    resolve_dim,
    tile,
)

NAN = float("nan")


@pytest.fixture(params=NARROW)
def narrow(request):
    """"float16" or "bfloat16" (the latter needs ml_dtypes)."""
    if request.param == "bfloat16":
        pytest.importorskip("ml_dtypes", reason=ML_DTYPES_SKIP)
    return request.param


def _depth_multiple(dtype):
    return int(gemmkit.dispatch_info()[dtype]["depth_multiple"])


def _operands(seed, m, n, k, dtype, la="C", lb="C"):
    rng = np.random.default_rng(seed)
    return (np_layout(rand_narrow(rng, (m, k), dtype), la),
            np_layout(rand_narrow(rng, (k, n), dtype), lb))


def _check_new(got, a, b, c=None, alpha=1.0, beta=0.0, out_dtype=None):
    assert isinstance(got, np.ndarray)
    assert got.flags.c_contiguous, "a new result must be C-contiguous"
    assert got.dtype == (np.dtype(out_dtype) if out_dtype else a.dtype), got.dtype
    assert_narrow_close(got, a, b, c, alpha, beta)


# ---------------------------------------------------------------- shapes

@pytest.mark.parametrize("m_spec", [1, 2, 7, "r-1", "r", "r+1", "2r+1"], ids=str)
@pytest.mark.parametrize("n_spec", [1, 2, "r-1", "r", "r+1", "3r"], ids=str)
def test_tile_edges(narrow, m_spec, n_spec):
    mr, nr = tile(narrow)
    m, n = resolve_dim(m_spec, mr), resolve_dim(n_spec, nr)
    a, b = _operands(m * 100 + n, m, n, 13, narrow)
    _check_new(gemmkit.gemm(a, b), a, b)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 255, 257, 513, 1025])
def test_depth_sweep(narrow, k):
    # Odd depths cross the bfloat16 dot kernel's pairs (depth multiple 2).
    mr, nr = tile(narrow)
    m, n = mr + 1, nr + 1
    a, b = _operands(k, m, n, k, narrow, "C", "F")
    _check_new(gemmkit.gemm(a, b), a, b)
    c = rand_narrow(np.random.default_rng(k + 1), (m, n), narrow)
    _check_new(gemmkit.gemm(a, b, c, alpha=-0.75, beta=1.5), a, b, c, -0.75, 1.5)


@pytest.mark.parametrize("m, n, k", [(5, 7, 4097), (3, 37, 20000), (40, 2, 9000),
                                     (131, 97, 600)])
def test_deep_k(narrow, m, n, k):
    # Depths past one cache panel: the narrow output accumulates over depth
    # slices in float32 and rounds once, so the gate is the same as for one
    # slice (a second rounding per slice would show in the elementwise bound).
    a, b = _operands(k + m, m, n, k, narrow, "F", "C")
    _check_new(gemmkit.gemm(a, b), a, b)
    c = rand_narrow(np.random.default_rng(k), (m, n), narrow)
    _check_new(gemmkit.gemm(a, b, c, beta=1.0), a, b, c, 1.0, 1.0)


@pytest.mark.parametrize("m, n, k", [(0, 5, 3), (5, 0, 3), (4, 3, 0), (1, 1, 1), (0, 0, 0)])
def test_zero_and_unit_dims(narrow, m, n, k):
    a, b = _operands(3, m, n, k, narrow)
    got = gemmkit.gemm(a, b)
    assert got.shape == (m, n) and got.dtype == a.dtype
    _check_new(got, a, b)
    c = np.full((m, n), 3.0, np.float32).astype(a.dtype)
    got = gemmkit.gemm(a, b, c, alpha=2.0, beta=0.5)
    if k == 0:  # the product is empty: beta * C exactly
        assert np.array_equal(got, np.full((m, n), 1.5, np.float32).astype(a.dtype))
    _check_new(got, a, b, c, 2.0, 0.5)


# ---------------------------------------------------------------- layouts

@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", ["C", "F", "T", "rev_both", "step", "neg_T", "readonly"])
def test_input_layouts(narrow, la, lb):
    mr, nr = tile(narrow)
    m, n, k = mr + 3, nr + 2, 2 * _depth_multiple(narrow) + 17
    a, b = _operands(LAYOUTS.index(la) * 16 + len(lb), m, n, k, narrow, la, lb)
    _check_new(gemmkit.gemm(a, b), a, b)


@pytest.mark.parametrize("out_layout", Canaried.OUT_LAYOUTS)
@pytest.mark.parametrize("twin", [False, True], ids=["narrow_out", "f32_out"])
def test_out_window_canaries(narrow, out_layout, twin):
    mr, nr = tile(narrow)
    m, n = 2 * mr + 1, nr + 3
    a, b = _operands(m + n, m, n, 21, narrow, "F", "rev_rows")
    out_dt = np.float32 if twin else a.dtype
    out = Canaried((m, n), out_dt, out_layout)
    res = gemmkit.gemm(a, b, alpha=1.25, out=out.view,
                       out_dtype=np.float32 if twin else None)
    assert res is out.view
    assert_narrow_close(out.view, a, b, None, 1.25)
    assert out.outside_untouched() is None, out.outside_untouched()


@pytest.mark.parametrize("c_layout", ["C", "F", "step", "rev_both"])
def test_in_place_out_is_c(narrow, c_layout):
    mr, nr = tile(narrow)
    m, n, k = mr + 2, nr + 1, 23
    a, b = _operands(10, m, n, k, narrow, "rev_rows", "F")
    c0 = rand_narrow(np.random.default_rng(11), (m, n), narrow)
    c = np_layout(c0, c_layout)
    res = gemmkit.gemm(a, b, c, alpha=0.5, beta=-1.5, out=c)
    assert res is c
    assert_narrow_close(c, a, b, c0, 0.5, -1.5)


# ---------------------------------------------------------------- alpha / beta

@pytest.mark.parametrize("alpha", [1.0, -1.0, 0.3, 0.0])
@pytest.mark.parametrize("beta", [0.0, 1.0, -0.5])
def test_alpha_beta(narrow, alpha, beta):
    mr, nr = tile(narrow)
    m, n, k = mr + 1, 2 * nr - 1, 33
    a, b = _operands(17, m, n, k, narrow, "C", "T")
    c = rand_narrow(np.random.default_rng(3), (m, n), narrow)
    _check_new(gemmkit.gemm(a, b, c, alpha=alpha, beta=beta), a, b, c, alpha, beta)
    _check_new(gemmkit.gemm(a, b, alpha=alpha, beta=beta), a, b, None, alpha, 0.0)


@pytest.mark.parametrize("poison", [NAN, np.inf])
def test_beta_zero_never_reads_c(narrow, poison):
    mr, nr = tile(narrow)
    a, b = _operands(8, mr + 1, nr + 1, 40, narrow)
    c = np.full((mr + 1, nr + 1), poison, np.float32).astype(a.dtype)
    got = gemmkit.gemm(a, b, c, beta=0.0)
    assert np.all(np.isfinite(got.astype(np.float32)))
    _check_new(got, a, b)
    c32 = np.full((mr + 1, nr + 1), poison, np.float32)
    got = gemmkit.gemm(a, b, c32, beta=0.0, out_dtype=np.float32)
    assert np.all(np.isfinite(got))


def test_alpha_zero_never_reads_a_or_b(narrow):
    dt = np_dtype(narrow)
    a = np.full((9, 11), NAN, np.float32).astype(dt)
    b = np.full((11, 7), np.inf, np.float32).astype(dt)
    c = rand_narrow(np.random.default_rng(4), (9, 7), narrow)
    got = gemmkit.gemm(a, b, c, alpha=0.0, beta=-2.0)
    assert np.array_equal(got, (-2.0 * c.astype(np.float32)).astype(dt))


# ---------------------------------------------------------------- rounding

@pytest.mark.parametrize("k", [1, 64, 1025])
def test_exact_integers_round_once(narrow, k):
    # Small integers: every product and partial sum is exact in the float32
    # accumulator (|sum| <= 16 * 1025 < 2^24), so the narrow result is the
    # exact value rounded once to nearest even: bit for bit.
    mr, nr = tile(narrow)
    m, n = 2 * mr + 5, 2 * nr + 1
    rng = np.random.default_rng(k)
    dt = np_dtype(narrow)
    a = np_layout(rng.integers(-4, 5, (m, k)).astype(dt), "F")
    b = np_layout(rng.integers(-4, 5, (k, n)).astype(dt), "step")
    exact = a.astype(np.int64) @ b.astype(np.int64)
    assert np.array_equal(gemmkit.gemm(a, b).view(np.uint16),
                          exact.astype(np.float32).astype(dt).view(np.uint16))
    assert np.array_equal(gemmkit.gemm(a, b, out_dtype=np.float32), exact.astype(np.float32))


def test_overflow_rounds_to_inf_only_in_the_narrow_output(narrow):
    # 8 * 100 * 100 = 80000 exceeds float16's largest finite value 65504: the
    # one rounding at the store gives inf there; the float32 twin is exact.
    dt = np_dtype(narrow)
    a = np.full((3, 8), 100.0, np.float32).astype(dt)
    b = np.full((8, 4), 100.0, np.float32).astype(dt)
    assert np.array_equal(gemmkit.gemm(a, b, out_dtype="float32"), np.full((3, 4), 80000.0,
                                                                           np.float32))
    with np.errstate(over="ignore"):  # float16: inf is the expected value
        want = np.full((3, 4), 80000.0, np.float32).astype(dt)
    assert narrow != "float16" or np.isinf(want).all()
    assert np.array_equal(gemmkit.gemm(a, b).view(np.uint16), want.view(np.uint16))


def test_nan_in_a_propagates_to_its_row_only(narrow):
    mr, nr = tile(narrow)
    m, n, k = 2 * mr + 1, nr + 3, 40
    a, b = _operands(9, m, n, k, narrow)
    a = a.copy()
    rows = [0, mr, m - 1]
    for i in rows:
        a[i, (7 * i) % k] = NAN
    got = gemmkit.gemm(a, b).astype(np.float32)
    assert np.where(np.isnan(got).any(axis=1))[0].tolist() == rows
    assert np.isnan(got[rows]).all()


def _ieee_reference(a, b):
    # Elementwise products summed in float64: IEEE's inf and NaN classes
    # (inf * 0 = NaN, inf - inf = NaN), which a BLAS need not keep.
    with np.errstate(invalid="ignore", over="ignore"):
        return (a.astype(np.float64)[:, :, None] * b.astype(np.float64)[None, :, :]).sum(axis=1)


@pytest.mark.parametrize("where", ["a", "b", "both"])
def test_infinities_give_ieee_classes(narrow, where):
    # float16 on the tile kernels splits each value into bfloat16 parts, and
    # an exact part of 0 times an inf would be NaN where IEEE gives inf: such
    # operands take the widening kernel, with the same classes as IEEE.
    mr, nr = tile(narrow)
    m, n, k = max(2 * mr + 1, 33), max(nr + 3, 20), 70  # most of C finite
    a, b = _operands(17, m, n, k, narrow)
    a, b = a.copy(), b.copy()
    if where in ("a", "both"):
        a[1, 5] = np.inf
        a[2, 6] = -np.inf
        a[2, 7] = 0.0
        a[3, 8] = np.inf  # b[8, 0] = 0 below: inf * 0
    if where in ("b", "both"):
        b[9, 1] = -np.inf
        b[10, 2] = np.nan
        a[0, 9] = 0.0  # 0 * -inf
    b[8, 0] = 0.0
    ref = _ieee_reference(a, b)
    for out_dtype in (None, np.float32):
        got = gemmkit.gemm(a, b, out_dtype=out_dtype).astype(np.float64)
        assert np.array_equal(np.isnan(got), np.isnan(ref))
        assert np.array_equal(np.isposinf(got), np.isposinf(ref))
        assert np.array_equal(np.isneginf(got), np.isneginf(ref))
        finite = np.isfinite(ref)
        assert finite.sum() > m * n // 2
        with np.errstate(invalid="ignore", over="ignore"):
            mag = np.abs(np.nan_to_num(a.astype(np.float64))) @ np.abs(
                np.nan_to_num(b.astype(np.float64)))
            err = np.abs(got - ref)
        eps = 2.0**-10 if narrow == "float16" else 2.0**-7
        assert (err[finite] <= 8 * k * eps * mag[finite]).all()
    if where == "b":  # the same from a prepacked b
        got = gemmkit.gemm(a, gemmkit.prepack_rhs(b), out_dtype=np.float32)
        assert np.array_equal(np.isnan(got), np.isnan(ref))
        assert np.array_equal(np.isinf(got), np.isinf(ref))


@pytest.mark.parametrize("k", [1, 33, 700])
def test_float16_float32_twin_within_the_split_bound(k):
    # Every kernel's float32-output float16 product is within
    # (2^-16 + 3 k 2^-24) sum |a b| of the exact sum: the split into
    # bfloat16 parts on the tile kernels (kernel/amx.hpp: a left-out low x
    # low term of at most 2^-16 |a b|, three products per depth step), and
    # the widening kernels with room to spare.  Full significands, so every
    # low part is nonzero.
    rng = np.random.default_rng(k)
    m, n = 67, 45
    sig = rng.integers(1024, 2048, (m, k)) * rng.choice([-1, 1], (m, k))
    a = np.ldexp(sig, rng.integers(-14, -6, (m, k))).astype(np.float16)
    sig = rng.integers(1024, 2048, (k, n)) * rng.choice([-1, 1], (k, n))
    b = np.ldexp(sig, rng.integers(-14, -6, (k, n))).astype(np.float16)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = (2.0**-16 + 3 * k * 2.0**-24) * (np.abs(a64) @ np.abs(b64))
    got = gemmkit.gemm(a, b, out_dtype=np.float32).astype(np.float64)
    assert (np.abs(got - a64 @ b64) <= bound).all()


# ---------------------------------------------------------------- f32 twin

@pytest.mark.parametrize("spec", ["float32", np.float32, np.dtype("float32")], ids=str)
def test_f32_twin(narrow, spec):
    mr, nr = tile(narrow)
    m, n, k = 2 * mr + 3, nr + 5, 77
    a, b = _operands(21, m, n, k, narrow, "T", "C")
    c = np.random.default_rng(5).uniform(-1, 1, (m, n)).astype(np.float32)
    got = gemmkit.gemm(a, b, c, alpha=0.5, beta=2.0, out_dtype=spec)
    _check_new(got, a, b, c, 0.5, 2.0, out_dtype=np.float32)


@pytest.mark.parametrize("alpha, beta", [(1.0, 0.0), (1.0, 1.0), (-0.5, 0.75)])
@pytest.mark.parametrize("k", [3, 40, 200])
def test_narrow_output_is_the_f32_twin_rounded_once(narrow, alpha, beta, k):
    # Both accumulate the same products in float32 and differ only in the
    # store: the narrow result is the twin's value rounded to nearest even
    # (numpy's and ml_dtypes' conversions), bit for bit.  Depth within one
    # panel, where neither needs depth slices.
    mr, nr = tile(narrow)
    m, n = 2 * mr + 1, 2 * nr + 3
    a, b = _operands(k, m, n, k, narrow, "C", "F")
    c = rand_narrow(np.random.default_rng(k), (m, n), narrow)
    narrow_res = gemmkit.gemm(a, b, c, alpha=alpha, beta=beta)
    twin = gemmkit.gemm(a, b, c.astype(np.float32), alpha=alpha, beta=beta,
                        out_dtype=np.float32)
    assert np.array_equal(narrow_res.view(np.uint16), twin.astype(a.dtype).view(np.uint16))


def test_f32_twin_in_place(narrow):
    a, b = _operands(31, 20, 30, 50, narrow)
    c0 = np.random.default_rng(6).uniform(-1, 1, (20, 30)).astype(np.float32)
    c = c0.copy(order="F")
    res = gemmkit.gemm(a, b, c, beta=-1.0, out=c, out_dtype=np.float32)
    assert res is c
    assert_narrow_close(c, a, b, c0, 1.0, -1.0)


# ---------------------------------------------------------------- matmul

@pytest.mark.parametrize("shapes", [((3, 5), (5, 4)), ((5,), (5, 4)), ((3, 5), (5,)),
                                    ((2, 3, 5), (5, 4)), ((2, 1, 3, 5), (4, 5, 2))], ids=str)
def test_matmul(narrow, shapes):
    rng = np.random.default_rng(len(shapes[0]))
    a = rand_narrow(rng, shapes[0], narrow)
    b = rand_narrow(rng, shapes[1], narrow)
    got = gemmkit.matmul(a, b)
    # numpy.matmul's own result type: float16 stays float16, bfloat16 runs
    # numpy's float32 loop on widened values (gemmkit's float32-output twin).
    assert got.dtype == np.matmul(a, b).dtype
    assert got.shape == np.matmul(a.astype(np.float32), b.astype(np.float32)).shape
    for g2, a2, b2 in matmul_slices(got, a, b):
        assert_narrow_close(g2, a2, b2)
