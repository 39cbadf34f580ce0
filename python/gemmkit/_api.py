"""The public functions, shared by the native and the Pyodide backends.

This layer is conversion and numpy semantics only: Python inputs become
arrays (DLPack producers and other array-likes to numpy views, buffers
without numpy), ``matmul`` follows ``numpy.matmul`` (type resolution, 1-D
promotion, batch broadcasting, ``out=`` forms, scalars, subclasses,
``__array_ufunc__`` deferral), and the operands go to the backend, whose
C++ core checks everything else (dtype pairs, shapes, strides, overlap,
read-only outputs, scalar domains) with one catalogue of messages.
"""

from __future__ import annotations

from . import _dtypes as _dt
from . import _requant
from ._backend import backend
from ._errors import ArgumentError, DTypeError, ShapeError
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
    if hasattr(x, "__dlpack__") and not _has_buffer(x):
        # Zero-copy for CPU producers (torch, jax, cupy-on-host...).
        try:
            return _np.from_dlpack(x)
        except (BufferError, TypeError, RuntimeError) as exc:
            raise DTypeError(f"gemmkit: {name} could not be read via DLPack: {exc}") from None
    return _np.asarray(x)


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


def _has_buffer(x):
    try:
        memoryview(x).release()
        return True
    except TypeError:
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
        try:
            return _np.from_dlpack(out, copy=False)
        except (BufferError, TypeError, ValueError, RuntimeError) as exc:
            raise DTypeError(f"gemmkit: out could not be written via DLPack: {exc}") from None
    raise DTypeError(
        f"gemmkit: out must be an array (or numpy's 1-tuple form), got {type(out).__name__}")


def _callers(out):
    """What a call with ``out=`` returns: the caller's own object (the one
    inside numpy's 1-tuple form), never a view made of it."""
    return out[0] if type(out) is tuple else out


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


def _epilogue(bias, activation, in_name, m, n):
    """(bias_kind, bias vector, activation, slope, lo, hi) for the backend."""
    if bias is None and activation is None:
        return None
    act, slope, lo, hi = _ACT["none"], 0.0, 0.0, 0.0
    if activation is None:
        pass
    elif isinstance(activation, str) and activation == "relu":
        act = _ACT["relu"]
    elif isinstance(activation, tuple) and len(activation) == 2 and activation[0] == "leaky_relu":
        act, slope = _ACT["leaky_relu"], _dt.real_scalar(activation[1], "leaky_relu slope")
    elif isinstance(activation, tuple) and len(activation) == 3 and activation[0] == "clip":
        act = _ACT["clip"]
        lo, hi = _dt.real_scalar(activation[1], "clip lo"), _dt.real_scalar(activation[2], "clip hi")
    else:
        raise ArgumentError(
            "gemmkit: activation must be None, 'relu', ('leaky_relu', slope) or "
            f"('clip', lo, hi), got {activation!r}")
    if bias is None:
        return (_BIAS["none"], None, act, slope, lo, hi)
    kind, vec = _bias_vector(bias, _CODES["accumulators"].get(in_name, "float32"), m, n)
    return (kind, vec, act, slope, lo, hi)


def _bias_vector(bias, acc_name, m, n):
    """A bias that broadcasts like numpy's ``+ bias`` onto an (m, n) result:
    a scalar, (n,) or (1, n) per column, (m, 1) per row; values in the
    accumulator type (a documented conversion of the vector)."""
    if _np is None:
        vec = _operand(bias, "bias")
        return (_BIAS["per_col"], vec) if vec.ndim == 1 else _bias_shape_error(vec.shape, m, n)
    vec = _np.asarray(bias, dtype=_dt.numpy_dtype(acc_name))
    if vec.ndim == 0 or vec.shape == (1, 1):
        return _BIAS["per_col"], _np.broadcast_to(vec.reshape(()), (n,))
    if vec.ndim == 1:
        return _BIAS["per_col"], vec
    if vec.ndim == 2 and vec.shape[0] == 1:
        return _BIAS["per_col"], vec[0]
    if vec.ndim == 2 and vec.shape[1] == 1:
        return _BIAS["per_row"], vec[:, 0]
    return _bias_shape_error(vec.shape, m, n)


def _bias_shape_error(shape, m, n):
    raise ShapeError(
        f"gemmkit: bias of shape {tuple(shape)} does not broadcast like a per-column "
        f"(n,) or (1, n) or a per-row (m, 1) bias onto the {m}x{n} result")


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


# --------------------------------------------------------------------------
# gemm, gemm_batched

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


def gemm(a, b, c=None, *, alpha=1.0, beta=0.0, out=None, out_dtype=None, bias=None,
         activation=None, conj_a=False, conj_b=False):
    """``act(alpha * a @ b + beta * c + bias)``, by the fastest kernel here.

    ``a`` is (m, k), ``b`` is (k, n) or a :class:`PackedRhs` made by
    :func:`prepack_rhs`, ``c`` is (m, n), or broadcasts to it like numpy
    (a scalar, a row (n,) or (1, n), a column (m, 1)), or ``None`` (then
    ``beta`` is ignored).  Operands may have any strides: transposed,
    reversed and sliced views are read in place.  ``beta == 0`` never reads
    ``c``; ``alpha == 0`` or ``k == 0`` never reads ``a`` or ``b``.

    Element types (``a`` and ``b`` always share one; ``c`` and ``out`` have
    the output type; gemm never converts them):

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
    uint8, int16, uint16,     the output   the same type, wrapping modulo
    int32, uint32, int64,     type's ring  2**bits as numpy's loops do
    uint64
    bool                      count        bool: any(a[i, :] & b[:, j])
    complex64, complex128     itself       itself
    ========================  ===========  ====================================

    ``alpha`` and ``beta`` are converted to the accumulator type.  For int8
    they must be integers in the int32 range (``2`` and ``2.0`` are fine,
    ``0.5`` is an :class:`ArgumentError`), and all arithmetic wraps modulo
    2**32, the same bits on every ISA and thread count.  The other integer
    types take integers (of magnitude up to 2**53), reduced modulo their
    ring; bool takes only ``alpha=1``, ``beta=0``.  Complex products take
    complex ``alpha`` and ``beta``; ``conj_a=True`` / ``conj_b=True`` use
    the conjugate of ``a`` / ``b`` (``conj_a`` is :func:`numpy.vdot`'s
    conjugation), at no extra cost; for real types they change nothing.
    ``conj_b`` needs ``b`` itself, not a :class:`PackedRhs`.

    Fused epilogue (floating-point types; complex types take a bias but no
    activation; other integer types than int8 -> int32 none), applied in the kernel's store
    before the one rounding to the output type: ``bias`` broadcasts like
    numpy's ``+ bias`` (a scalar, (n,) or (1, n): per column; (m, 1): per
    row), in the accumulator type (converted if given in another);
    ``activation`` is ``None``, ``"relu"`` (``max(v, 0)``, NaN -> 0,
    -0 -> +0), ``("leaky_relu", slope)`` (``max(v, 0) + slope * min(v, 0)``,
    same NaN and zero rules; slope finite) or ``("clip", lo, hi)``
    (``lo <= hi``; NaN -> lo).

    ``out`` (m, n), an array or numpy's 1-tuple form, receives the result
    in place and is returned; it may be ``c`` itself (an in-place update)
    but must not overlap ``a`` or ``b`` (:class:`OverlapError`: gemm never
    copies behind your back).  Anything else as ``out`` raises and nothing
    is written.  Without ``out`` a new C-contiguous array is returned (a
    C-contiguous ``memoryview`` under Pyodide without numpy).
    """
    caller_out = out
    a, b, out = _matrices("gemm", a, b, out)
    m, n = a.shape[0], b.shape[1]
    in_name = _dt.operand_dtype(a)
    res = _result_name(in_name, out_dtype, out, a)
    if c is not None:
        c = _broadcast_c(_operand(c, "c"), m, n)
    epi = _epilogue(bias, activation, in_name, m, n)
    if out is None:
        out = caller_out = _dt.new_result(res, m, n, a)
    _gemm(_dt.scalar(alpha, "alpha", in_name), a, b._handle if type(b) is PackedRhs else b,
          _dt.scalar(beta, "beta", in_name), c, out, epi, _conj_flags(conj_a, conj_b))
    return _callers(caller_out)


def _conj_flags(conj_a, conj_b):
    """The C ABI's GEMMKIT_CONJ_A | GEMMKIT_CONJ_B."""
    for value, name in ((conj_a, "conj_a"), (conj_b, "conj_b")):
        if type(value) is not bool:
            raise ArgumentError(f"gemmkit: {name} must be True or False, got {value!r}")
    return (1 if conj_a else 0) | (2 if conj_b else 0)


def gemm_batched(a, b, c=None, *, alpha=1.0, beta=0.0, out=None, out_dtype=None, bias=None,
                 activation=None, conj_a=False, conj_b=False):
    """:func:`gemm` over stacks of matrices, as one call into the core.

    ``a`` is (..., m, k), ``b`` (..., k, n) or a :class:`PackedRhs`, ``c``
    (..., m, n) or anything that broadcasts to the result; the leading
    dimensions broadcast like numpy's (and like :func:`matmul`'s), and so
    may those of ``out``.  Element types, scalars, the epilogue (the same
    bias for every matrix) and the ``out`` rules are :func:`gemm`'s.  The
    whole batch is checked once, then run in parallel across its matrices
    when each product is small, across tiles when it is large.
    """
    if _np is None:
        raise DTypeError("gemmkit: gemm_batched needs numpy (gemm takes 2-D buffers)")
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
        c = _operand(c, "c")
        try:
            c = _np.broadcast_to(c, batch + (m, n))
        except ValueError:
            raise ShapeError(
                f"gemmkit: c of shape {c.shape} does not broadcast to the result "
                f"{batch + (m, n)}") from None
    epi = _epilogue(bias, activation, in_name, m, n)
    if out is None:
        out = caller_out = _dt.new_array(batch + (m, n), _dt.numpy_dtype(res, a))
    elif out.ndim < 2:
        raise ShapeError(f"gemmkit: out must have at least 2 dimensions, got {out.ndim}")
    _run_batched(_dt.scalar(alpha, "alpha", in_name), a, b, _dt.scalar(beta, "beta", in_name),
                 c, out, epi, batch, _conj_flags(conj_a, conj_b))
    return _callers(caller_out)


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


def matmul(a, b, /, out=None, *, casting="same_kind", dtype=None, axes=None):
    """``a @ b``: :func:`numpy.matmul`, computed by gemmkit.

    The same result dtype (numpy's type resolution: ``float64 @ float32``
    is float64, the float32 operand converted first, a documented copy),
    the same shapes (1-D operands promoted and the promoted axis removed;
    leading dimensions, those of ``out`` included, broadcast), ``out`` as
    an array or a 1-tuple with numpy's ``casting`` rule, a numpy scalar for
    1-D @ 1-D, subclasses wrapped back (``__array_wrap__``), and operands
    that override ufuncs (``__array_ufunc__``) deferred to, as numpy does.
    An ``out`` that shares memory with an input gets the input copied first,
    as numpy does (:func:`gemm` refuses it instead).

    gemmkit computes every numeric dtype numpy's matmul has: float32,
    float64, float16 and bfloat16 (a bfloat16 @ bfloat16 result is float32,
    as numpy's is for ``ml_dtypes.bfloat16``: the float32 loop on exactly
    widened inputs), complex64 and complex128, every integer type (the
    result numpy gives, wrapping modulo 2**bits as numpy's loops do: the
    same bits) and bool (logical or of ands).  Mixed dtypes are converted
    to numpy's loop dtype first (``int32 @ int64`` converts the int32
    operand to int64: a documented copy).  object, longdouble and
    clongdouble products, which have no kernel here, are numpy's own
    (``numpy.matmul`` is called).  ``b`` may be a :class:`PackedRhs`.
    ``axes`` is numpy's: three pairs naming the matrix axes of ``a``, ``b``
    and the result (read and written through views, no copy).
    """
    if axes is not None:
        return _matmul_axes(a, b, out, casting, dtype, axes)
    if type(a) is _ndarray and type(b) is _ndarray and out is None and dtype is None:
        dt = a.dtype
        if b.dtype is dt and (dt is _F32 or dt is _F64) and a.ndim == 2 and b.ndim == 2:
            return _matmul2d(a, b)
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
    def entry(x):  # numpy takes a bare axis for a vector's entry
        if isinstance(x, (int, _np.integer)) and not isinstance(x, bool):
            return (int(x),)
        return tuple(int(v) for v in x)

    try:
        entries = [entry(x) for x in axes]
    except TypeError:
        entries = []
    if len(entries) != 3 or any(len(e) not in (1, 2) for e in entries):
        raise ArgumentError(
            f"gemmkit: matmul axes must be three entries (a, b, result), each a pair of "
            f"axes or one axis of a vector, got {axes!r}")
    if _overrides(a, b, *(out if type(out) is tuple else (out,))):
        kw = {} if dtype is None else {"dtype": dtype}
        return _np.matmul(a, b, out=out, casting=casting, axes=axes, **kw)

    def core_last(x, entry, name):
        if len(entry) == 1 and x.ndim == 1:
            return x
        if len(entry) == 1 and name == "out" and x.ndim > 1:  # a vector result's axis
            return _np.moveaxis(x, entry[0], -1)
        if len(entry) == 2 and x.ndim >= 2:
            return _np.moveaxis(x, entry, (-2, -1))
        raise ShapeError(
            f"gemmkit: matmul axes entry {entry} does not fit {name}, which has "
            f"{x.ndim} dimensions")

    moved = [core_last(_operand(x, name), e, name)
             for x, name, e in ((a, "a", entries[0]), (b, "b", entries[1]))]
    if out is not None:
        target = _out_arg(out)
        matmul(*moved, out=core_last(target, entries[2], "out"), casting=casting, dtype=dtype)
        return _callers(out)
    result = matmul(*moved, casting=casting, dtype=dtype)
    if len(entries[2]) == 2 and _np.ndim(result) >= 2:
        return _np.moveaxis(result, (-2, -1), entries[2])
    if len(entries[2]) == 1 and _np.ndim(result) >= 2:
        return _np.moveaxis(result, -1, entries[2][0])
    return result


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
                                  None if dtype is None else _np.dtype(dtype), casting)
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
        dst = _np.empty(batch + (m, n), dtype=core_out)
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
    result wrapped by the input subclass of highest ``__array_priority__``."""
    wrapper, priority = None, None
    for x in (a0, b0):
        if isinstance(x, _ndarray) and type(x) is not _ndarray:
            p = getattr(x, "__array_priority__", 0.0)
            if wrapper is None or p > priority:
                wrapper, priority = x, p
    if wrapper is not None:
        return wrapper.__array_wrap__(result, (_np.matmul, (a0, b0), 0), result.ndim == 0)
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

def gemm_requant(a, b, *, scale, zero_point, bias=None, out_dtype="int8", out=None):
    """Requantized int8 product: ``a`` (m, k) and ``b`` (k, n, or an int8
    :class:`PackedRhs`) are int8; the result is int8 (default) or uint8::

        acc[i, j] = sum(a[i, p] * b[p, j])        (int32, wrapping mod 2**32)
        v[i, j]   = acc[i, j] + bias[i or j]      (int32, wrapping)
        out[i, j] = clamp(zero_point + round_half_even(scale[i or j] * v[i, j]), lo, hi)

    with ``[lo, hi]`` = [-128, 127] (int8) or [0, 255] (uint8); the product
    ``scale * v`` is rounded once, ties to even (``2.5 -> 2``, ``3.5 -> 4``).

    ``scale``: a number (one scale); a 1-D array of length m or an (m, 1)
    array (one per row); a (1, n) array (one per column).  Scales are used as
    float32 and must be finite and > 0 (:class:`ArgumentError` naming the bad
    value).  ``zero_point``: an integer inside the output range.  ``bias``:
    ``None``, or int32 values shaped like a per-row or per-column scale (any
    integer array whose values fit int32 is accepted; floating-point arrays
    are a :class:`DTypeError`).  Other shapes are a :class:`ShapeError`.
    ``out_dtype``: ``numpy.int8`` or ``numpy.uint8`` (or their names).
    ``out`` (m, n) of that type, or numpy's 1-tuple form, receives the
    result; neither ``scale`` nor ``bias`` may share memory with it
    (:class:`OverlapError`).
    """
    caller_out = out
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
    if out is None:
        out = caller_out = _dt.new_result(res, m, n)
    backend.gemm_requant(a, b._handle if type(b) is PackedRhs else b, scale_kind, scale_vec,
                         zp, bias_kind, bias_vec, out)
    return _callers(caller_out)


def prepack_rhs(b):
    """Pack ``b`` (k, n) once for many products: returns a :class:`PackedRhs`
    to pass as ``b`` to :func:`gemm`, :func:`matmul` or :func:`gemm_requant`.

    Any dtype :func:`gemm` takes (float32, float64, float16, bfloat16, int8)
    and any strides.  The packed copy is laid out for the kernel this process
    dispatches for that dtype (``dispatch_info()[dtype]``), so
    ``gemm(a, prepack_rhs(b))`` equals ``gemm(a, b)`` bit for bit, except on
    shapes plain ``gemm`` sends to a special path (a single row, m == 1, or
    column, n == 1, and very small m and n), which agree within rounding.
    It keeps no reference to ``b``.
    """
    if type(b) is PackedRhs:
        raise DTypeError("gemmkit: b is already a PackedRhs")
    handle, info = backend.prepack_rhs(_operand(b, "b"))
    return PackedRhs._make(handle, info)


def dispatch_info():
    """What runs, per dtype: ISA, kernel name, tile (mr x nr), depth multiple.

    Keys "float32", "float64", "float16", "bfloat16", "int8" (int8 -> int32),
    "uint8" (the wrapping 8-bit kernel: int8 and uint8 results), "int16"
    (int16 and uint16), "int32" (int32, uint32), "int64" (int64, uint64),
    "bool", "complex64" and "complex128" each hold
    {"isa", "kernel", "mr", "nr", "depth_multiple"}: depth_multiple is the
    number of depth steps one instruction folds: 2 for the bfloat16 dot
    kernel (avx512bf16, ``vdpbf16ps``) and for int8 on fma and simd128 (i16
    pairs: ``vpmaddwd``, ``i32x4.dot_i16x8_s``), 4 for int8 on avx512vnni
    (``vpdpbusd``), 1 for the widening kernels.  A type that alone cannot
    run under the pin (float16 pinned to fma on a CPU without F16C) shows
    ``None``.  Also the CPU features seen, the ISAs compiled in and usable
    here, the thread count and the ``GEMMKIT_REQUIRE_ISA`` pin.  Raises
    :class:`IsaError` when the pin cannot be honoured.
    """
    return backend.dispatch_info()


def available_isas():
    """ISAs this build can run on this machine, best first."""
    return backend.available_isas()


def set_num_threads(n):
    """Cap the worker threads of large GEMMs (0 restores the default:
    ``GEMMKIT_NUM_THREADS``, else the cores available).  An integer >= 0;
    the core clamps it to its range (1024 threads)."""
    n = _dt.integer_value(n, "thread count")
    if n < 0:
        raise ArgumentError("gemmkit: thread count must be >= 0")
    backend.set_num_threads(min(n, 2**31 - 1))  # fits size_t on wasm32; above the range anyway


def get_num_threads():
    """Worker threads large GEMMs may use."""
    return backend.get_num_threads()
