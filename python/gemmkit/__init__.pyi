"""Type stubs for gemmkit's public API."""

from typing import Any, Optional, TypeVar

__version__: str

_Array = Any  # numpy.ndarray, a buffer-protocol object or a DLPack producer
_DType = Any  # numpy.float32, numpy.dtype("float16"), ml_dtypes.bfloat16, "int8", ...
_Out = TypeVar("_Out")

class PackedRhs:
    """A right-hand side packed once by prepack_rhs(); immutable, thread-safe."""

    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def ndim(self) -> int: ...
    @property
    def dtype(self) -> Any: ...  # numpy dtype (the type's name without numpy)
    @property
    def isa(self) -> str: ...
    @property
    def kernel(self) -> str: ...
    @property
    def nbytes(self) -> int: ...

# None, "relu", ("leaky_relu", slope) or ("clip", lo, hi)
_Activation = Optional[str | tuple[str, float] | tuple[str, float, float]]
# numpy's out forms: an array or a 1-tuple holding one
_OutArg = Optional[_Out | tuple[_Out]]

def gemm(
    a: _Array,
    b: _Array | PackedRhs,
    c: Optional[_Array | float] = ...,
    *,
    alpha: complex = ...,
    beta: complex = ...,
    out: _OutArg = ...,
    out_dtype: Optional[_DType] = ...,
    bias: Optional[_Array | complex] = ...,
    activation: _Activation = ...,
    conj_a: bool = ...,
    conj_b: bool = ...,
) -> Any: ...
def gemm_batched(
    a: _Array,
    b: _Array | PackedRhs,
    c: Optional[_Array | float] = ...,
    *,
    alpha: complex = ...,
    beta: complex = ...,
    out: _OutArg = ...,
    out_dtype: Optional[_DType] = ...,
    bias: Optional[_Array | complex] = ...,
    activation: _Activation = ...,
    conj_a: bool = ...,
    conj_b: bool = ...,
) -> Any: ...
def gemm_requant(
    a: _Array,
    b: _Array | PackedRhs,
    *,
    scale: float | _Array,
    zero_point: int,
    bias: Optional[_Array] = ...,
    out_dtype: _DType = ...,
    out: _OutArg = ...,
) -> Any: ...
def prepack_rhs(b: _Array) -> PackedRhs: ...
def matmul(
    a: _Array,
    b: _Array | PackedRhs,
    /,
    out: _OutArg = ...,
    *,
    casting: str = ...,
    dtype: Optional[_DType] = ...,
    axes: Optional[list[tuple[int, ...]]] = ...,
) -> Any: ...
def dispatch_info() -> dict[str, Any]:
    """Keys: backend, version, threads, cpu_features, compiled_isas,
    available_isas, pin, and per element type ("float32", "float64",
    "float16", "bfloat16", "int8") a dict with isa, kernel, mr, nr,
    depth_multiple."""
def available_isas() -> list[str]: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...

class GemmkitError(Exception): ...
class ShapeError(GemmkitError, ValueError): ...
class DTypeError(GemmkitError, TypeError): ...
class LayoutError(GemmkitError, ValueError): ...
class OverlapError(GemmkitError, ValueError): ...
class ArgumentError(GemmkitError, ValueError): ...
class IsaError(GemmkitError, RuntimeError): ...
class WorkspaceError(GemmkitError, MemoryError): ...
class InternalError(GemmkitError, RuntimeError): ...
