"""API suite with numpy: bad arguments raise the documented error classes.

Each error is also the matching built-in (ValueError/TypeError), its message
starts with "gemmkit: " and names the problem, and nothing is written to
out when a call is refused.
"""

import pytest

np = pytest.importorskip(
    "numpy", reason="numpy is not installed (the numpy-free suite is test_api_buffers)"
)
as_strided = np.lib.stride_tricks.as_strided

import gemmkit  # noqa: E402
from apihelpers import error_message_ok  # noqa: E402

SHAPE_WORDS = ("shape", "dim", "rows", "cols")
DTYPE_WORDS = ("dtype", "type")
OVERLAP_WORDS = ("overlap", "alias")


def _raises(cls, builtin, words, fn, *args, **kwargs):
    with pytest.raises(cls) as exc:
        fn(*args, **kwargs)
    assert isinstance(exc.value, builtin)
    assert isinstance(exc.value, gemmkit.GemmkitError)
    problem = error_message_ok(exc.value, *words)
    assert problem is None, problem
    return exc.value


@pytest.mark.parametrize(
    "shape_a, shape_b, shape_c",
    [((3, 4), (5, 2), None), ((3, 4), (4, 2), (3, 3)), ((3, 4), (4, 2), (2, 2)),
     ((4,), (4, 2), None), ((3, 4), (4,), None), ((2, 3, 4), (4, 2), None),
     ((3, 0), (1, 2), None)],
    ids=str,
)
def test_shape_mismatch(shape_a, shape_b, shape_c):
    c = None if shape_c is None else np.zeros(shape_c)
    _raises(gemmkit.ShapeError, ValueError, SHAPE_WORDS, gemmkit.gemm,
            np.ones(shape_a), np.ones(shape_b), c, beta=1.0)


@pytest.mark.parametrize(
    "dt_a, dt_b, dt_c",
    [("float32", "float64", None), ("float64", "float32", None),
     ("float64", "float64", "float32"), ("int64", "int64", "int32"), ("int32", "uint32", None),
     ("object", "object", None), ("longdouble", "longdouble", None),
     ("clongdouble", "clongdouble", None), ("bool", "int8", None), ("float64", "int64", None),
     ("complex64", "complex128", None)],
)
def test_dtype_errors(dt_a, dt_b, dt_c):
    a = np.ones((3, 4), dt_a)
    b = np.ones((4, 2), dt_b)
    c = None if dt_c is None else np.ones((3, 2), dt_c)
    _raises(gemmkit.DTypeError, TypeError, DTYPE_WORDS, gemmkit.gemm, a, b, c, beta=1.0)


def _ab(dtype="float64"):
    rng = np.random.default_rng(0)
    return rng.uniform(size=(3, 4)).astype(dtype), rng.uniform(size=(4, 2)).astype(dtype)


def test_out_wrong_shape():
    a, b = _ab()
    for shape in [(2, 3), (3, 3), (2, 2), (6,), (1, 3, 2)]:
        out = np.full(shape, 7.0)
        _raises(gemmkit.ShapeError, ValueError, SHAPE_WORDS, gemmkit.gemm, a, b, out=out)
        assert (out == 7.0).all(), "out was written although the call was refused"


def test_out_wrong_dtype():
    a, b = _ab()
    out = np.full((3, 2), 7.0, np.float32)
    _raises(gemmkit.DTypeError, TypeError, DTYPE_WORDS, gemmkit.gemm, a, b, out=out)
    assert (out == 7.0).all()


def test_out_read_only():
    a, b = _ab()
    out = np.zeros((3, 2))
    out.setflags(write=False)
    _raises(gemmkit.LayoutError, ValueError, ("read-only", "readonly", "writable", "writeable"),
            gemmkit.gemm, a, b, out=out)


@pytest.mark.parametrize("strides_elems", [(0, 1), (1, 0), (0, 0), (1, 1)])
def test_out_self_aliasing(strides_elems):
    # A zero stride (or rows overlapping columns) makes several (i, j) share
    # one address: the result would depend on write order.
    a, b = _ab()
    base = np.zeros(16)
    item = base.itemsize
    out = as_strided(base, shape=(3, 2), strides=tuple(s * item for s in strides_elems))
    _raises(gemmkit.LayoutError, ValueError, ("stride", "alias", "overlap", "itself"),
            gemmkit.gemm, a, b, out=out)
    assert (base == 0).all()


def test_out_overlaps_a():
    rng = np.random.default_rng(1)
    buf = rng.uniform(size=(5, 9))
    a = buf[:, :4]            # (5, 4)
    b = rng.uniform(size=(4, 6))
    out = buf[:, 3:9]         # shares column 3 with a
    before = buf.copy()
    _raises(gemmkit.OverlapError, ValueError, OVERLAP_WORDS, gemmkit.gemm, a, b, out=out)
    assert np.array_equal(buf, before)
    square = rng.uniform(size=(4, 4))
    _raises(gemmkit.OverlapError, ValueError, OVERLAP_WORDS, gemmkit.gemm, square, b[:, :4].copy(),
            out=square)
    _raises(gemmkit.OverlapError, ValueError, OVERLAP_WORDS, gemmkit.gemm, square.T,
            np.eye(4), out=square[::-1])


def test_out_overlaps_b():
    rng = np.random.default_rng(2)
    a = rng.uniform(size=(4, 4))
    b = rng.uniform(size=(4, 4))
    _raises(gemmkit.OverlapError, ValueError, OVERLAP_WORDS, gemmkit.gemm, a, b, out=b)
    buf = rng.uniform(size=(8, 4))
    _raises(gemmkit.OverlapError, ValueError, OVERLAP_WORDS, gemmkit.gemm, a, buf[:4],
            out=buf[3:7])


def test_out_overlaps_c_but_is_not_c():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(size=(4, 5)), rng.uniform(size=(5, 4))
    c = rng.uniform(size=(4, 4))
    for out in (c[::-1], c.T, c[::-1, ::-1]):
        _raises(gemmkit.OverlapError, ValueError, OVERLAP_WORDS, gemmkit.gemm, a, b, c,
                beta=1.0, out=out)
