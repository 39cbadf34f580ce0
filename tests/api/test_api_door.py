"""API suite without numpy: the front door's one catalogue of messages.

Every check lives in the C++ core, so the same bad input gives the same
class and the same message on the native and the Pyodide backend; this
file runs on both (buffers only), and the messages below are the core's,
word for word.  Also numpy's ``out=`` forms: a 1-tuple is written, anything
else is refused before anything is computed.
"""

import math
from array import array

import pytest

import gemmkit
from apihelpers import py_matrix


def _a():
    return py_matrix("float32", [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [0.5, 0.0, -1.0, 2.0]])


def _b(rows=4):
    return py_matrix("float32", [[1.0, -1.0]] * rows)


def _i8(rows):
    flat = array("b", [v for r in rows for v in r])
    return memoryview(flat).cast("B").cast("b", (len(rows), len(rows[0])))


def _zeros(m, n, dtype="float32", readonly=False):
    return py_matrix(dtype, [[0.0] * n for _ in range(m)], readonly=readonly)


CATALOGUE = [
    ("shape", lambda: gemmkit.gemm(_a(), _b(5)), gemmkit.ShapeError,
     "gemmkit: shape mismatch: a is 3x4 but b is 5x2 (a.cols != b.rows)"),
    ("out shape", lambda: gemmkit.gemm(_a(), _b(), out=_zeros(2, 2)), gemmkit.ShapeError,
     "gemmkit: shape mismatch: out is 2x2 but a @ b is 3x2"),
    ("dtype", lambda: gemmkit.gemm(_a(), py_matrix("float64", [[1.0, 1.0]] * 4)),
     gemmkit.DTypeError,
     "gemmkit: dtype mismatch: a is float32 but b is float64 (gemmkit does not convert; "
     "cast explicitly)"),
    ("read-only out", lambda: gemmkit.gemm(_a(), _b(), out=_zeros(3, 2, readonly=True)),
     gemmkit.LayoutError, "gemmkit: out is read-only"),
    ("int8 alpha", lambda: gemmkit.gemm(_i8([[1, 2]]), _i8([[1], [2]]), alpha=0.5),
     gemmkit.ArgumentError,
     "gemmkit: alpha (for int8 inputs) must be an integer in the int32 range, got 0.5"),
    ("leaky slope", lambda: gemmkit.gemm(_a(), _b(), activation=("leaky_relu", math.nan)),
     gemmkit.ArgumentError, "gemmkit: leaky_relu slope must be finite (got nan)"),
    ("clip bounds", lambda: gemmkit.gemm(_a(), _b(), activation=("clip", 1.0, -1.0)),
     gemmkit.ArgumentError, "gemmkit: clip bounds must satisfy lo <= hi (got 1, -1)"),
]


@pytest.mark.parametrize("call, cls, message", [c[1:] for c in CATALOGUE],
                         ids=[c[0] for c in CATALOGUE])
def test_core_messages(call, cls, message):
    with pytest.raises(cls) as exc:
        call()
    assert str(exc.value) == message


def test_out_overlapping_a_is_refused():
    store = array("f", [1.0] * 16)
    a = memoryview(store).cast("B").cast("f", (4, 4))
    out = memoryview(store).cast("B")[: 4 * 4 * 2].cast("f", (2, 4))
    b = py_matrix("float32", [[1.0] * 4] * 4)
    with pytest.raises(gemmkit.OverlapError) as exc:
        gemmkit.gemm(a[0:2], b, out=out)
    assert str(exc.value).startswith("gemmkit: out overlaps a;")
    assert list(store) == [1.0] * 16


def test_out_tuple_form_is_written():
    out = _zeros(3, 2)
    got = gemmkit.gemm(_a(), _b(), out=(out,))
    assert got is out
    assert out.tolist() == [[10.0, -10.0], [26.0, -26.0], [1.5, -1.5]]
    out2 = _zeros(3, 2)
    assert gemmkit.matmul(_a(), _b(), out=(out2,)) is out2
    assert out2.tolist() == out.tolist()


@pytest.mark.parametrize("bad", [[[0.0, 0.0]] * 3, "out", 3.0, (None, None)], ids=repr)
def test_out_must_be_an_array(bad):
    with pytest.raises(gemmkit.GemmkitError) as exc:
        gemmkit.gemm(_a(), _b(), out=bad)
    assert str(exc.value).startswith("gemmkit: out must be")


def test_epilogue_on_buffers():
    # relu(NaN) = +0 and relu(-0) = +0 on every backend
    a = py_matrix("float32", [[math.nan, 0.0], [-1.0, 0.0], [1.0, 2.0]])
    b = py_matrix("float32", [[1.0], [1.0]])
    got = gemmkit.gemm(a, b, activation="relu").tolist()
    assert got[0] == [0.0] and math.copysign(1.0, got[0][0]) == 1.0
    assert got[1] == [0.0] and math.copysign(1.0, got[1][0]) == 1.0
    assert got[2] == [3.0]
    leaky = gemmkit.gemm(a, b, activation=("leaky_relu", 0.25)).tolist()
    assert leaky == [[0.0], [-0.25], [3.0]]
    clip = gemmkit.gemm(a, b, activation=("clip", -0.5, 2.0)).tolist()
    assert clip == [[-0.5], [-0.5], [2.0]]  # NaN -> lo


def test_nested_lists_without_a_buffer():
    # numpy converts lists; without numpy they go through the array module.
    got = gemmkit.matmul([[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]])
    assert [list(r) for r in (got.tolist() if hasattr(got, "tolist") else got)] == [
        [1.0, 2.0], [3.0, 4.0]]


def test_code_tables_come_from_the_library():
    # Status, dtype and activation codes are read from gemmkit_codes_json(),
    # and every status the core reports maps onto its documented class.
    from gemmkit import _errors
    from gemmkit._backend import backend

    codes = backend.CODES
    classes = {"shape": gemmkit.ShapeError, "dtype": gemmkit.DTypeError,
               "stride": gemmkit.LayoutError, "overlap": gemmkit.OverlapError,
               "value": gemmkit.ArgumentError, "isa": gemmkit.IsaError,
               "alloc": gemmkit.WorkspaceError, "internal": gemmkit.InternalError}
    assert set(codes["status"]) == set(classes) | {"ok"}
    for name, cls in classes.items():
        assert type(_errors.error_from_status(codes["status"][name], "gemmkit: x")) is cls
    assert codes["pairs"]["float16"] == ["float16", "float32"]
    assert codes["accumulators"]["bfloat16"] == "float32"
    assert len(set(codes["dtypes"].values())) == len(codes["dtypes"])


@pytest.mark.parametrize("bad", ["abc", None, math.nan, 1.5, -1, True], ids=repr)
def test_set_num_threads_refuses_non_counts(bad):
    before = gemmkit.get_num_threads()
    with pytest.raises(gemmkit.ArgumentError) as exc:
        gemmkit.set_num_threads(bad)
    assert str(exc.value).startswith("gemmkit: ")
    assert gemmkit.get_num_threads() == before


def test_set_num_threads_clamps_to_the_range():
    before = gemmkit.get_num_threads()
    try:
        gemmkit.set_num_threads(2**64)
        assert gemmkit.get_num_threads() == 1024
    finally:
        gemmkit.set_num_threads(0)
    assert gemmkit.get_num_threads() == before
