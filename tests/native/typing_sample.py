"""Typed usage of gemmkit, checked twice by test_native_typing.py.

``mypy --strict`` checks each ``assert_type`` against the stubs (and
``--warn-unused-ignores`` that each ``type: ignore`` line is still an
error), and running the file checks the same calls at run time, so a stub
that promises what the code does not do fails one way or the other.
"""

from __future__ import annotations

from typing import Any

import gemmkit
import numpy as np
from numpy.typing import NDArray
from typing_extensions import assert_type


def check(got: object, dtype: type[np.generic], ndim: int | None = None) -> None:
    """The run-time half of an ``assert_type``: an array of that dtype (or
    a numpy scalar of it, ndim 0)."""
    if ndim == 0:
        assert type(got) is dtype, (type(got), dtype)
        return
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == dtype, (got.dtype, dtype)
    if ndim is not None:
        assert got.ndim == ndim, (got.ndim, ndim)


f32: NDArray[np.float32] = np.ones((3, 4), np.float32)
f32b: NDArray[np.float32] = np.ones((4, 2), np.float32)
f64 = np.ones((3, 3), np.float64)
f16: NDArray[np.float16] = np.ones((3, 4), np.float16)
f16b: NDArray[np.float16] = np.ones((4, 2), np.float16)
i8: NDArray[np.int8] = np.ones((3, 4), np.int8)
i8b: NDArray[np.int8] = np.ones((4, 2), np.int8)
c64: NDArray[np.complex64] = np.ones((2, 2), np.complex64)
u16: NDArray[np.uint16] = np.ones((2, 2), np.uint16)

# gemm: the result type follows from the inputs and out_dtype.
r_f32 = gemmkit.gemm(f32, f32b, alpha=2.0, bias=[1.0, 2.0], activation=("clip", 0.0, 9.0))
assert_type(r_f32, NDArray[np.float32])
check(r_f32, np.float32, 2)
r_f64 = gemmkit.gemm(f64, f64, f64, beta=1.0)
assert_type(r_f64, NDArray[np.float64])
check(r_f64, np.float64)
r_i32 = gemmkit.gemm(i8, i8b)
assert_type(r_i32, NDArray[np.int32])
check(r_i32, np.int32)
r_i8 = gemmkit.gemm(i8, i8b, out_dtype=np.int8)
assert_type(r_i8, NDArray[np.int8])
check(r_i8, np.int8)
r_f16 = gemmkit.gemm(f16, f16b)
assert_type(r_f16, NDArray[np.float16])
check(r_f16, np.float16)
r_f16_32 = gemmkit.gemm(f16, f16b, out_dtype="float32")
assert_type(r_f16_32, NDArray[np.float32])
check(r_f16_32, np.float32)
r_c64 = gemmkit.gemm(c64, c64, alpha=1j, conj_a=True)
assert_type(r_c64, NDArray[np.complex64])
check(r_c64, np.complex64)
r_u16 = gemmkit.gemm(u16, u16)
assert_type(r_u16, NDArray[np.uint16])
check(r_u16, np.uint16)
u8: NDArray[np.uint8] = np.ones((2, 2), np.uint8)
assert_type(gemmkit.gemm(u8, u8), NDArray[np.uint8])
check(gemmkit.gemm(u8, u8), np.uint8)
i16: NDArray[np.int16] = np.ones((2, 2), np.int16)
assert_type(gemmkit.gemm(i16, i16), NDArray[np.int16])
check(gemmkit.gemm(i16, i16), np.int16)

# out= is what comes back, in numpy's 1-tuple form too.
out = np.zeros((3, 2), np.float32)
assert_type(gemmkit.gemm(f32, f32b, out=out), "np.ndarray[tuple[int, int], np.dtype[np.float32]]")
assert_type(gemmkit.matmul(f32, f32b, (out,)), "np.ndarray[tuple[int, int], np.dtype[np.float32]]")
assert gemmkit.gemm(f32, f32b, out=(out,)) is out

# gemm_batched shares gemm's signature and type rules.
stack: NDArray[np.float32] = np.ones((5, 3, 4), np.float32)
r_batch = gemmkit.gemm_batched(stack, f32b)
assert_type(r_batch, NDArray[np.float32])
check(r_batch, np.float32, 3)

# Packed operands carry their element type.
packed = gemmkit.prepack_rhs(f32b)
assert_type(packed, gemmkit.PackedRhs[np.float32])
assert_type(packed.dtype, np.dtype[np.float32])
assert packed.dtype == np.float32 and packed.shape == (4, 2)
assert_type(gemmkit.gemm(f32, packed), NDArray[np.float32])
check(gemmkit.gemm(f32, packed), np.float32)
packed8 = gemmkit.prepack_rhs(i8b)
assert_type(gemmkit.gemm(i8, packed8), NDArray[np.int32])
check(gemmkit.gemm(i8, packed8), np.int32)

# gemm_requant: int8 by default, uint8 on request.
q8 = gemmkit.gemm_requant(i8, i8b, scale=0.5, zero_point=-3)
assert_type(q8, NDArray[np.int8])
check(q8, np.int8)
qu8 = gemmkit.gemm_requant(i8, packed8, scale=[0.5, 0.25, 1.0], zero_point=3, out_dtype="uint8")
assert_type(qu8, NDArray[np.uint8])
check(qu8, np.uint8)

# matmul: numpy's types; shapes numpy's stubs know decide array or scalar.
m2 = np.ones((3, 3), np.int8)
r_mm = gemmkit.matmul(m2, m2)
assert_type(r_mm, NDArray[np.int8])
check(r_mm, np.int8, 2)
v = np.ones(3, np.float64)
dot = gemmkit.matmul(v, v)
assert_type(dot, np.float64)
check(dot, np.float64, 0)
r_nd = gemmkit.matmul(f32, f32b)  # NDArray of unknown shape: an array
assert_type(r_nd, NDArray[np.float32])
check(r_nd, np.float32, 2)
r_stack = gemmkit.matmul(np.ones((2, 3, 4), np.float32), f32b)
assert_type(r_stack, NDArray[np.float32])
check(r_stack, np.float32, 3)
mixed: Any = gemmkit.matmul(f32, np.ones((4, 2), np.float64))  # numpy's promotion: Any
check(mixed, np.float64)

# Introspection.
info = gemmkit.dispatch_info()
assert_type(info["threads"], int)
kernel = info["float32"]
assert kernel is not None
assert_type(kernel["mr"], int)
assert isinstance(kernel["mr"], int) and isinstance(info["available_isas"], list)
assert_type(gemmkit.available_isas(), list[str])
assert_type(gemmkit.get_num_threads(), int)

# threads(n): a context manager and a decorator.
with gemmkit.threads(1):
    assert gemmkit.get_num_threads() == 1


@gemmkit.threads(1)
def one_thread(x: NDArray[np.float32]) -> NDArray[np.float32]:
    return gemmkit.gemm(x, x.T)


assert_type(one_thread(f32), NDArray[np.float32])
check(one_thread(f32), np.float32)

# Errors are GemmkitError subclasses and the built-ins they extend.
try:
    gemmkit.gemm(f32, f32b, alpha="2")  # type: ignore[call-overload]
except gemmkit.ArgumentError as exc:
    assert isinstance(exc, ValueError) and isinstance(exc, gemmkit.GemmkitError)
else:
    raise AssertionError("alpha='2' was accepted")
try:
    gemmkit.gemm(f32, f32b, activation="tanh")  # type: ignore[call-overload]
except gemmkit.ArgumentError:
    pass
else:
    raise AssertionError("activation='tanh' was accepted")
try:
    gemmkit.matmul(f32, f32b, casting="sometimes")  # type: ignore[call-overload]
except gemmkit.ArgumentError:
    pass
else:
    raise AssertionError("casting='sometimes' was accepted")
