"""Pyodide backend: the C ABI of the simd128 side module through ctypes.

Bindings layer for ``sys.platform == "emscripten"``; implements the backend
contract documented in :mod:`gemmkit._backend`.  The wheel ships the C++ core
as ``_gemmkit_simd128.wasm``, a wasm32 side module compiled with -msimd128 and
the pin fixed to simd128 (``wasm/build.py``).  It is deliberately not named
``*.so``: Pyodide compiles every ``*.so`` of a wheel at install time, so on an
engine without Wasm SIMD the install itself would fail with a CompileError.
Instead the module is opened here, on first use, after a
``WebAssembly.validate`` probe of a tiny simd128 module; where that fails every
GEMM call (and ``dispatch_info()``) raises :class:`IsaError` with
``SIMD_REFUSAL_MESSAGE``.

Operands are never copied: each one is exported with ``PyObject_GetBuffer``
(numpy arrays, ``memoryview``, ``bytearray``, read-only buffers alike) and its
address and strides go straight to the C ABI (``gemmkit_sgemm``/``_dgemm``
for the float32/float64 short path, ``gemmkit_gemm`` and friends for every
element type).  Buffer formats: ``'f'`` float32, ``'d'`` float64, ``'e'``
float16, ``'b'`` int8, ``'i'`` (or a 4-byte ``'l'``) int32, ``'B'`` uint8.
bfloat16 has no buffer format: it is read from numpy arrays of
``ml_dtypes.bfloat16`` (exported without a format), which needs numpy and
ml_dtypes inside Pyodide; without them no bfloat16 operand can exist.

Results: a numpy array when numpy is importable; otherwise a C-contiguous
``memoryview`` of shape (m, n) over a fresh ``bytearray`` (for n == 0 a
ctypes-backed view of the same shape, since ``memoryview.cast`` refuses a
zero in the shape).

A packed right-hand side is a ``gemmkit_packed_rhs*`` owned by a
``_PackedHandle``, freed from its ``__del__`` by the library that made it.
"""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any

from . import _dtypes
from ._errors import (
    ArgumentError,
    DTypeError,
    IsaError,
    LayoutError,
    ShapeError,
    error_from_status,
)

NAME = "pyodide"

_MODULE_FILE = "_gemmkit_simd128.wasm"
# What the side module holds (wasm/build.py, variant "pyodide"), best first.
_COMPILED_ISAS = ("simd128", "scalar")
_STATUS_VALUE = 5
_STATUS_ISA = 6

#: Smallest module using a simd128 instruction: (func v128.const 0; drop).
SIMD128_PROBE = bytes(
    [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 23, 1, 21,
     0, 253, 12] + [0] * 16 + [26, 11]
)

SIMD_REFUSAL_MESSAGE = (
    "gemmkit: the Pyodide build of gemmkit needs WebAssembly SIMD (simd128), "
    "which this engine does not support (WebAssembly.validate of a simd128 "
    "module failed)"
)


def simd128_supported() -> bool:
    """True when the JavaScript engine under Pyodide can compile simd128."""
    try:
        import js  # type: ignore[import-not-found]
        from pyodide.ffi import to_js  # type: ignore[import-not-found]
    except ImportError:
        return False
    try:
        return bool(js.WebAssembly.validate(to_js(SIMD128_PROBE)))
    except Exception:  # a JsException from an engine without Wasm at all
        return False


# --------------------------------------------------------------------------
# buffers without copies
# --------------------------------------------------------------------------

class _PyBuffer(ctypes.Structure):
    # Py_buffer, part of the stable ABI since 3.11; obj is kept as a raw
    # pointer so ctypes never touches its reference count.
    _fields_ = [
        ("buf", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("format", ctypes.c_char_p),
        ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
        ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
        ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
        ("internal", ctypes.c_void_p),
    ]


_PyBUF_WRITABLE = 0x0001
_PyBUF_FORMAT = 0x0004
_PyBUF_STRIDES = 0x0018  # includes PyBUF_ND

# PyObject_GetBuffer is how a read-only buffer (bytes, a read-only numpy
# array or memoryview) yields its address without a copy; ctypes'
# from_buffer only accepts writable ones.  pythonapi is a PyDLL: the call
# keeps the GIL and a Python exception set by the exporter is raised.
_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_get_buffer.restype = ctypes.c_int
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [ctypes.POINTER(_PyBuffer)]
_release_buffer.restype = None

_SUPPORTED_FORMATS = ("float32 ('f'), float64 ('d'), float16 ('e'), int8 ('b'), "
                      "int32 ('i'), uint8 ('B'); bfloat16 as an ml_dtypes numpy array")


class _View:
    """One exported operand: address of element (0, 0) and element strides.
    Holds the buffer (and so the exporter's memory) until released.

    ``dtype``: the element type the caller expects (checked), or None to
    take the buffer's own.  bfloat16 is exported without a format (numpy
    cannot describe it in one) after its dtype was checked by identity."""

    __slots__ = ("name", "buf", "dtype", "shape", "strides", "ptr", "_held")

    def __init__(self, name: str, obj: Any, writable: bool, dtype: str | None = None,
                 ndim: int = 2) -> None:
        self.name = name
        self.buf = _PyBuffer()
        self._held = False
        bf16 = dtype == "bfloat16"
        if bf16 and _dtypes.operand_dtype(obj) != "bfloat16":
            raise DTypeError(
                f"gemmkit: dtype mismatch: {name} is {_dtypes.describe(obj)} but this "
                "call needs bfloat16 (gemmkit does not convert; cast explicitly)")
        flags = _PyBUF_STRIDES if bf16 else _PyBUF_STRIDES | _PyBUF_FORMAT
        if writable:
            flags |= _PyBUF_WRITABLE
        try:
            _get_buffer(obj, ctypes.byref(self.buf), flags)
        except (BufferError, ValueError) as exc:  # numpy raises ValueError
            if writable:
                raise LayoutError(
                    f"gemmkit: {name} must be writable ({exc})") from None
            raise LayoutError(f"gemmkit: {name}: {exc}") from None
        except TypeError:
            raise DTypeError(
                f"gemmkit: {name} must be a numpy array or a buffer-protocol "
                f"object, got {type(obj).__name__}") from None
        self._held = True
        try:
            self._describe(bf16, dtype, ndim)
        except BaseException:
            self.release()
            raise

    def _describe(self, bf16: bool, expect: str | None, ndim: int) -> None:
        b, name = self.buf, self.name
        if bf16:
            self.dtype = "bfloat16" if b.itemsize == 2 else None
            fmt = "bfloat16"
        else:
            fmt = (b.format or b"B").decode("ascii")
            self.dtype = _dtypes.format_dtype_name(fmt, b.itemsize)
        if self.dtype is None:
            raise DTypeError(
                f"gemmkit: {name} has element format {fmt!r}; the Pyodide "
                f"build supports {_SUPPORTED_FORMATS}")
        if expect is not None and self.dtype != expect:
            raise DTypeError(
                f"gemmkit: dtype mismatch: {name} is {self.dtype} but this call "
                f"needs {expect} (gemmkit does not convert; cast explicitly)")
        if b.ndim != ndim:
            raise ShapeError(f"gemmkit: {name} must be {ndim}-D, got ndim={b.ndim}")
        if b.suboffsets:
            raise LayoutError(f"gemmkit: {name} uses suboffsets (indirect "
                              "buffers are not supported)")
        self.shape = tuple(b.shape[i] for i in range(ndim))
        byte_strides = tuple(b.strides[i] for i in range(ndim))
        if any(s % b.itemsize for s in byte_strides):
            raise LayoutError(
                f"gemmkit: {name} has strides {byte_strides} bytes, not a "
                f"multiple of its element size {b.itemsize}")
        self.strides = tuple(s // b.itemsize for s in byte_strides)
        self.ptr = b.buf or 0

    def release(self) -> None:
        if self._held:
            self._held = False
            _release_buffer(ctypes.byref(self.buf))


def _byte_span(obj: Any) -> tuple[int, int] | None:
    """[lo, hi) bytes a buffer's elements occupy, or None when empty."""
    buf = _PyBuffer()
    try:
        _get_buffer(obj, ctypes.byref(buf), _PyBUF_STRIDES)
    except (BufferError, ValueError, TypeError):
        return None
    try:
        lo = hi = buf.buf or 0
        for i in range(buf.ndim):
            extent = buf.shape[i]
            if extent == 0:
                return None
            step = (extent - 1) * buf.strides[i]
            lo, hi = (lo + step, hi) if step < 0 else (lo, hi + step)
        return lo, hi + buf.itemsize
    finally:
        _release_buffer(ctypes.byref(buf))


def may_share_memory(x: Any, y: Any) -> bool:
    """True when the memory ranges of two buffers intersect (the bounds
    test the C++ core applies to out and its inputs)."""
    sx, sy = _byte_span(x), _byte_span(y)
    return sx is not None and sy is not None and sx[0] < sy[1] and sy[0] < sx[1]


class _PackedHandle:
    """Owns one ``gemmkit_packed_rhs*`` of ``lib``; freed with the handle."""

    __slots__ = ("lib", "ptr", "dtype", "k", "n", "__weakref__")

    def __init__(self, lib: Library, ptr: int, dtype: str, k: int, n: int) -> None:
        self.lib, self.ptr, self.dtype, self.k, self.n = lib, ptr, dtype, k, n

    def __del__(self) -> None:
        ptr, self.ptr = self.ptr, None
        if ptr:
            try:
                self.lib._abi("gemmkit_packed_rhs_free")(ptr)
            except Exception:  # interpreter shutdown: the module may be gone
                pass


# --------------------------------------------------------------------------
# the side module
# --------------------------------------------------------------------------

_size = ctypes.c_size_t
_idx = ctypes.c_ssize_t
_ptr = ctypes.c_void_p


_int = ctypes.c_int
_dbl = ctypes.c_double
# argtypes and restype of the generic C ABI entries (gemmkit.h).
_SIGNATURES = {
    "gemmkit_gemm": ([_int, _int, _size, _size, _size, _dbl, _ptr, _idx, _idx,
                      _ptr, _idx, _idx, _dbl, _ptr, _idx, _idx, _ptr, _idx, _idx], _int),
    "gemmkit_gemm_packed": ([_int, _size, _dbl, _ptr, _idx, _idx, _ptr, _dbl,
                             _ptr, _idx, _idx, _ptr, _idx, _idx], _int),
    "gemmkit_gemm_requant": ([_int, _size, _size, _size, _ptr, _idx, _idx, _ptr, _idx, _idx,
                              _int, _ptr, _idx, _int, _int, _ptr, _idx,
                              _ptr, _idx, _idx], _int),
    "gemmkit_gemm_requant_packed": ([_int, _size, _ptr, _idx, _idx, _ptr,
                                     _int, _ptr, _idx, _int, _int, _ptr, _idx,
                                     _ptr, _idx, _idx], _int),
    "gemmkit_prepack_rhs": ([_int, _size, _size, _ptr, _idx, _idx,
                             ctypes.POINTER(ctypes.c_void_p)], _int),
    "gemmkit_packed_rhs_free": ([_ptr], None),
    "gemmkit_packed_rhs_describe": ([_ptr], ctypes.c_char_p),
}


class Library:
    """The C ABI of one loaded side module (``path``).

    Every instance opened from a distinct path has its own statics, so its
    own reading of ``GEMMKIT_REQUIRE_ISA`` (taken before its first GEMM)."""

    def __init__(self, path: str) -> None:
        if not simd128_supported():
            raise IsaError(SIMD_REFUSAL_MESSAGE)
        lib = ctypes.CDLL(path)
        self.path = path
        for name, real in (("sgemm", ctypes.c_float), ("dgemm", ctypes.c_double)):
            fn = getattr(lib, f"gemmkit_{name}")
            fn.argtypes = [_size, _size, _size, real, _ptr, _idx, _idx,
                           _ptr, _idx, _idx, real, _ptr, _idx, _idx,
                           _ptr, _idx, _idx]
            fn.restype = ctypes.c_int
        lib.gemmkit_abi_version.restype = ctypes.c_int
        lib.gemmkit_version.restype = ctypes.c_char_p
        lib.gemmkit_last_error.restype = ctypes.c_char_p
        lib.gemmkit_dispatch_info_json.restype = ctypes.c_char_p
        lib.gemmkit_set_num_threads.argtypes = [_size]
        lib.gemmkit_set_num_threads.restype = ctypes.c_int
        lib.gemmkit_get_num_threads.restype = _size
        self._lib = lib
        self._fns = {"float32": lib.gemmkit_sgemm, "float64": lib.gemmkit_dgemm}
        self._generic: dict[str, Any] = {}
        self.version = lib.gemmkit_version().decode()
        self.abi_version = int(lib.gemmkit_abi_version())

    def _abi(self, name: str) -> Any:
        """A C ABI entry of the generic family, bound on first use (so that
        the float32/float64 paths of a module without them still work)."""
        fn = self._generic.get(name)
        if fn is None:
            fn = getattr(self._lib, name)
            fn.argtypes, fn.restype = _SIGNATURES[name]
            self._generic[name] = fn
        return fn

    def last_error(self) -> str:
        return (self._lib.gemmkit_last_error() or b"").decode("utf-8", "replace")

    def check(self, status: int) -> None:
        if status != 0:
            raise error_from_status(status, self.last_error()
                                    or f"gemmkit: status {status}")

    def gemm2d(self, a: Any, b: Any, c: Any, alpha: float, beta: float,
               out: Any) -> Any:
        """float32/float64 only (gemmkit_sgemm / gemmkit_dgemm)."""
        views: list[_View] = []
        try:
            va = _View("a", a, False)
            views.append(va)
            if va.dtype not in self._fns:
                fmt = (va.buf.format or b"B").decode("ascii")
                raise DTypeError(
                    f"gemmkit: a is {va.dtype} (element format {fmt!r}); this path "
                    "takes float32 and float64 only (gemm() takes every type)")
            vb = _View("b", b, False)
            views.append(vb)
            m, k = va.shape
            n = vb.shape[1]
            _check_shapes(va.shape, vb.shape, c, out)
            if vb.dtype != va.dtype:
                raise DTypeError(
                    f"gemmkit: dtype mismatch: a is {va.dtype} but b is {vb.dtype} "
                    "(gemmkit does not convert; cast explicitly)")
            vc = None
            if c is not None:
                vc = _View("c", c, False)
                views.append(vc)
                _expect(vc, va.dtype, m, n)
            result = _new_result(va.dtype, m, n) if out is None else out
            vo = _View("out", result, True)
            views.append(vo)
            _expect(vo, va.dtype, m, n)
            status = self._fns[va.dtype](
                m, n, k, alpha,
                va.ptr, va.strides[0], va.strides[1],
                vb.ptr, vb.strides[0], vb.strides[1],
                beta,
                vc.ptr if vc else None,
                vc.strides[0] if vc else 0, vc.strides[1] if vc else 0,
                vo.ptr, vo.strides[0], vo.strides[1])
            self.check(status)
            return result
        finally:
            for v in views:
                v.release()

    def _own(self, packed: _PackedHandle) -> None:
        if packed.lib is not self:
            raise ArgumentError(
                "gemmkit: the packed operand was made by another loaded gemmkit "
                "module; prepack_rhs(b) again with this one")

    def gemm_typed(self, in_dtype: str, out_dtype: str, a: Any, b: Any, c: Any,
                   alpha: float, beta: float, out: Any) -> Any:
        """Any supported (input, output) pair (gemmkit_gemm); ``b`` may be a
        _PackedHandle (gemmkit_gemm_packed); ``out`` is required."""
        views: list[_View] = []
        try:
            va = _View("a", a, False, in_dtype)
            views.append(va)
            packed = b if isinstance(b, _PackedHandle) else None
            if packed is not None:
                self._own(packed)
                if packed.dtype != in_dtype:
                    raise DTypeError(
                        f"gemmkit: dtype mismatch: a is {in_dtype} but the packed b "
                        f"holds {packed.dtype}")
                b_shape = (packed.k, packed.n)
            else:
                vb = _View("b", b, False, in_dtype)
                views.append(vb)
                b_shape = vb.shape
            _check_shapes(va.shape, b_shape, c, out)
            m, k = va.shape
            n = b_shape[1]
            vc = None
            if c is not None:
                vc = _View("c", c, False, out_dtype)
                views.append(vc)
                _expect(vc, out_dtype, m, n)
            vo = _View("out", out, True, out_dtype)
            views.append(vo)
            _expect(vo, out_dtype, m, n)
            c_args = ((vc.ptr, vc.strides[0], vc.strides[1]) if vc else (None, 0, 0))
            o_args = (vo.ptr, vo.strides[0], vo.strides[1])
            code_out = _dtypes.CODES[out_dtype]
            if packed is not None:
                status = self._abi("gemmkit_gemm_packed")(
                    code_out, m, alpha, va.ptr, va.strides[0], va.strides[1],
                    packed.ptr, beta, *c_args, *o_args)
            else:
                status = self._abi("gemmkit_gemm")(
                    _dtypes.CODES[in_dtype], code_out, m, n, k, alpha,
                    va.ptr, va.strides[0], va.strides[1],
                    vb.ptr, vb.strides[0], vb.strides[1], beta, *c_args, *o_args)
            self.check(status)
            return out
        finally:
            for v in views:
                v.release()

    def gemm_requant(self, out_dtype: str, a: Any, b: Any, scale_kind: int, scale: Any,
                     zero_point: int, bias_kind: int, bias: Any, out: Any) -> Any:
        """Requantized int8 product into ``out`` (gemmkit_gemm_requant, or
        its _packed twin when ``b`` is a _PackedHandle)."""
        views: list[_View] = []
        try:
            va = _View("a", a, False, "int8")
            views.append(va)
            packed = b if isinstance(b, _PackedHandle) else None
            if packed is not None:
                self._own(packed)
                b_shape = (packed.k, packed.n)
            else:
                vb = _View("b", b, False, "int8")
                views.append(vb)
                b_shape = vb.shape
            _check_shapes(va.shape, b_shape, None, out)
            m, k = va.shape
            n = b_shape[1]
            vo = _View("out", out, True, out_dtype)
            views.append(vo)
            _expect(vo, out_dtype, m, n)
            vs = _View("scale", scale, False, "float32", ndim=1)
            views.append(vs)
            vbias = None
            if bias is not None:
                vbias = _View("bias", bias, False, "int32", ndim=1)
                views.append(vbias)
            tail = (scale_kind, vs.ptr, vs.strides[0], zero_point, bias_kind,
                    vbias.ptr if vbias else None, vbias.strides[0] if vbias else 0,
                    vo.ptr, vo.strides[0], vo.strides[1])
            code_out = _dtypes.CODES[out_dtype]
            if packed is not None:
                if packed.dtype != "int8":
                    raise DTypeError(
                        "gemmkit: gemm_requant needs an int8 packed operand, but the "
                        f"packed b holds {packed.dtype}")
                status = self._abi("gemmkit_gemm_requant_packed")(
                    code_out, m, va.ptr, va.strides[0], va.strides[1], packed.ptr, *tail)
            else:
                status = self._abi("gemmkit_gemm_requant")(
                    code_out, m, n, k, va.ptr, va.strides[0], va.strides[1],
                    vb.ptr, vb.strides[0], vb.strides[1], *tail)
            self.check(status)
            return out
        finally:
            for v in views:
                v.release()

    def prepack_rhs(self, in_dtype: str, b: Any) -> tuple[_PackedHandle, dict[str, Any]]:
        """(handle, info) for a packed copy of ``b`` (gemmkit_prepack_rhs)."""
        vb = _View("b", b, False, in_dtype)
        try:
            k, n = vb.shape
            ptr = ctypes.c_void_p()
            status = self._abi("gemmkit_prepack_rhs")(
                _dtypes.CODES[in_dtype], k, n, vb.ptr, vb.strides[0], vb.strides[1],
                ctypes.byref(ptr))
        finally:
            vb.release()
        self.check(status)
        handle = _PackedHandle(self, ptr.value, in_dtype, k, n)
        info = json.loads(self._abi("gemmkit_packed_rhs_describe")(ptr.value).decode())
        return handle, info

    def dispatch_info(self) -> dict[str, Any]:
        raw = self._lib.gemmkit_dispatch_info_json()
        if raw is None:
            raise error_from_status(_STATUS_ISA, self.last_error())
        info = json.loads(raw.decode())
        # The core's keys win; these fill what only this layer knows.
        info["backend"] = NAME
        info.setdefault("version", self.version)
        info.setdefault("threads", self.get_num_threads())
        info.setdefault("cpu_features", ["simd128"])
        info.setdefault("compiled_isas", list(_COMPILED_ISAS))
        info.setdefault("available_isas", list(_COMPILED_ISAS))
        info.setdefault("pin", _pin_from_env())
        return info

    def set_num_threads(self, n: int) -> None:
        if n < 0:
            raise error_from_status(
                _STATUS_VALUE, f"gemmkit: set_num_threads({n}): n must be >= 0")
        self.check(self._lib.gemmkit_set_num_threads(n))

    def get_num_threads(self) -> int:
        return int(self._lib.gemmkit_get_num_threads())


def _check_shapes(a_shape: tuple, b_shape: tuple, c: Any, out: Any) -> None:
    # The C ABI takes bare m, n, k, so the shapes it cannot see are checked
    # here, with the native core's messages (shared with _api).
    from ._api import check_gemm_shapes

    def shape(x: Any) -> tuple | None:
        if x is None:
            return None
        s = getattr(x, "shape", None)
        return tuple(s) if s is not None else None

    check_gemm_shapes(a_shape, b_shape, shape(c), shape(out))


def _expect(view: _View, dtype: str, m: int, n: int) -> None:
    if view.dtype != dtype:
        raise DTypeError(
            f"gemmkit: dtype mismatch: the result is {dtype} but {view.name} is "
            f"{view.dtype} (gemmkit does not convert; cast explicitly)")
    if view.shape != (m, n):
        raise ShapeError(
            f"gemmkit: {view.name} is {view.shape[0]}x{view.shape[1]}, "
            f"expected {m}x{n}")


def _pin_from_env() -> str | None:
    # The build fixes the pin to simd128; GEMMKIT_REQUIRE_ISA overrides it.
    value = os.environ.get("GEMMKIT_REQUIRE_ISA", "").strip().lower()
    return value or "simd128"


_numpy: Any = None
_numpy_checked = False


def _np() -> Any:
    global _numpy, _numpy_checked
    if not _numpy_checked:
        _numpy_checked = True
        try:
            import numpy
        except ImportError:
            numpy = None
        _numpy = numpy
    return _numpy


def _new_result(dtype: str, m: int, n: int) -> Any:
    np = _np()
    if np is not None:
        return np.empty((m, n), dtype=dtype)
    return _dtypes.buffer_result(dtype, m, n)


# --------------------------------------------------------------------------
# the backend contract: module-level functions over one lazily opened module
# --------------------------------------------------------------------------

_default: Library | None = None
_default_error: IsaError | None = None


def _library() -> Library:
    global _default, _default_error
    if _default is None:
        if _default_error is not None:
            raise IsaError(str(_default_error))
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), _MODULE_FILE)
        try:
            _default = Library(path)
        except IsaError as exc:
            _default_error = exc
            raise
    return _default


def version() -> str:
    """The library version; answers even where the module cannot load (an
    engine without simd128), so that ``import gemmkit`` always works."""
    if _default is not None:
        return _default.version
    if simd128_supported():
        try:
            return _library().version
        except IsaError:
            pass
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("gemmkit")
    except PackageNotFoundError:
        return "0+unknown"


def gemm2d(a: Any, b: Any, c: Any, alpha: float, beta: float, out: Any) -> Any:
    return _library().gemm2d(a, b, c, alpha, beta, out)


def gemm_typed(in_dtype: str, out_dtype: str, a: Any, b: Any, c: Any, alpha: float,
               beta: float, out: Any) -> Any:
    return _library().gemm_typed(in_dtype, out_dtype, a, b, c, alpha, beta, out)


def gemm_requant(out_dtype: str, a: Any, b: Any, scale_kind: int, scale: Any,
                 zero_point: int, bias_kind: int, bias: Any, out: Any) -> Any:
    return _library().gemm_requant(out_dtype, a, b, scale_kind, scale, zero_point,
                                   bias_kind, bias, out)


def prepack_rhs(in_dtype: str, b: Any) -> tuple[_PackedHandle, dict[str, Any]]:
    return _library().prepack_rhs(in_dtype, b)


def dispatch_info() -> dict[str, Any]:
    return _library().dispatch_info()


def available_isas() -> list[str]:
    return list(_COMPILED_ISAS) if simd128_supported() else []


def set_num_threads(n: int) -> None:
    _library().set_num_threads(n)


def get_num_threads() -> int:
    return _library().get_num_threads()


__all__ = [
    "NAME",
    "SIMD128_PROBE",
    "SIMD_REFUSAL_MESSAGE",
    "Library",
    "available_isas",
    "dispatch_info",
    "gemm2d",
    "gemm_requant",
    "gemm_typed",
    "get_num_threads",
    "may_share_memory",
    "prepack_rhs",
    "set_num_threads",
    "simd128_supported",
    "version",
]
