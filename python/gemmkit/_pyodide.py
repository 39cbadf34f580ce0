"""Pyodide backend: the C ABI of a side module through ctypes.

Bindings layer for ``sys.platform == "emscripten"``; implements the backend
contract documented in :mod:`gemmkit._backend`.  The wheel ships the C++ core
as two wasm32 side modules (``wasm/build.py``):

* ``_gemmkit_relaxed_simd.wasm``, compiled with -msimd128 -mrelaxed-simd, its
  pin fixed by default to relaxed_simd: the scalar, simd128 and relaxed_simd
  targets (float32/float64 through f32x4.relaxed_madd, the other types
  through simd128);
* ``_gemmkit_simd128.wasm``, compiled with -msimd128, its pin fixed by
  default to simd128: the scalar and simd128 targets.

They are deliberately not named ``*.so``: Pyodide compiles every ``*.so`` of
a wheel at install time, so on an engine without Wasm SIMD (or, for the
relaxed module, without relaxed SIMD) the install itself would fail with a
CompileError.  (The wheel's one ``*.so``, the call module below, has no SIMD
instruction.)  Instead one of them is opened here, when gemmkit is imported,
after ``WebAssembly.validate`` probes of tiny modules (``SIMD128_PROBE``,
``RELAXED_SIMD_PROBE``), chosen by ``GEMMKIT_REQUIRE_ISA`` (read then; the
module reads it again itself, before its first GEMM, and applies the pin):

* unset or ``auto``: the relaxed module where the engine validates relaxed
  SIMD, the wheel holds it and ``PREFER_RELAXED_SIMD`` is set, else the
  simd128 module;
* ``relaxed_simd`` (alias ``relaxed``): the relaxed module, or
  ``RELAXED_SIMD_REFUSAL_MESSAGE`` where the engine lacks relaxed SIMD
  (``RELAXED_MODULE_MISSING_MESSAGE`` for a wheel without that module);
* anything else (``simd128``, ``wasm``, ``scalar``, ...): the simd128
  module, which applies or refuses the pin.

Where the engine has no simd128 at all every GEMM call (and
``dispatch_info()``) raises :class:`IsaError` with ``SIMD_REFUSAL_MESSAGE``.
``available_isas()`` lists what this engine runs whatever the pin:
relaxed_simd first where the relaxed module could run.

Operands are never copied.  A plain product (float scalars, 2-D float32 or
float64 buffers, no epilogue) is one call to the extension module
``gemmkit._pyodide_call`` (``cpp/bindings/pyodide_call.cpp``), which reads
the buffers and calls the loaded module's ``gemmkit_gemm_batched_ex``
through its address: a ctypes call and the Python that prepares it would
cost a small product several times its arithmetic.  Every other operand is
exported here with ``PyObject_GetBuffer`` (numpy arrays, ``memoryview``,
``bytearray``, read-only buffers alike) and its address and strides go to
the same C ABI (``gemmkit_gemm_batched_ex``, ``gemmkit_gemm_requant_batched``,
``gemmkit_prepack_rhs``).  Both paths give the core the same descriptors, so
every check and message is the core's.
Buffer formats: ``'f'`` float32, ``'d'`` float64, ``'e'`` float16, ``'b'``
int8, ``'i'`` (or a 4-byte ``'l'``) int32, ``'B'`` uint8 (and the other
formats of :mod:`gemmkit._formats`).  bfloat16 has no buffer format: it is
read from numpy arrays of ``ml_dtypes.bfloat16`` (exported without a
format), which needs numpy and ml_dtypes inside Pyodide; without them no
bfloat16 operand can exist.

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

from ._errors import (
    ArgumentError,
    DTypeError,
    IsaError,
    LayoutError,
    ShapeError,
    error_from_status,
    install_status_codes,
)
from ._formats import format_name
from ._pyodide_call import gemm as _call_gemm

NAME = "pyodide"

#: The side modules of the wheel, in the folder of this file.
SIMD128_MODULE_FILE = "_gemmkit_simd128.wasm"
RELAXED_MODULE_FILE = "_gemmkit_relaxed_simd.wasm"
_MODULE_DIR = os.path.dirname(os.path.abspath(__file__))

#: Whether GEMMKIT_REQUIRE_ISA unset or auto takes the relaxed module where
#: the engine runs it.  Off: relaxed SIMD is an opt-in (GEMMKIT_REQUIRE_ISA=
#: relaxed_simd), since relaxed_madd rounds as the host CPU does (results
#: differ in the last bits between machines) and it gained only 3-9% for
#: float32 and nothing for float64 in Chromium 156 on AMD Zen 4
#: (docs/browser.md).
PREFER_RELAXED_SIMD = False

#: Smallest module using a simd128 instruction: (func v128.const 0; drop).
SIMD128_PROBE = bytes(
    [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 23, 1, 21,
     0, 253, 12] + [0] * 16 + [26, 11]
)

#: A module using a relaxed-SIMD instruction: (func v128.const 0 three
#: times; f32x4.relaxed_madd; drop).  node 20 refuses it unless run with
#: --experimental-wasm-relaxed-simd.
RELAXED_SIMD_PROBE = bytes(
    [0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 62, 1, 60, 0]
    + ([253, 12] + [0] * 16) * 3 + [253, 133, 2, 26, 11]
)

SIMD_REFUSAL_MESSAGE = (
    "gemmkit: the Pyodide build of gemmkit needs WebAssembly SIMD (simd128), "
    "which this engine does not support (WebAssembly.validate of a simd128 "
    "module failed)"
)

RELAXED_SIMD_REFUSAL_MESSAGE = (
    "gemmkit: relaxed_simd (GEMMKIT_REQUIRE_ISA=relaxed_simd) needs WebAssembly "
    "relaxed SIMD, which this engine does not support (WebAssembly.validate of a "
    "relaxed-SIMD module, f32x4.relaxed_madd, failed); GEMMKIT_REQUIRE_ISA=auto "
    "or simd128 runs the simd128 build"
)

RELAXED_MODULE_MISSING_MESSAGE = (
    "gemmkit: relaxed_simd (GEMMKIT_REQUIRE_ISA=relaxed_simd) needs the relaxed-SIMD "
    "module, which this gemmkit wheel does not have (" + RELAXED_MODULE_FILE + ")"
)

_RELAXED_PINS = ("relaxed_simd", "relaxed")
_AUTO_PINS = ("", "auto")


def _validates(probe: bytes) -> bool:
    """True when the JavaScript engine under Pyodide validates ``probe``."""
    try:
        import js  # type: ignore[import-not-found]
        from pyodide.ffi import to_js  # type: ignore[import-not-found]
    except ImportError:
        return False
    try:
        return bool(js.WebAssembly.validate(to_js(probe)))
    except Exception:  # a JsException from an engine without Wasm at all
        return False


def simd128_supported() -> bool:
    """True when the JavaScript engine under Pyodide can compile simd128."""
    return _validates(SIMD128_PROBE)


def relaxed_simd_supported() -> bool:
    """True when the JavaScript engine under Pyodide can compile relaxed SIMD."""
    return _validates(RELAXED_SIMD_PROBE)


def _relaxed_runs() -> bool:
    """The wheel holds the relaxed module and this engine can compile it."""
    return (os.path.exists(os.path.join(_MODULE_DIR, RELAXED_MODULE_FILE))
            and relaxed_simd_supported())


def module_path() -> str:
    """The side module that this engine and ``GEMMKIT_REQUIRE_ISA`` (trimmed
    and lower-cased, as the core reads it) call for; IsaError where none
    can serve."""
    pin = os.environ.get("GEMMKIT_REQUIRE_ISA", "").strip().lower()
    if pin in _RELAXED_PINS:
        if not relaxed_simd_supported():
            raise IsaError(RELAXED_SIMD_REFUSAL_MESSAGE)
        if not os.path.exists(os.path.join(_MODULE_DIR, RELAXED_MODULE_FILE)):
            raise IsaError(RELAXED_MODULE_MISSING_MESSAGE)
        return os.path.join(_MODULE_DIR, RELAXED_MODULE_FILE)
    if not simd128_supported():
        raise IsaError(SIMD_REFUSAL_MESSAGE)
    if pin in _AUTO_PINS and PREFER_RELAXED_SIMD and _relaxed_runs():
        return os.path.join(_MODULE_DIR, RELAXED_MODULE_FILE)
    return os.path.join(_MODULE_DIR, SIMD128_MODULE_FILE)


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


class _Operand(ctypes.Structure):
    # gemmkit_operand of gemmkit.h
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),
        ("flags", ctypes.c_int),
        ("batch", ctypes.c_size_t),
        ("rows", ctypes.c_size_t),
        ("cols", ctypes.c_size_t),
        ("batch_stride", ctypes.c_ssize_t),
        ("rs", ctypes.c_ssize_t),
        ("cs", ctypes.c_ssize_t),
    ]


class _Epilogue(ctypes.Structure):
    # gemmkit_epilogue of gemmkit.h
    _fields_ = [
        ("bias_kind", ctypes.c_int),
        ("bias", _Operand),
        ("activation", ctypes.c_int),
        ("slope", ctypes.c_double),
        ("lo", ctypes.c_double),
        ("hi", ctypes.c_double),
    ]


class _Requant(ctypes.Structure):
    # gemmkit_requant of gemmkit.h
    _fields_ = [
        ("scale_kind", ctypes.c_int),
        ("scale", _Operand),
        ("zero_point", ctypes.c_int),
        ("bias_kind", ctypes.c_int),
        ("bias", _Operand),
    ]


class _View:
    """One exported operand as a gemmkit_operand: a matrix (2-D), a batch
    (3-D) or a vector (1-D).  Holds the buffer (and so the exporter's memory)
    until released.  bfloat16 has no buffer format: a numpy array of
    ml_dtypes.bfloat16 is exported without one and named by its dtype.
    Nothing is checked here that the core checks; what only this layer sees
    (no buffer at all, suboffsets, strides that are not whole elements) is
    refused here."""

    __slots__ = ("name", "buf", "op", "shape", "_held")

    def __init__(self, name: str, obj: Any, codes: dict, writable: bool = False,
                 vector: bool = False) -> None:
        self.name = name
        self.buf = _PyBuffer()
        self._held = False
        dt = getattr(obj, "dtype", None)
        bf16 = getattr(dt, "name", None) == "bfloat16"
        flags = _PyBUF_STRIDES if bf16 else _PyBUF_STRIDES | _PyBUF_FORMAT
        readonly = False
        try:
            try:
                _get_buffer(obj, ctypes.byref(self.buf),
                            flags | (_PyBUF_WRITABLE if writable else 0))
            except (BufferError, ValueError):  # numpy raises ValueError
                if not writable:
                    raise
                # A read-only out: described as such, the core refuses it.
                _get_buffer(obj, ctypes.byref(self.buf), flags)
                readonly = True
        except (BufferError, ValueError) as exc:
            raise LayoutError(f"gemmkit: {name}: {exc}") from None
        except TypeError:
            raise DTypeError(
                f"gemmkit: {name} must be a numpy array or a buffer-protocol "
                f"object, got {type(obj).__name__}") from None
        self._held = True
        try:
            self._describe(bf16, codes, readonly, vector)
        except BaseException:
            self.release()
            raise

    def _describe(self, bf16: bool, codes: dict, readonly: bool, vector: bool) -> None:
        b, name = self.buf, self.name
        if bf16:
            dtype = "bfloat16"
        else:
            dtype = format_name((b.format or b"B").decode("ascii"), b.itemsize)
        nd = b.ndim
        if (nd != 1) if vector else (nd not in (2, 3)):
            want = "1-D" if vector else "2-D (or 3-D, a batch)"
            raise ShapeError(f"gemmkit: {name} must be {want}, got ndim={nd}")
        if b.suboffsets:
            raise LayoutError(f"gemmkit: {name} uses suboffsets (indirect "
                              "buffers are not supported)")
        self.shape = tuple(b.shape[:nd])
        byte_strides = b.strides[:nd]
        size = b.itemsize
        if size == 0 or any(s % size for s in byte_strides):
            raise LayoutError(
                f"gemmkit: {name} has strides that are not a multiple of its element size")
        st = [s // size for s in byte_strides]
        op = _Operand()
        op.data = b.buf or 0
        op.dtype = codes.get(dtype, -1) if dtype else -1
        op.flags = 1 if readonly else 0  # GEMMKIT_OPERAND_READONLY
        off = 1 if nd == 3 else 0
        op.batch = self.shape[0] if nd == 3 else 1
        op.batch_stride = st[0] if nd == 3 else 0
        op.rows, op.rs = self.shape[off], st[off]
        op.cols, op.cs = (1, 1) if vector else (self.shape[off + 1], st[off + 1])
        self.op = op

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
_pair = ctypes.c_double * 2  # a complex alpha or beta: (real, imaginary)
# argtypes and restype of the generic C ABI entries (gemmkit.h).
_SIGNATURES = {
    "gemmkit_gemm_batched_ex": ([_pair, _ptr, _ptr, _ptr, _pair, _ptr, _ptr, _ptr, _int],
                                _int),
    "gemmkit_gemm_requant_batched": ([_ptr, _ptr, _ptr, _ptr, _ptr], _int),
    "gemmkit_prepack_rhs": ([_int, _size, _size, _ptr, _idx, _idx,
                             ctypes.POINTER(ctypes.c_void_p)], _int),
    "gemmkit_packed_rhs_free": ([_ptr], None),
    "gemmkit_packed_rhs_describe": ([_ptr], ctypes.c_char_p),
    "gemmkit_knobs_json": ([], ctypes.c_char_p),
    "gemmkit_knob_set": ([ctypes.c_char_p, _size], _int),
    "gemmkit_knob_reset": ([ctypes.c_char_p], _int),
    "gemmkit_profile_json": ([], ctypes.c_char_p),
}
# The largest size_t of the side module (wasm32: 2**32 - 1): a knob value
# above it is clamped here, since ctypes would wrap it.
_SIZE_MAX = (1 << (8 * ctypes.sizeof(_size))) - 1


class Library:
    """The C ABI of one loaded side module (``path``).

    Every instance opened from a distinct path has its own statics, so its
    own reading of ``GEMMKIT_REQUIRE_ISA`` (taken before its first GEMM)."""

    def __init__(self, path: str) -> None:
        if not simd128_supported():
            raise IsaError(SIMD_REFUSAL_MESSAGE)
        if os.path.basename(path) == RELAXED_MODULE_FILE and not relaxed_simd_supported():
            raise IsaError(RELAXED_SIMD_REFUSAL_MESSAGE)
        lib = ctypes.CDLL(path)
        self.path = path
        lib.gemmkit_abi_version.restype = ctypes.c_int
        lib.gemmkit_version.restype = ctypes.c_char_p
        lib.gemmkit_last_error.restype = ctypes.c_char_p
        lib.gemmkit_dispatch_info_json.restype = ctypes.c_char_p
        lib.gemmkit_set_num_threads.argtypes = [_size]
        lib.gemmkit_set_num_threads.restype = ctypes.c_int
        lib.gemmkit_get_num_threads.restype = _size
        lib.gemmkit_codes_json.restype = ctypes.c_char_p
        self._lib = lib
        self._generic: dict[str, Any] = {}
        #: The C ABI's code tables (gemmkit_codes_json).
        self.codes = json.loads(lib.gemmkit_codes_json().decode())
        self.version = lib.gemmkit_version().decode()
        self.abi_version = int(lib.gemmkit_abi_version())
        # What _pyodide_call calls for plain products: Pyodide's modules
        # share one function table, so this address is callable from it.
        self._entry = ctypes.cast(lib.gemmkit_gemm_batched_ex, ctypes.c_void_p).value

    def _abi(self, name: str) -> Any:
        """A C ABI entry, its prototype set on first use."""
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

    def _own(self, packed: _PackedHandle) -> None:
        if packed.lib is not self:
            raise ArgumentError(
                "gemmkit: the packed operand was made by another loaded gemmkit "
                "module; prepack_rhs(b) again with this one")

    def gemm(self, alpha: complex, a: Any, b: Any, beta: complex, c: Any, out: Any,
             epilogue: Any, flags: int = 0) -> Any:
        """The backend contract's gemm: gemmkit_gemm_batched_ex."""
        if epilogue is None and not flags and type(b) is not _PackedHandle:
            # A plain product: one call (-1: it is not one after all).
            status = _call_gemm(self._entry, alpha, a, b, beta, c, out)
            if status >= 0:
                if status:
                    self.check(status)
                return out
        views: list[_View] = []
        codes = self.codes["dtypes"]
        try:
            va = _View("a", a, codes)
            views.append(va)
            packed = b if isinstance(b, _PackedHandle) else None
            vb = None
            if packed is not None:
                self._own(packed)
            else:
                vb = _View("b", b, codes)
                views.append(vb)
            vc = None
            if c is not None:
                vc = _View("c", c, codes)
                views.append(vc)
            vo = _View("out", out, codes, writable=True)
            views.append(vo)
            epi = None
            if epilogue is not None:
                kind, bias, act, slope, lo, hi = epilogue
                epi = _Epilogue(bias_kind=kind, activation=act, slope=slope, lo=lo, hi=hi)
                if bias is not None:
                    vbias = _View("bias", bias, codes, vector=True)
                    views.append(vbias)
                    epi.bias = vbias.op
            alpha, beta = complex(alpha), complex(beta)
            self.check(self._abi("gemmkit_gemm_batched_ex")(
                _pair(alpha.real, alpha.imag), ctypes.byref(va.op),
                None if vb is None else ctypes.byref(vb.op),
                None if packed is None else packed.ptr, _pair(beta.real, beta.imag),
                None if vc is None else ctypes.byref(vc.op), ctypes.byref(vo.op),
                None if epi is None else ctypes.byref(epi), flags))
            return out
        finally:
            for v in views:
                v.release()

    def matmul2d(self, a: Any, b: Any) -> Any:
        """a @ b of two 2-D numpy arrays of one float type, into a new array
        (the per-call fast path: shapes read from the arrays, no extra export)."""
        out = _np().empty((a.shape[0], b.shape[1]), dtype=a.dtype)
        return self.gemm(1.0, a, b, 0.0, None, out, None)

    def gemm2d(self, a: Any, b: Any, c: Any = None, alpha: float = 1.0, beta: float = 0.0,
               out: Any = None) -> Any:
        """alpha * a @ b + beta * c of 2-D operands with this module, into
        ``out`` or a new result of a's element type: for using one loaded
        module directly (the pin checks, the tour's scalar column)."""
        if out is None:
            va = _View("a", a, self.codes["dtypes"])
            try:
                fmt, size = (va.buf.format or b"B").decode("ascii"), va.buf.itemsize
                m = va.shape[0]
            finally:
                va.release()
            n = memoryview(b).shape[-1]
            out = _new_result(fmt, size, getattr(a, "dtype", None), m, n)
        return self.gemm(alpha, a, b, beta, c, out, None)

    def gemm_requant(self, a: Any, b: Any, scale_kind: int, scale: Any, zero_point: int,
                     bias_kind: int, bias: Any, out: Any) -> Any:
        """Requantized int8 product into ``out``: gemmkit_gemm_requant_batched."""
        views: list[_View] = []
        codes = self.codes["dtypes"]
        try:
            va = _View("a", a, codes)
            views.append(va)
            packed = b if isinstance(b, _PackedHandle) else None
            vb = None
            if packed is not None:
                self._own(packed)
            else:
                vb = _View("b", b, codes)
                views.append(vb)
            vo = _View("out", out, codes, writable=True)
            views.append(vo)
            vs = _View("scale", scale, codes, vector=True)
            views.append(vs)
            rq = _Requant(scale_kind=scale_kind, scale=vs.op, zero_point=zero_point,
                          bias_kind=bias_kind)
            if bias is not None:
                vbias = _View("bias", bias, codes, vector=True)
                views.append(vbias)
                rq.bias = vbias.op
            self.check(self._abi("gemmkit_gemm_requant_batched")(
                ctypes.byref(va.op), None if vb is None else ctypes.byref(vb.op),
                None if packed is None else packed.ptr, ctypes.byref(rq),
                ctypes.byref(vo.op)))
            return out
        finally:
            for v in views:
                v.release()

    def prepack_rhs(self, b: Any) -> tuple[_PackedHandle, dict[str, Any]]:
        """(handle, info) for a packed copy of ``b`` (gemmkit_prepack_rhs)."""
        vb = _View("b", b, self.codes["dtypes"])
        try:
            if len(vb.shape) != 2:
                raise ShapeError(f"gemmkit: b must be 2-D, got ndim={len(vb.shape)}")
            op = vb.op
            ptr = ctypes.c_void_p()
            status = self._abi("gemmkit_prepack_rhs")(
                op.dtype, op.rows, op.cols, op.data, op.rs, op.cs, ctypes.byref(ptr))
        finally:
            vb.release()
        self.check(status)
        info = json.loads(self._abi("gemmkit_packed_rhs_describe")(ptr.value).decode())
        return _PackedHandle(self, ptr.value, info["dtype"], op.rows, op.cols), info

    def dispatch_info(self) -> dict[str, Any]:
        raw = self._lib.gemmkit_dispatch_info_json()
        if raw is None:
            raise IsaError(self.last_error())
        info = json.loads(raw.decode())
        info["backend"] = NAME  # the one key only this layer knows
        return info

    def available_isas(self) -> list[str]:
        fn = self._lib.gemmkit_isa_table_json
        fn.restype = ctypes.c_char_p
        rows = json.loads(fn().decode())
        return [row["name"] for row in reversed(rows) if row["usable"]]

    def set_num_threads(self, n: int) -> None:
        if n < 0:
            raise ArgumentError(f"gemmkit: set_num_threads({n}): n must be >= 0")
        self.check(self._lib.gemmkit_set_num_threads(n))

    def get_num_threads(self) -> int:
        return int(self._lib.gemmkit_get_num_threads())

    def knobs_json(self) -> str:
        return str(self._abi("gemmkit_knobs_json")().decode())

    def knob_set(self, name: str, value: int) -> None:
        self.check(self._abi("gemmkit_knob_set")(name.encode(), min(value, _SIZE_MAX)))

    def knob_reset(self, name: str) -> None:
        self.check(self._abi("gemmkit_knob_reset")(name.encode()))

    def profile_json(self) -> str:
        return str(self._abi("gemmkit_profile_json")().decode())


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


def _new_result(fmt: str, itemsize: int, dtype: Any, m: int, n: int) -> Any:
    """A new C-contiguous (m, n) result like an operand of struct format
    ``fmt`` (numpy ``dtype`` when it is an array)."""
    np = _np()
    if np is not None:
        return np.empty((m, n), dtype=dtype if dtype is not None else fmt)
    return buffer_result(fmt.lstrip("@=<"), itemsize, m, n)


def buffer_result(code: str, itemsize: int, m: int, n: int) -> memoryview:
    """A new C-contiguous (m, n) memoryview of struct format ``code`` (a
    result without numpy).  memoryview.cast refuses a zero in the shape, so
    an (m, 0) result is a ctypes-backed view of the same shape."""
    if n == 0:
        return memoryview((_CTYPE_OF[code] * 0 * m)())
    if m == 0:
        return memoryview(bytearray(n * itemsize)).cast(code, (1, n))[0:0]
    return memoryview(bytearray(m * n * itemsize)).cast(code, (m, n))


_CTYPE_OF = {"f": ctypes.c_float, "d": ctypes.c_double, "e": ctypes.c_uint16,
             "b": ctypes.c_int8, "i": ctypes.c_int32, "B": ctypes.c_uint8, "q": ctypes.c_int64}


# --------------------------------------------------------------------------
# the backend contract: module-level functions over one lazily opened module
# --------------------------------------------------------------------------

_default: Library | None = None
_default_error: IsaError | None = None
_table: Library | None = None  # the simd128 module, for its ISA table only


def _library() -> Library:
    global _default, _default_error
    if _default is None:
        if _default_error is not None:
            raise IsaError(str(_default_error))
        try:
            _default = Library(module_path())
        except IsaError as exc:
            _default_error = exc
            raise
    return _default


def _engine_isas(isas: list[str]) -> list[str]:
    """A module's usable ISAs, best first, with relaxed_simd in front where
    this engine runs the wheel's relaxed module (the simd128 module's own
    table cannot know)."""
    if "relaxed_simd" not in isas and _relaxed_runs():
        return ["relaxed_simd", *isas]
    return isas


def _codes() -> dict[str, Any]:
    """The loaded module's code tables.  Where it cannot load (an engine
    without simd128) every call raises IsaError before any table is used,
    so a table of the same shape with nothing in it stands in."""
    try:
        return _library().codes
    except IsaError:
        return {"status": {}, "dtypes": {}, "itemsize": {}, "pairs": {}, "accumulators": {},
                "requant_outputs": [], "activations": {"none": 0, "relu": 1, "clip": 2,
                                                       "leaky_relu": 3},
                "bias_kinds": {"none": 0, "per_row": 1, "per_col": 2}}


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


def gemm(alpha: complex, a: Any, b: Any, beta: complex, c: Any, out: Any, epilogue: Any,
         flags: int = 0) -> Any:
    lib = _default if _default is not None else _library()  # per call: no extra frame
    return lib.gemm(alpha, a, b, beta, c, out, epilogue, flags)


def matmul2d(a: Any, b: Any) -> Any:
    return _library().matmul2d(a, b)


def gemm_requant(a: Any, b: Any, scale_kind: int, scale: Any, zero_point: int,
                 bias_kind: int, bias: Any, out: Any) -> Any:
    return _library().gemm_requant(a, b, scale_kind, scale, zero_point, bias_kind, bias, out)


def prepack_rhs(b: Any) -> tuple[_PackedHandle, dict[str, Any]]:
    return _library().prepack_rhs(b)


def dispatch_info() -> dict[str, Any]:
    info = _library().dispatch_info()
    info["available_isas"] = _engine_isas(info["available_isas"])
    if info["available_isas"][0] not in info["compiled_isas"]:  # the wheel compiled it
        info["compiled_isas"] = [info["available_isas"][0], *info["compiled_isas"]]
    return info


def available_isas() -> list[str]:
    """Usable here whatever the pin, best first (the C ABI's ISA table,
    relaxed_simd in front where the relaxed module could run); nothing
    where the engine cannot run simd128 at all."""
    global _table
    if not simd128_supported():
        return []
    try:
        lib = _library()
    except IsaError:  # a pin that refused: the simd128 module's table answers
        if _table is None:
            _table = Library(os.path.join(_MODULE_DIR, SIMD128_MODULE_FILE))
        lib = _table
    return _engine_isas(lib.available_isas())


def set_num_threads(n: int) -> None:
    _library().set_num_threads(n)


def get_num_threads() -> int:
    return _library().get_num_threads()


def knobs_json() -> str:
    return _library().knobs_json()


def knob_set(name: str, value: int) -> None:
    _library().knob_set(name, value)


def knob_reset(name: str) -> None:
    _library().knob_reset(name)


def profile_json() -> str:
    return _library().profile_json()


__all__ = [
    "NAME",
    "PREFER_RELAXED_SIMD",
    "RELAXED_MODULE_FILE",
    "RELAXED_MODULE_MISSING_MESSAGE",
    "RELAXED_SIMD_PROBE",
    "RELAXED_SIMD_REFUSAL_MESSAGE",
    "SIMD128_MODULE_FILE",
    "SIMD128_PROBE",
    "SIMD_REFUSAL_MESSAGE",
    "Library",
    "available_isas",
    "dispatch_info",
    "CODES",
    "gemm",
    "gemm_requant",
    "matmul2d",
    "get_num_threads",
    "knob_reset",
    "knob_set",
    "knobs_json",
    "may_share_memory",
    "module_path",
    "prepack_rhs",
    "profile_json",
    "relaxed_simd_supported",
    "set_num_threads",
    "simd128_supported",
    "version",
]


CODES = _codes()
install_status_codes(CODES["status"])
