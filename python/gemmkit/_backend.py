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
``gemm_typed(in_dtype, out_dtype, a, b, c, alpha, beta, out)``
    The same for every supported (input, output) pair of element type
    names (``_dtypes.PAIRS``), already checked by the front end; ``b`` is a
    2-D operand or a packed handle from ``prepack_rhs``; ``out`` is always
    given; alpha and beta are Python ints for int8, floats otherwise.
``gemm_requant(out_dtype, a, b, scale_kind, scale, zero_point, bias_kind,
bias, out)``
    The requantized int8 product into ``out`` ("int8" or "uint8");
    ``scale`` is a contiguous 1-D float32 operand (1, m or n values by
    ``scale_kind`` 0/1/2), ``bias`` None or a contiguous 1-D int32 operand.
``prepack_rhs(in_dtype, b)``
    ``(handle, info)``: the handle owns the core's packed operand (freed
    with the handle) and ``info`` is a dict with "dtype", "k", "n", "isa",
    "kernel" and "bytes".
``may_share_memory(x, y)``
    True when two buffers' memory ranges intersect.
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
