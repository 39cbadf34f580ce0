"""Type stubs for gemmkit's public API.

What the overloads promise is what the code does: ``gemm`` converts
nothing, so its result type follows from the input type and ``out_dtype``
(float32 in, float32 out; int8 in, int32 out, or int8 with
``out_dtype=numpy.int8``; float16 in, float16 out, or float32 with
``out_dtype=numpy.float32``); ``matmul`` follows numpy (two arrays of one
type give that type; 1-D @ 1-D, when the shapes say so, a scalar); an
``out=`` is what comes back.  Operands the overloads cannot see through
(DLPack producers such as torch tensors, whose results come back as the
producer's arrays; buffers; nested lists; mixed types) give ``Any``.
"""

import contextlib
from collections.abc import Callable, Sequence
from types import GenericAlias
from typing import Any, Generic, Literal, Protocol, TypedDict, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray
from typing_extensions import Buffer, ParamSpec, TypeAlias

from . import tuning as tuning

__version__: str

class _SupportsDLPack(Protocol):
    """A DLPack producer (a torch tensor, a jax array)."""

    def __dlpack__(self) -> Any: ...
    def __dlpack_device__(self) -> Any: ...

# An operand: a numpy array, anything numpy.asarray takes (buffers, nested
# lists, scalars), or a DLPack producer on the CPU.
_Operand: TypeAlias = ArrayLike | _SupportsDLPack

# The element types whose products keep their type: gemm's same-type pairs
# (int8 is not one: its sums are int32) and, with int8, matmul's.
_GemmSame = TypeVar(
    "_GemmSame",
    np.float32, np.float64, np.float16, np.complex64, np.complex128, np.uint8, np.int16,
    np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.bool_,
)
_MatmulSame = TypeVar(
    "_MatmulSame",
    np.float32, np.float64, np.float16, np.complex64, np.complex128, np.int8, np.uint8,
    np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.bool_,
)
_Scalar_co = TypeVar("_Scalar_co", bound=np.generic, covariant=True)
_Scalar = TypeVar("_Scalar", bound=np.generic)
# What out= may be: an array, a DLPack producer, a writable buffer.
_Out = TypeVar("_Out", bound=_SupportsDLPack | Buffer)
_P = ParamSpec("_P")
_R = TypeVar("_R")

_Matrix: TypeAlias = np.ndarray[tuple[int, int], np.dtype[_MatmulSame]]  # also: shape unknown
_Vector: TypeAlias = np.ndarray[tuple[int], np.dtype[_MatmulSame]]

# out_dtype / dtype specifications of one type: the numpy type, its dtype,
# or its name.
_Float32Spec: TypeAlias = type[np.float32] | np.dtype[np.float32] | Literal["float32"]
_Int8Spec: TypeAlias = type[np.int8] | np.dtype[np.int8] | Literal["int8"]
_Uint8Spec: TypeAlias = type[np.uint8] | np.dtype[np.uint8] | Literal["uint8"]

# None, "relu", ("leaky_relu", slope) or ("clip", lo, hi)
_Activation: TypeAlias = Literal["relu"] | tuple[Literal["leaky_relu"], float] | tuple[
    Literal["clip"], float, float] | None
_Casting: TypeAlias = Literal["no", "equiv", "safe", "same_kind", "unsafe"]

class PackedRhs(Generic[_Scalar_co]):
    """A right-hand side packed once by prepack_rhs(); immutable, thread-safe."""

    def __init__(self, *args: Any, **kwargs: Any) -> None: ...  # raises: use prepack_rhs
    def __class_getitem__(cls, item: Any, /) -> GenericAlias: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def ndim(self) -> int: ...
    @property
    def dtype(self) -> np.dtype[_Scalar_co]: ...  # the type's name where numpy is absent
    @property
    def isa(self) -> str: ...
    @property
    def kernel(self) -> str: ...
    @property
    def nbytes(self) -> int: ...
    def __copy__(self) -> PackedRhs[_Scalar_co]: ...
    def __deepcopy__(self, memo: dict[int, Any]) -> PackedRhs[_Scalar_co]: ...

# gemm (gemm_batched takes the same arguments and follows the same type
# rules; its shapes are stacks).  mypy sees the first overload overlap the
# same-type one: numpy's stubs nest the bit widths (int8 arrays pass for
# int16 ones), so int8, whose sums are int32, comes first.
@overload
def gemm(  # type: ignore[overload-overlap]
    a: NDArray[np.int8],
    b: NDArray[np.int8] | PackedRhs[np.int8],
    c: ArrayLike | None = None,
    *,
    alpha: complex = 1.0,
    beta: complex = 0.0,
    out: None = None,
    out_dtype: None = None,
    bias: _Operand | None = None,
    activation: _Activation = None,
    conj_a: bool = False,
    conj_b: bool = False,
) -> NDArray[np.int32]: ...
@overload
def gemm(
    a: NDArray[np.int8],
    b: NDArray[np.int8] | PackedRhs[np.int8],
    c: ArrayLike | None = None,
    *,
    alpha: complex = 1.0,
    beta: complex = 0.0,
    out: None = None,
    out_dtype: _Int8Spec,
    bias: _Operand | None = None,
    activation: _Activation = None,
    conj_a: bool = False,
    conj_b: bool = False,
) -> NDArray[np.int8]: ...
@overload
def gemm(
    a: NDArray[np.float16],
    b: NDArray[np.float16] | PackedRhs[np.float16],
    c: ArrayLike | None = None,
    *,
    alpha: complex = 1.0,
    beta: complex = 0.0,
    out: None = None,
    out_dtype: _Float32Spec,
    bias: _Operand | None = None,
    activation: _Activation = None,
    conj_a: bool = False,
    conj_b: bool = False,
) -> NDArray[np.float32]: ...
@overload
def gemm(
    a: NDArray[_GemmSame],
    b: NDArray[_GemmSame] | PackedRhs[_GemmSame],
    c: ArrayLike | None = None,
    *,
    alpha: complex = 1.0,
    beta: complex = 0.0,
    out: None = None,
    out_dtype: None = None,
    bias: _Operand | None = None,
    activation: _Activation = None,
    conj_a: bool = False,
    conj_b: bool = False,
) -> NDArray[_GemmSame]: ...
@overload
def gemm(
    a: _Operand,
    b: _Operand | PackedRhs[Any],
    c: _Operand | None = None,
    *,
    alpha: complex = 1.0,
    beta: complex = 0.0,
    out: tuple[_Out],
    out_dtype: DTypeLike | None = None,
    bias: _Operand | None = None,
    activation: _Activation = None,
    conj_a: bool = False,
    conj_b: bool = False,
) -> _Out: ...
@overload
def gemm(
    a: _Operand,
    b: _Operand | PackedRhs[Any],
    c: _Operand | None = None,
    *,
    alpha: complex = 1.0,
    beta: complex = 0.0,
    out: _Out,
    out_dtype: DTypeLike | None = None,
    bias: _Operand | None = None,
    activation: _Activation = None,
    conj_a: bool = False,
    conj_b: bool = False,
) -> _Out: ...
@overload
def gemm(
    a: _Operand,
    b: _Operand | PackedRhs[Any],
    c: _Operand | None = None,
    *,
    alpha: complex = 1.0,
    beta: complex = 0.0,
    out: None = None,
    out_dtype: DTypeLike | None = None,
    bias: _Operand | None = None,
    activation: _Activation = None,
    conj_a: bool = False,
    conj_b: bool = False,
) -> Any: ...

gemm_batched = gemm

@overload
def gemm_requant(
    a: NDArray[np.int8],
    b: NDArray[np.int8] | PackedRhs[np.int8],
    *,
    scale: float | ArrayLike,
    zero_point: int,
    bias: ArrayLike | None = None,
    out_dtype: _Int8Spec = "int8",
    out: None = None,
) -> NDArray[np.int8]: ...
@overload
def gemm_requant(
    a: NDArray[np.int8],
    b: NDArray[np.int8] | PackedRhs[np.int8],
    *,
    scale: float | ArrayLike,
    zero_point: int,
    bias: ArrayLike | None = None,
    out_dtype: _Uint8Spec,
    out: None = None,
) -> NDArray[np.uint8]: ...
@overload
def gemm_requant(
    a: _Operand,
    b: _Operand | PackedRhs[np.int8],
    *,
    scale: float | ArrayLike,
    zero_point: int,
    bias: ArrayLike | None = None,
    out_dtype: DTypeLike = "int8",
    out: tuple[_Out],
) -> _Out: ...
@overload
def gemm_requant(
    a: _Operand,
    b: _Operand | PackedRhs[np.int8],
    *,
    scale: float | ArrayLike,
    zero_point: int,
    bias: ArrayLike | None = None,
    out_dtype: DTypeLike = "int8",
    out: _Out,
) -> _Out: ...
@overload
def gemm_requant(
    a: _Operand,
    b: _Operand | PackedRhs[np.int8],
    *,
    scale: float | ArrayLike,
    zero_point: int,
    bias: ArrayLike | None = None,
    out_dtype: DTypeLike = "int8",
    out: None = None,
) -> Any: ...
@overload
def prepack_rhs(b: NDArray[_Scalar]) -> PackedRhs[_Scalar]: ...
@overload
def prepack_rhs(b: _Operand) -> PackedRhs[Any]: ...

# matmul: 2-D @ 2-D first, so that arrays of unknown shape (NDArray) get an
# array (of unknown shape); 1-D @ 1-D, when the shapes say so, is numpy's
# scalar.  (The overlaps mypy reports come from numpy's nested bit widths,
# as for gemm.)
@overload
def matmul(  # type: ignore[overload-overlap]
    a: _Matrix[_MatmulSame],
    b: _Matrix[_MatmulSame] | PackedRhs[_MatmulSame],
    /,
    out: None = None,
    *,
    casting: _Casting = "same_kind",
    dtype: None = None,
    axes: None = None,
) -> NDArray[_MatmulSame]: ...
@overload
def matmul(  # type: ignore[overload-overlap]  # NDArray of unknown shape: the next one
    a: _Vector[_MatmulSame],
    b: _Vector[_MatmulSame],
    /,
    out: None = None,
    *,
    casting: _Casting = "same_kind",
    dtype: None = None,
    axes: None = None,
) -> _MatmulSame: ...
@overload
def matmul(
    a: NDArray[_MatmulSame],
    b: NDArray[_MatmulSame] | PackedRhs[_MatmulSame],
    /,
    out: None = None,
    *,
    casting: _Casting = "same_kind",
    dtype: None = None,
    axes: None = None,
) -> NDArray[_MatmulSame]: ...
@overload
def matmul(
    a: _Operand,
    b: _Operand | PackedRhs[Any],
    /,
    out: tuple[_Out],
    *,
    casting: _Casting = "same_kind",
    dtype: DTypeLike | None = None,
    axes: Sequence[int | tuple[int, ...]] | None = None,
) -> _Out: ...
@overload
def matmul(
    a: _Operand,
    b: _Operand | PackedRhs[Any],
    /,
    out: _Out,
    *,
    casting: _Casting = "same_kind",
    dtype: DTypeLike | None = None,
    axes: Sequence[int | tuple[int, ...]] | None = None,
) -> _Out: ...
@overload
def matmul(
    a: _Operand,
    b: _Operand | PackedRhs[Any],
    /,
    out: None = None,
    *,
    casting: _Casting = "same_kind",
    dtype: DTypeLike | None = None,
    axes: Sequence[int | tuple[int, ...]] | None = None,
) -> Any: ...

class _KernelInfo(TypedDict):
    isa: str
    kernel: str
    mr: int
    nr: int
    depth_multiple: int

class _CacheInfo(TypedDict):
    l1d: int
    l2: int
    l3: int
    source: str

# Functional syntax: the keys are dtype names ("bool" among them).
_DispatchInfo = TypedDict(
    "_DispatchInfo",
    {
        "backend": Literal["native", "pyodide"],
        "version": str,
        "threads": int,
        "threads_source": str,
        "pin": str | None,
        "cpu_features": list[str],
        "compiled_isas": list[str],
        "available_isas": list[str],
        "cache": _CacheInfo,
        # None: a type that alone cannot run under the pin
        "float32": _KernelInfo | None,
        "float64": _KernelInfo | None,
        "float16": _KernelInfo | None,
        "bfloat16": _KernelInfo | None,
        "int8": _KernelInfo | None,
        "uint8": _KernelInfo | None,
        "int16": _KernelInfo | None,
        "int32": _KernelInfo | None,
        "int64": _KernelInfo | None,
        "bool": _KernelInfo | None,
        "complex64": _KernelInfo | None,
        "complex128": _KernelInfo | None,
    },
)

def dispatch_info() -> _DispatchInfo: ...
def available_isas() -> list[str]: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...

class _ThreadLimit(contextlib.AbstractContextManager[None]):
    """What threads(n) returns: a context manager and a decorator."""

    def __enter__(self) -> None: ...
    def __exit__(self, *exc_info: object) -> bool: ...
    def __call__(self, func: Callable[_P, _R]) -> Callable[_P, _R]: ...

def threads(n: int) -> _ThreadLimit: ...

class GemmkitError(Exception): ...
class ShapeError(GemmkitError, ValueError): ...
class DTypeError(GemmkitError, TypeError): ...
class LayoutError(GemmkitError, ValueError): ...
class OverlapError(GemmkitError, ValueError): ...
class ArgumentError(GemmkitError, ValueError): ...
class IsaError(GemmkitError, RuntimeError): ...
class WorkspaceError(GemmkitError, MemoryError): ...
class InternalError(GemmkitError, RuntimeError): ...
