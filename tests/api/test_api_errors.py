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

import gemmkit
from apihelpers import error_message_ok

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


# ---------------------------------------------------------------- arguments
# Every bad argument is refused by gemmkit itself, before anything is
# computed or written: a GemmkitError subclass whose message starts with
# "gemmkit: " and names the argument, never the binding's "incompatible
# function arguments" or a raw numpy or Python conversion error.

class _Opaque:
    def __repr__(self):
        return "<opaque>"


# Values no scalar argument takes (each also refused for complex products).
NOT_NUMBERS = {"str": "2", "None": None, "list": [1.0], "bytes": b"2", "dict": {},
               "object": _Opaque(), "bool": True, "numpy-bool": np.bool_(True),
               "array": np.ones(2)}


def _refused(cls, words, fn, *args, **kwargs):
    """The call raises ``cls`` (a GemmkitError) naming one of ``words``."""
    with pytest.raises(gemmkit.GemmkitError) as exc:
        fn(*args, **kwargs)
    assert isinstance(exc.value, cls), f"{type(exc.value).__name__}: {exc.value}"
    problem = error_message_ok(exc.value, *words)
    assert problem is None, problem
    return exc.value


def _operands(dtype, m=3, k=4, n=2):
    a = np.ones((m, k), dtype)
    b = np.ones((k, n), dtype)
    out_dtype = {"int8": np.int32}.get(dtype, dtype)
    return a, b, np.full((m, n), 7, out_dtype)


@pytest.mark.parametrize("entry", ["gemm", "gemm_batched"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "uint16", "complex64"])
@pytest.mark.parametrize("name", ["alpha", "beta"])
@pytest.mark.parametrize("value", list(NOT_NUMBERS.values()), ids=list(NOT_NUMBERS))
def test_alpha_beta_of_the_wrong_kind(entry, dtype, name, value):
    a, b, out = _operands(dtype)
    _refused(gemmkit.ArgumentError, (name,), getattr(gemmkit, entry), a, b, out.copy(), out=out,
             **{name: value})
    assert (out == 7).all(), "out was written although the call was refused"


@pytest.mark.parametrize("dtype, value", [
    ("float32", 10**400), ("float32", 1j), ("float64", 1 + 0j), ("int8", 0.5), ("int8", 2**31),
    ("int8", float("nan")), ("int8", float("inf")), ("uint16", 2**60), ("uint16", -(10**30)),
    ("uint16", 0.5), ("uint16", float("nan")), ("complex64", 10**400), ("bool", 2)])
def test_alpha_outside_its_domain(dtype, value):
    a, b, out = _operands(dtype)
    before = out.copy()
    _refused(gemmkit.ArgumentError, ("alpha",), gemmkit.gemm, a, b, out=out, alpha=value)
    assert np.array_equal(out, before)


@pytest.mark.parametrize("value", [np.float32(2), np.int64(2), np.float64(2.0), 2, 2.0,
                                   np.uint8(2)], ids=repr)
def test_alpha_numpy_scalars_and_integral_values_are_taken(value):
    a, b, _ = _operands("int8")
    assert (gemmkit.gemm(a, b, alpha=value) == 8).all()
    a, b, _ = _operands("float32")
    assert (gemmkit.gemm(a, b, alpha=value) == 8).all()


@pytest.mark.parametrize("bias, cls", [
    ("x", gemmkit.DTypeError), (["a", "b"], gemmkit.DTypeError), (b"x", gemmkit.DTypeError),
    (_Opaque(), gemmkit.DTypeError), ({}, gemmkit.DTypeError), (1j, gemmkit.DTypeError),
    (np.array(["a", "b"]), gemmkit.DTypeError), (np.array([_Opaque()] * 2), gemmkit.DTypeError),
    (10**400, gemmkit.DTypeError), ([[1.0], [1.0, 2.0]], gemmkit.ShapeError),
    (np.ones((2, 2, 2)), gemmkit.ShapeError)], ids=repr)
def test_bias_of_the_wrong_kind_float(bias, cls):
    a, b, out = _operands("float32")
    _refused(cls, ("bias",), gemmkit.gemm, a, b, bias=bias, out=out)
    assert (out == 7).all()


@pytest.mark.parametrize("bias, cls", [
    (0.5, gemmkit.DTypeError), (2.0, gemmkit.DTypeError), (np.ones(2), gemmkit.DTypeError),
    (float("inf"), gemmkit.DTypeError), (2**40, gemmkit.ArgumentError),
    (np.array([2**31, 0]), gemmkit.ArgumentError), (-(10**30), gemmkit.DTypeError)], ids=repr)
def test_bias_of_an_int8_product_takes_int32_values_only(bias, cls):
    # The int32 accumulator: gemmkit never truncates a bias.
    a, b, out = _operands("int8")
    _refused(cls, ("bias",), gemmkit.gemm, a, b, bias=bias, out=out)
    assert (out == 7).all()


def test_bias_conversions_that_are_taken():
    a, b, _ = _operands("int8")
    assert (gemmkit.gemm(a, b, bias=np.array([1, -2], np.int64)) == [[5, 2]] * 3).all()
    assert (gemmkit.gemm(a, b, bias=np.uint8(3)) == 7).all()
    a, b, _ = _operands("float32")
    assert (gemmkit.gemm(a, b, bias=[1, 2]) == [[5.0, 6.0]] * 3).all()
    assert (gemmkit.gemm(a, b, bias=np.float64(1e300)) == np.inf).all()  # rounds to inf


def test_bfloat16_values_are_real_numbers():
    # ml_dtypes gives bfloat16 numpy's kind "V"; its values are floats for a
    # bias, a requantization scale and a scalar c all the same.
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = ml_dtypes.bfloat16
    a, b = np.ones((3, 4), bf16), np.ones((4, 2), bf16)
    got = gemmkit.gemm(a, b, bias=np.array([1, 2], bf16))
    assert got.dtype == bf16 and (got.astype(np.float32) == [[5, 6]] * 3).all()
    assert (gemmkit.gemm(a, b, c=0.5, beta=2).astype(np.float32) == 5).all()
    a8, b8, _ = _operands("int8")
    got = gemmkit.gemm_requant(a8, b8, scale=np.array([[0.5, 0.25]], bf16), zero_point=0)
    assert (got == [[2, 1]] * 3).all()


@pytest.mark.parametrize("activation", [
    "tanh", "RELU", ["relu"], ("relu",), ("leaky_relu",), ("leaky_relu", 0.1, 2), ("clip", 0),
    ("leaky_relu", "a"), ("leaky_relu", None), ("leaky_relu", 1j), ("leaky_relu", float("nan")),
    ("leaky_relu", float("inf")), ("leaky_relu", 10**400), ("clip", "a", 1), ("clip", 1, 0),
    ("clip", float("nan"), 1), ("clip", 0, float("nan")), (), 1, _Opaque(), ("gelu", 1)],
    ids=repr)
def test_activation_forms(activation):
    a, b, out = _operands("float32")
    _refused(gemmkit.ArgumentError, ("activation", "slope", "clip", "lo", "hi"), gemmkit.gemm,
             a, b, activation=activation, out=out)
    assert (out == 7).all()


@pytest.mark.parametrize("value", [1, 0, None, "yes", [True], 1.0], ids=repr)
@pytest.mark.parametrize("name", ["conj_a", "conj_b"])
def test_conj_flags_are_booleans(name, value):
    a, b, out = _operands("complex64")
    _refused(gemmkit.ArgumentError, (name,), gemmkit.gemm, a, b, out=out, **{name: value})
    assert (out == 7).all()
    assert (gemmkit.gemm(a, b, **{name: np.bool_(True)}) == 4).all()


@pytest.mark.parametrize("out, cls", [
    ("x", gemmkit.DTypeError), ([[0.0, 0.0]] * 3, gemmkit.DTypeError), (1.0, gemmkit.DTypeError),
    (_Opaque(), gemmkit.DTypeError), ((), gemmkit.ArgumentError),
    ((np.zeros((3, 2), np.float32),) * 2, gemmkit.ArgumentError)], ids=repr)
@pytest.mark.parametrize("entry", ["gemm", "gemm_batched", "matmul", "gemm_requant"])
def test_out_of_the_wrong_kind(entry, out, cls):
    if entry == "gemm_requant":
        a, b, _ = _operands("int8")
        call = lambda: gemmkit.gemm_requant(a, b, scale=1.0, zero_point=0, out=out)
    else:
        a, b, _ = _operands("float32")
        call = lambda: getattr(gemmkit, entry)(a, b, out=out)
    _refused(cls, ("out",), call)


@pytest.mark.parametrize("out_dtype", ["foo", 3, 2.5, _Opaque(), np.ones(2), "float128"], ids=repr)
def test_out_dtype_that_is_no_type(out_dtype):
    a, b, _ = _operands("float16")
    _refused(gemmkit.DTypeError, ("out_dtype", "type"), gemmkit.gemm, a, b, out_dtype=out_dtype)


@pytest.mark.parametrize("c, cls", [("x", gemmkit.DTypeError), ([[1.0], [1.0, 2.0]], gemmkit.ShapeError),
                                    (_Opaque(), gemmkit.DTypeError)], ids=repr)
def test_c_of_the_wrong_kind(c, cls):
    a, b, _ = _operands("float64")
    _refused(cls, ("c", "dtype", "rows"), gemmkit.gemm, a, b, c, beta=1.0)


# Objects numpy makes 0-d arrays of are operands without dimensions (as
# for numpy.matmul); text gives a str array, whose dtype is refused first.
@pytest.mark.parametrize("x, gemm_cls, matmul_cls", [
    ([[1.0], [1.0, 2.0]], gemmkit.ShapeError, gemmkit.ShapeError),
    ("abc", gemmkit.ShapeError, gemmkit.DTypeError),
    (_Opaque(), gemmkit.ShapeError, gemmkit.ShapeError),
    (None, gemmkit.ShapeError, gemmkit.ShapeError),
    ([["a", "b"], ["c", "d"]], gemmkit.DTypeError, gemmkit.DTypeError)], ids=repr)
@pytest.mark.parametrize("position", ["a", "b"])
@pytest.mark.parametrize("entry", ["gemm", "matmul", "gemm_batched"])
def test_operands_that_are_no_arrays(entry, position, x, gemm_cls, matmul_cls):
    m = np.ones((2, 2))
    args = (x, m) if position == "a" else (m, x)
    _refused(matmul_cls if entry == "matmul" else gemm_cls,
             (position, "dtype", "rows", "dimension"), getattr(gemmkit, entry), *args)


@pytest.mark.parametrize("kwargs, cls, words", [
    ({"scale": "0.5"}, gemmkit.DTypeError, ("scale",)),
    ({"scale": None}, gemmkit.DTypeError, ("scale",)),
    ({"scale": ["a", "b", "c"]}, gemmkit.DTypeError, ("scale",)),
    ({"scale": [[1.0], [1.0, 2.0]]}, gemmkit.ShapeError, ("scale",)),
    ({"scale": 10**400}, gemmkit.ArgumentError, ("scale",)),
    ({"scale": float("nan")}, gemmkit.ArgumentError, ("scale",)),
    ({"scale": 0.0}, gemmkit.ArgumentError, ("scale",)),
    ({"scale": -1}, gemmkit.ArgumentError, ("scale",)),
    ({"scale": 1e-50}, gemmkit.ArgumentError, ("scale",)),  # 0 as float32
    ({"scale": np.ones(3, complex)}, gemmkit.DTypeError, ("scale",)),
    ({"scale": True}, gemmkit.DTypeError, ("scale",)),
    ({"zero_point": "3"}, gemmkit.ArgumentError, ("zero_point",)),
    ({"zero_point": None}, gemmkit.ArgumentError, ("zero_point",)),
    ({"zero_point": 0.5}, gemmkit.ArgumentError, ("zero_point",)),
    ({"zero_point": float("nan")}, gemmkit.ArgumentError, ("zero_point",)),
    ({"zero_point": 2**70}, gemmkit.ArgumentError, ("zero_point",)),
    ({"zero_point": 128}, gemmkit.ArgumentError, ("zero_point",)),
    ({"zero_point": True}, gemmkit.ArgumentError, ("zero_point",)),
    ({"bias": ["a", "b", "c"]}, gemmkit.DTypeError, ("bias",)),
    ({"bias": [[1], [1, 2]]}, gemmkit.ShapeError, ("bias",)),
    ({"bias": [2**70, 1, 1]}, gemmkit.DTypeError, ("bias",)),
    ({"bias": [0.5, 1, 1]}, gemmkit.DTypeError, ("bias",)),
    ({"out_dtype": "int32"}, gemmkit.DTypeError, ("int8", "uint8")),
    ({"out_dtype": None}, gemmkit.DTypeError, ("int8", "uint8")),
    ({"out_dtype": _Opaque()}, gemmkit.DTypeError, ("int8", "uint8")),
], ids=repr)
def test_requant_arguments(kwargs, cls, words):
    a, b, _ = _operands("int8", m=3)
    out = np.full((3, 2), 7, np.int8)
    args = {"scale": 0.5, "zero_point": 0, **kwargs}
    if "out_dtype" not in kwargs:
        args["out"] = out
    _refused(cls, words, gemmkit.gemm_requant, a, b, **args)
    assert (out == 7).all()


@pytest.mark.parametrize("casting", ["sometimes", None, 1, ["safe"], np.array(["safe", "no"]),
                                     "SAFE"], ids=repr)
def test_matmul_casting(casting):
    a, b, _ = _operands("float32")
    err = _refused(gemmkit.ArgumentError, ("casting",), gemmkit.matmul, a, b, casting=casting)
    assert isinstance(err, ValueError)  # what numpy.matmul raises


@pytest.mark.parametrize("dtype", ["bogus", 3, 2.5, _Opaque(), np.ones(2), (), [1]], ids=repr)
def test_matmul_dtype(dtype):
    a, b, _ = _operands("float32")
    err = _refused(gemmkit.DTypeError, ("dtype",), gemmkit.matmul, a, b, dtype=dtype)
    assert isinstance(err, TypeError)  # what numpy.matmul raises


@pytest.mark.parametrize("axes, cls", [
    (1, gemmkit.ArgumentError), ([(0, 1)], gemmkit.ArgumentError), ([], gemmkit.ArgumentError),
    ([(0, "a"), (0, 1), (0, 1)], gemmkit.ArgumentError),
    ([(0, 1.0), (0, 1), (0, 1)], gemmkit.ArgumentError),
    ([None, (0, 1), (0, 1)], gemmkit.ArgumentError),
    ([(0, 5), (0, 1), (0, 1)], gemmkit.ShapeError), ([(0, 0), (0, 1), (0, 1)], gemmkit.ShapeError),
    ([(0, 1), (0, 1), (0, 7)], gemmkit.ShapeError), ([(0, 1), (0, 1), 0], gemmkit.ShapeError)],
    ids=repr)
def test_matmul_axes(axes, cls):
    a = np.ones((2, 2), np.float32)
    _refused(cls, ("axes", "axis"), gemmkit.matmul, a, a, axes=axes)


@pytest.mark.parametrize("n", ["2", None, -1, 2.5, float("nan"), float("inf"), True, [2],
                               _Opaque()], ids=repr)
def test_set_num_threads(n):
    before = gemmkit.get_num_threads()
    _refused(gemmkit.ArgumentError, ("thread",), gemmkit.set_num_threads, n)
    assert gemmkit.get_num_threads() == before


@pytest.mark.parametrize("b, cls", [("x", gemmkit.ShapeError), (None, gemmkit.ShapeError),
                                    (np.ones((2, 2, 2)), gemmkit.ShapeError),
                                    ([[1.0], [1.0, 2.0]], gemmkit.ShapeError)], ids=repr)
def test_prepack_rhs_arguments(b, cls):
    _refused(cls, ("b", "dtype", "rows"), gemmkit.prepack_rhs, b)
    _refused(gemmkit.DTypeError, ("PackedRhs",), gemmkit.prepack_rhs,
             gemmkit.prepack_rhs(np.ones((2, 2))))
    _refused(gemmkit.DTypeError, ("prepack_rhs",), gemmkit.PackedRhs)


@pytest.mark.parametrize("dtype, c, cls", [
    ("int8", 2.5, gemmkit.DTypeError), ("int8", 2.0, gemmkit.DTypeError),
    ("int8", True, gemmkit.DTypeError), ("int8", 1j, gemmkit.DTypeError),
    ("int8", 2**40, gemmkit.ArgumentError), ("uint16", -1, gemmkit.ArgumentError),
    ("float32", 1j, gemmkit.DTypeError), ("bool", 1, gemmkit.DTypeError)], ids=repr)
def test_scalar_c_must_be_a_value_of_the_result_type(dtype, c, cls):
    a, b, out = _operands(dtype)
    before = out.copy()
    _refused(cls, ("c=",), gemmkit.gemm, a, b, c, beta=1, out=out)
    assert np.array_equal(out, before)


@pytest.mark.parametrize("dtype, c", [("float32", 1.5), ("float32", 2), ("float16", 0.5),
                                      ("int8", -3), ("uint16", 7), ("complex64", 1 + 2j)])
def test_scalar_c_takes_the_result_type(dtype, c):
    # numpy's rule for Python scalars (NEP 50): c=1.5 in a float32 product
    # is float32, not a float64 operand to refuse.
    a, b, _ = _operands(dtype)
    got = gemmkit.gemm(a, b, c, beta=1)
    want = gemmkit.gemm(a, b, np.full((3, 2), c, got.dtype), beta=1)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    stack = gemmkit.gemm_batched(np.stack([a, a]), b, c, beta=1)
    assert np.array_equal(stack[1], want)
