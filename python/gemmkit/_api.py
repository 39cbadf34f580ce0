"""The public functions, shared by the native and the Pyodide backends.

This layer only normalizes Python inputs (DLPack producers and other
array-likes to numpy views, 1-D promotion and batch broadcasting for
``matmul``) and hands 2-D operands to the backend; the C++ core validates
memory (strides, overlap) and computes.
"""

from __future__ import annotations

from ._backend import backend
from ._errors import DTypeError, ShapeError

try:  # numpy is optional under Pyodide, where buffers work without it
    import numpy as _np
except ImportError:  # pragma: no cover - exercised in the Pyodide suite
    _np = None

_ndarray = _np.ndarray if _np is not None else None
# Bound once: the fast path of a tiny GEMM is a handful of attribute lookups.
_gemm2d = backend.gemm2d


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
    if type(out) is _ndarray or _np is None:
        return out
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
    """Shape checks for backends whose core takes bare m, n, k (Pyodide).

    The native core performs the same checks with the same messages.
    """
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


def gemm(a, b, c=None, *, alpha=1.0, beta=0.0, out=None):
    """``alpha * a @ b + beta * c``, computed by the fastest kernel available.

    ``a`` is (m, k), ``b`` is (k, n), ``c`` is (m, n) or ``None`` (then
    ``beta`` is ignored).  All operands share one dtype (float32 or float64)
    and may have any strides: transposed, reversed and sliced views are read
    in place.  ``beta == 0`` never reads ``c``; ``alpha == 0`` or ``k == 0``
    never reads ``a`` or ``b``.

    ``out`` (m, n) receives the result in place and is returned; it may be
    ``c`` itself (an in-place update) but must not overlap ``a`` or ``b``
    (:class:`OverlapError`: gemmkit never copies behind your back).  Without
    ``out`` a new C-contiguous array is returned (a C-contiguous
    ``memoryview`` under Pyodide without numpy).
    """
    if type(a) is not _ndarray:
        a = _operand(a, "a")
    if type(b) is not _ndarray:
        b = _operand(b, "b")
    if c is not None and type(c) is not _ndarray:
        c = _operand(c, "c")
    if out is not None and type(out) is not _ndarray:
        # Like numpy's out=, the caller's own object is what comes back.
        _gemm2d(a, b, c, alpha, beta, _output(out))
        return out
    return _gemm2d(a, b, c, alpha, beta, out)


def matmul(a, b, out=None):
    """``a @ b`` with :func:`numpy.matmul` semantics.

    1-D operands are promoted (a vector on the left is a row, on the right a
    column, and the promoted axis is removed from the result); leading
    dimensions broadcast as batches.  ``out`` must have exactly the result's
    shape and dtype.
    """
    if type(a) is not _ndarray:
        a = _operand(a, "a")
    if type(b) is not _ndarray:
        b = _operand(b, "b")
    caller_out = out
    if out is not None and type(out) is not _ndarray:
        out = _output(out)
    if a.ndim == 2 and b.ndim == 2:
        result = _gemm2d(a, b, None, 1.0, 0.0, out)
    elif _np is None:
        result = _matmul_buffers(a, b, out)
    else:
        result = _matmul_numpy(a, b, out)
    return result if caller_out is None else caller_out


def _matmul_numpy(a, b, out):
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("gemmkit: matmul operands must have at least one dimension")
    if a.dtype != b.dtype:
        raise DTypeError(
            f"gemmkit: dtype mismatch: a is {a.dtype} but b is {b.dtype} "
            "(gemmkit does not convert; cast explicitly)"
        )
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
    if out is None:
        result = _np.empty(full, dtype=a.dtype)
        out_full = result
    else:
        if out.shape != shape:
            raise ShapeError(f"gemmkit: out has shape {out.shape}, expected {shape}")
        if out.dtype != a.dtype:
            raise DTypeError(f"gemmkit: out is {out.dtype} but the operands are {a.dtype}")
        out_full = out
        if a.ndim == 1:
            out_full = out_full[..., None, :]
        if b.ndim == 1:
            out_full = out_full[..., None]
        result = out
    a_b = _np.broadcast_to(a2, batch + (m, k))
    b_b = _np.broadcast_to(b2, batch + (k, n))
    for idx in _np.ndindex(*batch):
        backend.gemm2d(a_b[idx], b_b[idx], None, 1.0, 0.0, out_full[idx])
    if out is None:
        if a.ndim == 1:
            result = result[..., 0, :]
        if b.ndim == 1:
            result = result[..., 0]
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
    result = backend.gemm2d(a2, b2, None, 1.0, 0.0, out2)
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

    Also the CPU features seen, the ISAs compiled in and usable here, the
    thread count and the ``GEMMKIT_REQUIRE_ISA`` pin.  Raises
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
