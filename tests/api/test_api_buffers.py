"""API suite without numpy: gemm/matmul on array.array and memoryview operands.

These run unconditionally (natively and under Pyodide, where numpy is not
installed); the reference is pure Python with exact sums (math.fsum).
"""

import math
import struct
import sys
from array import array

import pytest

import gemmkit
from apihelpers import (
    DTYPES,
    INT32_MAX,
    INT32_MIN,
    TYPECODE,
    error_message_ok,
    f32,
    py_check_gemm,
    py_matrix,
    py_values,
    requant_exact,
    resolve_dim,
    tile,
    wrap32,
)

NAN = float("nan")


def _rows(result):
    rows = result.tolist()
    assert isinstance(rows, list)
    return rows


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "m, n, k",
    [(1, 1, 1), (1, 5, 3), (4, 1, 6), (3, 5, 7), ("r+1", "r-1", 17), ("2r+1", 3, 2), (2, 3, 257)],
)
def test_gemm_buffers(dtype, m, n, k):
    mr, nr = tile(dtype)
    m, n, k = resolve_dim(m, mr), resolve_dim(n, nr), resolve_dim(k, 1)
    a = py_values(1, m, k)
    b = py_values(2, k, n)
    got = gemmkit.gemm(py_matrix(dtype, a), py_matrix(dtype, b))
    assert tuple(got.shape) == (m, n)
    msg = py_check_gemm(dtype, _rows(got), a, b)
    assert msg is None, msg


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (-0.5, 2.0), (0.3, -1.25), (2.0, 0.0)])
def test_gemm_buffers_alpha_beta(dtype, alpha, beta):
    m, n, k = 5, 7, 9
    a, b, c = py_values(3, m, k), py_values(4, k, n), py_values(5, m, n)
    got = gemmkit.gemm(py_matrix(dtype, a), py_matrix(dtype, b), py_matrix(dtype, c),
                       alpha=alpha, beta=beta)
    msg = py_check_gemm(dtype, _rows(got), a, b, c, alpha, beta)
    assert msg is None, msg


@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_buffers_out(dtype):
    m, n, k = 6, 5, 4
    a, b = py_values(6, m, k), py_values(7, k, n)
    out_store = array(TYPECODE[dtype], [NAN] * (m * n))
    out = memoryview(out_store).cast("B").cast(TYPECODE[dtype], (m, n))
    gemmkit.gemm(py_matrix(dtype, a), py_matrix(dtype, b), alpha=1.5, out=out)
    got = [list(out_store[i * n:(i + 1) * n]) for i in range(m)]
    msg = py_check_gemm(dtype, got, a, b, None, 1.5)
    assert msg is None, msg


@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_buffers_in_place(dtype):
    # out=c: an in-place update C <- alpha*A@B + beta*C.
    m, n, k = 6, 5, 4
    a, b, c = py_values(6, m, k), py_values(7, k, n), py_values(8, m, n)
    c_view = py_matrix(dtype, c)
    gemmkit.gemm(py_matrix(dtype, a), py_matrix(dtype, b), c_view, beta=-0.5, out=c_view)
    msg = py_check_gemm(dtype, c_view.tolist(), a, b, c, 1.0, -0.5)
    assert msg is None, msg


@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_buffers_returns_out(dtype):
    # Like numpy's out=, the object passed as out is what comes back.
    out = py_matrix(dtype, [[NAN] * 2] * 3)
    res = gemmkit.gemm(py_matrix(dtype, py_values(1, 3, 4)), py_matrix(dtype, py_values(2, 4, 2)),
                       out=out)
    assert res is out, f"gemm(out=memoryview) returned a {type(res).__name__}, not out itself"


@pytest.mark.parametrize("dtype", DTYPES)
def test_gemm_buffers_readonly_inputs(dtype):
    a, b = py_values(9, 3, 4), py_values(10, 4, 2)
    ra, rb = py_matrix(dtype, a, readonly=True), py_matrix(dtype, b, readonly=True)
    assert ra.readonly and rb.readonly
    msg = py_check_gemm(dtype, _rows(gemmkit.gemm(ra, rb)), a, b)
    assert msg is None, msg


@pytest.mark.parametrize("dtype", DTYPES)
def test_beta_zero_never_reads_c(dtype):
    m, n, k = 5, 3, 4
    a, b = py_values(11, m, k), py_values(12, k, n)
    for poison in (NAN, float("inf")):
        c = [[poison] * n for _ in range(m)]
        got = gemmkit.gemm(py_matrix(dtype, a), py_matrix(dtype, b), py_matrix(dtype, c), beta=0.0)
        msg = py_check_gemm(dtype, _rows(got), a, b)
        assert msg is None, msg


@pytest.mark.parametrize("dtype", DTYPES)
def test_alpha_zero_never_reads_a_b(dtype):
    m, n, k = 4, 3, 5
    a = [[NAN] * k for _ in range(m)]
    b = [[float("inf")] * n for _ in range(k)]
    c = py_values(13, m, n)
    got = _rows(gemmkit.gemm(py_matrix(dtype, a), py_matrix(dtype, b), py_matrix(dtype, c),
                             alpha=0.0, beta=2.0))
    assert got == [[2.0 * v for v in row] for row in c]  # 2*c is exact


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_buffers(dtype):
    a, b = py_values(14, 3, 5), py_values(15, 5, 4)
    got = gemmkit.matmul(py_matrix(dtype, a), py_matrix(dtype, b))
    msg = py_check_gemm(dtype, _rows(got), a, b)
    assert msg is None, msg


def test_buffer_errors():
    a32 = py_matrix("float32", py_values(1, 3, 4))
    a64 = py_matrix("float64", py_values(1, 3, 4))
    b64 = py_matrix("float64", py_values(2, 4, 2))
    bad_k = py_matrix("float64", py_values(3, 5, 2))

    with pytest.raises(gemmkit.ShapeError) as exc:
        gemmkit.gemm(a64, bad_k)
    assert isinstance(exc.value, ValueError)
    assert error_message_ok(exc.value, "shape", "dim", "rows", "cols") is None, exc.value

    with pytest.raises(gemmkit.DTypeError) as exc:
        gemmkit.gemm(a32, b64)
    assert isinstance(exc.value, TypeError)
    assert error_message_ok(exc.value, "dtype", "type") is None, exc.value

    ints = memoryview(array("q", range(12))).cast("B").cast("q", (3, 4))
    ints_b = memoryview(array("i", range(8))).cast("B").cast("i", (4, 2))
    with pytest.raises(gemmkit.DTypeError) as exc:
        gemmkit.gemm(ints, ints_b)
    assert error_message_ok(exc.value, "dtype", "type", "int64", "int32") is None, exc.value

    readonly_out = py_matrix("float64", [[0.0, 0.0]] * 3, readonly=True)
    with pytest.raises(gemmkit.LayoutError) as exc:
        gemmkit.gemm(a64, b64, out=readonly_out)
    assert error_message_ok(exc.value, "read-only", "readonly", "writable", "writeable") is None

    wrong_out = py_matrix("float64", [[0.0, 0.0, 0.0]] * 3)
    with pytest.raises(gemmkit.ShapeError) as exc:
        gemmkit.gemm(a64, b64, out=wrong_out)
    assert error_message_ok(exc.value, "shape", "dim", "rows", "cols") is None, exc.value
    assert wrong_out.tolist() == [[0.0, 0.0, 0.0]] * 3  # nothing written on error


# --------------------------------------------------------------------------
# float16, int8, requantization and prepacking on plain buffers: format 'b'
# (int8), 'i' (int32), 'B' (uint8), 'e' (float16).  bfloat16 has no buffer
# format (it needs numpy and ml_dtypes): test_api_mixed covers it.

def _buffer(code, rows, readonly=False):
    m = len(rows)
    n = len(rows[0]) if m else 0
    flat = array(code, [v for row in rows for v in row])
    return memoryview(bytes(flat) if readonly else flat).cast("B").cast(code, (m, n))


def _int_values(seed, m, n, low=-128, high=127):
    state = seed * 2654435761 % 2**32 or 1
    rows = []
    for _ in range(m):
        row = []
        for _ in range(n):
            state = (1103515245 * state + 12345) % 2**31
            row.append(low + (state >> 8) % (high - low + 1))
        rows.append(row)
    return rows


def _py_int8(a, b, c=None, alpha=1, beta=0):
    k = len(b)
    return [[wrap32(alpha * sum(a[i][p] * b[p][j] for p in range(k))
                    + (beta * c[i][j] if c is not None else 0))
             for j in range(len(b[0]))] for i in range(len(a))]


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (3, 5, 7), ("r+1", "r-1", 17), (2, 3, 33)])
def test_int8_buffers(m, n, k):
    mr, nr = tile("int8")
    m, n = resolve_dim(m, mr), resolve_dim(n, nr)
    a, b = _int_values(1, m, k), _int_values(2, k, n)
    got = gemmkit.gemm(_buffer("b", a), _buffer("b", b, readonly=True))
    assert tuple(got.shape) == (m, n)
    assert getattr(got, "format", "i") in ("i", "<i", "l")  # int32 ('l' on wasm32 numpy)
    assert _rows(got) == _py_int8(a, b)
    # matmul is numpy's: an int8 result, the int32 sums wrapped to 8 bits.
    wrapped = [[(v + 128) % 256 - 128 for v in row] for row in _py_int8(a, b)]
    assert _rows(gemmkit.matmul(_buffer("b", a), _buffer("b", b))) == wrapped


def test_int8_buffers_wrap_and_in_place():
    # -128 * -128 summed 131073 times: 2^31 + 2^14 wraps to -2^31 + 2^14.
    k = 131073
    a = memoryview(array("b", [-128] * (2 * k))).cast("B").cast("b", (2, k))
    b = memoryview(array("b", [-128] * k)).cast("B").cast("b", (k, 1))
    assert _rows(gemmkit.gemm(a, b)) == [[INT32_MIN + 2**14]] * 2
    # alpha and beta wrap too; out=c updates c in place.
    x, y = _int_values(3, 4, 6), _int_values(4, 6, 5)
    c = _int_values(5, 4, 5, INT32_MIN, INT32_MAX)
    c_view = _buffer("i", c)
    res = gemmkit.gemm(_buffer("b", x), _buffer("b", y), c_view, alpha=INT32_MAX, beta=-3,
                       out=c_view)
    assert res is c_view
    assert c_view.tolist() == _py_int8(x, y, c, INT32_MAX, -3)


@pytest.mark.parametrize("out_dtype", ["int8", "uint8"])
def test_requant_buffers(out_dtype):
    lo, hi = {"int8": (-128, 127), "uint8": (0, 255)}[out_dtype]
    m, n, k = 4, 6, 9
    a, b = _int_values(6, m, k), _int_values(7, k, n)
    acc = _py_int8(a, b)
    zp = 3 if out_dtype == "int8" else 130
    cases = [
        (0.5, None, lambda i, j: 0.5, lambda i, j: 0),  # ties
        ([0.001, 0.25, 0.0078125, 1.0], [10, -20, 30, INT32_MAX],
         lambda i, j: [0.001, 0.25, 0.0078125, 1.0][i], lambda i, j: [10, -20, 30, INT32_MAX][i]),
        (_buffer("f", [[0.003 * (j + 1) for j in range(n)]]), _buffer("i", [list(range(n))]),
         lambda i, j: 0.003 * (j + 1), lambda i, j: j),
    ]
    for scale, bias, scale_of, bias_of in cases:
        got = gemmkit.gemm_requant(_buffer("b", a), _buffer("b", b), scale=scale,
                                   zero_point=zp, bias=bias, out_dtype=out_dtype)
        want = [[requant_exact(wrap32(acc[i][j] + bias_of(i, j)), f32(scale_of(i, j)), zp,
                               lo, hi) for j in range(n)] for i in range(m)]
        assert _rows(got) == want, (scale, bias)


@pytest.mark.skipif(sys.version_info < (3, 12),
                    reason="memoryview.cast('e') (float16 buffers) needs Python 3.12")
def test_float16_buffers():
    m, n, k = 5, 7, 12
    a_vals, b_vals = py_values(1, m, k), py_values(2, k, n)
    a16 = [[_to_f16(v) for v in row] for row in a_vals]
    b16 = [[_to_f16(v) for v in row] for row in b_vals]
    a = memoryview(b"".join(struct.pack("e", v) for row in a16 for v in row)).cast("e", (m, k))
    b = memoryview(b"".join(struct.pack("e", v) for row in b16 for v in row)).cast("e", (k, n))
    for out_dtype, out_eps in ((None, 2.0**-10), ("float32", 0.0)):
        got = _rows(gemmkit.gemm(a, b, out_dtype=out_dtype))
        for i in range(m):
            for j in range(n):
                terms = [a16[i][p] * b16[p][j] for p in range(k)]
                ref = math.fsum(terms)
                tol = 2 * (k + 2) * 2.0**-24 * math.fsum(abs(t) for t in terms) + out_eps * abs(
                    ref) + 2.0**-24
                assert abs(got[i][j] - ref) <= tol, (i, j, got[i][j], ref, out_dtype)


def _to_f16(x):
    return struct.unpack("e", struct.pack("e", x))[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_streaming_order_buffers(dtype):
    # The driver's streaming order for an operand read in place (driver.hpp,
    # work_stream; test_api_prepack compares it on numpy arrays) in every
    # build, the WebAssembly ones included: through GEMMKIT_STREAM_B_BYTES,
    # never (1) and always (2^40), the same bits.  A row-major A of 90 rows
    # is, seen transposed, read in place under a B^T of 5 rows, 2100 deep:
    # several depth slices in every build.
    m, n, k = 90, 5, 2100  # above the small-product route (96^3 of work)
    a, b, c = py_values(11, m, k), py_values(12, k, n), py_values(13, m, n)
    a_buf, b_buf, c_buf = py_matrix(dtype, a), py_matrix(dtype, b), py_matrix(dtype, c)
    packed = gemmkit.prepack_rhs(b_buf)
    got = {}
    try:
        for limit in (1, 1 << 40):
            gemmkit.tuning.set("GEMMKIT_STREAM_B_BYTES", limit)
            got[limit] = [_rows(gemmkit.gemm(a_buf, b_buf)), _rows(gemmkit.gemm(a_buf, packed)),
                          _rows(gemmkit.gemm(a_buf, b_buf, c_buf, alpha=0.75, beta=-1.5))]
    finally:
        gemmkit.tuning.reset("GEMMKIT_STREAM_B_BYTES")
    assert got[1] == got[1 << 40]
    msg = py_check_gemm(dtype, got[1 << 40][2], a, b, c, 0.75, -1.5)
    assert msg is None, msg


@pytest.mark.parametrize("dtype", ["int8", "float32"])
def test_prepack_buffers(dtype):
    # Small integers: every result is exact, so packed and plain agree on
    # every path.
    m, n, k = 6, 5, 40
    code = "b" if dtype == "int8" else "f"
    a, b = _int_values(8, m, k, -9, 9), _int_values(9, k, n, -9, 9)
    packed = gemmkit.prepack_rhs(_buffer(code, b))
    assert packed.shape == (k, n) and str(packed.dtype) == dtype
    assert packed.kernel == gemmkit.dispatch_info()[dtype]["kernel"]
    want = _rows(gemmkit.gemm(_buffer(code, a), _buffer(code, b)))
    assert _rows(gemmkit.gemm(_buffer(code, a), packed)) == want
    assert want == [[float(v) if dtype == "float32" else v for v in row]
                    for row in _py_int8(a, b)]
    if dtype == "int8":
        got = gemmkit.gemm_requant(_buffer("b", a), packed, scale=0.25, zero_point=-1)
        assert _rows(got) == [[requant_exact(v, 0.25, -1, -128, 127) for v in row]
                              for row in _py_int8(a, b)]
    else:
        with pytest.raises(gemmkit.DTypeError):
            gemmkit.gemm_requant(_buffer("b", a), packed, scale=0.25, zero_point=-1)
    with pytest.raises(gemmkit.ShapeError):
        gemmkit.gemm(_buffer(code, _int_values(1, 2, k + 1)), packed)


def test_new_type_buffer_errors():
    a8 = _buffer("b", _int_values(1, 3, 4))
    b8 = _buffer("b", _int_values(2, 4, 2))
    b32 = py_matrix("float32", py_values(2, 4, 2))

    def check(cls, words, fn, *args, **kwargs):
        with pytest.raises(cls) as exc:
            fn(*args, **kwargs)
        assert error_message_ok(exc.value, *words) is None, exc.value

    check(gemmkit.DTypeError, ("dtype",), gemmkit.gemm, a8, b32)
    check(gemmkit.DTypeError, ("dtype", "pair"), gemmkit.gemm, a8, b8, out_dtype="int16")
    check(gemmkit.DTypeError, ("dtype",), gemmkit.gemm, a8, b8, out=_buffer("b", [[0, 0]] * 3))
    check(gemmkit.ArgumentError, ("alpha",), gemmkit.gemm, a8, b8, alpha=0.5)
    for scale in (0.0, -1.0, float("nan"), float("inf"), [0.5, 0.0, 0.5]):
        check(gemmkit.ArgumentError, ("scale",), gemmkit.gemm_requant, a8, b8, scale=scale,
              zero_point=0)
    check(gemmkit.ShapeError, ("scale",), gemmkit.gemm_requant, a8, b8, scale=[0.5, 0.5],
          zero_point=0)
    check(gemmkit.ArgumentError, ("zero_point",), gemmkit.gemm_requant, a8, b8, scale=0.5,
          zero_point=300, out_dtype="uint8")
    check(gemmkit.ShapeError, ("bias",), gemmkit.gemm_requant, a8, b8, scale=0.5,
          zero_point=0, bias=[1, 2])
    check(gemmkit.DTypeError, ("bias",), gemmkit.gemm_requant, a8, b8, scale=0.5,
          zero_point=0, bias=[1.0, 2.0, 3.0])
    check(gemmkit.DTypeError, ("bias", "int32"), gemmkit.gemm_requant, a8, b8, scale=0.5,
          zero_point=0, bias=[1, 2**31, 3])
    check(gemmkit.DTypeError, ("int8", "uint8"), gemmkit.gemm_requant, a8, b8, scale=0.5,
          zero_point=0, out_dtype="int32")
