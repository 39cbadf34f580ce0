// L0 simd: the RelaxedSimd token, WebAssembly's relaxed SIMD on top of
// simd128: the same registers and operations as Simd128 (it derives them),
// except that mul_add and fnma are one f32x4/f64x2.relaxed_madd / _nmadd.
//
// Rounding: relaxed_madd is "either fused or not, as the host does it"
// (the relaxed-simd specification): V8 emits vfmadd on x64 CPUs with FMA and
// a multiply then an add elsewhere, and fmla on arm64.  So results may
// differ in the last bits from one machine to another (never beyond the
// k * eps bound every float path is tested against); one machine always
// rounds the same way.  kFusedMulAdd is false: nothing may rely on fusion.
//
// Only cpp/src/dispatch/targets/relaxed_simd/ includes this header, compiled
// with -msimd128 -mrelaxed-simd; it is empty otherwise, so the target can
// report that its units lost the flag (self_check.cpp) instead of running
// something else under the relaxed_simd name.
#pragma once

#if defined(__wasm_relaxed_simd__)

#include "simd128.hpp"

namespace gemmkit::isa_relaxed_simd {

struct RelaxedSimd {
  static constexpr const char* kName = "relaxed_simd";
};

}  // namespace gemmkit::isa_relaxed_simd

namespace gemmkit::simd {

template <>
struct SimdOps<isa_relaxed_simd::RelaxedSimd, float> : SimdOps<isa_simd128::Simd128, float> {
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) { return wasm_f32x4_relaxed_madd(a, b, c); }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) { return wasm_f32x4_relaxed_nmadd(a, b, c); }
};

template <>
struct SimdOps<isa_relaxed_simd::RelaxedSimd, double> : SimdOps<isa_simd128::Simd128, double> {
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) { return wasm_f64x2_relaxed_madd(a, b, c); }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) { return wasm_f64x2_relaxed_nmadd(a, b, c); }
};

}  // namespace gemmkit::simd

#endif  // __wasm_relaxed_simd__
