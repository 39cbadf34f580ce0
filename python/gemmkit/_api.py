"""The public functions, shared by the native and the Pyodide backends.

This layer normalizes Python inputs (DLPack producers and other array-likes
to numpy views, 1-D promotion and batch broadcasting for ``matmul``), checks
element types and the scalar arguments (``_dtypes``, ``_requant``: one set
of messages for both backends) and hands 2-D operands to the backend; the
C++ core validates memory (strides, overlap) and computes.

float32/float64 products of numpy arrays take a short path straight to the
backend (a tiny GEMM costs a few attribute lookups); every other call goes
through ``_gemm_typed``.
"""

from __future__ import annotations

from . import _dtypes as _dt
from . import _requant
from ._backend import backend
from ._errors import DTypeError, LayoutError, ShapeError
from ._packed import PackedRhs

try:  # numpy is optional under Pyodide, where buffers work without it
    import numpy as _np
except ImportError:  # pragma: no cover - exercised in the Pyodide suite
    _np = None

_ndarray = _np.ndarray if _np is not None else None
# Bound once: the fast path of a tiny GEMM is a handful of attribute lookups.
_gemm2d = backend.gemm2d
_F32 = _np.dtype("float32") if _np is not None else None
_F64 = _np.dtype("float64") if _np is not None else None


def _operand(x, name):
    """A numpy view of ``x`` without copying where numpy is available."""
    if type(x) is _ndarray:
        return x
    if _np is None:
        return x if isinstance(x, memoryview) else memoryview(x)
    if isinstance(x, _ndarray):
        return x
    if hasattr(x, "__dlpack__") and not _has_buffer(x):
        # Zero-copy for CPU producers (torch, jax, cupy-on-host...).
        try:
            return _np.from_dlpack(x)
        except (BufferError, TypeError, RuntimeError) as exc:
            raise DTypeError(f"gemmkit: {name} could not be read via DLPack: {exc}") from None
    try:
        return _np.asarray(x)
    except Exception as exc:  # noqa: BLE001 - report any conversion failure uniformly
        raise DTypeError(f"gemmkit: {name} is not an array ({type(x).__name__}): {exc}") from None


def _has_buffer(x):
    try:
        memoryview(x).release()
        return True
    except TypeError:
        return False


def _output(out):
    """A writable numpy view of ``out`` that aliases the caller's memory."""
    if type(out) is _ndarray:
        return out
    if _np is None:
        try:
            return out if isinstance(out, memoryview) else memoryview(out)
        except TypeError:
            raise DTypeError(
                f"gemmkit: out must be a buffer-protocol object, got {type(out).__name__}"
            ) from None
    if isinstance(out, _ndarray):
        return out
    if hasattr(out, "__dlpack__"):
        # Written in place: the producer's memory is the result.
        arr = _np.from_dlpack(out)
        if not arr.flags.writeable:
            # DLPack exports are read-only by default; the producer's memory
            # is still ours to write when the caller passed it as ``out``.
            arr = _np.from_dlpack(out, copy=False)
        return arr
    return _np.asarray(out)


def check_gemm_shapes(a_shape, b_shape, c_shape, out_shape):
    """Shape checks of a 2-D product, with the native core's messages (the
    typed path and the Pyodide backend, whose C ABI takes bare m, n, k)."""
    for name, shape in (("a", a_shape), ("b", b_shape), ("c", c_shape), ("out", out_shape)):
        if shape is not None and len(shape) != 2:
            raise ShapeError(f"gemmkit: {name} must be 2-D, got ndim={len(shape)}")
    m, k = a_shape
    if b_shape[0] != k:
        raise ShapeError(
            f"gemmkit: shape mismatch: a is {m}x{k} but b is {b_shape[0]}x{b_shape[1]} "
            "(a.cols != b.rows)"
        )
    n = b_shape[1]
    for name, shape in (("out", out_shape), ("c", c_shape)):
        if shape is not None and tuple(shape) != (m, n):
            raise ShapeError(
                f"gemmkit: shape mismatch: {name} is {shape[0]}x{shape[1]} but a @ b is {m}x{n}"
            )


def gemm(a, b, c=None, *, alpha=1.0, beta=0.0, out=None, out_dtype=None):
    """``alpha * a @ b + beta * c``, computed by the fastest kernel available.

    ``a`` is (m, k), ``b`` is (k, n) or a :class:`PackedRhs` made by
    :func:`prepack_rhs`, ``c`` is (m, n) or ``None`` (then ``beta`` is
    ignored).  Operands may have any strides: transposed, reversed and
    sliced views are read in place.  ``beta == 0`` never reads ``c``;
    ``alpha == 0`` or ``k == 0`` never reads ``a`` or ``b``.

    Element types (``a`` and ``b`` always share one; ``c`` and ``out`` have
    the output type):

    ========================  ===========  ====================================
    inputs                    accumulator  output
    ========================  ===========  ====================================
    float32                   float32      float32
    float64                   float64      float64
    float16                   float32      float16 (rounded once, at the
                                           store); ``out_dtype=numpy.float32``:
                                           float32, not rounded
    bfloat16 (ml_dtypes)      float32      bfloat16; or float32 as for float16
    int8                      int32        int32
    ========================  ===========  ====================================

    ``alpha`` and ``beta`` are converted to the accumulator type (float16
    and bfloat16 products use them as float32).  For int8 they must be
    integers in the int32 range (``2`` and ``2.0`` are fine, ``0.5`` is an
    :class:`ArgumentError`), and all arithmetic wraps modulo 2**32: the
    result is ``(alpha * sum(a[i, p] * b[p, j]) + beta * c[i, j]) mod 2**32``
    read as a signed int32, the same bits on every ISA and thread count.
    ``out_dtype`` other than these pairs is a :class:`DTypeError` (int8 and
    uint8 results come from :func:`gemm_requant`).

    ``out`` (m, n) receives the result in place and is returned; it may be
    ``c`` itself (an in-place update) but must not overlap ``a`` or ``b``
    (:class:`OverlapError`: gemmkit never copies behind your back).  Without
    ``out`` a new C-contiguous array is returned (a C-contiguous
    ``memoryview`` under Pyodide without numpy).
    """
    if out_dtype is None and type(a) is _ndarray and type(b) is _ndarray:
        dt = a.dtype
        if ((dt is _F32 or dt is _F64) and b.dtype is dt
                and (c is None or (type(c) is _ndarray and c.dtype is dt))
                and (out is None or (type(out) is _ndarray and out.dtype is dt))):
            return _gemm2d(a, b, c, alpha, beta, out)
    if type(a) is not _ndarray:
        a = _operand(a, "a")
    if type(b) is not _ndarray and type(b) is not PackedRhs:
        b = _operand(b, "b")
    if c is not None and type(c) is not _ndarray:
        c = _operand(c, "c")
    if out is not None and type(out) is not _ndarray:
        # Like numpy's out=, the caller's own object is what comes back.
        _gemm_typed(a, b, c, alpha, beta, _output(out), out_dtype)
        return out
    return _gemm_typed(a, b, c, alpha, beta, out, out_dtype)


def _shape(x):
    return tuple(x.shape)


def _check_out(out, in_dtype, res_dtype):
    """``out`` has the result type and is writable."""
    if _dt.operand_dtype(out) != res_dtype:
        if in_dtype is None:  # gemm_requant
            raise DTypeError(
                f"gemmkit: dtype mismatch: out_dtype is {res_dtype} but out is "
                f"{_dt.describe(out)} (gemmkit does not convert; cast explicitly)"
            )
        raise _dt.result_mismatch(in_dtype, res_dtype, "out", out)
    if out.readonly if isinstance(out, memoryview) else not out.flags.writeable:
        raise LayoutError("gemmkit: out is read-only")


def _b_operand(a_dtype, b):
    """(b's shape, what the backend takes as b) after checking b's type."""
    if type(b) is PackedRhs:
        if b._dtype_name != a_dtype:
            raise DTypeError(
                f"gemmkit: dtype mismatch: a is {a_dtype} but the packed b holds "
                f"{b._dtype_name} (prepack_rhs a b of the same dtype as a)"
            )
        return b._shape, b._handle
    if _dt.operand_dtype(b) != a_dtype:
        raise _dt.mismatch(a_dtype, "b", b)
    return _shape(b), b


def _check_shapes(a, b_shape, packed, c, out):
    a_shape = _shape(a)
    if packed and len(a_shape) == 2 and a_shape[1] != b_shape[0]:
        raise ShapeError(
            f"gemmkit: shape mismatch: a is {a_shape[0]}x{a_shape[1]} but the packed b "
            f"was made for k={b_shape[0]} ({b_shape[0]}x{b_shape[1]})"
        )
    check_gemm_shapes(a_shape, b_shape, None if c is None else _shape(c),
                      None if out is None else _shape(out))
    return a_shape[0], b_shape[1]


def _gemm_typed(a, b, c, alpha, beta, out, out_dtype):
    """gemm on normalized operands (numpy arrays or memoryviews; b may be a
    PackedRhs): element types, shapes, scalars, then the backend."""
    in_dtype = _dt.input_dtype(a, "a")
    b_shape, b_arg = _b_operand(in_dtype, b)
    res_dtype = _dt.output_dtype(in_dtype, out_dtype)
    if c is not None and _dt.operand_dtype(c) != res_dtype:
        raise _dt.result_mismatch(in_dtype, res_dtype, "c", c)
    if out is not None:
        _check_out(out, in_dtype, res_dtype)
    m, n = _check_shapes(a, b_shape, type(b) is PackedRhs, c, out)
    alpha, beta = _dt.scalars_for(in_dtype, alpha, beta)
    if out is None:
        out = _dt.new_result(res_dtype, m, n, a)
    backend.gemm_typed(in_dtype, res_dtype, a, b_arg, c, alpha, beta, out)
    return out


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
    ``out`` (m, n) of that type receives the result; neither ``scale`` nor
    ``bias`` may share memory with it (:class:`OverlapError`).
    """
    if type(a) is not _ndarray:
        a = _operand(a, "a")
    if type(b) is not _ndarray and type(b) is not PackedRhs:
        b = _operand(b, "b")
    caller_out = out
    if out is not None and type(out) is not _ndarray:
        out = _output(out)
    in_dtype = _dt.input_dtype(a, "a")
    if in_dtype != "int8":
        raise DTypeError(
            f"gemmkit: gemm_requant needs int8 operands, but a has dtype {in_dtype}")
    if type(b) is PackedRhs and b._dtype_name != "int8":
        raise DTypeError(
            f"gemmkit: gemm_requant needs an int8 packed operand, but the packed b holds "
            f"{b._dtype_name}"
        )
    b_shape, b_arg = _b_operand(in_dtype, b)
    res_dtype = _dt.requant_output_dtype(out_dtype)
    if out is not None:
        _check_out(out, None, res_dtype)
    m, n = _check_shapes(a, b_shape, type(b) is PackedRhs, None, out)
    zp = _dt.zero_point_value(zero_point, res_dtype)
    may_share = backend.may_share_memory
    scale_kind, scale_vec = _requant.scale_vector(scale, m, n, out, may_share)
    bias_kind, bias_vec = _requant.bias_vector(bias, m, n, out, may_share)
    if out is None:
        out = _dt.new_result(res_dtype, m, n)
    backend.gemm_requant(res_dtype, a, b_arg, scale_kind, scale_vec, zp, bias_kind, bias_vec,
                         out)
    return out if caller_out is None else caller_out


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
    if type(b) is not _ndarray:
        b = _operand(b, "b")
    in_dtype = _dt.input_dtype(b, "b")
    shape = _shape(b)
    if len(shape) != 2:
        raise ShapeError(f"gemmkit: b must be 2-D, got ndim={len(shape)}")
    handle, info = backend.prepack_rhs(in_dtype, b)
    return PackedRhs._make(handle, info)


def matmul(a, b, out=None):
    """``a @ b`` with :func:`numpy.matmul` semantics.

    1-D operands are promoted (a vector on the left is a row, on the right a
    column, and the promoted axis is removed from the result); leading
    dimensions broadcast as batches.  ``b`` may be a :class:`PackedRhs`
    (then ``a`` is 1-D, 2-D or, with numpy, a batch of matrices).  The result
    type is :func:`gemm`'s: the input type for floating-point inputs, int32
    for int8 (numpy itself would return int8); ``out`` must have exactly the
    result's shape and dtype.
    """
    if type(a) is not _ndarray:
        a = _operand(a, "a")
    if type(b) is not _ndarray and type(b) is not PackedRhs:
        b = _operand(b, "b")
    caller_out = out
    if out is not None and type(out) is not _ndarray:
        out = _output(out)
    if type(b) is PackedRhs:
        result = _matmul_packed(a, b, out)
    elif a.ndim == 2 and b.ndim == 2:
        dt = getattr(a, "dtype", None)
        if ((dt is _F32 or dt is _F64) and type(b) is _ndarray and b.dtype is dt
                and (out is None or (type(out) is _ndarray and out.dtype is dt))):
            result = _gemm2d(a, b, None, 1.0, 0.0, out)
        else:
            result = _gemm_typed(a, b, None, 1, 0, out, None)
    elif _np is None:
        result = _matmul_buffers(a, b, out)
    else:
        result = _matmul_numpy(a, b, out)
    return result if caller_out is None else caller_out


def _batch_gemm(in_dtype, res_dtype):
    """The backend call for one 2-D slice of a checked batched product."""
    if in_dtype in ("float32", "float64"):
        return lambda a, b, out: backend.gemm2d(a, b, None, 1.0, 0.0, out)
    return lambda a, b, out: backend.gemm_typed(in_dtype, res_dtype, a, b, None, 1, 0, out)


def _matmul_numpy(a, b, out):
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("gemmkit: matmul operands must have at least one dimension")
    in_dtype = _dt.input_dtype(a, "a")
    if _dt.operand_dtype(b) != in_dtype:
        raise _dt.mismatch(in_dtype, "b", b)
    res_dtype = _dt.output_dtype(in_dtype, None)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    m, k = a2.shape[-2:]
    k2, n = b2.shape[-2:]
    if k != k2:
        raise ShapeError(
            f"gemmkit: shape mismatch in matmul: a has {k} columns but b has {k2} rows"
        )
    try:
        batch = _np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    except ValueError:
        raise ShapeError(
            f"gemmkit: matmul batch dimensions {a2.shape[:-2]} and {b2.shape[:-2]} "
            "do not broadcast"
        ) from None
    full = batch + (m, n)
    shape = batch + ((m,) if a.ndim > 1 else ()) + ((n,) if b.ndim > 1 else ())
    result, out_full = _batched_out(out, shape, full, in_dtype, res_dtype, a,
                                    a.ndim == 1, b.ndim == 1)
    a_b = _np.broadcast_to(a2, batch + (m, k))
    b_b = _np.broadcast_to(b2, batch + (k, n))
    run = _batch_gemm(in_dtype, res_dtype)
    for idx in _np.ndindex(*batch):
        run(a_b[idx], b_b[idx], out_full[idx])
    return result


def _batched_out(out, shape, full, in_dtype, res_dtype, like, drop_m, drop_n):
    """(result, out_full): the array matmul returns and its (batch, m, n)
    view with the promoted axes restored."""
    if out is None:
        out_full = _np.empty(full, dtype=_dt.numpy_dtype(res_dtype, like))
        result = out_full
        if drop_m:
            result = result[..., 0, :]
        if drop_n:
            result = result[..., 0]
        return result, out_full
    if out.shape != shape:
        raise ShapeError(f"gemmkit: out has shape {out.shape}, expected {shape}")
    _check_out(out, in_dtype, res_dtype)
    out_full = out
    if drop_m and drop_n:
        out_full = out[..., None, None]
    elif drop_m:
        out_full = out[..., None, :]
    elif drop_n:
        out_full = out[..., None]
    return out, out_full


def _matmul_packed(a, packed, out):
    """matmul with a PackedRhs on the right: a is (k,), (m, k) or (..., m, k)."""
    if a.ndim == 2:
        return _gemm_typed(a, packed, None, 1, 0, out, None)
    if a.ndim == 0:
        raise ShapeError("gemmkit: matmul operands must have at least one dimension")
    if _np is None:
        if a.ndim > 2:
            raise ShapeError("gemmkit: without numpy, matmul supports 1-D and 2-D buffers only "
                             f"(got ndim {a.ndim})")
        out2 = None if out is None else _reshape(out, (1, packed.shape[1]))
        result = _gemm_typed(_reshape(a, (1, a.shape[0])), packed, None, 1, 0, out2, None)
        return out if out is not None else _reshape(result, (packed.shape[1],))
    in_dtype = _dt.input_dtype(a, "a")
    _b_operand(in_dtype, packed)
    res_dtype = _dt.output_dtype(in_dtype, None)
    k, n = packed.shape
    a2 = a[None, :] if a.ndim == 1 else a
    if a2.shape[-1] != k:
        raise ShapeError(
            f"gemmkit: shape mismatch in matmul: a has {a2.shape[-1]} columns but the "
            f"packed b was made for k={k}"
        )
    batch, m = a2.shape[:-2], a2.shape[-2]
    shape = batch + ((m,) if a.ndim > 1 else ()) + (n,)
    result, out_full = _batched_out(out, shape, batch + (m, n), in_dtype, res_dtype, a,
                                    a.ndim == 1, False)
    for idx in _np.ndindex(*batch):
        backend.gemm_typed(in_dtype, res_dtype, a2[idx], packed._handle, None, 1, 0,
                           out_full[idx])
    return result


def _matmul_buffers(a, b, out):
    """matmul for plain buffers (Pyodide without numpy): 1-D and 2-D only."""
    if a.ndim > 2 or b.ndim > 2 or a.ndim == 0 or b.ndim == 0:
        raise ShapeError(
            "gemmkit: without numpy, matmul supports 1-D and 2-D buffers only "
            f"(got ndim {a.ndim} and {b.ndim})"
        )
    if out is not None and out.ndim != a.ndim + b.ndim - 2:
        raise ShapeError("gemmkit: out has the wrong number of dimensions")
    a2 = a if a.ndim == 2 else _reshape(a, (1, a.shape[0]))
    b2 = b if b.ndim == 2 else _reshape(b, (b.shape[0], 1))
    out2 = None
    if out is not None:
        out2 = _reshape(out, (a2.shape[0], b2.shape[1]))
    result = _gemm_typed(a2, b2, None, 1, 0, out2, None)
    if out is not None:
        return out
    if a.ndim == 1 and b.ndim == 1:
        return _reshape(result, ())
    if a.ndim == 1 or b.ndim == 1:
        return _reshape(result, (result.shape[0] * result.shape[1],))
    return result


def _reshape(mv, shape):
    """A reshaped view of a C-contiguous memoryview (no copy)."""
    if not mv.c_contiguous:
        raise ShapeError("gemmkit: a 1-D buffer operand must be contiguous to be promoted")
    return mv.cast("B").cast(mv.format, shape)


def dispatch_info():
    """What runs, per dtype: ISA, kernel name, tile (mr x nr), depth multiple.

    Keys "float32", "float64", "float16", "bfloat16" and "int8" each hold
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
    ``GEMMKIT_NUM_THREADS``, else the cores available)."""
    n = int(n)
    if n < 0:
        raise ValueError("gemmkit: thread count must be >= 0")
    backend.set_num_threads(n)


def get_num_threads():
    """Worker threads large GEMMs may use."""
    return backend.get_num_threads()
