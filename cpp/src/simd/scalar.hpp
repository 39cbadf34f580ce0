// L0 simd: the Scalar token, the portable floor on every architecture.
//
// Multiply and add are separate roundings (like simd128, and unlike the FMA
// tokens): the scalar TU is compiled with -ffp-contract=off so the compiler
// cannot fuse them behind our back.
#pragma once

#include "simd_ops.hpp"

namespace gemmkit::isa_scalar {

struct Scalar {
  static constexpr const char* kName = "scalar";
};

}  // namespace gemmkit::isa_scalar

namespace gemmkit::simd {

template <class T>
struct SimdOps<isa_scalar::Scalar, T> {
  using Reg = T;
  static constexpr int kLanes = 1;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE Reg zero() { return T(0); }
  static GEMMKIT_INLINE Reg splat(T v) { return v; }
  static GEMMKIT_INLINE Reg loadu(const T* p) { return *p; }
  static GEMMKIT_INLINE void storeu(T* p, Reg v) { *p = v; }
  static GEMMKIT_INLINE Reg load_partial(const T* p, int n) {
    return n > 0 ? *p : T(0);
  }
  static GEMMKIT_INLINE void store_partial(T* p, Reg v, int n) {
    if (n > 0) *p = v;
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return a * b; }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return a + b; }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) { return a * b + c; }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) { return c - a * b; }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return a > b ? a : b; }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return a < b ? a : b; }
  static GEMMKIT_INLINE T reduce_sum(Reg v) { return v; }
};

}  // namespace gemmkit::simd
