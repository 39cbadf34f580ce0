"""API suite with numpy: prepack_rhs and PackedRhs.

gemm(a, prepack_rhs(b)) must equal gemm(a, b) bit for bit for every dtype,
except on the shapes plain gemm routes to the matrix-vector path (a single
row or column: GEMV): floats are compared bitwise outside those and within
tolerance inside them, int8 and requantized products bitwise everywhere (they
are exact).  Every orientation a product may run in (C- or F-order out, few
columns) gives the prepacked bits, complex included.  Also: sharing one
PackedRhs between threads, immutability, attributes, no reference to b, and
every refusal.  Skipped where numpy is missing (the Pyodide run), where
test_api_buffers covers prepacking buffers.
"""

import concurrent.futures
import copy
import gc
import pickle
import weakref

import pytest

np = pytest.importorskip(
    "numpy", reason="numpy is not installed (the numpy-free suite is test_api_buffers)"
)

import gemmkit  # noqa: E402
from apihelpers import (  # noqa: E402
    ALL_DTYPES,
    ML_DTYPES_SKIP,
    NARROW,
    POISON_INT,
    assert_gemm_close,
    assert_int8_exact,
    assert_narrow_close,
    assert_requant_exact,
    np_dtype,
    np_layout,
    rand_int8,
    rand_narrow,
    resolve_dim,
    restore_thread_setting,
    thread_setting,
    tile,
)

# Well past the matrix-vector path (GEMV: m or n == 1) in both dimensions.
BIG = 33


@pytest.fixture(params=ALL_DTYPES)
def dtype(request):
    if request.param == "bfloat16":
        pytest.importorskip("ml_dtypes", reason=ML_DTYPES_SKIP)
    return request.param


def _rand(rng, shape, dtype):
    if dtype == "int8":
        return rand_int8(rng, shape)
    if dtype in NARROW:
        return rand_narrow(rng, shape, dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def _fill(dtype):
    return POISON_INT if dtype == "int8" else None


def _operands(seed, m, n, k, dtype, la="C", lb="C"):
    rng = np.random.default_rng(seed)
    return (np_layout(_rand(rng, (m, k), dtype), la, _fill(dtype)),
            np_layout(_rand(rng, (k, n), dtype), lb, _fill(dtype)))


def _c(seed, m, n, dtype, out_dtype=None):
    rng = np.random.default_rng(seed)
    if dtype == "int8":
        return rng.integers(-10**6, 10**6, (m, n)).astype(np.int32)
    return _rand(rng, (m, n), out_dtype or dtype).astype(out_dtype or np_dtype(dtype))


def _same_bits(x, y):
    x, y = np.asarray(x), np.asarray(y)
    assert x.dtype == y.dtype and x.shape == y.shape
    return np.array_equal(x.view(np.uint8), y.view(np.uint8))


def _close(got, a, b, c=None, alpha=1.0, beta=0.0, dtype="float32"):
    if dtype == "int8":
        assert_int8_exact(got, a, b, c, alpha, beta)
    elif dtype in NARROW:
        assert_narrow_close(got, a, b, c, alpha, beta)
    else:
        assert_gemm_close(got, a, b, c, alpha, beta)


# ---------------------------------------------------------------- bit identity

@pytest.mark.parametrize("m_spec, n_spec, k", [
    ("2r+3", "3r+1", BIG), (BIG, BIG, 300), ("r+1", 2 * BIG, 1025), (3 * BIG, "r", 64)],
    ids=str)
@pytest.mark.parametrize("lb", ["C", "F", "step"])
def test_packed_equals_plain_bitwise(dtype, m_spec, n_spec, k, lb):
    mr, nr = tile(dtype)
    m, n = max(BIG, resolve_dim(m_spec, mr)), max(BIG, resolve_dim(n_spec, nr))
    a, b = _operands(m + n + k, m, n, k, dtype, "F", lb)
    packed = gemmkit.prepack_rhs(b)
    assert _same_bits(gemmkit.gemm(a, packed), gemmkit.gemm(a, b))
    alpha, beta = (3, -2) if dtype == "int8" else (0.75, -1.5)
    c = _c(k, m, n, dtype)
    assert _same_bits(gemmkit.gemm(a, packed, c, alpha=alpha, beta=beta),
                      gemmkit.gemm(a, b, c, alpha=alpha, beta=beta))


def _assert_plain_equals_prepacked(m, n, k, float_dtype, la):
    """gemm(a, b) and gemm(a, prepack_rhs(b)), plain and with alpha/beta on
    a C, give the same bits, and the product is right.  The prepacked call
    runs the main tile: tests of another tile compare with it."""
    a, b = _operands(n + k, m, n, k, float_dtype, la, "C")
    packed = gemmkit.prepack_rhs(b)
    assert _same_bits(gemmkit.gemm(a, packed), gemmkit.gemm(a, b))
    c = _c(n, m, n, float_dtype)
    assert _same_bits(gemmkit.gemm(a, packed, c, alpha=0.75, beta=-1.5),
                      gemmkit.gemm(a, b, c, alpha=0.75, beta=-1.5))
    _close(gemmkit.gemm(a, b), a, b, dtype=float_dtype)


@pytest.mark.parametrize("n", [2, 5, 8, 12, 16])
@pytest.mark.parametrize("la", ["C", "F"])
@pytest.mark.parametrize("float_dtype", ["float32", "float64"])
def test_short_tiles_equal_the_main_tile_bitwise(float_dtype, la, n):
    # A C of at most one register of columns runs, seen transposed, on the
    # short tile (one register of rows, dispatch/gemm-inl.hpp) when B is
    # plain, and on the main tile when it is prepacked (the main tile's
    # layout): the same products in the same order, so the same bits.
    # (m n k above the small-product route's 96^3.)
    m, k = 300, 2000
    _assert_plain_equals_prepacked(m, n, k, float_dtype, la)


@pytest.mark.parametrize("m, n, k", [(300, 401, 1537), (300, 520, 769), (150, 700, 64),
                                     (150, 401, 1537), (40, 520, 769), (16, 401, 300),
                                     (300, 320, 700), (64, 256, 300), (100, 200, 520),
                                     (70, 130, 90), (300, 40, 700), (96, 100, 1537),
                                     (100, 20, 300), (64, 70, 500)])
@pytest.mark.parametrize("la", ["C", "F"])
@pytest.mark.parametrize("float_dtype", ["float32", "float64"])
@pytest.mark.parametrize("threads", [1, 2])
def test_square_and_split_tiles_equal_the_main_tile_bitwise(threads, float_dtype, la, m, n, k):
    # Products large in both dimensions run, seen transposed, on the square
    # tile (avx512f: 3 registers x 8 columns, hand-scheduled depth loops;
    # dispatch/gemm-inl.hpp) when B is plain, and on the main tile when it is
    # prepacked: the same products in the same order, so the same bits.
    # Ragged edges; depths of one and several slices; C^T with 300 columns
    # packs the kernel's B, with at most 256 the driver reads it in place
    # (the second loop), 16 and 40 columns are whole square tiles.  Few
    # rows take the square tile where it pads them no more than the main
    # tile (float32 40 and 70 rows, float64 20, 40 and 70).  On one thread,
    # with A row-major (B's columns in place), rows past the last whole
    # square tile run on the main or the short tile when they fit it
    # (float32 48-row tiles: 200, 256, 320, 401 and 700 rows leave 8, 16,
    # 32, 17 and 28; float64 24-row tiles: 130, 200, 256, 320, 520 and 700
    # leave 10, 8, 16, 8, 16 and 4), and float32 rows past the main tile's
    # last whole 32 on the short tile (100 leaves 4).
    before = thread_setting()
    try:
        gemmkit.set_num_threads(threads)
        _assert_plain_equals_prepacked(m, n, k, float_dtype, la)
    finally:
        restore_thread_setting(before)


@pytest.mark.parametrize("m, n, k", [(600, 16, 3000), (333, 8, 2049), (257, 13, 1537),
                                     (200, 40, 1200), (100, 3, 5000), (90, 70, 1100)])
@pytest.mark.parametrize("float_dtype", ["float32", "float64"])
@pytest.mark.parametrize("threads", [1, 2])
def test_streaming_order_equals_the_slice_order_bitwise(threads, float_dtype, m, n, k):
    # A row-major A is, seen transposed, the kernel's B read in place; under
    # a B^T whose packed slices all fit GEMMKIT_STREAM_B_BYTES the driver
    # runs each panel of it through every depth slice before the next
    # (driver.hpp, work_stream) instead of running the slices outside.  The
    # same slices are summed in the same order, so the bits must not move:
    # plain and prepacked, alpha/beta on a separate C (the first slice reads
    # C, the later ones the output), bias and activation (the last slice
    # only), ragged tiles, several slices, one and two threads.
    a, b = _operands(m + 3 * n + k, m, n, k, float_dtype, "C", "C")
    c = _c(n, m, n, float_dtype)
    bias = _rand(np.random.default_rng(k), (n,), float_dtype)
    packed = gemmkit.prepack_rhs(b)
    forms = {
        "plain": lambda: gemmkit.gemm(a, b),
        "prepacked": lambda: gemmkit.gemm(a, packed),
        "alpha_beta": lambda: gemmkit.gemm(a, b, c, alpha=0.75, beta=-1.5),
        "prepacked_alpha_beta": lambda: gemmkit.gemm(a, packed, c, alpha=0.75, beta=-1.5),
        "bias_relu": lambda: gemmkit.gemm(a, b, c, beta=0.5, bias=bias, activation="relu"),
    }
    before = thread_setting()
    try:
        gemmkit.set_num_threads(threads)
        results = {}
        for limit in (1, 1 << 40):  # never, always (for these shapes)
            gemmkit.tuning.set("GEMMKIT_STREAM_B_BYTES", limit)
            results[limit] = {name: run() for name, run in forms.items()}
    finally:
        gemmkit.tuning.reset("GEMMKIT_STREAM_B_BYTES")
        restore_thread_setting(before)
    for name in forms:
        assert _same_bits(results[1][name], results[1 << 40][name]), name
    _close(results[1 << 40]["plain"], a, b, dtype=float_dtype)
    _close(results[1 << 40]["alpha_beta"], a, b, c, 0.75, -1.5, dtype=float_dtype)


@pytest.mark.parametrize("m, n, k", [(40, 33, 240), (50, 40, 300), (33, 60, 190)])
@pytest.mark.parametrize("float_dtype", ["float32", "float64"])
@pytest.mark.parametrize("threads", [1, 2])
def test_small_products_slice_the_depth_as_the_driver(threads, float_dtype, m, n, k):
    # Products below the small-product route's size (special/small.hpp)
    # skip packing but sum in the driver's depth slices, so they keep the
    # bits of a prepacked call, which runs the driver; GEMMKIT_KC makes the
    # slices shallow on every CPU (several slices here), and the forms
    # cover alpha/beta (the first slice reads C) and bias with activation
    # (the last slice only).
    a, b = _operands(m + 5 * n + k, m, n, k, float_dtype, "C", "C")
    c = _c(m + n, m, n, float_dtype)
    bias = _rand(np.random.default_rng(n), (n,), float_dtype)
    before = thread_setting()
    try:
        gemmkit.set_num_threads(threads)
        gemmkit.tuning.set("GEMMKIT_KC", 64)
        packed = gemmkit.prepack_rhs(b)
        plain = [gemmkit.gemm(a, b), gemmkit.gemm(a, b, c, alpha=0.75, beta=-1.5),
                 gemmkit.gemm(a, b, c, beta=0.5, bias=bias, activation="relu")]
        prepacked = [gemmkit.gemm(a, packed), gemmkit.gemm(a, packed, c, alpha=0.75, beta=-1.5),
                     gemmkit.gemm(a, packed, c, beta=0.5, bias=bias, activation="relu")]
    finally:
        gemmkit.tuning.reset("GEMMKIT_KC")
        restore_thread_setting(before)
    for got, want in zip(plain, prepacked):
        assert _same_bits(got, want)
    _close(plain[0], a, b, dtype=float_dtype)
    _close(plain[1], a, b, c, 0.75, -1.5, dtype=float_dtype)


@pytest.mark.parametrize("m_spec, n, k", [("4r+3", 2, 40), ("4r+3", 7, 300), (70, 50, 300),
                                          ("r+1", 3, 1025)], ids=str)
@pytest.mark.parametrize("dtype_name", ["float32", "float64", "float16", "complex64",
                                        "complex128"])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_output_layout_keeps_the_bits(threads, dtype_name, m_spec, n, k):
    # A row-major C runs transposed (C^T = B^T A^T), a column-major one or
    # one of few columns (many rows: "4r+3") in the user's orientation, and
    # a prepacked B always transposed (dispatch/gemm-inl.hpp).  Complex
    # products add their two imaginary terms in an order that follows the
    # orientation unless the kernel's twin restores it (kernel/complex.hpp):
    # without it, complex F-order and few-column products differed from the
    # prepacked ones in the last bits.
    mr, _ = tile(dtype_name)
    m = resolve_dim(m_spec, mr)
    rng = np.random.default_rng(m + n + k)
    dt = np_dtype(dtype_name)
    cplx = dt.kind == "c"

    def values(shape):
        x = rng.uniform(-1, 1, shape)
        return (x + 1j * rng.uniform(-1, 1, shape) if cplx else x).astype(dt)

    a, b, c = values((m, k)), values((k, n)), values((m, n))
    alpha, beta = (0.5 - 2j, 1 + 1j) if cplx else (0.75, -1.5)
    conj = [{}, {"conj_a": True}] if cplx else [{}]
    before = thread_setting()
    try:
        gemmkit.set_num_threads(threads)
        packed = gemmkit.prepack_rhs(b)
        for flags in conj:
            results = []
            for rhs in (b, packed):
                for order in "CF":
                    out = np.empty((m, n), dt, order=order)
                    gemmkit.gemm(a, rhs, c, alpha=alpha, beta=beta, out=out, **flags)
                    results.append(out)
            for got in results[1:]:
                assert _same_bits(np.ascontiguousarray(got), np.ascontiguousarray(results[0]))
    finally:
        restore_thread_setting(before)
    wide = np.clongdouble if cplx else np.longdouble
    ref = wide(alpha) * np.conj(a).astype(wide) @ b.astype(wide) + wide(beta) * c
    tol = 16 * k * float(np.finfo(np.float32 if dt == np.float16 else dt).eps) + (
        2.0**-10 if dt == np.float16 else 0)
    scale = abs(alpha) * (np.abs(a).astype(np.float64) @ np.abs(b)) + abs(beta) * np.abs(c)
    assert np.all(np.abs(results[0] - ref) <= tol * scale)


@pytest.mark.parametrize("m, n, k", [(200, 1500, 1000), (77, 1301, 2000)])
@pytest.mark.parametrize("float_dtype", ["float32", "float64"])
@pytest.mark.parametrize("threads", [1, 2])
def test_row_major_b_packs_row_by_row_to_the_same_bits(threads, float_dtype, m, n, k):
    # With a column-major C the kernel's B is B itself; a row-major B whose
    # packed block passes half of L2 is packed a row at a time, dealt out to
    # the panels (pack::pack_b's rows_first), a column-major one by its
    # transposing path: the same packed panels, so the same bits.  Ragged
    # last panels; two threads pack a panel range each.
    a, b = _operands(m + n + k, m, n, k, float_dtype, "C", "C")
    b_f = np.asfortranarray(b)
    before = thread_setting()
    try:
        gemmkit.set_num_threads(threads)
        got = np.empty((m, n), float_dtype, order="F")
        want = np.empty((m, n), float_dtype, order="F")
        gemmkit.gemm(a, b, out=got)
        gemmkit.gemm(a, b_f, out=want)
    finally:
        restore_thread_setting(before)
    assert _same_bits(np.ascontiguousarray(got), np.ascontiguousarray(want))
    _close(got, a, b, dtype=float_dtype)


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (1, 40, 50), (40, 1, 50), (2, 3, 4),
                                     (5, 7, 40), (17, 9, 3), (2, 2, 64)])
def test_special_path_shapes_agree(dtype, m, n, k):
    # Plain gemm may take a special path here: bitwise for the exact int8
    # products, within the tolerance formula for floating point.
    a, b = _operands(m * 7 + n + k, m, n, k, dtype, "C", "T")
    packed = gemmkit.prepack_rhs(b)
    got = gemmkit.gemm(a, packed)
    if dtype == "int8":
        assert _same_bits(got, gemmkit.gemm(a, b))
    _close(got, a, b, dtype=dtype)


@pytest.mark.parametrize("la", ["C", "F", "T", "rev_both", "step", "neg_T", "readonly"])
def test_a_layouts(dtype, la):
    a, b = _operands(len(la), BIG + 2, BIG + 4, 70, dtype, la, "C")
    packed = gemmkit.prepack_rhs(b)
    assert _same_bits(gemmkit.gemm(a, packed), gemmkit.gemm(a, b))


@pytest.mark.parametrize("narrow_dtype", NARROW)
def test_packed_f32_twin(narrow_dtype):
    if narrow_dtype == "bfloat16":
        pytest.importorskip("ml_dtypes", reason=ML_DTYPES_SKIP)
    a, b = _operands(5, BIG + 1, BIG + 5, 99, narrow_dtype)
    packed = gemmkit.prepack_rhs(b)
    c = np.random.default_rng(1).uniform(-1, 1, a.shape[:1] + b.shape[1:]).astype(np.float32)
    got = gemmkit.gemm(a, packed, c, beta=1.0, out_dtype=np.float32)
    assert _same_bits(got, gemmkit.gemm(a, b, c, beta=1.0, out_dtype=np.float32))
    out = np.full(c.shape, np.nan, np.float32, order="F")
    assert gemmkit.gemm(a, packed, out=out, out_dtype="float32") is out
    assert_narrow_close(out, a, b)


@pytest.mark.parametrize("m, n, k", [(1, 5, 7), (3, 40, 9), (BIG, BIG, 100), (70, 3, 131073)])
@pytest.mark.parametrize("scale_kind", ["tensor", "row", "col"])
def test_packed_requant_bitwise(m, n, k, scale_kind):
    a, b = _operands(m + k, m, n, k, "int8", "C", "F")
    if k == 131073:  # accumulators past 2^31
        a[:] = -128
        b[:] = -128
    packed = gemmkit.prepack_rhs(b)
    rng = np.random.default_rng(m)
    scale = {"tensor": 2.0**-24 if k > 10**5 else 0.003,
             "row": rng.uniform(1e-3, 1e-2, m).astype(np.float32),
             "col": rng.uniform(1e-3, 1e-2, (1, n)).astype(np.float32)}[scale_kind]
    bias = rng.integers(-1000, 1000, (1, n)).astype(np.int32)
    for out_dtype, zp in (("int8", -5), ("uint8", 130)):
        got = gemmkit.gemm_requant(a, packed, scale=scale, zero_point=zp, bias=bias,
                                   out_dtype=out_dtype)
        assert _same_bits(got, gemmkit.gemm_requant(a, b, scale=scale, zero_point=zp,
                                                    bias=bias, out_dtype=out_dtype))
        assert_requant_exact(got, a, b, scale, zp, bias, out_dtype)


def test_matmul_with_packed():
    a, b = _operands(8, 6, 5, 7, "float64")
    packed = gemmkit.prepack_rhs(b)
    for left in (a, a[0], np.stack([a, 2 * a, -a])):
        got = gemmkit.matmul(left, packed)
        assert got.shape == np.matmul(left, b).shape
        assert_gemm_close(got, left, b)
    a8, b8 = _operands(9, 6, 5, 7, "int8")
    # numpy's int8 result (wrapped); gemm keeps the int32 accumulator.
    assert np.array_equal(gemmkit.matmul(a8, gemmkit.prepack_rhs(b8)), np.matmul(a8, b8))
    assert np.array_equal(gemmkit.gemm(a8, gemmkit.prepack_rhs(b8)),
                          a8.astype(np.int64) @ b8.astype(np.int64))


@pytest.mark.parametrize("m, n, k", [(0, 5, 7), (5, 0, 7), (5, 6, 0)])
def test_empty_shapes(dtype, m, n, k):
    a, b = _operands(3, m, n, k, dtype)
    packed = gemmkit.prepack_rhs(b)
    assert packed.shape == (k, n)
    got = gemmkit.gemm(a, packed)
    assert got.shape == (m, n)
    assert _same_bits(got, gemmkit.gemm(a, b))


# ---------------------------------------------------------------- sharing

@pytest.mark.parametrize("dtype_name", ["float32", "int8"])
def test_one_packed_operand_many_threads(dtype_name):
    # Products large enough to release the GIL, all at once on one PackedRhs.
    m, n, k = 64, 48, 96
    rng = np.random.default_rng(0)
    b = _rand(rng, (k, n), dtype_name)
    packed = gemmkit.prepack_rhs(b)
    lefts = [_rand(rng, (m, k), dtype_name) for _ in range(16)]
    expected = [gemmkit.gemm(x, b) for x in lefts]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(3):
            results = list(pool.map(lambda x: gemmkit.gemm(x, packed), lefts))
            for got, want in zip(results, expected):
                assert _same_bits(got, want)


# ---------------------------------------------------------------- the object

def test_attributes_and_repr(dtype):
    rng = np.random.default_rng(2)
    b = _rand(rng, (37, 29), dtype)
    packed = gemmkit.prepack_rhs(b)
    assert isinstance(packed, gemmkit.PackedRhs)
    assert packed.shape == (37, 29) and packed.ndim == 2
    assert packed.dtype == np_dtype(dtype)
    info = gemmkit.dispatch_info()[dtype]
    assert packed.isa == info["isa"] and packed.kernel == info["kernel"]
    assert packed.nbytes >= 37 * 29 * np_dtype(dtype).itemsize
    text = repr(packed)
    for part in ("PackedRhs", "(37, 29)", dtype, packed.isa, packed.kernel):
        assert part in text, (part, text)


def test_immutable():
    packed = gemmkit.prepack_rhs(np.ones((3, 2)))
    for name in ("shape", "dtype", "isa", "kernel", "nbytes", "_handle", "anything"):
        with pytest.raises(AttributeError):
            setattr(packed, name, 1)
        with pytest.raises(AttributeError):
            delattr(packed, name)
    assert not hasattr(packed, "__dict__")
    with pytest.raises(TypeError):
        gemmkit.PackedRhs()
    with pytest.raises(TypeError):
        pickle.dumps(packed)
    assert copy.copy(packed) is packed and copy.deepcopy(packed) is packed
    assert weakref.ref(packed)() is packed


def test_keeps_no_reference_to_b(dtype):
    rng = np.random.default_rng(3)
    a = _rand(rng, (BIG, 40), dtype)
    b = _rand(rng, (40, BIG), dtype)
    want = gemmkit.gemm(a, b)
    packed = gemmkit.prepack_rhs(b)
    alive = weakref.ref(b)
    b[...] = 0  # later changes to b do not show through
    del b
    gc.collect()
    assert alive() is None, "PackedRhs kept a reference to b"
    assert _same_bits(gemmkit.gemm(a, packed), want)


def test_released_with_its_last_reference():
    packed = gemmkit.prepack_rhs(np.ones((300, 200), np.float32))
    alive = weakref.ref(packed)
    del packed
    gc.collect()
    assert alive() is None


# ---------------------------------------------------------------- refusals

def _raises(cls, words, fn, *args, **kwargs):
    with pytest.raises(cls) as exc:
        fn(*args, **kwargs)
    msg = str(exc.value)
    assert msg.startswith("gemmkit: ") and any(w in msg.lower() for w in words), msg


def test_refusals():
    b32 = np.ones((4, 3), np.float32)
    packed = gemmkit.prepack_rhs(b32)
    # a of another dtype than the packed one
    _raises(gemmkit.DTypeError, ("dtype", "packed"), gemmkit.gemm,
            np.ones((2, 4), np.float64), packed)
    _raises(gemmkit.DTypeError, ("dtype", "packed"), gemmkit.gemm,
            np.ones((2, 4), np.int8), packed)
    # a with another depth than the packed k
    _raises(gemmkit.ShapeError, ("k=4", "shape"), gemmkit.gemm,
            np.ones((2, 5), np.float32), packed)
    _raises(gemmkit.ShapeError, ("2-d", "ndim"), gemmkit.gemm,
            np.ones((4,), np.float32), packed)
    # requant with a float packed operand
    _raises(gemmkit.DTypeError, ("int8",), gemmkit.gemm_requant,
            np.ones((2, 4), np.int8), packed, scale=1.0, zero_point=0)
    # an out of the wrong type
    _raises(gemmkit.DTypeError, ("dtype",), gemmkit.gemm, np.ones((2, 4), np.float32),
            packed, out=np.zeros((2, 3), np.float64))
    _raises(gemmkit.DTypeError, ("dtype", "pair"), gemmkit.gemm,
            np.ones((2, 4), np.float32), packed, out_dtype=np.float16)
    # what cannot be packed
    _raises(gemmkit.DTypeError, ("packedrhs",), gemmkit.prepack_rhs, packed)
    _raises(gemmkit.ShapeError, ("2-d",), gemmkit.prepack_rhs, np.ones(4, np.float32))
    _raises(gemmkit.DTypeError, ("dtype",), gemmkit.prepack_rhs, np.ones((2, 2), np.int32))
    _raises(gemmkit.DTypeError, ("dtype",), gemmkit.prepack_rhs, np.ones((2, 2), np.uint8))


def test_impossibly_large_packed_operand_is_refused():
    # A zero-stride view describes 2^62 elements in one byte: packing it
    # must fail cleanly (WorkspaceError), never overflow a size computation.
    try:
        b = np.broadcast_to(np.ones((1, 1), np.int8), (2**31, 2**31))
    except ValueError:
        pytest.skip("this numpy cannot describe a 2^31 x 2^31 view (32-bit platform)")
    with pytest.raises(gemmkit.WorkspaceError, match="too large"):
        gemmkit.prepack_rhs(b)
