"""API suite with numpy: gemm_requant, bit for bit.

The reference (apihelpers.np_requant_reference) is independent of gemmkit
and exact: int32 wrapping of acc + bias, then scale * v as an exact binary
fraction (the float32 scale is p / 2^s), rounded half to even in integer
arithmetic, plus the zero point, clamped.  gemmkit's map (the seed's
seven-step contract) multiplies in float64 first; that product is exact
whenever |v * p| < 2^53, so the two can only part for scales below 2^-20
with |v| >= 2^29, where the result saturates anyway except for scales far
below any used here.  Cases: ties (scale 0.5 and 0.25), saturation at both
ends, accumulators past 2^31, bias wrapping, per-row and per-column scales
and biases, uint8 outputs and zero points at the range ends.  Skipped where
numpy is missing (the Pyodide run), where test_api_buffers covers requant
on buffers.
"""

import pytest

np = pytest.importorskip(
    "numpy", reason="numpy is not installed (the numpy-free suite is test_api_buffers)"
)

import gemmkit  # noqa: E402
from apihelpers import (  # noqa: E402
    INT32_MAX,
    LAYOUTS,
    POISON_INT,
    Canaried,
    assert_requant_exact,
    np_layout,
    rand_int8,
    resolve_dim,
    tile,
)

RANGES = {"int8": (-128, 127), "uint8": (0, 255)}


def _operands(seed, m, n, k, la="C", lb="C"):
    rng = np.random.default_rng(seed)
    return (np_layout(rand_int8(rng, (m, k)), la, fill=POISON_INT),
            np_layout(rand_int8(rng, (k, n)), lb, fill=POISON_INT))


def _acc_row(values):
    """(a, b) with a = [[1]] and b = [values]: the accumulators are the
    values themselves (each in [-128, 127])."""
    return np.ones((1, 1), np.int8), np.asarray([values], np.int8)


# ---------------------------------------------------------------- the map

@pytest.mark.parametrize("scale, want", [
    (0.5, [0, 0, 1, 2, 2, -0, -1, -2, -2, 12, -12]),
    (0.25, [0, 0, 0, 1, 1, 0, 0, -1, -1, 6, -6]),
])
def test_ties_round_half_to_even(scale, want):
    # v = 0, 1, 2, 3, 5, -1, -2, -3, -5, 25, -25: with scale 0.5 the odd
    # values are x.5 ties (0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 12.5 -> 12);
    # with 0.25, 2 -> 0.5 -> 0, -2 -> -0.5 -> 0 and 3 -> 0.75 -> 1.
    v = [0, 1, 2, 3, 5, -1, -2, -3, -5, 25, -25]
    a, b = _acc_row(v)
    got = gemmkit.gemm_requant(a, b, scale=scale, zero_point=0)
    assert got.dtype == np.int8 and got.tolist() == [want]
    assert_requant_exact(got, a, b, scale, 0)


@pytest.mark.parametrize("out_dtype", ["int8", "uint8"])
@pytest.mark.parametrize("zp_end", ["lo", "hi", "mid"])
def test_saturation_and_zero_points_at_the_ends(out_dtype, zp_end):
    lo, hi = RANGES[out_dtype]
    zp = {"lo": lo, "hi": hi, "mid": (lo + hi) // 2}[zp_end]
    v = [-128, -127, -64, -1, 0, 1, 63, 64, 127]
    a, b = _acc_row(v)
    for scale in (4.0, 1.0, 0.5, 1e-3):
        got = gemmkit.gemm_requant(a, b, scale=scale, zero_point=zp, out_dtype=out_dtype)
        assert got.dtype == np.dtype(out_dtype)
        assert_requant_exact(got, a, b, scale, zp, None, out_dtype)
    # 4 * -128 + zp and 4 * 127 + zp leave the range whatever the zero point.
    got = gemmkit.gemm_requant(a, b, scale=4.0, zero_point=zp, out_dtype=out_dtype)
    assert got[0, 0] == lo and got[0, -1] == hi


@pytest.mark.parametrize("k, scale, zp, want", [
    # -128 * -128 * 131073 = 2^31 + 2^14 wraps to -2^31 + 2^14; times 2^-24
    # that is -128 + 2^-10 -> -128 (unwrapped, +128.001 would clamp to 127).
    (131073, 2.0**-24, 0, -128),
    (131073, 2.0**-24, 100, -28),
    (131072, 2.0**-24, 127, -1),     # exactly -2^31
    (131071, 2.0**-24, 0, 127),      # 2^31 - 2^14: no wrap, saturates high
    (262144, 1.0, 5, 5),             # 2^32 wraps to 0
])
def test_accumulators_past_2_31_wrap(k, scale, zp, want):
    m, n = 2, 3
    a = np.full((m, k), -128, np.int8)
    b = np.full((k, n), -128, np.int8)
    got = gemmkit.gemm_requant(a, b, scale=scale, zero_point=zp)
    assert np.array_equal(got, np.full((m, n), want, np.int8)), got
    assert_requant_exact(got, a, b, scale, zp)


def test_bias_addition_wraps():
    # acc + bias crosses 2^31: INT32_MAX + 5 wraps to a large negative value.
    a, b = _acc_row([5, -5, 0, 100])
    bias = np.full((1, 4), INT32_MAX, np.int32)
    got = gemmkit.gemm_requant(a, b, scale=1.0, zero_point=0, bias=bias)
    assert got.tolist() == [[-128, 127, 127, -128]]
    assert_requant_exact(got, a, b, 1.0, 0, bias)


# ---------------------------------------------------------------- scale / bias kinds

def _vec(rng, length, kind):
    # Accumulators of k = 45 random int8 products spread about 3.6e4: these
    # scales keep most results inside the output range.
    if kind == "scale":
        return rng.uniform(3e-4, 2e-3, length).astype(np.float32)
    return rng.integers(-5000, 5000, length).astype(np.int32)


@pytest.mark.parametrize("scale_kind", ["tensor", "row_1d", "row_2d", "col"])
@pytest.mark.parametrize("bias_kind", ["none", "row_1d", "row_2d", "col"])
@pytest.mark.parametrize("out_dtype", ["int8", "uint8"])
def test_scale_and_bias_kinds(scale_kind, bias_kind, out_dtype):
    mr, nr = tile("int8")
    m, n, k = mr + 3, 2 * nr + 1, 45
    a, b = _operands(m + n, m, n, k, "F", "C")
    rng = np.random.default_rng(17)
    shapes = {"row_1d": (m,), "row_2d": (m, 1), "col": (1, n)}
    scale = 1e-3 if scale_kind == "tensor" else _vec(rng, m if scale_kind != "col" else n,
                                                     "scale").reshape(shapes[scale_kind])
    bias = None if bias_kind == "none" else _vec(rng, m if bias_kind != "col" else n,
                                                 "bias").reshape(shapes[bias_kind])
    zp = 3 if out_dtype == "int8" else 120
    got = gemmkit.gemm_requant(a, b, scale=scale, zero_point=zp, bias=bias,
                               out_dtype=getattr(np, out_dtype))
    assert_requant_exact(got, a, b, scale, zp, bias, out_dtype)
    # Not every value saturated (the case would prove little otherwise).
    lo, hi = RANGES[out_dtype]
    assert ((got > lo) & (got < hi)).mean() > 0.5


def test_scales_are_used_as_float32():
    # A float64 scale is rounded to float32 first: the reference uses that
    # value, and so must gemmkit (1/3 is not a float32).
    a, b = _operands(3, 7, 9, 30)
    scale64 = np.linspace(0.01, 0.1, 7)
    got = gemmkit.gemm_requant(a, b, scale=scale64, zero_point=0)
    assert_requant_exact(got, a, b, scale64.astype(np.float32), 0)
    got = gemmkit.gemm_requant(a, b, scale=1 / 3, zero_point=0)
    assert_requant_exact(got, a, b, np.float32(1 / 3), 0)


def test_integer_bias_arrays_of_other_types():
    # Any integer array whose values fit int32 is converted exactly.
    a, b = _operands(4, 5, 6, 20)
    for dt in (np.int8, np.int16, np.int64, np.uint16, np.uint32):
        bias = np.arange(5, dtype=dt) * dt(25)
        got = gemmkit.gemm_requant(a, b, scale=0.02, zero_point=0, bias=bias)
        assert_requant_exact(got, a, b, 0.02, 0, bias.astype(np.int64))
    got = gemmkit.gemm_requant(a, b, scale=0.02, zero_point=0, bias=[1, -2, 3, -4, 5])
    assert_requant_exact(got, a, b, 0.02, 0, [1, -2, 3, -4, 5])


# ---------------------------------------------------------------- shapes and layouts

@pytest.mark.parametrize("m_spec", [1, 2, "r-1", "r+1", "2r+1"], ids=str)
@pytest.mark.parametrize("n_spec", [1, "r-1", "r+1", "3r"], ids=str)
@pytest.mark.parametrize("k", [1, 3, 4, 5, 17, 300])
def test_tile_and_depth_edges(m_spec, n_spec, k):
    mr, nr = tile("int8")
    m, n = resolve_dim(m_spec, mr), resolve_dim(n_spec, nr)
    a, b = _operands(m * 31 + n * 7 + k, m, n, k)
    scale = 1.0 / (8 * max(k, 1))  # keeps most results inside the range
    got = gemmkit.gemm_requant(a, b, scale=scale, zero_point=-7)
    assert_requant_exact(got, a, b, scale, -7)


@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", ["C", "F", "T", "rev_both", "step", "neg_T"])
def test_input_layouts(la, lb):
    mr, nr = tile("int8")
    m, n, k = mr + 3, nr + 2, 37
    a, b = _operands(len(la) * 13 + len(lb), m, n, k, la, lb)
    got = gemmkit.gemm_requant(a, b, scale=0.01, zero_point=0, out_dtype="uint8")
    assert_requant_exact(got, a, b, 0.01, 0, None, "uint8")


@pytest.mark.parametrize("out_layout", Canaried.OUT_LAYOUTS)
def test_out_window_canaries(out_layout):
    mr, nr = tile("int8")
    m, n = mr + 1, nr + 3
    a, b = _operands(m + n, m, n, 21, "F", "rev_rows")
    out = Canaried((m, n), np.int8, out_layout, fill=-99)
    res = gemmkit.gemm_requant(a, b, scale=0.02, zero_point=1, out=out.view)
    assert res is out.view
    assert_requant_exact(out.view, a, b, 0.02, 1)
    assert out.outside_untouched() is None, out.outside_untouched()


@pytest.mark.parametrize("m, n, k", [(0, 5, 3), (5, 0, 3), (4, 3, 0)])
def test_empty_shapes(m, n, k):
    a, b = _operands(1, m, n, k)
    got = gemmkit.gemm_requant(a, b, scale=0.5, zero_point=9,
                               bias=np.arange(n, dtype=np.int32).reshape(1, n))
    assert got.shape == (m, n)
    if k == 0:  # acc = 0: zero point plus the rounded bias
        assert_requant_exact(got, a, b, 0.5, 9, np.arange(n).reshape(1, n))
