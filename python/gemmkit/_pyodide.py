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
address and strides go straight to ``gemmkit_sgemm``/``gemmkit_dgemm``.

Results: a numpy array when numpy is importable; otherwise a C-contiguous
``memoryview`` of shape (m, n) and format ``'f'`` or ``'d'`` over a fresh
``bytearray`` (for n == 0 a ctypes-backed view of the same shape, since
``memoryview.cast`` refuses a zero in the shape).
"""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any

from ._errors import (
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

# struct-module format -> element type name; native byte order only.
_FORMATS = {"f": "float32", "<f": "float32", "=f": "float32", "@f": "float32",
            "d": "float64", "<d": "float64", "=d": "float64", "@d": "float64"}


class _View:
    """One exported operand: address of element (0, 0) and element strides.
    Holds the buffer (and so the exporter's memory) until released."""

    __slots__ = ("name", "buf", "dtype", "shape", "strides", "ptr", "_held")

    def __init__(self, name: str, obj: Any, writable: bool) -> None:
        self.name = name
        self.buf = _PyBuffer()
        self._held = False
        flags = _PyBUF_STRIDES | _PyBUF_FORMAT
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
            self._describe()
        except BaseException:
            self.release()
            raise

    def _describe(self) -> None:
        b, name = self.buf, self.name
        fmt = (b.format or b"B").decode("ascii")
        self.dtype = _FORMATS.get(fmt)
        if self.dtype is None:
            raise DTypeError(
                f"gemmkit: {name} has element format {fmt!r}; the Pyodide "
                "build supports float32 ('f') and float64 ('d')")
        if b.ndim != 2:
            raise ShapeError(f"gemmkit: {name} must be 2-D, got ndim={b.ndim}")
        if b.suboffsets:
            raise LayoutError(f"gemmkit: {name} uses suboffsets (indirect "
                              "buffers are not supported)")
        self.shape = (b.shape[0], b.shape[1])
        byte_strides = (b.strides[0], b.strides[1])
        if any(s % b.itemsize for s in byte_strides):
            raise LayoutError(
                f"gemmkit: {name} has strides {byte_strides} bytes, not a "
                f"multiple of its element size {b.itemsize}")
        self.strides = (byte_strides[0] // b.itemsize,
                        byte_strides[1] // b.itemsize)
        self.ptr = b.buf or 0

    def release(self) -> None:
        if self._held:
            self._held = False
            _release_buffer(ctypes.byref(self.buf))


# --------------------------------------------------------------------------
# the side module
# --------------------------------------------------------------------------

_size = ctypes.c_size_t
_idx = ctypes.c_ssize_t
_ptr = ctypes.c_void_p


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
        self.version = lib.gemmkit_version().decode()
        self.abi_version = int(lib.gemmkit_abi_version())

    def last_error(self) -> str:
        return (self._lib.gemmkit_last_error() or b"").decode("utf-8", "replace")

    def check(self, status: int) -> None:
        if status != 0:
            raise error_from_status(status, self.last_error()
                                    or f"gemmkit: status {status}")

    def gemm2d(self, a: Any, b: Any, c: Any, alpha: float, beta: float,
               out: Any) -> Any:
        views: list[_View] = []
        try:
            va = _View("a", a, False)
            views.append(va)
            vb = _View("b", b, False)
            views.append(vb)
            m, k = va.shape
            n = vb.shape[1]
            _check_shapes(va.shape, vb.shape, c, out)
            if vb.dtype != va.dtype:
                raise DTypeError(
                    f"gemmkit: a is {va.dtype} and b is {vb.dtype}: all "
                    "operands must have the same element type")
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
            f"gemmkit: {view.name} is {view.dtype} but a is {dtype}: all "
            "operands must have the same element type")
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
    code, size = ("f", 4) if dtype == "float32" else ("d", 8)
    if n == 0:
        ctype = ctypes.c_float if code == "f" else ctypes.c_double
        return memoryview((ctype * 0 * m)())
    if m == 0:
        return memoryview(bytearray(n * size)).cast(code, (1, n))[0:0]
    return memoryview(bytearray(m * n * size)).cast(code, (m, n))


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
    "get_num_threads",
    "set_num_threads",
    "simd128_supported",
    "version",
]
