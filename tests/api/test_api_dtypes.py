"""API suite: every integer dtype, bool and complex (natively and under
Pyodide).

Integers and bool first without numpy (array.array buffers, so the Pyodide
run covers them): each format numpy's integer dtypes export, checked bit for
bit against exact Python integers wrapped to the result type at the end,
over shapes that cross the kernel's tile edges and depths that wrap every
width.  Then, with numpy: complex64/complex128 against clongdouble
(complex alpha and beta, conj_a/conj_b, the bias epilogue, prepacked and
batched operands), numpy's type promotion of mixed pairs, the dtypes
delegated to numpy.matmul, and the refusals.
"""

import random
from array import array

import gemmkit
import pytest
from apihelpers import error_message_ok

# struct format -> (gemmkit dtype, bits, signed); numpy's int64 exports 'l'
# natively and 'q' through array.array, both accepted.
FORMATS = {"b": ("int8", 8, True), "B": ("uint8", 8, False), "h": ("int16", 16, True),
           "H": ("uint16", 16, False), "i": ("int32", 32, True), "I": ("uint32", 32, False),
           "q": ("int64", 64, True), "Q": ("uint64", 64, False)}
SHAPES = [(1, 1, 1), (2, 3, 5), (7, 64, 3), (17, 37, 13), (33, 130, 25)]


def wrap(value, bits, signed):
    value %= 2**bits
    return value - 2**bits if signed and value >= 2 ** (bits - 1) else value


def values(seed, m, n, bits, signed):
    rnd = random.Random(seed)
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    edges = [lo, hi, lo + 1, hi - 1, 0, 1, -1 if signed else 2]
    return [[rnd.choice(edges) if rnd.random() < 0.2 else rnd.randint(lo, hi) for _ in range(n)]
            for _ in range(m)]


def buffer(code, rows):
    m, n = len(rows), len(rows[0]) if rows else 0
    return memoryview(array(code, [v for row in rows for v in row])).cast("B").cast(code, (m, n))


def exact(a, b, c=None, alpha=1, beta=0):
    k = len(b)
    return [[alpha * sum(a[i][p] * b[p][j] for p in range(k)) + (beta * c[i][j] if c else 0)
             for j in range(len(b[0]))] for i in range(len(a))]


@pytest.mark.parametrize("code", FORMATS)
@pytest.mark.parametrize("m, k, n", SHAPES)
def test_integer_matmul_wraps_like_numpy(code, m, k, n):
    _, bits, signed = FORMATS[code]
    a, b = values(m * 31 + k, m, k, bits, signed), values(n * 17 + k, k, n, bits, signed)
    got = gemmkit.matmul(buffer(code, a), buffer(code, b))
    ref = [[wrap(v, bits, signed) for v in row] for row in exact(a, b)]
    assert got.tolist() == ref


@pytest.mark.parametrize("code", FORMATS)
@pytest.mark.parametrize("alpha, beta", [(1, 1), (-3, 2), (2**40 + 7, -1)])
def test_integer_gemm_alpha_beta_in_place(code, alpha, beta):
    name, bits, signed = FORMATS[code]
    m, k, n = 9, 21, 14
    a, b = values(1, m, k, bits, signed), values(2, k, n, bits, signed)
    c = values(3, m, n, bits, signed)
    out = buffer(code, c)
    res = gemmkit.gemm(buffer(code, a), buffer(code, b), out, alpha=alpha, beta=beta, out=out,
                       out_dtype="int8" if name == "int8" else None)
    assert res is out
    ref = [[wrap(v, bits, signed) for v in row] for row in exact(a, b, c, alpha, beta)]
    assert out.tolist() == ref


def test_integer_depth_that_wraps_every_width():
    # 5000 products of max * max: far past every width.
    for code, (name, bits, signed) in FORMATS.items():
        top = 2 ** (bits - 1) - 1 if signed else 2**bits - 1
        k = 5000
        a = buffer(code, [[top] * k])
        b = buffer(code, [[top]] * k)
        got = gemmkit.matmul(a, b).tolist()
        assert got == [[wrap(k * top * top, bits, signed)]], name


def test_bool_buffers_are_or_of_ands():
    rnd = random.Random(5)
    m, k, n = 19, 70, 11
    a = [[rnd.random() < 0.05 for _ in range(k)] for _ in range(m)]
    b = [[rnd.random() < 0.05 for _ in range(n)] for _ in range(k)]
    raw_a = bytearray(int(v) * rnd.choice((1, 2, 255)) for row in a for v in row)  # any nonzero
    raw_b = bytearray(int(v) for row in b for v in row)
    va = memoryview(raw_a).cast("?", (m, k))
    vb = memoryview(raw_b).cast("?", (k, n))
    got = gemmkit.matmul(va, vb)
    ref = [[any(a[i][p] and b[p][j] for p in range(k)) for j in range(n)] for i in range(m)]
    assert got.tolist() == ref
    assert set(bytes(memoryview(got).cast("B"))) <= {0, 1}  # stored as numpy's bools


def test_integer_and_bool_refusals():
    a16, b16 = buffer("h", [[1, 2]]), buffer("h", [[3], [4]])
    checks = [
        (gemmkit.ArgumentError, ("alpha",), {"alpha": 0.5}),
        (gemmkit.ArgumentError, ("beta", "2**53"), {"beta": 2**60 + 1}),
        (gemmkit.DTypeError, ("epilogue", "int16"), {"activation": "relu"}),
        (gemmkit.ArgumentError, ("conj_a",), {"conj_a": 1}),
    ]
    for cls, words, kwargs in checks:
        with pytest.raises(cls) as exc:
            gemmkit.gemm(a16, b16, **kwargs)
        assert error_message_ok(exc.value, *words) is None, exc.value
    t = memoryview(bytearray([1, 0])).cast("?", (1, 2))
    f = memoryview(bytearray([1, 1])).cast("?", (2, 1))
    with pytest.raises(gemmkit.ArgumentError) as exc:
        gemmkit.gemm(t, f, alpha=2)
    assert error_message_ok(exc.value, "bool", "alpha") is None, exc.value


# ---------------------------------------------------------------- numpy

def _np():
    return pytest.importorskip("numpy", reason="numpy is not installed")


def _complex(np, rng, shape, dtype):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


def _assert_complex_close(np, got, ref, a, b, c=None, alpha=1, beta=0):
    eps = float(np.finfo(got.dtype).eps)
    k = a.shape[-1]
    scale = abs(alpha) * (np.abs(a).astype(np.longdouble) @ np.abs(b))
    if c is not None:
        scale = scale + abs(beta) * np.abs(c)
    err = np.abs(got.astype(np.clongdouble) - ref)
    assert (err <= 16 * (k + 2) * eps * scale + 1e-300).all(), float(err.max())


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("conj_a, conj_b", [(False, False), (True, False), (False, True),
                                            (True, True)])
def test_complex_gemm_conj_alpha_beta(dtype, conj_a, conj_b):
    np = _np()
    rng = np.random.default_rng(7)
    m, k, n = 45, 67, 29
    a, b, c = (_complex(np, rng, s, dtype) for s in ((m, k), (k, n), (m, n)))
    alpha, beta = 0.5 - 2j, 1 + 1j
    got = gemmkit.gemm(a.T.copy().T, b[::-1][::-1], c, alpha=alpha, beta=beta, conj_a=conj_a,
                       conj_b=conj_b)
    wide = np.clongdouble
    ra = (np.conj(a) if conj_a else a).astype(wide)
    rb = (np.conj(b) if conj_b else b).astype(wide)
    assert got.dtype == np.dtype(dtype)
    _assert_complex_close(np, got, wide(alpha) * (ra @ rb) + wide(beta) * c, a, b, c, alpha, beta)


def test_conj_a_is_vdot():
    np = _np()
    rng = np.random.default_rng(8)
    x, y = _complex(np, rng, (1, 300), "complex128"), _complex(np, rng, (300, 1), "complex128")
    got = gemmkit.gemm(x, y, conj_a=True)[0, 0]
    assert abs(got - np.vdot(x, y)) <= 1e-12 * np.sum(np.abs(x) * np.abs(y.T))


def test_complex_matmul_batched_packed_and_bias():
    np = _np()
    rng = np.random.default_rng(9)
    a = _complex(np, rng, (4, 20, 33), "complex64")
    b = _complex(np, rng, (33, 17), "complex64")
    ref = a.astype(np.clongdouble) @ b
    _assert_complex_close(np, gemmkit.matmul(a, b), ref, a, b)
    _assert_complex_close(np, gemmkit.matmul(a, gemmkit.prepack_rhs(b)), ref, a, b)
    bias = _complex(np, rng, (17,), "complex64")
    got = gemmkit.gemm(a[0], b, bias=bias)
    _assert_complex_close(np, got, ref[0] + bias, a[0], b, np.ones((1, 17)), 1, 1)
    with pytest.raises(gemmkit.DTypeError) as exc:
        gemmkit.gemm(a[0], b, activation="relu")
    assert error_message_ok(exc.value, "activation", "complex") is None, exc.value
    with pytest.raises(gemmkit.ArgumentError) as exc:
        gemmkit.gemm(a[0], gemmkit.prepack_rhs(b), conj_b=True)
    assert error_message_ok(exc.value, "conj_b", "packed") is None, exc.value
    with pytest.raises(gemmkit.ArgumentError) as exc:
        gemmkit.gemm(a[0].real.copy(), b.real.copy(), alpha=1j)
    assert error_message_ok(exc.value, "imaginary", "real number") is None, exc.value


@pytest.mark.parametrize("da, db", [("int32", "int64"), ("float32", "int64"), ("uint8", "int8"),
                                    ("bool", "int16"), ("complex64", "float64"),
                                    ("uint64", "int64"), ("float16", "int8")])
def test_mixed_pairs_follow_numpy_promotion(da, db):
    np = _np()
    rng = np.random.default_rng(10)
    a = rng.integers(-50, 50, (6, 9)).astype(da)
    b = rng.integers(-50, 50, (9, 4)).astype(db)
    got, ref = gemmkit.matmul(a, b), np.matmul(a, b)
    assert got.dtype == ref.dtype
    assert np.array_equal(got, ref) if ref.dtype.kind in "iub" else np.allclose(got, ref)


@pytest.mark.parametrize("dtype", ["object", "longdouble", "clongdouble"])
def test_delegated_dtypes_are_numpys(dtype):
    np = _np()
    a = (np.arange(12).reshape(3, 4) - 5).astype(dtype)
    b = (np.arange(8).reshape(4, 2) * 3).astype(dtype)
    got = gemmkit.matmul(a, b)
    assert got.dtype == np.dtype(dtype) and np.array_equal(got, np.matmul(a, b))
    with pytest.raises(gemmkit.DTypeError):  # gemm is strict: no kernel, no delegation
        gemmkit.gemm(a, b)


def test_uint64_and_int64_full_range_against_python_integers():
    np = _np()
    rng = np.random.default_rng(11)
    for dtype in ("uint64", "int64"):
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, (13, 40), dtype=dtype, endpoint=True)
        b = rng.integers(info.min, info.max, (40, 7), dtype=dtype, endpoint=True)
        ref = a.astype(object) @ b.astype(object)
        want = np.array([[wrap(int(v), 64, dtype == "int64") for v in row] for row in ref],
                        dtype=dtype)
        assert np.array_equal(gemmkit.matmul(a, b), want)
