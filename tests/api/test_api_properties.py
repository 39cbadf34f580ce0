"""API suite, property-based: random shapes, strides, alpha, beta and outputs.

Hypothesis draws the cases (a bounded number, no example database written to
disk) around the running kernel's tile, so every draw mixes edge tiles with
arbitrary strides.  float32/float64 within the tolerance formula; int8 and
requantized products bit for bit; float16/bfloat16 (bfloat16 only where
ml_dtypes is installed) within the narrow gates.  Skipped where numpy or
hypothesis is missing.
"""

import pytest

np = pytest.importorskip(
    "numpy", reason="numpy is not installed (the numpy-free suite is test_api_buffers)"
)
hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import gemmkit  # noqa: E402
from apihelpers import (  # noqa: E402
    DTYPES,
    LAYOUTS,
    NARROW,
    POISON_INT,
    Canaried,
    assert_gemm_close,
    assert_int8_exact,
    assert_narrow_close,
    assert_requant_exact,
    np_layout,
    rand,
    rand_int8,
    rand_narrow,
    tile,
)

SETTINGS = settings(max_examples=300, deadline=None, database=None, derandomize=True)

scalars = st.one_of(
    st.sampled_from([0.0, 1.0, -1.0, 0.5, 2.0]),
    st.floats(min_value=-4.0, max_value=4.0, allow_nan=False, width=32),
)


@st.composite
def gemm_cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    mr, nr = tile(dtype)
    m = draw(st.integers(0, 3 * mr + 2))
    n = draw(st.integers(0, 3 * nr + 2))
    k = draw(st.one_of(st.integers(0, 40), st.sampled_from([255, 257, 300])))
    return dict(
        dtype=dtype, m=m, n=n, k=k,
        la=draw(st.sampled_from(LAYOUTS)), lb=draw(st.sampled_from(LAYOUTS)),
        with_c=draw(st.booleans()), alpha=draw(scalars), beta=draw(scalars),
        out=draw(st.sampled_from((None, "c") + Canaried.OUT_LAYOUTS)),
        seed=draw(st.integers(0, 2**32 - 1)),
    )


@SETTINGS
@given(case=gemm_cases())
def test_random_gemm(case):
    dtype, m, n, k = case["dtype"], case["m"], case["n"], case["k"]
    rng = np.random.default_rng(case["seed"])
    a = np_layout(rand(rng, (m, k), dtype), case["la"])
    b = np_layout(rand(rng, (k, n), dtype), case["lb"])
    c0 = rand(rng, (m, n), dtype)
    alpha, beta = case["alpha"], case["beta"]
    if case["out"] == "c":
        c = c0.copy()
        res = gemmkit.gemm(a, b, c, alpha=alpha, beta=beta, out=c)
        assert res is c
        assert_gemm_close(c, a, b, c0, alpha, beta)
        return
    c = c0 if case["with_c"] else None
    eff_beta = beta if case["with_c"] else 0.0
    if case["out"] is None:
        got = gemmkit.gemm(a, b, c, alpha=alpha, beta=beta)
        assert_gemm_close(got, a, b, c, alpha, eff_beta)
    else:
        out = Canaried((m, n), dtype, case["out"])
        res = gemmkit.gemm(a, b, c, alpha=alpha, beta=beta, out=out.view)
        assert res is out.view
        assert_gemm_close(out.view, a, b, c, alpha, eff_beta)
        assert out.outside_untouched() is None, out.outside_untouched()


@SETTINGS
@given(
    batch_a=st.lists(st.integers(1, 3), min_size=0, max_size=2),
    batch_b=st.lists(st.integers(1, 3), min_size=0, max_size=2),
    m=st.integers(1, 9), n=st.integers(1, 9), k=st.integers(0, 9),
    vec_a=st.booleans(), vec_b=st.booleans(), seed=st.integers(0, 2**32 - 1),
)
def test_random_matmul(batch_a, batch_b, m, n, k, vec_a, vec_b, seed):
    # Broadcast-compatible batches: where both have an axis, one of them is 1
    # or they agree.
    la, lb = len(batch_a), len(batch_b)
    for i in range(1, min(la, lb) + 1):
        if batch_a[-i] != batch_b[-i]:
            batch_b[-i] = 1
    shape_a = (k,) if vec_a else tuple(batch_a) + (m, k)
    shape_b = (k,) if vec_b else tuple(batch_b) + (k, n)
    rng = np.random.default_rng(seed)
    a = rand(rng, shape_a, "float64")
    b = rand(rng, shape_b, "float32").astype("float64")
    got = gemmkit.matmul(a, b)
    assert np.shape(got) == np.matmul(a, b).shape
    assert_gemm_close(np.asarray(got), a, b)


# --------------------------------------------------------------------------
# float16 / bfloat16 / int8 / requant (issue #4)

SETTINGS_NEW = settings(max_examples=120, deadline=None, database=None, derandomize=True)


def _narrow_types():
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        return ("float16",)
    return NARROW


@st.composite
def int8_cases(draw):
    mr, nr = tile("int8")
    extreme = draw(st.booleans())  # only -128 and 127: the largest products
    return dict(
        m=draw(st.integers(0, 2 * mr + 2)), n=draw(st.integers(0, 2 * nr + 2)),
        k=draw(st.one_of(st.integers(0, 40), st.sampled_from([255, 257, 1031]))),
        la=draw(st.sampled_from(LAYOUTS)), lb=draw(st.sampled_from(LAYOUTS)),
        alpha=draw(st.integers(-(2**31), 2**31 - 1)), beta=draw(st.integers(-(2**31), 2**31 - 1)),
        with_c=draw(st.booleans()), extreme=extreme, seed=draw(st.integers(0, 2**32 - 1)),
    )


@SETTINGS_NEW
@given(case=int8_cases())
def test_random_int8(case):
    m, n, k = case["m"], case["n"], case["k"]
    rng = np.random.default_rng(case["seed"])
    if case["extreme"]:
        a0 = rng.choice(np.array([-128, 127], np.int8), (m, k))
        b0 = rng.choice(np.array([-128, 127], np.int8), (k, n))
    else:
        a0, b0 = rand_int8(rng, (m, k)), rand_int8(rng, (k, n))
    a = np_layout(a0, case["la"], fill=POISON_INT)
    b = np_layout(b0, case["lb"], fill=POISON_INT)
    c = rng.integers(-(2**31), 2**31, (m, n)).astype(np.int32) if case["with_c"] else None
    got = gemmkit.gemm(a, b, c, alpha=case["alpha"], beta=case["beta"])
    assert_int8_exact(got, a, b, c, case["alpha"], case["beta"] if c is not None else 0)


@st.composite
def requant_cases(draw):
    mr, nr = tile("int8")
    m = draw(st.integers(1, 2 * mr + 2))
    n = draw(st.integers(1, 2 * nr + 2))
    # Scales from ties-friendly powers of two to arbitrary float32 values,
    # all >= 2^-20 (see test_api_requant for why that bound).
    scale = st.one_of(st.sampled_from([2.0**-e for e in range(0, 21)]),
                      st.floats(2.0**-20, 4.0, width=32))
    kind = draw(st.sampled_from(["tensor", "row", "col"]))
    if kind == "tensor":
        scales = draw(scale)
    else:
        length = m if kind == "row" else n
        scales = np.array(draw(st.lists(scale, min_size=length, max_size=length)), np.float32)
        scales = scales if kind == "row" else scales.reshape(1, n)
    bias_kind = draw(st.sampled_from(["none", "row", "col"]))
    bias = None
    if bias_kind != "none":
        length = m if bias_kind == "row" else n
        bias = np.array(draw(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=length,
                                      max_size=length)), np.int32)
        bias = bias if bias_kind == "row" else bias.reshape(1, n)
    out_dtype = draw(st.sampled_from(["int8", "uint8"]))
    lo, hi = (-128, 127) if out_dtype == "int8" else (0, 255)
    return dict(m=m, n=n, k=draw(st.one_of(st.integers(0, 24), st.sampled_from([64, 300]))),
                scale=scales, bias=bias, out_dtype=out_dtype,
                zp=draw(st.integers(lo, hi)), la=draw(st.sampled_from(LAYOUTS)),
                seed=draw(st.integers(0, 2**32 - 1)))


@SETTINGS_NEW
@given(case=requant_cases())
def test_random_requant(case):
    m, n, k = case["m"], case["n"], case["k"]
    rng = np.random.default_rng(case["seed"])
    a = np_layout(rand_int8(rng, (m, k)), case["la"], fill=POISON_INT)
    b = rand_int8(rng, (k, n))
    got = gemmkit.gemm_requant(a, b, scale=case["scale"], zero_point=case["zp"],
                               bias=case["bias"], out_dtype=case["out_dtype"])
    assert_requant_exact(got, a, b, case["scale"], case["zp"], case["bias"], case["out_dtype"])


@st.composite
def narrow_cases(draw):
    dtype = draw(st.sampled_from(_narrow_types()))
    mr, nr = tile(dtype)
    return dict(
        dtype=dtype, m=draw(st.integers(0, 2 * mr + 2)), n=draw(st.integers(0, 2 * nr + 2)),
        k=draw(st.one_of(st.integers(0, 40), st.sampled_from([255, 257, 600]))),
        la=draw(st.sampled_from(LAYOUTS)), lb=draw(st.sampled_from(LAYOUTS)),
        twin=draw(st.booleans()), with_c=draw(st.booleans()), alpha=draw(scalars),
        beta=draw(scalars), seed=draw(st.integers(0, 2**32 - 1)),
    )


@SETTINGS_NEW
@given(case=narrow_cases())
def test_random_narrow(case):
    dtype, m, n, k = case["dtype"], case["m"], case["n"], case["k"]
    rng = np.random.default_rng(case["seed"])
    a = np_layout(rand_narrow(rng, (m, k), dtype), case["la"])
    b = np_layout(rand_narrow(rng, (k, n), dtype), case["lb"])
    c = None
    if case["with_c"]:
        c = rand_narrow(rng, (m, n), dtype)
        if case["twin"]:
            c = c.astype(np.float32)
    got = gemmkit.gemm(a, b, c, alpha=case["alpha"], beta=case["beta"],
                       out_dtype=np.float32 if case["twin"] else None)
    assert got.dtype == (np.float32 if case["twin"] else a.dtype)
    assert_narrow_close(got, a, b, c, case["alpha"], case["beta"] if c is not None else 0.0)
