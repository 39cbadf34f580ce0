"""API suite, property-based: random shapes, strides, alpha, beta and outputs.

Hypothesis draws the cases (a bounded number, no example database written to
disk) around the running kernel's tile, so every draw mixes edge tiles with
arbitrary strides.  Skipped where numpy or hypothesis is missing.
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
    Canaried,
    assert_gemm_close,
    np_layout,
    rand,
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
