"""Selects the compute backend: the pybind11 extension on CPython, the
simd128 side module through ctypes under Pyodide.

A backend is a module with this contract (both implement it; the shared
front end in ``_api.py`` relies on nothing else):

``NAME``
    ``"native"`` or ``"pyodide"``.
``gemm2d(a, b, c, alpha, beta, out)``
    ``a`` (m x k), ``b`` (k x n) and ``c`` (m x n, or ``None``) are 2-D
    operands of one element type (numpy arrays, or on Pyodide also
    buffer-protocol objects with ``ndim == 2``); ``out`` is ``None`` (a new
    C-contiguous result is allocated) or a writable 2-D operand, which may be
    ``c`` itself.  Computes ``alpha * a @ b + beta * c`` into it and returns
    it.  Validation (shapes, strides, overlap) happens in the C++ core; every
    failure raises a :mod:`gemmkit._errors` class.
``dispatch_info()``
    dict as documented on :func:`gemmkit.dispatch_info`; raises IsaError
    after a bad pin.
``available_isas()``, ``set_num_threads(n)``, ``get_num_threads()``.
"""

from __future__ import annotations

import sys

if sys.platform == "emscripten":
    from . import _pyodide as backend
else:
    from . import _native_backend as backend

__all__ = ["backend"]
