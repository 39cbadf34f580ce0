// L0 simd: the Neon token (aarch64 Advanced SIMD, 128-bit vectors).  NEON is
// mandatory on aarch64, so this token needs no runtime probe.
#pragma once

#if defined(__aarch64__)
#include <arm_neon.h>

#include "simd_ops.hpp"

namespace gemmkit::isa_neon {

struct Neon {
  static constexpr const char* kName = "neon";
};

}  // namespace gemmkit::isa_neon

namespace gemmkit::simd {

template <>
struct SimdOps<isa_neon::Neon, float> {
  using Reg = float32x4_t;
  static constexpr int kLanes = 4;
  static constexpr bool kFusedMulAdd = true;

  static GEMMKIT_INLINE Reg zero() { return vdupq_n_f32(0.0f); }
  static GEMMKIT_INLINE Reg splat(float v) { return vdupq_n_f32(v); }
  static GEMMKIT_INLINE Reg loadu(const float* p) { return vld1q_f32(p); }
  static GEMMKIT_INLINE void storeu(float* p, Reg v) { vst1q_f32(p, v); }
  // Lane by lane: a full 16-byte load could cross into an unmapped page.
  static GEMMKIT_INLINE Reg load_partial(const float* p, int n) {
    float tmp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; ++i) tmp[i] = p[i];
    return vld1q_f32(tmp);
  }
  static GEMMKIT_INLINE void store_partial(float* p, Reg v, int n) {
    float tmp[4];
    vst1q_f32(tmp, v);
    for (int i = 0; i < n; ++i) p[i] = tmp[i];
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return vmulq_f32(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return vaddq_f32(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) { return vfmaq_f32(c, a, b); }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) { return vfmsq_f32(c, a, b); }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
  static GEMMKIT_INLINE float reduce_sum(Reg v) { return vaddvq_f32(v); }
};

template <>
struct SimdOps<isa_neon::Neon, double> {
  using Reg = float64x2_t;
  static constexpr int kLanes = 2;
  static constexpr bool kFusedMulAdd = true;

  static GEMMKIT_INLINE Reg zero() { return vdupq_n_f64(0.0); }
  static GEMMKIT_INLINE Reg splat(double v) { return vdupq_n_f64(v); }
  static GEMMKIT_INLINE Reg loadu(const double* p) { return vld1q_f64(p); }
  static GEMMKIT_INLINE void storeu(double* p, Reg v) { vst1q_f64(p, v); }
  static GEMMKIT_INLINE Reg load_partial(const double* p, int n) {
    double tmp[2] = {0.0, 0.0};
    for (int i = 0; i < n; ++i) tmp[i] = p[i];
    return vld1q_f64(tmp);
  }
  static GEMMKIT_INLINE void store_partial(double* p, Reg v, int n) {
    double tmp[2];
    vst1q_f64(tmp, v);
    for (int i = 0; i < n; ++i) p[i] = tmp[i];
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return vmulq_f64(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return vaddq_f64(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) { return vfmaq_f64(c, a, b); }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) { return vfmsq_f64(c, a, b); }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return vbslq_f64(vcgtq_f64(a, b), a, b); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return vbslq_f64(vcltq_f64(a, b), a, b); }
  static GEMMKIT_INLINE double reduce_sum(Reg v) { return vaddvq_f64(v); }
};

}  // namespace gemmkit::simd

#endif  // __aarch64__
