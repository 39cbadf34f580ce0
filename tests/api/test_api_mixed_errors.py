"""API suite with numpy: the refusals of the mixed-precision and int8 API.

Unsupported and mixed dtype pairs, wrong out/c types, int8 alpha/beta that
are not int32 integers, and every bad gemm_requant argument (scale, zero
point, bias, out_dtype, shapes, overlap).  Each error is its documented
class and built-in, its message starts with "gemmkit: " and names the
problem (and the bad value), and out is left untouched.  Skipped where
numpy is missing (the Pyodide run), where test_api_buffers covers the
buffer refusals.
"""

import pytest

np = pytest.importorskip(
    "numpy", reason="numpy is not installed (the numpy-free suite is test_api_buffers)"
)

import gemmkit  # noqa: E402
from apihelpers import ML_DTYPES_SKIP, error_message_ok  # noqa: E402

DTYPE_WORDS = ("dtype", "type")


def _raises(cls, builtin, words, fn, *args, **kwargs):
    with pytest.raises(cls) as exc:
        fn(*args, **kwargs)
    assert isinstance(exc.value, builtin) and isinstance(exc.value, gemmkit.GemmkitError)
    problem = error_message_ok(exc.value, *words)
    assert problem is None, problem
    return str(exc.value)


@pytest.fixture
def bf16():
    return pytest.importorskip("ml_dtypes", reason=ML_DTYPES_SKIP).bfloat16


def _ones(shape, dt):
    return np.ones(shape, np.float32).astype(dt)


# ---------------------------------------------------------------- dtypes

@pytest.mark.parametrize("dt_a, dt_b", [
    ("float16", "float32"), ("float32", "float16"), ("int8", "uint8"), ("uint8", "int16"),
    ("int8", "int16"), ("int16", "int32"), ("float16", "int8"), ("int8", "float32"),
    ("float16", "bf16"), ("bf16", "float16"), ("bf16", "float32")])
def test_mixed_or_unsupported_input_dtypes(request, dt_a, dt_b):
    if "bf16" in (dt_a, dt_b):
        bf = request.getfixturevalue("bf16")
        dt_a, dt_b = (bf if d == "bf16" else d for d in (dt_a, dt_b))
    msg = _raises(gemmkit.DTypeError, TypeError, DTYPE_WORDS, gemmkit.gemm,
                  _ones((3, 4), dt_a), _ones((4, 2), dt_b))
    assert "float32, float64, float16, bfloat16" in msg or "mismatch" in msg, msg


@pytest.mark.parametrize("dt_in, out_dtype", [
    ("float32", np.float16), ("float32", np.float64), ("float64", np.float32),
    ("float16", np.float64), ("float16", "int32"), ("int8", np.int16), ("int8", np.uint8),
    ("int8", np.float32), ("int8", np.int64), ("float32", "int64"), ("float16", "bfloat16"),
    ("float32", "no such type")], ids=str)
def test_unsupported_dtype_pairs(dt_in, out_dtype):
    out_before = np.full((3, 2), 7, np.float32)
    msg = _raises(gemmkit.DTypeError, TypeError, ("pair", "out_dtype"), gemmkit.gemm,
                  _ones((3, 4), dt_in), _ones((4, 2), dt_in), out_dtype=out_dtype)
    if "pair" in msg:
        assert "float16->float32" in msg and "int8->int32" in msg, msg
    if dt_in == "int8" and "unsupported dtype pair" in msg:
        assert "gemm_requant" in msg, msg
    assert (out_before == 7).all()


@pytest.mark.parametrize("dt_in, out_dtype", [
    ("float32", np.float32), ("float64", "float64"), ("float16", np.float16),
    ("float16", np.float32), ("int8", np.int32), ("int8", "int32")], ids=str)
def test_default_output_dtype_accepted_explicitly(dt_in, out_dtype):
    got = gemmkit.gemm(_ones((3, 4), dt_in), _ones((4, 2), dt_in), out_dtype=out_dtype)
    assert got.dtype == np.dtype(out_dtype)
    assert (got == 4).all()


def test_bfloat16_pairs(bf16):
    a, b = _ones((3, 4), bf16), _ones((4, 2), bf16)
    assert gemmkit.gemm(a, b, out_dtype=bf16).dtype == np.dtype(bf16)
    assert gemmkit.gemm(a, b, out_dtype="bfloat16").dtype == np.dtype(bf16)
    assert gemmkit.gemm(a, b, out_dtype=np.float32).dtype == np.float32
    _raises(gemmkit.DTypeError, TypeError, ("pair",), gemmkit.gemm, a, b,
            out_dtype=np.float16)


@pytest.mark.parametrize("dt_in, c_dt, out_dtype", [
    ("float16", "float32", None), ("float16", "float16", np.float32),
    ("int8", "int8", None), ("int8", "int64", None), ("float16", "float64", None)], ids=str)
def test_c_must_have_the_output_dtype(dt_in, c_dt, out_dtype):
    _raises(gemmkit.DTypeError, TypeError, DTYPE_WORDS, gemmkit.gemm, _ones((3, 4), dt_in),
            _ones((4, 2), dt_in), _ones((3, 2), c_dt), beta=1.0, out_dtype=out_dtype)


@pytest.mark.parametrize("dt_in, out_dt, out_dtype", [
    ("float16", "float32", None), ("float16", "float16", np.float32),
    ("int8", "int8", None), ("int8", "int64", None), ("float32", "float16", None)], ids=str)
def test_out_must_have_the_output_dtype(dt_in, out_dt, out_dtype):
    out = np.full((3, 2), 7, out_dt)
    _raises(gemmkit.DTypeError, TypeError, DTYPE_WORDS, gemmkit.gemm, _ones((3, 4), dt_in),
            _ones((4, 2), dt_in), out=out, out_dtype=out_dtype)
    assert (out == 7).all(), "out was written although the call was refused"


def test_read_only_out_of_a_new_type():
    out = np.zeros((3, 2), np.int32)
    out.setflags(write=False)
    _raises(gemmkit.LayoutError, ValueError, ("read-only", "writable"), gemmkit.gemm,
            _ones((3, 4), np.int8), _ones((4, 2), np.int8), out=out)


def test_shape_errors_of_new_types():
    _raises(gemmkit.ShapeError, ValueError, ("shape",), gemmkit.gemm, _ones((3, 4), np.int8),
            _ones((5, 2), np.int8))
    _raises(gemmkit.ShapeError, ValueError, ("shape",), gemmkit.gemm,
            _ones((3, 4), np.float16), _ones((4, 2), np.float16), out=np.zeros((2, 3), np.float16))


# ---------------------------------------------------------------- int8 alpha / beta

@pytest.mark.parametrize("name", ["alpha", "beta"])
@pytest.mark.parametrize("value", [0.5, -1.25, 2**31, -(2**31) - 1, 1e10, float("nan"),
                                   float("inf"), True, "2", 1 + 2j], ids=repr)
def test_int8_alpha_beta_must_be_int32_integers(name, value):
    a, b = _ones((3, 4), np.int8), _ones((4, 2), np.int8)
    c = np.zeros((3, 2), np.int32)
    msg = _raises(gemmkit.ArgumentError, ValueError, (name,), gemmkit.gemm, a, b, c,
                  **{name: value})
    assert "int" in msg, msg


@pytest.mark.parametrize("value", [2.0, -(2**31), 2**31 - 1, np.int64(5), np.float64(-3.0)],
                         ids=repr)
def test_int8_alpha_beta_accepted(value):
    a, b = _ones((3, 4), np.int8), _ones((4, 2), np.int8)
    got = gemmkit.gemm(a, b, np.ones((3, 2), np.int32), alpha=value, beta=value)
    want = ((int(value) * 4 + int(value)) + 2**31) % 2**32 - 2**31
    assert (got == want).all()


@pytest.mark.parametrize("value", ["x", None, 1 + 2j])
def test_float_alpha_must_be_real(value):
    _raises(gemmkit.ArgumentError, ValueError, ("alpha",), gemmkit.gemm,
            _ones((3, 4), np.float16), _ones((4, 2), np.float16), alpha=value)


# ---------------------------------------------------------------- gemm_requant

def _i8(shape, value=1):
    return np.full(shape, value, np.int8)


def _requant(**kwargs):
    args = dict(scale=0.5, zero_point=0)
    args.update(kwargs)
    a = args.pop("a", _i8((3, 4)))
    b = args.pop("b", _i8((4, 5)))
    return gemmkit.gemm_requant(a, b, **args)


@pytest.mark.parametrize("scale", [0.0, -1.0, -0.0, float("nan"), float("inf"),
                                   float("-inf"), 1e-50, 1e39], ids=repr)
def test_bad_per_tensor_scale(scale):
    msg = _raises(gemmkit.ArgumentError, ValueError, ("scale",), _requant, scale=scale)
    assert repr(scale) in msg or str(scale) in msg, msg
    assert "finite" in msg and "> 0" in msg, msg
    if scale in (1e-50, 1e39):  # finite and positive, but not as float32
        assert "float32" in msg, msg


@pytest.mark.parametrize("bad", [0.0, -2.0, float("nan"), float("inf")], ids=repr)
@pytest.mark.parametrize("where", ["row", "col"])
def test_bad_scale_in_a_vector_names_its_index(bad, where):
    scale = np.full(3 if where == "row" else (1, 5), 0.5, np.float32)
    if where == "row":
        scale[2] = bad
    else:
        scale[0, 4] = bad
    msg = _raises(gemmkit.ArgumentError, ValueError, ("scale",), _requant, scale=scale)
    assert ("scale[2]" if where == "row" else "scale[4]") in msg, msg


@pytest.mark.parametrize("shape", [(5,), (4,), (3, 5), (5, 1), (1, 3), (1, 1), (3, 1, 1),
                                   (0,)], ids=str)
def test_scale_shapes(shape):
    msg = _raises(gemmkit.ShapeError, ValueError, ("scale",), _requant,
                  scale=np.full(shape, 0.5, np.float32))
    assert "m=3" in msg and "(1, 5)" in msg, msg


def test_scale_must_be_real():
    _raises(gemmkit.DTypeError, TypeError, ("scale",), _requant,
            scale=np.array(["a", "b", "c"]))


@pytest.mark.parametrize("out_dtype, zp", [("int8", 128), ("int8", -129), ("uint8", -1),
                                           ("uint8", 256), ("int8", 1.5), ("int8", "3"),
                                           ("int8", None)], ids=str)
def test_zero_point_outside_the_output_range(out_dtype, zp):
    _raises(gemmkit.ArgumentError, ValueError, ("zero_point",), _requant, zero_point=zp,
            out_dtype=out_dtype)


@pytest.mark.parametrize("out_dtype, zp", [("int8", -128), ("int8", 127), ("uint8", 0),
                                           ("uint8", 255), ("int8", 3.0), ("uint8", np.int64(9))],
                         ids=str)
def test_zero_point_inside_the_range(out_dtype, zp):
    assert _requant(zero_point=zp, out_dtype=out_dtype).dtype == np.dtype(out_dtype)


@pytest.mark.parametrize("shape", [(5,), (4,), (3, 5), (5, 1), (1, 3), (3, 1, 1), ()], ids=str)
def test_bias_shapes(shape):
    msg = _raises(gemmkit.ShapeError, ValueError, ("bias",), _requant,
                  bias=np.zeros(shape, np.int32))
    assert "m=3" in msg and "(1, 5)" in msg, msg


@pytest.mark.parametrize("bias", [np.zeros(3, np.float32), np.zeros(3, np.float64),
                                  np.zeros(3, bool), np.array([1.0, 2.0, 3.0]),
                                  np.array([0, 2**31, 0], np.int64),
                                  np.array([0, 0, 2**32], np.uint64),
                                  np.array([-(2**31) - 1, 0, 0], np.int64)], ids=repr)
def test_bias_must_be_int32_without_loss(bias):
    msg = _raises(gemmkit.DTypeError, TypeError, ("bias",), _requant, bias=bias)
    if bias.dtype.kind in "iu":
        assert "int32" in msg and "bias[" in msg, msg


@pytest.mark.parametrize("out_dtype", [np.int32, np.float32, "int16", np.uint16, "float16"],
                         ids=str)
def test_requant_output_types(out_dtype):
    _raises(gemmkit.DTypeError, TypeError, ("int8", "uint8"), _requant, out_dtype=out_dtype)


@pytest.mark.parametrize("a_dt, b_dt", [("float32", "float32"), ("int8", "int16"),
                                        ("uint8", "uint8"), ("float16", "float16")])
def test_requant_needs_int8_operands(a_dt, b_dt):
    _raises(gemmkit.DTypeError, TypeError, DTYPE_WORDS, _requant, a=_ones((3, 4), a_dt),
            b=_ones((4, 5), b_dt))


def test_requant_out_checks():
    out = np.full((3, 5), 7, np.int8)
    _raises(gemmkit.DTypeError, TypeError, DTYPE_WORDS, _requant, out=out,
            out_dtype=np.uint8)
    _raises(gemmkit.ShapeError, ValueError, ("shape",), _requant, out=np.zeros((5, 3), np.int8))
    _raises(gemmkit.ShapeError, ValueError, ("shape",), _requant, b=_i8((5, 5)))
    assert (out == 7).all()
    ro = np.zeros((3, 5), np.int8)
    ro.setflags(write=False)
    _raises(gemmkit.LayoutError, ValueError, ("read-only",), _requant, out=ro)


def test_scale_or_bias_overlapping_out():
    # The core reads the scales and biases while it writes out.
    buf = np.zeros(64, np.uint8)
    out = buf[:15].view(np.int8).reshape(3, 5)
    scale = buf[16:28].view(np.float32)      # disjoint views of one buffer: fine
    scale[:] = 0.5
    bias = buf[32:44].view(np.int32)
    _requant(out=out, scale=scale, bias=bias)
    overlapping_scale = buf[:12].view(np.float32)
    overlapping_scale[:] = 0.5
    _raises(gemmkit.OverlapError, ValueError, ("overlap",), _requant, out=out,
            scale=overlapping_scale)
    _raises(gemmkit.OverlapError, ValueError, ("overlap",), _requant, out=out,
            bias=buf[4:16].view(np.int32))
