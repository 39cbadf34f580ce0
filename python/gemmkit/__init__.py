"""gemmkit: fast matrix multiplication for CPUs and WebAssembly.

One C++ kernel codebase with runtime ISA dispatch (AVX-512, AVX2+FMA, NEON,
scalar) natively and a simd128 build under Pyodide, behind one API::

    import gemmkit
    c = gemmkit.matmul(a, b)                           # numpy.matmul semantics
    gemmkit.gemm(a, b, c, alpha=2.0, beta=1.0, out=c)
    gemmkit.gemm(a, b, bias=row_bias, activation="relu")   # fused epilogue
    gemmkit.gemm_batched(stack_a, stack_b)             # one call for a stack
    gemmkit.gemm(a16, b16, out_dtype=numpy.float32)    # float16 in, float32 out
    q = gemmkit.gemm_requant(a8, b8, scale=0.05, zero_point=-3)
    packed = gemmkit.prepack_rhs(b)                    # for many products
    gemmkit.gemm(a, packed)
    with gemmkit.threads(1):                           # a thread limit
        gemmkit.matmul(a, b)
    gemmkit.dispatch_info()

Element types: every numeric numpy dtype (float16/32/64, bfloat16 from
ml_dtypes, complex64/128, the signed and unsigned integers of 8 to 64 bits,
bool); ``gemm`` converts nothing and lists its (input, output) pairs,
``matmul`` converts as ``numpy.matmul`` does.  Operands are numpy arrays,
buffers, nested lists or DLPack producers (torch tensors come back as torch
tensors).  Every error is a :class:`GemmkitError` subclass that is also the
built-in exception an ``except`` clause expects (``ValueError``,
``TypeError``...).  The examples in the docstrings assume ``import
gemmkit``.
"""

from ._api import (
    available_isas,
    dispatch_info,
    gemm,
    gemm_batched,
    gemm_requant,
    get_num_threads,
    matmul,
    prepack_rhs,
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
from ._packed import PackedRhs
from ._threads import threads
from . import tuning  # gemmkit.tuning: the knobs (not in __all__: a submodule)

__version__ = _backend.version()


def __dir__():
    # The public names only (not the submodules and helpers imported here).
    return sorted(__all__)


__all__ = [
    "gemm",
    "gemm_batched",
    "matmul",
    "gemm_requant",
    "prepack_rhs",
    "PackedRhs",
    "dispatch_info",
    "available_isas",
    "set_num_threads",
    "get_num_threads",
    "threads",
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
