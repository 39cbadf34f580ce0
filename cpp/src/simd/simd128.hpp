// L0 simd: the Simd128 token, WebAssembly's 128-bit SIMD (f32x4, f64x2).
//
// Only the translation units in cpp/src/dispatch/targets/simd128/ include
// this header, and only they are compiled with -msimd128; the whole file is
// empty otherwise, so a simd128 target whose flags lost -msimd128 has no
// token to instantiate and its entry points can report that (the pin
// self-check) instead of silently running scalar code.
//
// Rounding: wasm has no fused multiply-add (relaxed-simd's madd may or may
// not fuse, by specification), so mul_add and fnma round twice, exactly like
// the Scalar token.  The TUs are compiled with -ffp-contract=off as well.
//
// Register budget: V8 on x64 gives wasm 15 xmm registers, so the microtiles
// built on this token (f32 8x4, f64 4x4) keep at most 11 vectors live.
#pragma once

#if defined(__wasm_simd128__)

#include <wasm_simd128.h>

#include "simd_ops.hpp"

namespace gemmkit::isa_simd128 {

struct Simd128 {
  static constexpr const char* kName = "simd128";
};

}  // namespace gemmkit::isa_simd128

namespace gemmkit::simd {

template <>
struct SimdOps<isa_simd128::Simd128, float> {
  using Reg = v128_t;
  static constexpr int kLanes = 4;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE Reg zero() { return wasm_f32x4_const_splat(0.0f); }
  static GEMMKIT_INLINE Reg splat(float v) { return wasm_f32x4_splat(v); }
  static GEMMKIT_INLINE Reg loadu(const float* p) { return wasm_v128_load(p); }
  static GEMMKIT_INLINE void storeu(float* p, Reg v) { wasm_v128_store(p, v); }

  // Lane by lane: a full v128.load could run past the end of the linear
  // memory (a trap) when the edge row sits at the very end of it.
  static GEMMKIT_INLINE Reg load_partial(const float* p, int n) {
    switch (n) {
      case 0:
        return zero();
      case 1:
        return wasm_v128_load32_zero(p);
      case 2:
        return wasm_v128_load64_zero(p);
      case 3:
        return wasm_v128_load32_lane(p + 2, wasm_v128_load64_zero(p), 2);
      default:
        return wasm_v128_load(p);
    }
  }
  static GEMMKIT_INLINE void store_partial(float* p, Reg v, int n) {
    switch (n) {
      case 0:
        return;
      case 1:
        wasm_v128_store32_lane(p, v, 0);
        return;
      case 2:
        wasm_v128_store64_lane(p, v, 0);
        return;
      case 3:
        wasm_v128_store64_lane(p, v, 0);
        wasm_v128_store32_lane(p + 2, v, 2);
        return;
      default:
        wasm_v128_store(p, v);
        return;
    }
  }

  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return wasm_f32x4_mul(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return wasm_f32x4_add(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return wasm_f32x4_add(wasm_f32x4_mul(a, b), c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return wasm_f32x4_sub(c, wasm_f32x4_mul(a, b));
  }
  // pmax(x, y) is `x < y ? y : x` lane-wise, so pmax(b, a) is exactly the
  // Scalar token's `a > b ? a : b` (same NaN and signed-zero results) and
  // lowers to one maxps on x64.  f32x4.max would propagate NaN and order
  // -0 < +0, which the scalar path does not.
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return wasm_f32x4_pmax(b, a); }
  // pmin(b, a) is `a < b ? a : b`.
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return wasm_f32x4_pmin(b, a); }
  // (l0 + l2) + (l1 + l3): a fixed order, so results do not depend on the
  // engine.
  static GEMMKIT_INLINE float reduce_sum(Reg v) {
    const Reg hi = wasm_i32x4_shuffle(v, v, 2, 3, 0, 1);
    const Reg s = wasm_f32x4_add(v, hi);
    const Reg s1 = wasm_i32x4_shuffle(s, s, 1, 0, 3, 2);
    return wasm_f32x4_extract_lane(wasm_f32x4_add(s, s1), 0);
  }
};

template <>
struct SimdOps<isa_simd128::Simd128, double> {
  using Reg = v128_t;
  static constexpr int kLanes = 2;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE Reg zero() { return wasm_f64x2_const_splat(0.0); }
  static GEMMKIT_INLINE Reg splat(double v) { return wasm_f64x2_splat(v); }
  static GEMMKIT_INLINE Reg loadu(const double* p) {
    return wasm_v128_load(p);
  }
  static GEMMKIT_INLINE void storeu(double* p, Reg v) {
    wasm_v128_store(p, v);
  }
  static GEMMKIT_INLINE Reg load_partial(const double* p, int n) {
    if (n <= 0) return zero();
    if (n == 1) return wasm_v128_load64_zero(p);
    return wasm_v128_load(p);
  }
  static GEMMKIT_INLINE void store_partial(double* p, Reg v, int n) {
    if (n <= 0) return;
    if (n == 1) {
      wasm_v128_store64_lane(p, v, 0);
      return;
    }
    wasm_v128_store(p, v);
  }

  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return wasm_f64x2_mul(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return wasm_f64x2_add(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return wasm_f64x2_add(wasm_f64x2_mul(a, b), c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return wasm_f64x2_sub(c, wasm_f64x2_mul(a, b));
  }
  // Same compare-and-select semantics as the f32 case above.
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return wasm_f64x2_pmax(b, a); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return wasm_f64x2_pmin(b, a); }
  static GEMMKIT_INLINE double reduce_sum(Reg v) {
    return wasm_f64x2_extract_lane(v, 0) + wasm_f64x2_extract_lane(v, 1);
  }
};

}  // namespace gemmkit::simd

#endif  // defined(__wasm_simd128__)
