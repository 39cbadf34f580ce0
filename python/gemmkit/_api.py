"""The public functions, shared by the native and the Pyodide backends.

This layer is conversion and numpy semantics only: Python inputs become
arrays (DLPack producers and other array-likes to numpy views, buffers
without numpy), ``matmul`` follows ``numpy.matmul`` (type resolution, 1-D
promotion, batch broadcasting, ``out=`` forms, scalars, subclasses,
``__array_ufunc__`` deferral), and the operands go to the backend, whose
C++ core checks everything else (dtype pairs, shapes, strides, overlap,
read-only outputs, scalar domains) with one catalogue of messages.  What
the core cannot see (a Python argument of the wrong kind, which the
binding would only report as a signature mismatch) is checked here, once,
on the way in; a numpy float operand pays nothing for those checks.

Results come back in the caller's array type: a new result is a numpy
array, or the inputs' own type (a torch tensor for torch tensors in) when
every operand came through DLPack from one library that can import one
back (:func:`_dlpack_namespace`); with ``out=`` the caller's ``out``.
"""

from __future__ import annotations

import sys

from . import _dtypes as _dt
from . import _requant
from ._backend import backend
from ._errors import ArgumentError, DTypeError, GemmkitError, ShapeError
from ._packed import PackedRhs

try:  # numpy is optional under Pyodide, where buffers work without it
    import numpy as _np
except ImportError:  # pragma: no cover - exercised in the Pyodide suite
    _np = None

_ndarray = _np.ndarray if _np is not None else None
_ufunc_default = _np.ndarray.__array_ufunc__ if _np is not None else None
# Bound once: the fast path of a tiny product is a handful of lookups.
_gemm = backend.gemm
_matmul2d = backend.matmul2d
_F32 = _np.dtype("float32") if _np is not None else None
_F64 = _np.dtype("float64") if _np is not None else None
_CODES = backend.CODES
_ACT = _CODES["activations"]
_BIAS = _CODES["bias_kinds"]
# numpy's casting rules (numpy.can_cast).
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
# matmul's default casting, compared by identity on the fast path.
_SAME_KIND = "same_kind"
# Scalars that are never operands of their own (c=2.0, bias=0.5).
_SCALARS = (int, float, complex, bool)


# --------------------------------------------------------------------------
# operands

def _operand(x, name):
    """A numpy view of ``x`` without copying where numpy is available (an
    exception raised by the object's ``__array__`` propagates unchanged)."""
    if type(x) is _ndarray:
        return x
    if _np is None:
        return x if isinstance(x, memoryview) else _buffer(x, name)
    if isinstance(x, _ndarray):
        return x
    if _via_dlpack(x):
        return _from_dlpack(x, name, False)
    if type(x) is list or type(x) is tuple:
        try:
            return _np.asarray(x)
        except ValueError:  # numpy: "setting an array element with a sequence"
            raise _dt.ragged_error(name) from None
    return _np.asarray(x)


def _via_dlpack(x):
    """True for an operand read through DLPack: a producer without the
    buffer protocol (a torch tensor, a jax array); numpy arrays and buffers
    are read directly."""
    return hasattr(x, "__dlpack__") and not _has_buffer(x)


def _from_dlpack(x, name, for_out):
    """numpy's zero-copy view of a DLPack producer's memory.  bfloat16,
    which numpy.from_dlpack cannot make, comes through the extension's own
    capsule reader as an ml_dtypes.bfloat16 array over the same memory."""
    try:
        return _np.from_dlpack(x, copy=False) if for_out else _np.from_dlpack(x)
    except (BufferError, TypeError, ValueError, RuntimeError) as exc:
        problem = exc
    try:
        arr = _bfloat16_from_dlpack(x, for_out)
    except (BufferError, TypeError, ValueError, RuntimeError) as exc:
        arr, problem = None, exc
    if arr is None:
        verb = "written" if for_out else "read"
        raise DTypeError(f"gemmkit: {name} could not be {verb} via DLPack: {problem}") from None
    return arr


def _bfloat16_from_dlpack(x, for_out):
    """A bfloat16 DLPack producer as an array, or None (another dtype, or
    no reader: the Pyodide backend has no DLPack producers to read)."""
    if backend.NAME != "native":
        return None
    try:
        capsule = x.__dlpack__(max_version=(1, 0), copy=False if for_out else None)
    except TypeError:  # a producer of the pre-1.0 protocol (no keywords)
        capsule = x.__dlpack__()
    return backend.array_from_dlpack(capsule, for_out)


def _buffer(x, name):
    """Without numpy: a memoryview of a buffer, or nested lists through the
    array module (a copy, as numpy.asarray would make)."""
    try:
        return memoryview(x)
    except TypeError:
        pass
    if isinstance(x, (list, tuple)):
        return _dt.buffer_from_lists(x, name)
    raise DTypeError(
        f"gemmkit: {name} must be a buffer (array.array, memoryview, bytearray) or "
        f"nested lists of numbers without numpy, got {type(x).__name__}")


# Types memoryview() refused with TypeError: they have no buffer protocol at
# all (a type slot), so asking again per call (an exception each time,
# about half a microsecond for a torch tensor) is skipped.
_NO_BUFFER: set = set()


def _has_buffer(x):
    t = type(x)
    if t in _NO_BUFFER:
        return False
    try:
        memoryview(x).release()
        return True
    except TypeError:
        _NO_BUFFER.add(t)
        return False


def _out_arg(out):
    """numpy's ``out=`` forms: an array, or a 1-tuple holding one (or None).
    Anything else is refused before anything is computed, so no result is
    ever written into a temporary the caller cannot see."""
    if type(out) is tuple:
        if len(out) != 1:
            raise ArgumentError(
                f"gemmkit: out must be an array or a 1-tuple holding one, got a tuple of "
                f"{len(out)} entries")
        out = out[0]
        if out is None:
            return None
    if _np is None:
        try:
            return out if isinstance(out, memoryview) else memoryview(out)
        except TypeError:
            raise DTypeError(
                f"gemmkit: out must be a writable buffer, got {type(out).__name__}") from None
    if isinstance(out, _ndarray):
        return out
    if _has_buffer(out):  # a memoryview, bytearray...: numpy views its memory
        return _np.asarray(out)
    if hasattr(out, "__dlpack__"):
        # Written in place: the producer's memory is the result.
        return _from_dlpack(out, "out", True)
    raise DTypeError(
        f"gemmkit: out must be an array (or numpy's 1-tuple form), got {type(out).__name__}")


def _callers(out):
    """What a call with ``out=`` returns: the caller's own object (the one
    inside numpy's 1-tuple form), never a view made of it."""
    return out[0] if type(out) is tuple else out


# --------------------------------------------------------------------------
# results in the caller's array type

def _dlpack_namespace(*operands):
    """The namespace whose ``from_dlpack`` takes a new result back: that of
    the library every array operand came from through DLPack (torch for
    torch tensors), or None when any operand is a numpy array, a buffer or
    nested lists, when the producers are of different libraries, or when
    theirs has no ``from_dlpack``.  Scalars and a PackedRhs do not count."""
    if _np is None:
        return None
    found = None
    for x in operands:
        if x is None or type(x) is PackedRhs or isinstance(x, _SCALARS):
            continue
        if isinstance(x, _ndarray) or not _via_dlpack(x):
            return None
        get_namespace = getattr(x, "__array_namespace__", None)  # the array API's way
        ns = get_namespace() if get_namespace is not None else sys.modules.get(
            type(x).__module__.partition(".")[0])  # torch.Tensor -> torch
        if ns is None or not callable(getattr(ns, "from_dlpack", None)):
            return None
        if found is not None and ns is not found:
            return None
        found = ns
    return found


def _in_namespace(result, ns):
    """A new numpy result as ``ns``'s array over the same memory (the
    producer keeps the numpy array alive), or the numpy array itself when
    ``ns`` cannot import it."""
    try:
        if _dt.np_dtype_name(result.dtype) == "bfloat16":
            # numpy exports no bfloat16 over DLPack: the same bits as int16,
            # retyped by the producer (a view, no copy).
            return ns.from_dlpack(result.view(_np.int16)).view(ns.bfloat16)
        return ns.from_dlpack(result)
    except (AttributeError, BufferError, TypeError, ValueError, RuntimeError):
        return result


def _returned(result, a0, b0, c0=None):
    """A new result as the caller gets it (see :func:`_dlpack_namespace`)."""
    if type(a0) is _ndarray:  # the common case decides at once
        return result
    ns = _dlpack_namespace(a0, b0, c0)
    return result if ns is None else _in_namespace(result, ns)


# --------------------------------------------------------------------------
# element types, epilogue, c

def _result_name(in_name, out_dtype, out, a_for_message=None):
    """The output type of a product of ``in_name`` inputs: ``out_dtype``, or
    the input type's default output.  ``out`` must have it: gemm converts
    nothing, and ``out_dtype`` (not out's own type) chooses the twin."""
    if in_name not in _dt.PAIRS:
        if not _dt.PAIRS:  # the library could not load: raise its refusal
            backend.dispatch_info()
        if out is not None:
            return in_name  # the core names the unsupported input
        _dt.input_dtype(a_for_message, "a")  # no result type to allocate: refuse here
    res = _dt.output_dtype(in_name, out_dtype)
    if out is not None and _dt.operand_dtype(out) != res:
        raise _dt.result_mismatch(in_name, res, "out", out)
    return res


_ACTIVATION_FORMS = "None, 'relu', ('leaky_relu', slope) or ('clip', lo, hi)"


def _epilogue(bias, activation, in_name, m, n):
    """(bias_kind, bias vector, activation, slope, lo, hi) for the backend."""
    if bias is None and activation is None:
        return None
    act, slope, lo, hi = _ACT["none"], 0.0, 0.0, 0.0
    form = activation[0] if type(activation) is tuple and activation else None
    if activation is None:
        pass
    elif type(activation) is str and activation == "relu":
        act = _ACT["relu"]
    elif form == "leaky_relu" and len(activation) == 2:
        act, slope = _ACT["leaky_relu"], _dt.real_scalar(activation[1], "leaky_relu slope")
    elif form == "clip" and len(activation) == 3:
        act = _ACT["clip"]
        lo, hi = _dt.real_scalar(activation[1], "clip lo"), _dt.real_scalar(activation[2], "clip hi")
    else:
        raise ArgumentError(
            f"gemmkit: activation must be {_ACTIVATION_FORMS}, got {_dt.short_repr(activation)}")
    if bias is None:
        return (_BIAS["none"], None, act, slope, lo, hi)
    kind, vec = _bias_vector(bias, _CODES["accumulators"].get(in_name, "float32"), m, n)
    return (kind, vec, act, slope, lo, hi)


# The kinds of bias values each accumulator kind takes: an integer
# accumulator takes integers (gemmkit never truncates), a real one real
# numbers, a complex one any number.
_BIAS_VALUE_KINDS = {"i": "biu", "u": "biu", "f": "biuf", "c": "biufc"}


def _bias_vector(bias, acc_name, m, n):
    """A bias that broadcasts like numpy's ``+ bias`` onto an (m, n) result:
    a scalar, (n,) or (1, n) per column, (m, 1) per row; values in the
    accumulator type (a documented conversion of the vector)."""
    if _np is None:
        vec = _operand(bias, "bias")
        return (_BIAS["per_col"], vec) if vec.ndim == 1 else _bias_shape_error(vec.shape, m, n)
    vec = _bias_values(bias, acc_name)
    if vec.ndim == 0 or vec.shape == (1, 1):
        return _BIAS["per_col"], _np.broadcast_to(vec.reshape(()), (n,))
    if vec.ndim == 1:
        return _BIAS["per_col"], vec
    if vec.ndim == 2 and vec.shape[0] == 1:
        return _BIAS["per_col"], vec[0]
    if vec.ndim == 2 and vec.shape[1] == 1:
        return _BIAS["per_row"], vec[:, 0]
    return _bias_shape_error(vec.shape, m, n)


def _bias_values(bias, acc_name):
    """``bias`` as an array of the accumulator type ``acc_name``."""
    acc = _dt.numpy_dtype(acc_name)
    if isinstance(bias, _ndarray):
        arr = bias
    else:
        try:
            arr = _operand(bias, "bias")
        except GemmkitError:
            raise
        except (TypeError, ValueError, OverflowError):  # not numbers at all
            arr = None
    if arr is None or _dt.value_kind(arr.dtype) not in _BIAS_VALUE_KINDS.get(acc.kind, ""):
        got = f"values of dtype {arr.dtype}" if arr is not None else _dt.short_repr(bias)
        raise DTypeError(
            f"gemmkit: bias must be a number or an array of numbers the {acc_name} "
            f"accumulator holds ({_dt.kind_words(acc.kind)}), got {got}")
    if arr.dtype == acc:
        return arr
    if acc.kind in "iu":
        info = _np.iinfo(acc)
        if arr.size and (arr.min() < info.min or arr.max() > info.max):
            raise ArgumentError(
                f"gemmkit: bias holds a value outside the {acc_name} accumulator's range "
                f"[{info.min}, {info.max}] (gemmkit never truncates)")
    with _np.errstate(over="ignore"):  # float64 -> float32: beyond the range is inf
        return arr.astype(acc)


def _bias_shape_error(shape, m, n):
    raise ShapeError(
        f"gemmkit: bias of shape {tuple(shape)} does not broadcast like a per-column "
        f"(n,) or (1, n) or a per-row (m, 1) bias onto the {m}x{n} result")


# The Python numbers each kind of result type takes as a scalar c.
_WEAK_KINDS = {"b": (bool,), "i": (int,), "u": (int,), "f": (int, float),
               "c": (int, float, complex)}


def _c_operand(c, res_name, like):
    """``c`` as an array.  A Python number takes the result type, as numpy's
    scalars do (NEP 50: ``c=1.0`` in a float32 product is float32), when
    that type holds its kind: an int for integer types, a real number for
    real ones; gemm converts no array."""
    if _np is None or not isinstance(c, _SCALARS):
        return _operand(c, "c")
    dt = _dt.numpy_dtype(res_name, like)
    if type(c) not in _WEAK_KINDS.get(_dt.value_kind(dt), ()):
        raise DTypeError(
            f"gemmkit: c={_dt.short_repr(c)} is not a value of the {res_name} result "
            "(gemmkit does not convert; pass an array of that type)")
    try:
        with _np.errstate(over="ignore"):  # beyond a float type's range is inf
            return _np.asarray(c, dtype=dt)
    except OverflowError:
        raise ArgumentError(
            f"gemmkit: c={_dt.short_repr(c)} is outside the {res_name} result's range") from None


def _broadcast_c(c, m, n):
    """``c`` broadcast like numpy onto (m, n): a scalar, a row or a column
    is read through zero strides (no copy)."""
    if _np is None or c.ndim > 2 or tuple(c.shape) == (m, n):
        return c
    try:
        return _np.broadcast_to(c, (m, n))
    except ValueError:
        raise ShapeError(
            f"gemmkit: c of shape {tuple(c.shape)} does not broadcast to the {m}x{n} "
            "result") from None


def _conj_flags(conj_a, conj_b):
    """The C ABI's GEMMKIT_CONJ_A | GEMMKIT_CONJ_B."""
    if conj_a is False and conj_b is False:
        return 0
    for value, name in ((conj_a, "conj_a"), (conj_b, "conj_b")):
        if type(value) is not bool and not (_np is not None and type(value) is _np.bool_):
            raise ArgumentError(
                f"gemmkit: {name} must be True or False, got {_dt.short_repr(value)}")
    return (1 if conj_a else 0) | (2 if conj_b else 0)


def _strict(x, name):
    """An operand of the strict entries: a masked array's mask would be
    ignored, so it is refused (matmul follows numpy instead)."""
    x = _operand(x, name)
    if _np is not None and isinstance(x, _np.ma.MaskedArray):
        raise DTypeError(
            f"gemmkit: {name} is a masked array; gemm does not apply masks (pass "
            f"{name}.filled(value) or {name}.data explicitly)")
    return x


def _matrices(entry, a, b, out):
    """(a, b, out) of a 2-D entry as arrays (b may stay a PackedRhs)."""
    a = _strict(a, "a")
    if type(b) is not PackedRhs:
        b = _strict(b, "b")
    if out is not None:
        out = _out_arg(out)
    if a.ndim != 2 or len(b.shape) != 2 or (out is not None and out.ndim != 2):
        raise ShapeError(
            f"gemmkit: {entry} takes 2-D operands, got a.ndim={a.ndim}, b.ndim={len(b.shape)}"
            + ("" if out is None else f", out.ndim={out.ndim}")
            + (" (gemm_batched takes stacks of matrices)" if entry == "gemm" else ""))
    return a, b, out


# --------------------------------------------------------------------------
# docstrings: the parameters and notes several entries share, written once

def _docstring(**pieces):
    """Fills a docstring's ``{name}`` fields with shared text (the pieces
    are written at the docstring's own indentation, four spaces)."""
    def apply(fn):
        fn.__doc__ = fn.__doc__.format(**pieces)
        return fn
    return apply


_SCALAR_PARAMS = """\
alpha, beta : number, optional
        Scale factors (default 1 and 0), converted to the accumulator type
        (see Notes).  ``beta == 0`` never reads ``c``; ``alpha == 0``
        never reads ``a`` or ``b``.  Integer products take integers (int8:
        in the int32 range, ``2.0`` is fine, ``0.5`` is an
        :class:`ArgumentError`; the other integer types: magnitude up to
        2**53, reduced modulo the type's ring); bool takes only
        ``alpha=1``, ``beta=0``; complex products take complex values."""

_OUT_PARAMS = """\
out : ndarray or tuple of one ndarray, optional
        Receives the result in place and is returned.  It must have the
        output type and shape, be writable and not overlap ``a`` or ``b``
        (:class:`OverlapError`: gemmkit never copies behind your back);
        it may be ``c`` itself (an in-place update).  Anything else raises
        before anything is written.  A DLPack producer (a torch tensor) is
        written in place.
    out_dtype : dtype-like, optional
        The output type where the input type has two (see Notes):
        ``numpy.float32`` for float16 or bfloat16 inputs, ``numpy.int8``
        for int8 inputs.  A name (``"float32"``), a numpy type or dtype."""

_EPILOGUE_PARAMS = """\
bias : array_like or scalar, optional
        Added before the activation, broadcast like numpy's ``+ bias``: a
        scalar, (n,) or (1, n) per column, (m, 1) per row; in the
        accumulator type (converted if given in another; an integer
        accumulator takes only integer values).  Floating-point, complex
        and int8 -> int32 products only.
    activation : None, "relu", ("leaky_relu", slope) or ("clip", lo, hi), optional
        Applied in the kernel's store, before the one rounding to the
        output type: ``"relu"`` is ``max(v, 0)`` (NaN -> 0, -0 -> +0);
        ``("leaky_relu", slope)`` is ``max(v, 0) + slope * min(v, 0)``
        (same NaN and zero rules; slope finite); ``("clip", lo, hi)``
        clamps to ``[lo, hi]`` (``lo <= hi``; NaN -> lo).  Real types
        only.
    conj_a, conj_b : bool, optional
        Use the conjugate of ``a`` / ``b`` (``conj_a`` is
        :func:`numpy.vdot`'s conjugation), at no extra cost; for real
        types they change nothing.  ``conj_b`` needs ``b`` itself, not a
        :class:`PackedRhs`."""

_GEMM_RAISES = """\
ShapeError
        The dimensions do not agree, or an operand has the wrong ndim.
    DTypeError
        An element type gemmkit does not compute, operands of different
        types, an ``out`` of another type than the result's, or an object
        that is not an array.
    ArgumentError
        A scalar argument outside its domain (``alpha``, ``beta``, the
        activation's parameters, ``conj_a``...).
    OverlapError
        ``out`` shares memory with ``a`` or ``b``.
    LayoutError
        ``out`` is read-only or aliases itself (a zero stride)."""

_ARRAY_TYPE_NOTE = """\
Array types.  Operands may be numpy arrays, buffer-protocol objects,
    nested lists, or DLPack producers on the CPU (torch tensors, jax
    arrays), read in place (zero-copy; bfloat16 tensors included, as
    ``ml_dtypes.bfloat16`` arrays).  A new result is a numpy array, except
    when every array operand came through DLPack from one library that
    imports DLPack (torch in: torch out): then it is that library's array,
    sharing the result's memory (no copy).  With ``out=`` the caller's
    ``out`` itself is returned.  A torch tensor that requires grad is
    refused (gemmkit computes no gradients; pass ``t.detach()``)."""

_TYPES_TABLE = """\
Element types (``a`` and ``b`` always share one; ``c`` and ``out`` have
    the output type; gemm converts neither):

    ========================  ===========  ====================================
    inputs                    accumulator  output
    ========================  ===========  ====================================
    float32                   float32      float32
    float64                   float64      float64
    float16                   float32      float16 (rounded once, at the
                                           store); ``out_dtype=numpy.float32``:
                                           float32, not rounded
    bfloat16 (ml_dtypes)      float32      bfloat16; or float32 as for float16
    int8                      int32        int32; ``out_dtype=numpy.int8``:
                                           int8, wrapping (numpy's matmul)
    uint8, int16 ... uint64   the output   the same type, wrapping modulo
                              type's ring  2**bits as numpy's loops do
    bool                      count        bool: any(a[i, :] & b[:, j])
    complex64, complex128     itself       itself
    ========================  ===========  ====================================

    The ring types are uint8, int16, uint16, int32, uint32, int64 and
    uint64.  int8 arithmetic wraps modulo 2**32, the same bits on every ISA
    and thread count."""


# --------------------------------------------------------------------------
# gemm, gemm_batched

@_docstring(scalars=_SCALAR_PARAMS, outs=_OUT_PARAMS, epilogue=_EPILOGUE_PARAMS,
            raises=_GEMM_RAISES, types=_TYPES_TABLE, array_types=_ARRAY_TYPE_NOTE)
def gemm(a, b, c=None, *, alpha=1.0, beta=0.0, out=None, out_dtype=None, bias=None,
         activation=None, conj_a=False, conj_b=False):
    """General matrix product ``act(alpha * a @ b + beta * c + bias)``.

    Computed by the fastest kernel this machine runs for the element type,
    in one pass: the scaling, the update of ``c``, the bias and the
    activation happen in the kernel's store.

    Parameters
    ----------
    a : array_like, shape (m, k)
        The left operand.  Any strides: transposed, reversed and sliced
        views are read in place.
    b : array_like, shape (k, n), or PackedRhs
        The right operand, of ``a``'s element type, or a :class:`PackedRhs`
        made by :func:`prepack_rhs`.
    c : array_like or scalar, optional
        Added as ``beta * c``: (m, n), or anything that broadcasts to it
        like numpy (a scalar, a row (n,) or (1, n), a column (m, 1)), of
        the output type (a Python number takes it, as numpy's scalars do:
        an int for integer types, a real number for real ones).  ``None``
        (the default) ignores ``beta``.
    {scalars}
    {outs}
    {epilogue}

    Returns
    -------
    ndarray
        The (m, n) result: ``out`` when given, else a new C-contiguous
        array of the output type (a torch tensor for torch operands, a
        ``memoryview`` under Pyodide without numpy; see Notes).

    Raises
    ------
    {raises}

    See Also
    --------
    gemm_batched : The same over stacks of matrices, in one call.
    matmul : ``numpy.matmul``, computed by gemmkit.
    prepack_rhs : Pack ``b`` once for many products.

    Notes
    -----
    {types}

    {array_types}

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    >>> b = np.array([[1.0, 0.0], [1.0, 1.0]], dtype=np.float32)
    >>> gemmkit.gemm(a, b)
    array([[3., 2.],
           [7., 4.]], dtype=float32)
    >>> c = np.ones((2, 2), dtype=np.float32)
    >>> gemmkit.gemm(a, b, c, alpha=2.0, beta=-1.0, out=c) is c
    True
    >>> c
    array([[ 5.,  3.],
           [13.,  7.]], dtype=float32)

    A fused epilogue: a per-column bias, then ReLU.

    >>> gemmkit.gemm(a, b, bias=[-4.0, 0.0], activation="relu")
    array([[0., 2.],
           [3., 4.]], dtype=float32)

    int8 inputs give int32 sums; ``out_dtype`` selects numpy's wrapping
    int8 result instead.

    >>> a8 = np.full((1, 4), 100, dtype=np.int8)
    >>> gemmkit.gemm(a8, a8.T)
    array([[40000]], dtype=int32)
    >>> gemmkit.gemm(a8, a8.T, out_dtype=np.int8)
    array([[64]], dtype=int8)

    Without numpy, buffers work too (the result is a numpy array where
    numpy is installed, a ``memoryview`` otherwise):

    >>> from array import array
    >>> m = memoryview(array("d", [1, 2, 3, 4])).cast("B").cast("d", (2, 2))
    >>> gemmkit.gemm(m, m).tolist()
    [[7.0, 10.0], [15.0, 22.0]]
    """
    if (c is None and out_dtype is None and bias is None and activation is None
            and conj_a is False and conj_b is False and type(alpha) is float
            and type(beta) is float):
        done = _plain_gemm(a, b, alpha, beta, out)
        if done is not None:
            return done
    caller_out = out
    a0, b0, c0 = a, b, c
    a, b, out = _matrices("gemm", a, b, out)
    m, n = a.shape[0], b.shape[1]
    in_name = _dt.operand_dtype(a)
    res = _result_name(in_name, out_dtype, out, a)
    if c is not None:
        c = _broadcast_c(_c_operand(c, res, a), m, n)
    epi = _epilogue(bias, activation, in_name, m, n)
    al, be = _dt.scalar(alpha, "alpha", in_name), _dt.scalar(beta, "beta", in_name)
    flags = _conj_flags(conj_a, conj_b)
    if out is not None:
        _gemm(al, a, b._handle if type(b) is PackedRhs else b, be, c, out, epi, flags)
        return _callers(caller_out)
    out = _dt.new_result(res, m, n, a)
    _gemm(al, a, b._handle if type(b) is PackedRhs else b, be, c, out, epi, flags)
    return _returned(out, a0, b0, c0)


def _plain_gemm(a, b, alpha, beta, out):
    """gemm's shortcut for a plain product (no c, epilogue, conjugation or
    out_dtype; float alpha and beta) of 2-D numpy arrays, or of memoryviews
    without numpy: what the general path would pass the backend, without
    its helpers, for small products' sake.  None when the operands are
    anything else, or the general path would refuse them (it then takes the
    call and raises its own error)."""
    if _np is None:
        kind = memoryview
    elif type(a) is _ndarray:
        kind = _ndarray
    else:
        return None
    if (type(a) is not kind or type(b) is not kind
            or (out is not None and type(out) is not kind)):
        return None  # operands the general path converts (or refuses)
    if a.ndim != 2 or b.ndim != 2 or (out is not None and out.ndim != 2):
        return None
    in_name = _dt.operand_dtype(a)
    outs = _dt.PAIRS.get(in_name)
    if outs is None:
        return None
    if out is not None and _dt.operand_dtype(out) != outs[0]:
        return None
    if in_name in _dt.COMPLEX:  # what _dt.scalar makes of a float (real types: itself)
        alpha, beta = complex(alpha), complex(beta)
    if out is not None:
        _gemm(alpha, a, b, beta, None, out, None, 0)
        return out
    out = _dt.new_result(outs[0], a.shape[0], b.shape[1], a)
    _gemm(alpha, a, b, beta, None, out, None, 0)
    return out


@_docstring(scalars=_SCALAR_PARAMS, outs=_OUT_PARAMS, epilogue=_EPILOGUE_PARAMS,
            raises=_GEMM_RAISES, array_types=_ARRAY_TYPE_NOTE)
def gemm_batched(a, b, c=None, *, alpha=1.0, beta=0.0, out=None, out_dtype=None, bias=None,
                 activation=None, conj_a=False, conj_b=False):
    """:func:`gemm` over stacks of matrices, as one call into the core.

    The whole batch is checked once, then run in parallel across its
    matrices when each product is small, across tiles when it is large.
    Element types, scalars, the epilogue (the same bias for every matrix)
    and the ``out`` rules are :func:`gemm`'s.

    Parameters
    ----------
    a : array_like, shape (..., m, k)
        The left operands.
    b : array_like, shape (..., k, n), or PackedRhs
        The right operands, or one :class:`PackedRhs` for every matrix.
    c : array_like or scalar, optional
        Anything that broadcasts to the result (..., m, n).
    {scalars}
    {outs}
    {epilogue}

    Returns
    -------
    ndarray
        The (..., m, n) result: the leading dimensions broadcast like
        numpy's (and :func:`matmul`'s), those of ``out`` included.

    Raises
    ------
    {raises}

    See Also
    --------
    gemm : One product, and the table of element types.
    matmul : ``numpy.matmul``, which also broadcasts stacks.

    Notes
    -----
    Needs numpy (under Pyodide without numpy, :func:`gemm` takes 2-D
    buffers).

    {array_types}

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(8.0).reshape(2, 2, 2)
    >>> gemmkit.gemm_batched(a, np.eye(2), alpha=2.0)
    array([[[ 0.,  2.],
            [ 4.,  6.]],
    <BLANKLINE>
           [[ 8., 10.],
            [12., 14.]]])
    """
    if _np is None:
        raise DTypeError("gemmkit: gemm_batched needs numpy (gemm takes 2-D buffers)")
    a0, b0, c0 = a, b, c
    a = _strict(a, "a")
    packed = type(b) is PackedRhs
    if not packed:
        b = _strict(b, "b")
    if a.ndim < 2 or len(b.shape) < 2:
        raise ShapeError(
            f"gemmkit: gemm_batched takes operands of 2 or more dimensions, got "
            f"a.ndim={a.ndim}, b.ndim={len(b.shape)}")
    caller_out = out
    if out is not None:
        out = _out_arg(out)
    in_name = _dt.operand_dtype(a)
    res = _result_name(in_name, out_dtype, out, a)
    m, n = a.shape[-2], b.shape[-1]
    batch = _batch_shape(a.shape[:-2], () if packed else b.shape[:-2],
                         None if out is None else out.shape[:-2])
    if c is not None:
        c = _c_operand(c, res, a)
        try:
            c = _np.broadcast_to(c, batch + (m, n))
        except ValueError:
            raise ShapeError(
                f"gemmkit: c of shape {c.shape} does not broadcast to the result "
                f"{batch + (m, n)}") from None
    epi = _epilogue(bias, activation, in_name, m, n)
    al, be = _dt.scalar(alpha, "alpha", in_name), _dt.scalar(beta, "beta", in_name)
    flags = _conj_flags(conj_a, conj_b)
    if out is not None:
        if out.ndim < 2:
            raise ShapeError(f"gemmkit: out must have at least 2 dimensions, got {out.ndim}")
        _run_batched(al, a, b, be, c, out, epi, batch, flags)
        return _callers(caller_out)
    out = _dt.new_array(batch + (m, n), _dt.numpy_dtype(res, a))
    _run_batched(al, a, b, be, c, out, epi, batch, flags)
    return _returned(out, a0, b0, c0)


def _batch_shape(a_batch, b_batch, out_batch):
    """The broadcast batch shape (numpy's rule; out's dimensions take part,
    and out must already have the broadcast shape)."""
    try:
        batch = _np.broadcast_shapes(a_batch, b_batch)
        if out_batch is not None:
            batch = _np.broadcast_shapes(batch, out_batch)
    except ValueError:
        raise ShapeError(
            f"gemmkit: the batch dimensions {tuple(a_batch)} and {tuple(b_batch)}"
            + ("" if out_batch is None else f" (out {tuple(out_batch)})")
            + " do not broadcast") from None
    if out_batch is not None and tuple(out_batch) != batch:
        raise ShapeError(
            f"gemmkit: non-broadcastable output operand: out has batch dimensions "
            f"{tuple(out_batch)}, but the operands broadcast to {batch}")
    return batch


def _as_stack(x, batch):
    """``x`` (batch + core) as one 3-D stack view, or None when its batch
    dimensions cannot be folded into one stride (then the caller loops)."""
    if len(batch) == 1:
        return x
    view = x.view()
    try:
        view.shape = (int(_np.prod(batch, dtype=_np.int64)),) + x.shape[-2:]
    except AttributeError:
        return None
    return view


def _run_batched(alpha, a, b, beta, c, out, epi, batch, flags=0):
    """One backend call for the whole batch (or one per leading index when
    the batch does not fold into one stride).  ``out`` has shape
    batch + (m, n); a, b and c broadcast to batch + their core shapes."""
    packed = type(b) is PackedRhs
    if not batch:
        _gemm(alpha, a, b._handle if packed else b, beta, c, out, epi, flags)
        return
    a_b = _np.broadcast_to(a, batch + a.shape[-2:])
    b_b = b if packed else _np.broadcast_to(b, batch + b.shape[-2:])
    stacks = [_as_stack(a_b, batch), b_b if packed else _as_stack(b_b, batch),
              None if c is None else _as_stack(c, batch), _as_stack(out, batch)]
    if all(s is not None for i, s in enumerate(stacks) if not (i == 2 and c is None)):
        sa, sb, sc, so = stacks
        _gemm(alpha, sa, b._handle if packed else sb, beta, sc, so, epi, flags)
        return
    for idx in _np.ndindex(*batch[:-1]):
        _gemm(alpha, a_b[idx], b._handle if packed else b_b[idx], beta,
              None if c is None else c[idx], out[idx], epi, flags)


# --------------------------------------------------------------------------
# matmul: numpy.matmul

# (dtype of a, dtype of b, out dtype or None, dtype=, casting) ->
# numpy's loop dtypes (in1, in2, out).  Resolving costs a microsecond.
_RESOLVED: dict = {}


def _resolve(da, db, dout, dtype, casting):
    # The type chars too: longlong and long are equal dtypes (one hash) but
    # numpy keeps each one's scalar type.
    key = (da, da.char, db, db.char, dout, None if dout is None else dout.char, dtype, casting)
    got = _RESOLVED.get(key)
    if got is None:
        kw = {} if dtype is None else {"signature": (None, None, _np.dtype(dtype))}
        try:
            got = _np.matmul.resolve_dtypes((da, db, dout), casting=casting, **kw)
        except TypeError as exc:  # no loop, or out cannot take the result
            raise DTypeError(f"gemmkit: matmul: {exc}") from None
        _RESOLVED[key] = got
    return got


def _overrides(*xs):
    """True when an operand overrides ufuncs (numpy would defer to it)."""
    for x in xs:
        t = type(x)
        if t is _ndarray or x is None or t is PackedRhs:
            continue
        handler = getattr(t, "__array_ufunc__", _ufunc_default)
        if handler is not _ufunc_default:
            return True
    return False


def _dtype_arg(dtype):
    """matmul's ``dtype=`` as a numpy dtype (a DTypeError, numpy's TypeError
    kind, for what numpy cannot read as one)."""
    try:
        return _np.dtype(dtype)
    except (TypeError, ValueError):
        raise DTypeError(
            f"gemmkit: matmul: dtype={_dt.short_repr(dtype)} is not a numpy dtype") from None


def _casting_arg(casting):
    if type(casting) is not str or casting not in _CASTINGS:
        raise ArgumentError(
            f"gemmkit: matmul: casting must be one of {', '.join(map(repr, _CASTINGS))}, "
            f"got {_dt.short_repr(casting)}")


@_docstring(array_types=_ARRAY_TYPE_NOTE)
def matmul(a, b, /, out=None, *, casting=_SAME_KIND, dtype=None, axes=None):
    """Matrix product ``a @ b``: :func:`numpy.matmul`, computed by gemmkit.

    The same result dtype (numpy's type resolution: ``float64 @ float32``
    is float64, the float32 operand converted first, a documented copy),
    the same shapes (1-D operands promoted and the promoted axis removed;
    leading dimensions, those of ``out`` included, broadcast), ``out`` as
    an array or a 1-tuple with numpy's ``casting`` rule, a numpy scalar for
    1-D @ 1-D, subclasses wrapped back (``__array_wrap__``), and operands
    that override ufuncs (``__array_ufunc__``) deferred to, as numpy does.

    Parameters
    ----------
    a, b : array_like
        The operands, of 1 or more dimensions; ``b`` may be a
        :class:`PackedRhs`.
    out : ndarray or tuple of one ndarray, optional
        Receives the result (numpy's ``casting`` rule applies) and is
        returned.  An ``out`` that shares memory with an input gets the
        input copied first, as numpy does (:func:`gemm` refuses it
        instead).
    casting : {{"no", "equiv", "safe", "same_kind", "unsafe"}}, optional
        numpy's rule for converting the result into ``out`` (default
        ``"same_kind"``).
    dtype : dtype-like, optional
        The loop's output type, as numpy's ``dtype=`` (the inputs are
        converted to the loop numpy chooses for it).
    axes : list of tuples, optional
        numpy's ``axes``: three entries naming the matrix axes of ``a``,
        ``b`` and the result, each a pair of axes or one axis of a vector
        (read and written through views, no copy).

    Returns
    -------
    ndarray or scalar
        The product; a numpy scalar when both operands are 1-D; ``out``
        when given; a torch tensor for torch operands (see Notes).

    Raises
    ------
    ShapeError
        The core dimensions do not agree, an operand has no dimensions, or
        the batch dimensions do not broadcast.
    DTypeError
        No numpy loop for the operand types, ``out`` cannot take the
        result under ``casting``, or ``dtype`` is not a dtype.
    ArgumentError
        ``casting`` or ``axes`` are not numpy's forms.

    See Also
    --------
    gemm : The strict product with ``alpha``, ``beta``, ``c`` and a fused
        epilogue, which converts nothing.
    numpy.matmul : The reference semantics.

    Notes
    -----
    gemmkit computes every numeric dtype numpy's matmul has: float32,
    float64, float16 and bfloat16 (a bfloat16 @ bfloat16 result is
    float32, as numpy's is for ``ml_dtypes.bfloat16``: the float32 loop on
    exactly widened inputs), complex64 and complex128, every integer type
    (the result numpy gives, wrapping modulo 2**bits as numpy's loops do:
    the same bits) and bool (logical or of ands).  Mixed dtypes are
    converted to numpy's loop dtype first (``int32 @ int64`` converts the
    int32 operand to int64: a documented copy).  object, longdouble and
    clongdouble products, which have no kernel here, are numpy's own
    (``numpy.matmul`` is called, with its results and errors).

    {array_types}

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[1, 2], [3, 4]], dtype=np.int16)
    >>> gemmkit.matmul(a, a)
    array([[ 7, 10],
           [15, 22]], dtype=int16)
    >>> gemmkit.matmul(a, np.array([1, -1], dtype=np.int16))
    array([-1, -1], dtype=int16)
    >>> v = np.array([1.0, 2.0, 3.0])
    >>> print(gemmkit.matmul(v, v))
    14.0

    Stacks broadcast, as with numpy:

    >>> stack = np.ones((3, 2, 4), dtype=np.float32)
    >>> gemmkit.matmul(stack, np.ones((4, 5), dtype=np.float32)).shape
    (3, 2, 5)
    """
    if axes is not None:
        return _matmul_axes(a, b, out, casting, dtype, axes)
    if (type(a) is _ndarray and type(b) is _ndarray and out is None and dtype is None
            and casting is _SAME_KIND):
        dt = a.dtype
        if b.dtype is dt and (dt is _F32 or dt is _F64) and a.ndim == 2 and b.ndim == 2:
            return _matmul2d(a, b)
    _casting_arg(casting)
    if _np is None:
        return _matmul_buffers(a, b, out)
    if _overrides(a, b, *(out if type(out) is tuple else (out,))):
        kw = {} if dtype is None else {"dtype": dtype}
        return _np.matmul(a, b, out=out, casting=casting, **kw)
    return _matmul_numpy(a, b, out, casting, dtype)


def _matmul_axes(a, b, out, casting, dtype, axes):
    """matmul with numpy's ``axes``: the matrix axes moved last (views).  An
    entry is a pair of axes, or one axis for a 1-D operand (a vector)."""
    if _np is None:
        raise DTypeError("gemmkit: matmul with axes= needs numpy")
    _casting_arg(casting)

    def axis(v):
        if isinstance(v, (int, _np.integer)) and not isinstance(v, (bool, _np.bool_)):
            return int(v)
        raise TypeError

    def entry(x):  # numpy takes a bare axis for a vector's entry
        if isinstance(x, (int, _np.integer)):
            return (axis(x),)
        return tuple(axis(v) for v in x)

    try:
        entries = [entry(x) for x in axes]
    except TypeError:
        entries = []
    if len(entries) != 3 or any(len(e) not in (1, 2) for e in entries):
        raise ArgumentError(
            f"gemmkit: matmul axes must be three entries (a, b, result), each a pair of "
            f"axes or one axis of a vector, got {_dt.short_repr(axes)}")
    if _overrides(a, b, *(out if type(out) is tuple else (out,))):
        kw = {} if dtype is None else {"dtype": dtype}
        return _np.matmul(a, b, out=out, casting=casting, axes=axes, **kw)

    def core_last(x, entry, name):
        try:
            if len(entry) == 1 and x.ndim == 1:
                _np.moveaxis(x, entry[0], -1)  # checks the axis (a vector needs no move)
                return x
            if len(entry) == 1 and name == "out" and x.ndim > 1:  # a vector result's axis
                return _np.moveaxis(x, entry[0], -1)
            if len(entry) == 2 and x.ndim >= 2:
                return _np.moveaxis(x, entry, (-2, -1))
        except ValueError:  # numpy's AxisError, or a repeated axis
            pass
        raise ShapeError(
            f"gemmkit: matmul axes entry {entry} does not fit {name}, which has "
            f"{x.ndim} dimensions")

    moved = [core_last(_operand(x, name), e, name)
             for x, name, e in ((a, "a", entries[0]), (b, "b", entries[1]))]
    result_core = sum(x.ndim > 1 for x in moved)  # the matrix axes, less the vectors'
    if len(entries[2]) != max(result_core, 1):
        raise ShapeError(
            f"gemmkit: matmul axes entry {entries[2]} does not fit the result, which has "
            f"{result_core} core dimensions")
    if out is not None:
        target = _out_arg(out)
        matmul(*moved, out=core_last(target, entries[2], "out"), casting=casting, dtype=dtype)
        return _callers(out)
    result = matmul(*moved, casting=casting, dtype=dtype)
    if len(entries[2]) == 2 and _np.ndim(result) >= 2:
        result = _moved_result(result, (-2, -1), entries[2])
    elif len(entries[2]) == 1 and _np.ndim(result) >= 2:
        result = _moved_result(result, -1, entries[2][0])
    if isinstance(result, _ndarray) and type(a) is not _ndarray:
        return _returned(result, a, b)
    return result


def _moved_result(result, source, destination):
    try:
        return _np.moveaxis(result, source, destination)
    except ValueError:  # numpy's AxisError, or a repeated axis
        raise ShapeError(
            f"gemmkit: matmul axes entry {destination} does not fit the result, which has "
            f"{result.ndim} dimensions") from None


def _matmul_numpy(a0, b0, out, casting, dtype):
    a = _operand(a0, "a")
    packed = type(b0) is PackedRhs
    b = b0 if packed else _operand(b0, "b")
    b_ndim = len(b.shape)
    caller_out = out
    if out is not None:
        out = _out_arg(out)
    if packed and a.dtype != b.dtype:
        raise DTypeError(
            f"gemmkit: dtype mismatch: a is {a.dtype} but the packed b holds {b.dtype} "
            "(prepack_rhs a b of the same dtype as a)")
    in1, in2, loop_out = _resolve(a.dtype, b.dtype, None if out is None else out.dtype,
                                  None if dtype is None else _dtype_arg(dtype), casting)
    if a.ndim == 0 or b_ndim == 0:  # after the types, as numpy checks them
        raise ShapeError(
            "gemmkit: matmul: an operand has no dimensions (numpy.matmul takes arrays of "
            "1 or more)")
    # What the core computes in: the loop's types, or (bfloat16 widened to
    # float32 by numpy's loop) the bfloat16 inputs with the float32 output.
    in_name = _dt.np_dtype_name(in1)
    if in1 == _F32 and a.dtype == b.dtype and _dt.np_dtype_name(a.dtype) == "bfloat16":
        in1 = in2 = a.dtype
        in_name = "bfloat16"
    if packed and in2 != b.dtype:
        raise DTypeError(
            f"gemmkit: matmul of {a.dtype} and a packed {b.dtype} b computes in {in2}; a "
            "packed operand cannot be converted (prepack_rhs a b of that dtype)")
    if packed and in_name == "int8":
        # A packed int8 b is laid out for int8 -> int32: those sums wrapped
        # to int8 are numpy's bits.
        core_out = _np.dtype("int32")
    elif in_name in _dt.PAIRS and _dt.np_dtype_name(loop_out) in _dt.PAIRS[in_name]:
        core_out = loop_out
    elif in1.kind == "O" or in1.char in "gG":
        # object, longdouble, clongdouble: no kernel here; numpy's own loop
        # (documented: gemmkit.matmul is numpy.matmul for these dtypes).
        kw = {} if dtype is None else {"dtype": dtype}
        return _np.matmul(a0, b0, out=caller_out, casting=casting, **kw)
    else:
        raise DTypeError(
            f"gemmkit: matmul of {a.dtype} and {b.dtype} arrays computes in {loop_out}, "
            f"which gemmkit does not compute yet (it computes {_dt.SUPPORTED_INPUTS_TEXT}); "
            "numpy.matmul does")
    if a.dtype != in1:
        a = a.astype(in1)
    if not packed and b.dtype != in2:
        b = b.astype(in2)

    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b if packed or b_ndim > 1 else b[:, None]
    m, n = a2.shape[-2], b2.shape[-1]  # the core checks the depths agree
    drop_m, drop_n = a.ndim == 1, b_ndim == 1
    core = ((m,) if not drop_m else ()) + ((n,) if not drop_n else ())
    out_batch = None
    if out is not None:
        if out.ndim < len(core) or tuple(out.shape[out.ndim - len(core):]) != core:
            raise ShapeError(
                f"gemmkit: matmul: out has shape {out.shape}, but the result's last "
                f"dimensions are {core}")
        out_batch = out.shape[:out.ndim - len(core)]
    batch = _batch_shape(a2.shape[:-2], () if packed else b2.shape[:-2], out_batch)

    direct = out is not None and out.dtype == core_out == loop_out
    if direct:
        if _np.may_share_memory(out, a2):
            a2 = a2.copy()  # numpy's rule: an input out overlaps is read from a copy
        if not packed and _np.may_share_memory(out, b2):
            b2 = b2.copy()
        dst = out
        if drop_m:
            dst = dst[..., None, :] if not drop_n else dst[..., None, None]
        elif drop_n:
            dst = dst[..., None]
    else:
        dst = _dt.new_array(batch + (m, n), core_out)
    _run_batched(1.0, a2, b0 if packed else b2, 0.0, None, dst, None, batch)
    if out is not None:
        if not direct:
            res = dst[..., 0, :] if drop_m else dst
            res = res[..., 0] if drop_n else res
            if core_out != loop_out:
                res = res.astype(loop_out)  # packed int8: numpy's 8-bit wrap first
            _np.copyto(out, res, casting="unsafe")  # resolve() checked the casting
        return _callers(caller_out)
    result = dst if dst.dtype == loop_out else dst.astype(loop_out)
    if drop_m:
        result = result[..., 0, :]
    if drop_n:
        result = result[..., 0]
    return _wrap(result, a0, b0)


def _wrap(result, a0, b0):
    """numpy's return conventions: a scalar for a 0-d result, and the
    result wrapped by the input subclass of highest ``__array_priority__``
    (or, for DLPack operands, the producer's array: :func:`_returned`)."""
    wrapper, priority = None, None
    for x in (a0, b0):
        if isinstance(x, _ndarray) and type(x) is not _ndarray:
            p = getattr(x, "__array_priority__", 0.0)
            if wrapper is None or p > priority:
                wrapper, priority = x, p
    if wrapper is not None:
        return wrapper.__array_wrap__(result, (_np.matmul, (a0, b0), 0), result.ndim == 0)
    if type(a0) is not _ndarray:
        returned = _returned(result, a0, b0)
        if returned is not result:
            return returned  # a 0-d result stays an array of the producer's
    return result[()] if result.ndim == 0 else result


def _matmul_buffers(a, b, out):
    """matmul for plain buffers (Pyodide without numpy): 1-D and 2-D only."""
    a = _operand(a, "a")
    packed = type(b) is PackedRhs
    if not packed:
        b = _operand(b, "b")
    b_ndim = len(b.shape)
    if a.ndim > 2 or b_ndim > 2 or a.ndim == 0 or b_ndim == 0:
        raise ShapeError(
            "gemmkit: without numpy, matmul takes 1-D and 2-D buffers only "
            f"(got ndim {a.ndim} and {b_ndim})")
    caller_out = out
    if out is not None:
        out = _out_arg(out)
        if out.ndim != a.ndim + b_ndim - 2:
            raise ShapeError("gemmkit: out has the wrong number of dimensions")
    a2 = a if a.ndim == 2 else _reshape(a, (1, a.shape[0]))
    b2 = b if packed or b_ndim == 2 else _reshape(b, (b.shape[0], 1))
    m, n = a2.shape[0], b2.shape[1]
    out2 = None if out is None else _reshape(out, (m, n))
    # numpy's result type is the input type (int8 included: wrapping).
    in_name = _dt.operand_dtype(a2)
    if in_name == "int8" and packed:
        # A packed int8 b is laid out for int8 -> int32: the low bytes of
        # those sums are numpy's int8 result.
        wide = gemm(a2, b2)
        low = memoryview(bytearray(wide.cast("B"))[::4]).cast("b", (m, n)) if m and n else None
        if out is None:
            result = low if low is not None else _dt.buffer_result("int8", m, n)
        else:
            if m and n:
                out2.cast("B")[:] = low.cast("B")
            return _callers(caller_out)
    else:
        result = gemm(a2, b2, out=out2, out_dtype=in_name if in_name == "int8" else None)
    if out is not None:
        return _callers(caller_out)
    if a.ndim == 1 and b_ndim == 1:
        return _reshape(result, ())
    if a.ndim == 1 or b_ndim == 1:
        return _reshape(result, (m * n,))
    return result


def _reshape(mv, shape):
    """A reshaped view of a C-contiguous memoryview (no copy)."""
    if not mv.c_contiguous:
        raise ShapeError("gemmkit: a 1-D buffer operand must be contiguous to be promoted")
    return mv.cast("B").cast(mv.format, shape)


# --------------------------------------------------------------------------
# requantization, prepacking, introspection

@_docstring(array_types=_ARRAY_TYPE_NOTE)
def gemm_requant(a, b, *, scale, zero_point, bias=None, out_dtype="int8", out=None):
    """Requantized int8 product: int32 sums scaled back to int8 or uint8.

    ``a`` and ``b`` are int8; each output element is::

        acc[i, j] = sum(a[i, p] * b[p, j])        (int32, wrapping mod 2**32)
        v[i, j]   = acc[i, j] + bias[i or j]      (int32, wrapping)
        out[i, j] = clamp(zero_point + round_half_even(scale[i or j] * v[i, j]), lo, hi)

    with ``[lo, hi]`` = [-128, 127] (int8) or [0, 255] (uint8); the
    product ``scale * v`` is rounded once, ties to even (``2.5 -> 2``,
    ``3.5 -> 4``).  The result is bit-exact on every ISA and thread count.

    Parameters
    ----------
    a : array_like of int8, shape (m, k)
        The left operand.
    b : array_like of int8, shape (k, n), or PackedRhs
        The right operand, or an int8 :class:`PackedRhs`.
    scale : float or array_like
        A number (one scale); a 1-D array of length m or an (m, 1) array
        (one per row); a (1, n) array (one per column).  Used as float32;
        every value must be finite and > 0 after that rounding.
    zero_point : int
        Added after scaling; an integer inside the output range.
    bias : array_like of integers, optional
        int32 values shaped like a per-row or per-column scale (any integer
        array whose values fit int32; floating-point arrays are refused).
    out_dtype : {{"int8", "uint8"}} or numpy type, optional
        The output type (default int8).
    out : ndarray or tuple of one ndarray, optional
        (m, n) of the output type: receives the result and is returned.
        Neither ``scale`` nor ``bias`` may share memory with it.

    Returns
    -------
    ndarray
        The (m, n) int8 or uint8 result (``out`` when given).

    Raises
    ------
    ArgumentError
        A scale that is not finite and > 0, or a zero point outside the
        output range (the message names the bad value).
    DTypeError
        Inputs that are not int8, a bias that is not integers, an
        ``out_dtype`` other than int8 or uint8, or an ``out`` of another
        type.
    ShapeError
        Dimensions that do not agree, or a scale or bias of another shape.
    OverlapError
        ``out`` shares memory with ``a``, ``b``, ``scale`` or ``bias``.

    See Also
    --------
    gemm : int8 products with int32 (or wrapping int8) results.

    Notes
    -----
    {array_types}

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[10, 20], [-30, 40]], dtype=np.int8)
    >>> b = np.array([[1, 2], [3, 4]], dtype=np.int8)
    >>> gemmkit.gemm(a, b)
    array([[ 70, 100],
           [ 90, 100]], dtype=int32)
    >>> gemmkit.gemm_requant(a, b, scale=0.1, zero_point=-3)
    array([[4, 7],
           [6, 7]], dtype=int8)
    >>> gemmkit.gemm_requant(a, b, scale=[0.5, 2.0], zero_point=0, out_dtype="uint8")
    array([[ 35,  50],
           [180, 200]], dtype=uint8)
    """
    caller_out = out
    a0, b0 = a, b
    a, b, out = _matrices("gemm_requant", a, b, out)
    res = _dt.requant_output_dtype(out_dtype)
    if out is not None and _dt.operand_dtype(out) != res:
        raise DTypeError(
            f"gemmkit: dtype mismatch: out_dtype is {res} but out is {_dt.describe(out)} "
            "(gemmkit does not convert; cast explicitly)")
    m, n = a.shape[0], b.shape[1]
    zp = _dt.zero_point_value(zero_point)
    # The vectors are converted (copies), so their overlap with out is
    # judged here, on the caller's arrays.
    may_share = backend.may_share_memory
    scale_kind, scale_vec = _requant.scale_vector(scale, m, n, out, may_share)
    bias_kind, bias_vec = _requant.bias_vector(bias, m, n, out, may_share)
    if out is not None:
        backend.gemm_requant(a, b._handle if type(b) is PackedRhs else b, scale_kind,
                             scale_vec, zp, bias_kind, bias_vec, out)
        return _callers(caller_out)
    out = _dt.new_result(res, m, n)
    backend.gemm_requant(a, b._handle if type(b) is PackedRhs else b, scale_kind, scale_vec,
                         zp, bias_kind, bias_vec, out)
    return _returned(out, a0, b0)


def prepack_rhs(b):
    """Pack ``b`` once for many products with the same right-hand side.

    The packed copy is laid out for the kernel this process dispatches for
    ``b``'s dtype (``dispatch_info()[dtype]``), so the packing work is done
    once instead of on every call.  It keeps no reference to ``b``.

    Parameters
    ----------
    b : array_like, shape (k, n)
        Any dtype :func:`gemm` takes, any strides.

    Returns
    -------
    PackedRhs
        To pass as ``b`` to :func:`gemm`, :func:`gemm_batched`,
        :func:`matmul` or :func:`gemm_requant`.

    Raises
    ------
    ShapeError
        ``b`` is not 2-D.
    DTypeError
        An element type gemmkit does not compute, or ``b`` is already a
        :class:`PackedRhs`.

    See Also
    --------
    PackedRhs : The packed operand and its attributes.

    Notes
    -----
    ``gemm(a, prepack_rhs(b))`` equals ``gemm(a, b)`` bit for bit, except
    on shapes plain ``gemm`` sends to the matrix-vector path (a single row,
    m == 1, or column, n == 1), which agree within rounding.

    Examples
    --------
    >>> import numpy as np
    >>> b = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    >>> packed = gemmkit.prepack_rhs(b)
    >>> packed.shape, packed.dtype
    ((2, 3), dtype('float32'))
    >>> gemmkit.gemm(np.ones((1, 2), dtype=np.float32), packed)
    array([[3., 5., 7.]], dtype=float32)
    """
    if type(b) is PackedRhs:
        raise DTypeError("gemmkit: b is already a PackedRhs")
    handle, info = backend.prepack_rhs(_operand(b, "b"))
    return PackedRhs._make(handle, info)


def dispatch_info():
    """What runs here, per element type: the ISA, kernel and tile chosen.

    Returns
    -------
    dict
        Per kernel family, under the keys "float32", "float64", "float16",
        "bfloat16", "int8" (int8 -> int32), "uint8" (the wrapping 8-bit
        kernel: int8 and uint8 results), "int16" (int16 and uint16),
        "int32" (int32, uint32), "int64" (int64, uint64), "bool",
        "complex64" and "complex128": a dict with "isa", "kernel", "mr",
        "nr" (the tile) and "depth_multiple", or ``None`` for a type that
        alone cannot run under the pin (float16 pinned to fma on a CPU
        without F16C).  Also "backend" ("native" or "pyodide"), "version",
        "threads" and "threads_source" (the step of the thread-count order
        that gave it), "pin" (``GEMMKIT_REQUIRE_ISA``, or ``None``),
        "cpu_features", "compiled_isas", "available_isas" and "cache" (the
        cache sizes the blocking uses).

    Raises
    ------
    IsaError
        The ``GEMMKIT_REQUIRE_ISA`` pin cannot be honoured.

    See Also
    --------
    available_isas : The ISAs usable here.

    Notes
    -----
    ``depth_multiple`` is the number of depth steps one instruction folds:
    2 for the bfloat16 dot kernel (avx512bf16, ``vdpbf16ps``) and for int8
    on fma and simd128 (i16 pairs: ``vpmaddwd``, ``i32x4.dot_i16x8_s``),
    4 for int8 on avx512vnni (``vpdpbusd``), 1 for the widening kernels.

    Examples
    --------
    >>> info = gemmkit.dispatch_info()
    >>> info["backend"] in ("native", "pyodide")
    True
    >>> sorted(info["float32"])
    ['depth_multiple', 'isa', 'kernel', 'mr', 'nr']
    >>> info["float32"]["isa"] in info["available_isas"]
    True
    """
    return backend.dispatch_info()


def available_isas():
    """The ISAs this build can run on this machine, best first.

    Whatever ``GEMMKIT_REQUIRE_ISA`` pins: these are the values a pin may
    name here.

    Returns
    -------
    list of str
        For example ``['avx512bf16', 'avx512vnni', 'avx512f', 'fma',
        'scalar']`` natively, ``['simd128', 'scalar']`` under Pyodide.

    See Also
    --------
    dispatch_info : What runs, per element type.

    Examples
    --------
    >>> isas = gemmkit.available_isas()
    >>> isas[-1]
    'scalar'
    """
    return backend.available_isas()


def set_num_threads(n):
    """Cap the worker threads of large products.

    Parameters
    ----------
    n : int
        An integer >= 0; 0 restores the default (``GEMMKIT_NUM_THREADS``,
        else ``OMP_NUM_THREADS``, else the cores available).  The core
        clamps it to its range (1024 threads).

    Raises
    ------
    ArgumentError
        ``n`` is not an integer >= 0.

    See Also
    --------
    get_num_threads : The current count.
    threads : A limit for the duration of a block.

    Notes
    -----
    The setting is process-wide.  Results are bit-identical for every
    thread count.

    Examples
    --------
    >>> gemmkit.set_num_threads(1)
    >>> gemmkit.get_num_threads()
    1
    >>> gemmkit.set_num_threads(0)  # back to the default
    """
    n = _dt.integer_value(n, "thread count")
    if n < 0:
        raise ArgumentError("gemmkit: thread count must be >= 0")
    backend.set_num_threads(min(n, 2**31 - 1))  # fits size_t on wasm32; above the range anyway


def get_num_threads():
    """The number of worker threads large products may use.

    Returns
    -------
    int
        At least 1 (1 under Pyodide, which runs one thread).

    See Also
    --------
    set_num_threads, threads

    Examples
    --------
    >>> gemmkit.get_num_threads() >= 1
    True
    """
    return backend.get_num_threads()
