"""gemmkit: fast matrix multiplication for CPUs and WebAssembly.

One C++ kernel codebase with runtime ISA dispatch (AVX-512, AVX2+FMA, NEON,
scalar) natively and a simd128 build under Pyodide, behind one API::

    import gemmkit
    c = gemmkit.matmul(a, b)
    gemmkit.gemm(a, b, c, alpha=2.0, beta=1.0, out=c)
    gemmkit.dispatch_info()
"""

from __future__ import annotations

from ._api import (
    available_isas,
    dispatch_info,
    gemm,
    get_num_threads,
    matmul,
    set_num_threads,
)
from ._backend import backend as _backend
from ._errors import (
    ArgumentError,
    DTypeError,
    GemmkitError,
    InternalError,
    IsaError,
    LayoutError,
    OverlapError,
    ShapeError,
    WorkspaceError,
)

__version__ = _backend.version()

__all__ = [
    "gemm",
    "matmul",
    "dispatch_info",
    "available_isas",
    "set_num_threads",
    "get_num_threads",
    "GemmkitError",
    "ShapeError",
    "DTypeError",
    "LayoutError",
    "OverlapError",
    "ArgumentError",
    "IsaError",
    "WorkspaceError",
    "InternalError",
    "__version__",
]
