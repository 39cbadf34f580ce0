"""API suite without numpy: gemm/matmul on array.array and memoryview operands.

These run unconditionally (natively and under Pyodide, where numpy is not
installed); the reference is pure Python with exact sums (math.fsum).
"""

from array import array

import pytest

import gemmkit
from apihelpers import (
    DTYPES,
    TYPECODE,
    error_message_ok,
    py_check_gemm,
    py_matrix,
    py_values,
    resolve_dim,
    tile,
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
    ints_b = memoryview(array("q", range(8))).cast("B").cast("q", (4, 2))
    with pytest.raises(gemmkit.DTypeError) as exc:
        gemmkit.gemm(ints, ints_b)
    assert error_message_ok(exc.value, "dtype", "type", "int64", "format") is None, exc.value

    readonly_out = py_matrix("float64", [[0.0, 0.0]] * 3, readonly=True)
    with pytest.raises(gemmkit.LayoutError) as exc:
        gemmkit.gemm(a64, b64, out=readonly_out)
    assert error_message_ok(exc.value, "read-only", "readonly", "writable", "writeable") is None

    wrong_out = py_matrix("float64", [[0.0, 0.0, 0.0]] * 3)
    with pytest.raises(gemmkit.ShapeError) as exc:
        gemmkit.gemm(a64, b64, out=wrong_out)
    assert error_message_ok(exc.value, "shape", "dim", "rows", "cols") is None, exc.value
    assert wrong_out.tolist() == [[0.0, 0.0, 0.0]] * 3  # nothing written on error
