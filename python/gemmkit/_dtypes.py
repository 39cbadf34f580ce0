"""Element types of the public API: their names, how an operand's type is
recognised, the supported (input, output) pairs, and the domains of the
scalar arguments (alpha/beta of int8 products, zero points).

Front-end layer, shared by the native and the Pyodide backends so that both
refuse the same inputs with the same messages.  numpy and ml_dtypes are
optional: an operand is either a numpy array (its ``dtype``) or, without
numpy, a buffer-protocol object (its struct format).  bfloat16 exists only
as ``ml_dtypes.bfloat16``; it is recognised by dtype identity and ml_dtypes
is never imported just to look.
"""

from __future__ import annotations

import math
import numbers
import sys

from ._backend import backend
from ._errors import ArgumentError, DTypeError, ShapeError, WorkspaceError
from ._formats import FORMAT_NAMES, FORMAT_OF, format_name

try:  # numpy is optional under Pyodide, where buffers work without it
    import numpy as _np
except ImportError:  # pragma: no cover - exercised in the Pyodide suite
    _np = None

#: gemmkit_dtype codes, from the loaded library's code table.
CODES = dict(backend.CODES["dtypes"])

#: Output types per input type, the default first (the C ABI's table):
#: float16 and bfloat16 accumulate in float32 and round once, at the
#: store; the float32 output (the "f32-output twin") skips that rounding.
#: int8 accumulates in int32, wrapping modulo 2**32.  int8 and uint8
#: outputs come from gemm_requant().
PAIRS = {name: tuple(outs) for name, outs in backend.CODES["pairs"].items()}

#: Output types of gemm_requant() (the core knows their ranges).
REQUANT_OUTPUTS = tuple(backend.CODES["requant_outputs"])

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

SUPPORTED_INPUTS_TEXT = ", ".join(PAIRS)
SUPPORTED_PAIRS_TEXT = ", ".join(f"{i}->{o}" for i, outs in PAIRS.items() for o in outs)

_BY_NP_DTYPE: dict = {}
if _np is not None:
    for _name in backend.CODES["dtypes"]:
        if _name != "bfloat16":  # ml_dtypes' type, found by np_dtype_name
            _BY_NP_DTYPE[_np.dtype(_name)] = _name
    del _name
# numpy's kind and size -> the name (numpy has several C names per size:
# longlong and long are both int64 on Linux).
_BY_KIND = {("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
            ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
            ("f", 2): "float16", ("f", 4): "float32", ("f", 8): "float64",
            ("c", 8): "complex64", ("c", 16): "complex128", ("b", 1): "bool"}


def _bfloat16_type():
    """ml_dtypes.bfloat16 if ml_dtypes is already imported (an array of that
    type cannot exist otherwise), else None."""
    mod = sys.modules.get("ml_dtypes")
    return getattr(mod, "bfloat16", None) if mod is not None else None


def np_dtype_name(dt) -> str | None:
    """gemmkit's name for a numpy dtype, or None when gemmkit has none."""
    name = _BY_NP_DTYPE.get(dt)
    if name is not None:
        return name
    if dt.isnative and dt.kind in "iufcb":
        return _BY_KIND.get((dt.kind, dt.itemsize))
    bf16 = _bfloat16_type()
    if bf16 is not None and dt.type is bf16 and dt.isnative:
        return "bfloat16"
    return None


def value_kind(dt) -> str:
    """numpy's kind letter of a dtype's values, with bfloat16 a float ("f";
    ml_dtypes gives its types kind "V")."""
    return "f" if np_dtype_name(dt) == "bfloat16" else dt.kind


format_dtype_name = format_name  # gemmkit's name for a buffer's struct format, or None


def describe(x) -> str:
    """A short description of an operand's element type for messages."""
    dt = getattr(x, "dtype", None)
    if dt is not None:
        return str(dt)
    fmt = getattr(x, "format", None)
    if fmt is not None:
        name = format_dtype_name(fmt, getattr(x, "itemsize", 0))
        return name if name is not None else f"format {fmt!r}"
    return type(x).__name__


# A memoryview's format -> format_name's answer, for every format whose
# name does not depend on the item size (all but C long's 'l' and 'L'),
# bare or with a byte-order prefix: one lookup per operand per call.
_BY_FORMAT = {fmt: format_name(fmt, 0) for fmt in
              (prefix + code for code in FORMAT_NAMES for prefix in ("", "@", "=", "<", ">"))
              if format_name(fmt, 0) is not None}


def operand_dtype(x) -> str | None:
    """gemmkit's element type name of a numpy array or memoryview, or None."""
    if type(x) is memoryview:  # no dtype attribute; memoryview has no subclasses
        fmt = x.format
        name = _BY_FORMAT.get(fmt)
        return name if name is not None else format_dtype_name(fmt, x.itemsize)
    dt = getattr(x, "dtype", None)
    if dt is not None and _np is not None and isinstance(dt, _np.dtype):
        return np_dtype_name(dt)
    if isinstance(x, memoryview):
        return format_dtype_name(x.format, x.itemsize)
    return None


def input_dtype(x, name: str) -> str:
    """Element type of input operand ``x``; DTypeError if gemm cannot read it."""
    dt = operand_dtype(x)
    if dt not in PAIRS:
        raise DTypeError(
            f"gemmkit: unsupported dtype {describe(x)} for {name} "
            f"(supported: {SUPPORTED_INPUTS_TEXT}; native byte order)"
        )
    return dt


def result_mismatch(in_dtype: str, out_dtype: str, name: str, x) -> DTypeError:
    return DTypeError(
        f"gemmkit: dtype mismatch: {in_dtype} inputs give a {out_dtype} result, "
        f"but {name} is {describe(x)} (gemmkit does not convert; cast explicitly)"
    )


def spec_name(spec, what: str = "out_dtype") -> str:
    """gemmkit's name for a dtype specification: a name ("float16"), a numpy
    type or dtype, or ml_dtypes.bfloat16."""
    if spec is None:
        raise DTypeError(f"gemmkit: {what}=None is not an element type")
    if isinstance(spec, str):
        name = spec.strip().lower()
        if name in CODES:
            if name == "bfloat16" and _np is not None and _bfloat16_type() is None:
                try:
                    import ml_dtypes  # noqa: F401  (registers the type)
                except ImportError:
                    raise DTypeError(
                        "gemmkit: bfloat16 needs the ml_dtypes package, which is "
                        "not installed"
                    ) from None
            return name
    if _np is not None:
        try:
            dt = _np.dtype(spec)
        except (TypeError, ValueError):
            dt = None
        if dt is not None:
            name = np_dtype_name(dt)
            if name is not None:
                return name
    raise DTypeError(
        f"gemmkit: {what}={spec!r} is not a supported element type "
        f"(supported pairs: {SUPPORTED_PAIRS_TEXT})"
    )


def output_dtype(in_dtype: str, out_dtype) -> str:
    """The output type a gemm on ``in_dtype`` inputs writes: ``out_dtype``
    (a name, numpy type or dtype), or the input type's default.  Whether
    the pair is one gemmkit computes is the core's check."""
    return PAIRS[in_dtype][0] if out_dtype is None else spec_name(out_dtype)


def requant_output_dtype(out_dtype) -> str:
    try:
        name = spec_name(out_dtype)
    except DTypeError:
        name = None
    if name not in REQUANT_OUTPUTS:
        name = name if name is not None else repr(out_dtype)
        raise DTypeError(
            f"gemmkit: gemm_requant writes int8 or uint8, not {name} "
            "(out_dtype=numpy.int8 or numpy.uint8)"
        )
    return name


# --------------------------------------------------------------------------
# scalar arguments

def integer_value(value, name: str) -> int:
    """``value`` as a Python int: an int, a numpy integer or a float with an
    integral value (2.0 is 2; 0.5 is an ArgumentError).  Bools are refused."""
    t = type(value)
    if t is int:  # the common cases first: this runs on every int8 call
        return value
    if t is float and value.is_integer():
        return int(value)
    if isinstance(value, bool) or (_np is not None and isinstance(value, _np.bool_)):
        raise ArgumentError(f"gemmkit: {name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, (str, bytes)):
        raise ArgumentError(f"gemmkit: {name} must be an integer, got {value!r}")
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise ArgumentError(f"gemmkit: {name} must be an integer, got {value!r}") from None
    if not math.isfinite(f) or f != math.floor(f):
        raise ArgumentError(f"gemmkit: {name} must be an integer, got {value!r}")
    return int(f)


def real_scalar(value, name: str) -> float:
    """alpha or beta as the double the C ABI takes (the core converts it to
    the accumulator type and checks the int8 domain: integers in int32)."""
    if type(value) is float:
        return value
    if isinstance(value, _NOT_NUMBERS) or value is None:
        raise ArgumentError(f"gemmkit: {name} {_REAL_RULE}, got {short_repr(value)}")
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise ArgumentError(
            f"gemmkit: {name} {_REAL_RULE}, got {short_repr(value)}") from None


# Values float() or complex() would take that are no numbers here: text,
# and truth values (True as alpha is a mistake, not 1).
_NOT_NUMBERS = (str, bytes, bool) + ((_np.bool_,) if _np is not None else ())

_REAL_RULE = "must be a real number (for int8 products an integer in the int32 range)"

#: The complex element types (complex alpha and beta, conj_a/conj_b).
COMPLEX = ("complex64", "complex128")
_INTEGERS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def scalar(value, name: str, in_dtype: str | None):
    """alpha or beta for a product of ``in_dtype`` inputs: a complex for the
    complex types, else :func:`real_scalar`'s double; integer products take
    integers a double holds exactly (the core reduces them modulo the ring)."""
    if in_dtype in COMPLEX:
        if isinstance(value, _NOT_NUMBERS) or value is None:
            raise ArgumentError(f"gemmkit: {name} must be a number, got {short_repr(value)}")
        try:
            return complex(value)
        except (TypeError, ValueError, OverflowError):
            raise ArgumentError(
                f"gemmkit: {name} must be a number, got {short_repr(value)}") from None
    if in_dtype in _INTEGERS and in_dtype != "int8" and not isinstance(value, float):
        exact = integer_value(value, name)
        if abs(exact) > 2**53:
            raise ArgumentError(
                f"gemmkit: {name} must be an integer of magnitude at most 2**53 (the "
                f"C ABI passes it as a double), got {short_repr(value)}")
        return float(exact)
    return real_scalar(value, name)


def short_repr(value) -> str:
    """``repr(value)`` cut to 40 characters, for messages."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_KIND_WORDS = {"i": "integers", "u": "integers", "f": "real numbers", "c": "numbers"}


def kind_words(kind: str) -> str:
    """What values of a numpy dtype kind are, in words ("integers")."""
    return _KIND_WORDS.get(kind, "numbers")


def ragged_error(name: str) -> ShapeError:
    """The error for nested sequences whose rows differ in length."""
    return ShapeError(f"gemmkit: {name} has rows of different lengths (a ragged sequence)")


def zero_point_value(value) -> int:
    """zero_point as the int the C ABI takes (the core checks that it lies
    in the output's range); what does not fit an int is out of any range."""
    v = integer_value(value, "zero_point")
    if not INT32_MIN <= v <= INT32_MAX:
        raise ArgumentError(f"gemmkit: zero_point {value!r} is out of the output range")
    return v


# --------------------------------------------------------------------------
# results

def numpy_dtype(name: str, like=None):
    """The numpy dtype for ``name``; bfloat16 is ``like.dtype`` when ``like``
    is a bfloat16 array (else ml_dtypes.bfloat16, imported now)."""
    if name == "bfloat16":
        dt = getattr(like, "dtype", None)
        if dt is not None and np_dtype_name(dt) == "bfloat16":
            return dt
        spec_name("bfloat16")
        return _np.dtype(_bfloat16_type())
    return _np.dtype(name)


def buffer_result(name: str, m: int, n: int):
    """A new C-contiguous (m, n) memoryview of element type ``name`` (the
    result type without numpy, which only the Pyodide backend meets)."""
    if name == "bfloat16":
        raise DTypeError("gemmkit: bfloat16 results need numpy and ml_dtypes")
    return backend.buffer_result(FORMAT_OF[name], backend.CODES["itemsize"][name], m, n)


def new_result(name: str, m: int, n: int, like=None):
    """A new C-contiguous (m, n) result: a numpy array where numpy is
    importable, else a memoryview."""
    if _np is not None:
        return new_array((m, n), numpy_dtype(name, like))
    return buffer_result(name, m, n)


def new_array(shape, dtype):
    """numpy.empty, with a result too large to exist as gemmkit's error."""
    try:
        return _np.empty(shape, dtype=dtype)
    except (ValueError, MemoryError) as exc:
        raise WorkspaceError(
            f"gemmkit: cannot allocate a result of shape {tuple(shape)} and dtype "
            f"{_np.dtype(dtype)}: {exc}") from None


def buffer_from_lists(x, name: str):
    """Nested lists of numbers as a C-contiguous memoryview (the result of
    ``numpy.asarray`` where numpy is absent: float64 for floats, int64 for
    integers).  Ragged rows or non-numbers raise a DTypeError saying how to
    pass a buffer instead."""
    from array import array

    rows = x if x and all(isinstance(r, (list, tuple)) for r in x) else None
    flat = [v for r in rows for v in r] if rows is not None else list(x)
    shape = (len(rows), len(rows[0]) if rows else 0) if rows is not None else (len(flat),)
    if rows is not None and any(len(r) != shape[1] for r in rows):
        raise ragged_error(name)
    if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in flat):
        raise DTypeError(
            f"gemmkit: {name} must hold numbers; without numpy pass a buffer "
            "(array.array('f', ...), memoryview(...).cast('f', shape))")
    code = "q" if all(isinstance(v, numbers.Integral) for v in flat) else "d"
    view = memoryview(array(code, flat))
    return view.cast("B").cast(code, shape) if flat else view
