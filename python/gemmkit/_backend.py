"""Selects the compute backend: the pybind11 extension on CPython, the
simd128 side module through ctypes under Pyodide.

A backend is a leaf module (it imports nothing of the front end but
``_errors``) with this contract; both implement it and the shared front end
in ``_api.py`` relies on nothing else:

``NAME``
    ``"native"`` or ``"pyodide"``.
``CODES``
    The C ABI's code tables (``gemmkit_codes_json()``): status, dtype and
    activation codes, the (input, output) pairs, the accumulators.
``gemm(alpha, a, b, beta, c, out, epilogue)``
    ``out = act(alpha * a @ b + beta * c + bias)`` through the operand door
    (``gemmkit_gemm_batched``): ``a``, ``c`` and ``out`` are 2-D or 3-D (a
    batch) arrays or buffers, ``b`` the same or a packed handle, ``c`` may
    be None, ``epilogue`` None or ``(bias_kind, bias vector, activation,
    slope, lo, hi)``.  Every check happens in the C++ core; a failure
    raises the :mod:`gemmkit._errors` class of its status.  Returns out.
``matmul2d(a, b)``
    ``a @ b`` of two 2-D numpy arrays into a new array of a's dtype (the
    per-call fast path).
``gemm_requant(a, b, scale_kind, scale, zero_point, bias_kind, bias, out)``
    The requantized int8 product into ``out`` (``scale`` a float32 vector,
    ``bias`` None or an int32 vector).
``prepack_rhs(b)``
    ``(handle, info)``: the handle owns the core's packed operand (freed
    with the handle) and ``info`` is a dict with "dtype", "k", "n", "isa",
    "kernel" and "bytes".
``may_share_memory(x, y)``
    True when two buffers' memory ranges intersect.
``array_from_dlpack(capsule, writable)``
    The native backend only: a numpy array over a DLPack capsule that
    numpy.from_dlpack refuses (bfloat16), keeping the producer alive.
``dispatch_info()``, ``available_isas()``, ``set_num_threads(n)``,
``get_num_threads()``, ``version()``.
``knobs_json()``, ``knob_set(name, value)``, ``knob_reset(name)``, ``profile_json()``
    The knob registry through the C ABI (``gemmkit_knobs_json`` ...):
    JSON texts as the core writes them; ``knob_set`` takes a full knob name
    and a non-negative value (clamped to the knob's maximum), and a name
    that is no knob raises the status's error.
"""

from __future__ import annotations

import sys

if sys.platform == "emscripten":
    from . import _pyodide as backend
else:
    from . import _native_backend as backend

__all__ = ["backend"]
