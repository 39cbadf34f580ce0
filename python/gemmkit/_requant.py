"""The scale and bias arguments of gemm_requant(): shape, type and value
checks, and their conversion to the 1-D vectors the C ABI reads.

Front-end layer, shared by both backends.  Shapes (m, n: the output's):

- scale: a number (one scale for the whole output); a 1-D array of length m
  or an (m, 1) array (one per row); a (1, n) array (one per column).  Taken
  as float32 (rounded to nearest); every value, after that rounding, must be
  finite and > 0.
- bias: None; a 1-D array of length m or (m, 1) (per row); (1, n) (per
  column).  int32 values: an int32 array is used as is, any other integer
  array is converted when every value fits in int32 (never truncated);
  floating-point, boolean and object arrays are refused.

Neither may share memory with ``out`` (the core reads them while it writes
out), exactly as ``a`` and ``b`` may not.
"""

from __future__ import annotations

import math
import numbers
from array import array

from ._dtypes import ragged_error, short_repr, value_kind
from ._errors import ArgumentError, DTypeError, OverlapError, ShapeError

try:
    import numpy as _np
except ImportError:  # pragma: no cover - exercised in the Pyodide suite
    _np = None

# Scale and bias kinds of the C ABI (gemmkit_gemm_requant).
PER_TENSOR = 0
NONE = 0
PER_ROW = 1
PER_COL = 2

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def _is_number(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and not (
        _np is not None and isinstance(x, _np.bool_))


def _shape_error(name: str, shape, m: int, n: int, scalar_ok: bool) -> ShapeError:
    alt = "a single number, " if scalar_ok else ""
    return ShapeError(
        f"gemmkit: {name} has shape {tuple(shape)}; it must be {alt}1-D of length "
        f"m={m} or ({m}, 1) (one value per row), or (1, {n}) (one value per column)"
    )


def _orient(name: str, shape, m: int, n: int, scalar_ok: bool):
    """(kind, how): how is "1d", "col0" (take [:, 0]) or "row0" ([0, :])."""
    shape = tuple(shape)
    if len(shape) == 1 and shape[0] == m:
        return PER_ROW, "1d"
    if shape == (m, 1):
        return PER_ROW, "col0"
    if shape == (1, n):
        return PER_COL, "row0"
    raise _shape_error(name, shape, m, n, scalar_ok)


def _overlap_error(name: str) -> OverlapError:
    return OverlapError(
        f"gemmkit: out overlaps {name}; the output must not share memory with "
        "an input (gemmkit makes no hidden copies)"
    )


def _bad_scale(label: str, value, as_f32: float) -> ArgumentError:
    note = ""
    if _is_number(value) and math.isfinite(_float(value)) and _float(value) > 0:
        note = f" (as float32 it is {as_f32!r})"
    return ArgumentError(f"gemmkit: {label} must be finite and > 0, got {short_repr(value)}{note}")


def _float(v) -> float:
    """A real number as a float; an integer too large for one is inf."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _f32(v: float) -> float:
    return array("f", [v])[0]


def _as_array(x, name: str):
    """numpy.asarray for a scale or bias, with gemmkit's errors for nested
    sequences numpy cannot make an array of."""
    try:
        return _np.asarray(x)
    except ValueError:  # numpy: "setting an array element with a sequence"
        raise ragged_error(name) from None
    except (TypeError, OverflowError):
        raise DTypeError(
            f"gemmkit: {name} must be a number or an array of numbers, got "
            f"{short_repr(x)}") from None


# --------------------------------------------------------------------------
# with numpy

def _np_scale(scale, m, n, out, may_share):
    if _is_number(scale) or (isinstance(scale, _np.ndarray) and scale.ndim == 0):
        v = _float(scale)
        s = _f32(v)
        if not (math.isfinite(s) and s > 0):
            raise _bad_scale("scale", scale.item() if hasattr(scale, "item") else scale, s)
        return PER_TENSOR, _np.array([s], dtype=_np.float32)
    arr = _as_array(scale, "scale")
    if value_kind(arr.dtype) not in "fiu":
        raise DTypeError(f"gemmkit: scale must hold real numbers, got dtype {arr.dtype}")
    kind, how = _orient("scale", arr.shape, m, n, True)
    if out is not None and may_share(arr, out):
        raise _overlap_error("scale")
    vec = arr if how == "1d" else arr[:, 0] if how == "col0" else arr[0, :]
    with _np.errstate(all="ignore"):
        vec32 = _np.ascontiguousarray(vec, dtype=_np.float32)
    bad = ~(_np.isfinite(vec32) & (vec32 > 0))
    if bad.any():
        i = int(_np.argmax(bad))
        raise _bad_scale(f"scale[{i}]", vec[i].item(), float(vec32[i]))
    return kind, vec32


def _np_bias(bias, m, n, out, may_share):
    arr = _as_array(bias, "bias")
    kind, how = _orient("bias", arr.shape, m, n, False)
    if arr.dtype.kind not in "iu":
        raise DTypeError(
            f"gemmkit: bias must hold int32 values (an integer array), got dtype "
            f"{arr.dtype}"
        )
    if out is not None and may_share(arr, out):
        raise _overlap_error("bias")
    vec = arr if how == "1d" else arr[:, 0] if how == "col0" else arr[0, :]
    if vec.dtype != _np.int32 and vec.size:
        lo, hi = vec.min(), vec.max()
        if int(lo) < INT32_MIN or int(hi) > INT32_MAX:
            i = int(_np.argmax((vec < INT32_MIN) | (vec > INT32_MAX)))
            raise DTypeError(
                f"gemmkit: bias[{i}] = {int(vec[i])} does not fit in int32 (gemmkit "
                "never truncates)"
            )
    return kind, _np.ascontiguousarray(vec, dtype=_np.int32)


# --------------------------------------------------------------------------
# without numpy (Pyodide): buffers, lists and tuples

def _nested(x, name):
    """(shape, flat values) of a buffer or a (nested) list/tuple."""
    if isinstance(x, (list, tuple)):
        if x and all(isinstance(r, (list, tuple)) for r in x):
            width = len(x[0])
            if any(len(r) != width for r in x):
                raise ragged_error(name)
            return (len(x), width), [v for r in x for v in r], None
        return (len(x),), list(x), None
    try:
        mv = memoryview(x)
    except TypeError:
        raise DTypeError(
            f"gemmkit: {name} must be a number, a sequence or a buffer, got "
            f"{type(x).__name__}") from None
    fmt = mv.format.lstrip("@=<")
    flat = mv.tolist()
    if mv.ndim == 2:
        flat = [v for r in flat for v in r]
    elif mv.ndim == 0:
        flat = [flat]
    return tuple(mv.shape), flat, fmt


def _buf_scale(scale, m, n, out, may_share):
    if _is_number(scale):
        s = _f32(_float(scale))
        if not (math.isfinite(s) and s > 0):
            raise _bad_scale("scale", scale, s)
        return PER_TENSOR, memoryview(array("f", [s]))
    shape, flat, fmt = _nested(scale, "scale")
    if shape == ():
        return _buf_scale(flat[0], m, n, out, may_share)
    # 1-D, (m, 1) and (1, n) all list their values in row-major order.
    kind, _ = _orient("scale", shape, m, n, True)
    if (fmt is not None and fmt not in ("f", "d", "e", "b", "B", "h", "H", "i", "I", "l",
                                        "L", "q", "Q")) or not all(_is_number(v) for v in flat):
        raise DTypeError("gemmkit: scale must hold real numbers")
    if fmt is not None and out is not None and may_share(scale, out):
        raise _overlap_error("scale")
    vec = array("f", [_float(v) for v in flat])
    for i, s in enumerate(vec):
        if not (math.isfinite(s) and s > 0):
            raise _bad_scale(f"scale[{i}]", flat[i], s)
    return kind, memoryview(vec)


def _buf_bias(bias, m, n, out, may_share):
    if _is_number(bias):
        raise _shape_error("bias", (), m, n, False)
    shape, flat, fmt = _nested(bias, "bias")
    kind, _ = _orient("bias", shape, m, n, False)
    int_formats = ("b", "B", "h", "H", "i", "I", "l", "L", "q", "Q")
    if (fmt is not None and fmt not in int_formats) or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in flat):
        raise DTypeError("gemmkit: bias must hold int32 values (integers)")
    if fmt is not None and out is not None and may_share(bias, out):
        raise _overlap_error("bias")
    for i, v in enumerate(flat):
        if not INT32_MIN <= v <= INT32_MAX:
            raise DTypeError(
                f"gemmkit: bias[{i}] = {v} does not fit in int32 (gemmkit never truncates)")
    return kind, memoryview(array("i", flat))


# --------------------------------------------------------------------------

def scale_vector(scale, m: int, n: int, out, may_share):
    """(kind, vector): kind PER_TENSOR/PER_ROW/PER_COL, vector a contiguous
    1-D float32 operand (numpy array, or memoryview of format 'f')."""
    if _np is not None:
        return _np_scale(scale, m, n, out, may_share)
    return _buf_scale(scale, m, n, out, may_share)


def bias_vector(bias, m: int, n: int, out, may_share):
    """(kind, vector or None): kind NONE/PER_ROW/PER_COL, vector a contiguous
    1-D int32 operand."""
    if bias is None:
        return NONE, None
    if _np is not None:
        return _np_bias(bias, m, n, out, may_share)
    return _buf_bias(bias, m, n, out, may_share)
