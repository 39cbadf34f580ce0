// L0 simd: the Neon token (aarch64 Advanced SIMD, 128-bit vectors).  NEON is
// mandatory on aarch64, so this token needs no runtime probe.
//
// Also here: SimdOps<Neon, int32_t>, SimdOps<Neon, int64_t> and the Neon
// KernelSimd seams: f16 by the base AArch64 conversions fcvtl/fcvtn (round to
// nearest even under the default FPCR, which gemmkit never changes; NaN rules
// as scalar/half.hpp), bf16 by integer shifts and the bias trick, int8 by sign
// extension, and the vector requant_store (f64x2 lanes, frintn).
#pragma once

#if defined(__aarch64__)
#include <arm_neon.h>

#include <cstdint>

#include "../scalar/half.hpp"
#include "kernel_simd.hpp"
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
  // Compare and select, not vmaxq (propagates NaN) or vmaxnmq (returns the
  // number for NaN, but orders -0 < +0): the SimdOps rule a > b ? a : b.
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
  // Compare and select, as for f32.
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return vbslq_f64(vcgtq_f64(a, b), a, b); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return vbslq_f64(vcltq_f64(a, b), a, b); }
  static GEMMKIT_INLINE double reduce_sum(Reg v) { return vaddvq_f64(v); }
};


// int32 lanes wrap modulo 2^32.  add/mul run on the unsigned view: the
// intrinsics are plain vector + and * on signed lanes in GCC, where overflow
// would formally be undefined.
template <>
struct SimdOps<isa_neon::Neon, std::int32_t> {
  using Reg = int32x4_t;
  static constexpr int kLanes = 4;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE uint32x4_t u(Reg v) { return vreinterpretq_u32_s32(v); }
  static GEMMKIT_INLINE Reg s(uint32x4_t v) { return vreinterpretq_s32_u32(v); }
  static GEMMKIT_INLINE Reg zero() { return vdupq_n_s32(0); }
  static GEMMKIT_INLINE Reg splat(std::int32_t v) { return vdupq_n_s32(v); }
  static GEMMKIT_INLINE Reg loadu(const std::int32_t* p) { return vld1q_s32(p); }
  static GEMMKIT_INLINE void storeu(std::int32_t* p, Reg v) { vst1q_s32(p, v); }
  // Lane by lane: a full 16-byte load could cross into an unmapped page.
  static GEMMKIT_INLINE Reg load_partial(const std::int32_t* p, int n) {
    std::int32_t tmp[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; ++i) tmp[i] = p[i];
    return vld1q_s32(tmp);
  }
  static GEMMKIT_INLINE void store_partial(std::int32_t* p, Reg v, int n) {
    std::int32_t tmp[4];
    vst1q_s32(tmp, v);
    for (int i = 0; i < n; ++i) p[i] = tmp[i];
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return s(vmulq_u32(u(a), u(b))); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return s(vaddq_u32(u(a), u(b))); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return s(vmlaq_u32(u(c), u(a), u(b)));
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return s(vmlsq_u32(u(c), u(a), u(b)));
  }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return vmaxq_s32(a, b); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return vminq_s32(a, b); }
  static GEMMKIT_INLINE Reg bit_and(Reg a, Reg b) { return vandq_s32(a, b); }
  static GEMMKIT_INLINE Reg bit_or(Reg a, Reg b) { return vorrq_s32(a, b); }
  static GEMMKIT_INLINE std::int32_t reduce_sum(Reg v) {
    return std::int32_t(vaddvq_u32(u(v)));
  }
};

// int64 lanes wrap modulo 2^64, on the unsigned view as for int32.  NEON has
// no 64-bit vector multiply: mul is lo*lo + ((lo*hi + hi*lo) << 32), the
// cross terms by one 32-bit vmul against the half-swapped operand.
template <>
struct SimdOps<isa_neon::Neon, std::int64_t> {
  using Reg = int64x2_t;
  static constexpr int kLanes = 2;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE uint64x2_t u(Reg v) { return vreinterpretq_u64_s64(v); }
  static GEMMKIT_INLINE Reg s(uint64x2_t v) { return vreinterpretq_s64_u64(v); }
  static GEMMKIT_INLINE Reg zero() { return vdupq_n_s64(0); }
  static GEMMKIT_INLINE Reg splat(std::int64_t v) { return vdupq_n_s64(v); }
  static GEMMKIT_INLINE Reg loadu(const std::int64_t* p) { return vld1q_s64(p); }
  static GEMMKIT_INLINE void storeu(std::int64_t* p, Reg v) { vst1q_s64(p, v); }
  // Lane by lane: a full 16-byte load could cross into an unmapped page.
  static GEMMKIT_INLINE Reg load_partial(const std::int64_t* p, int n) {
    std::int64_t tmp[2] = {0, 0};
    for (int i = 0; i < n; ++i) tmp[i] = p[i];
    return vld1q_s64(tmp);
  }
  static GEMMKIT_INLINE void store_partial(std::int64_t* p, Reg v, int n) {
    std::int64_t tmp[2];
    vst1q_s64(tmp, v);
    for (int i = 0; i < n; ++i) p[i] = tmp[i];
  }
  static GEMMKIT_INLINE uint64x2_t mul_u(uint64x2_t a, uint64x2_t b) {
    const uint32x4_t a32 = vreinterpretq_u32_u64(a);
    // (alo*bhi, ahi*blo) per lane; their sum only matters mod 2^32.
    const uint32x4_t cross = vmulq_u32(a32, vrev64q_u32(vreinterpretq_u32_u64(b)));
    const uint64x2_t hi = vshlq_n_u64(vpaddlq_u32(cross), 32);
    return vmlal_u32(hi, vmovn_u64(a), vmovn_u64(b));
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return s(mul_u(u(a), u(b))); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return s(vaddq_u64(u(a), u(b))); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return s(vaddq_u64(mul_u(u(a), u(b)), u(c)));
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return s(vsubq_u64(u(c), mul_u(u(a), u(b))));
  }
  // No vmaxq_s64: signed compare and select.
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return vbslq_s64(vcgtq_s64(a, b), a, b); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return vbslq_s64(vcltq_s64(a, b), a, b); }
  static GEMMKIT_INLINE std::int64_t reduce_sum(Reg v) {
    return std::int64_t(vaddvq_u64(u(v)));
  }
};

// f16 <-> f32 by fcvtl / fcvtn: round to nearest even, subnormals kept,
// NaN quieted with the payload kept (exactly scalar/half.hpp's rules).
template <>
struct KernelSimd<isa_neon::Neon, float16, float16, float, float16>
    : detail::BufferedOutPartials<KernelSimd<isa_neon::Neon, float16, float16, float, float16>,
                                  float16, 4> {
  using Ops = SimdOps<isa_neon::Neon, float>;
  using Reg = float32x4_t;
  static constexpr int kLanes = 4;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const float16* p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const std::uint16_t*>(p))));
  }
  static GEMMKIT_INLINE Reg splat_rhs(float16 v) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(v.bits)));
  }
  static GEMMKIT_INLINE Reg load_out(const float16* p) { return load_lhs(p); }
  static GEMMKIT_INLINE void store_out(float16* p, Reg v) {
    vst1_u16(reinterpret_cast<std::uint16_t*>(p), vreinterpret_u16_f16(vcvt_f16_f32(v)));
  }
};

// bf16 <-> f32 by integer ops: widening is a 16-bit left shift; narrowing
// adds 0x7fff plus the lowest kept bit and keeps the top half, NaN forced to
// sign | 0x7fc0 as in scalar::to_bfloat16.
template <>
struct KernelSimd<isa_neon::Neon, bfloat16, bfloat16, float, bfloat16>
    : detail::BufferedOutPartials<KernelSimd<isa_neon::Neon, bfloat16, bfloat16, float, bfloat16>,
                                  bfloat16, 4> {
  using Ops = SimdOps<isa_neon::Neon, float>;
  using Reg = float32x4_t;
  static constexpr int kLanes = 4;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const bfloat16* p) {
    return vreinterpretq_f32_u32(
        vshll_n_u16(vld1_u16(reinterpret_cast<const std::uint16_t*>(p)), 16));
  }
  static GEMMKIT_INLINE Reg splat_rhs(bfloat16 v) {
    return vreinterpretq_f32_u32(vdupq_n_u32(std::uint32_t(v.bits) << 16));
  }
  static GEMMKIT_INLINE Reg load_out(const bfloat16* p) { return load_lhs(p); }
  static GEMMKIT_INLINE void store_out(bfloat16* p, Reg v) {
    const uint32x4_t x = vreinterpretq_u32_f32(v);
    const uint32x4_t hi = vshrq_n_u32(x, 16);
    const uint32x4_t biased =
        vaddq_u32(vaddq_u32(x, vdupq_n_u32(0x7fffu)), vandq_u32(hi, vdupq_n_u32(1u)));
    const uint16x4_t r = vshrn_n_u32(biased, 16);
    const uint16x4_t is_nan = vmovn_u32(
        vcgtq_u32(vandq_u32(x, vdupq_n_u32(0x7fffffffu)), vdupq_n_u32(0x7f800000u)));
    const uint16x4_t qnan =
        vorr_u16(vand_u16(vmovn_u32(hi), vdup_n_u16(0x8000u)), vdup_n_u16(0x7fc0u));
    vst1_u16(reinterpret_cast<std::uint16_t*>(p), vbsl_u16(is_nan, qnan, r));
  }
};

// int8 -> int32: sign-extend 4 LHS bytes (read as one 32-bit word: exactly
// kLanes bytes, never more); C is plain int32.
template <>
struct KernelSimd<isa_neon::Neon, std::int8_t, std::int8_t, std::int32_t, std::int32_t>
    : detail::BufferedRequantPartial<
          KernelSimd<isa_neon::Neon, std::int8_t, std::int8_t, std::int32_t, std::int32_t>, 4> {
  using Ops = SimdOps<isa_neon::Neon, std::int32_t>;
  using Reg = int32x4_t;
  static constexpr int kLanes = 4;
  static constexpr bool kRequantVector = true;

  static GEMMKIT_INLINE Reg load_lhs(const std::int8_t* p) {
    std::int32_t w;
    GEMMKIT_MEMCPY(&w, p, sizeof w);
    const int8x8_t b = vreinterpret_s8_s32(vdup_n_s32(w));
    return vmovl_s16(vget_low_s16(vmovl_s8(b)));
  }
  static GEMMKIT_INLINE Reg splat_rhs(std::int8_t v) { return vdupq_n_s32(v); }
  static GEMMKIT_INLINE Reg load_out(const std::int32_t* p) { return Ops::loadu(p); }
  static GEMMKIT_INLINE void store_out(std::int32_t* p, Reg v) { Ops::storeu(p, v); }
  static GEMMKIT_INLINE Reg load_out_partial(const std::int32_t* p, int n) {
    return Ops::load_partial(p, n);
  }
  static GEMMKIT_INLINE void store_out_partial(std::int32_t* p, Reg v, int n) {
    Ops::store_partial(p, v, n);
  }

  // Steps 1-6 of the requant contract (scalar/requant.hpp) on 2 lanes.
  static GEMMKIT_INLINE int32x2_t requant2(int32x2_t q, float64x2_t scale, float64x2_t zp,
                                           float64x2_t lo, float64x2_t hi) {
    float64x2_t d = vmulq_f64(vcvtq_f64_s64(vmovl_s32(q)), scale);
    d = vrndnq_f64(d);
    d = vaddq_f64(d, zp);
    d = vminq_f64(vmaxq_f64(d, lo), hi);
    // Integral and inside [lo, hi]: the conversion and narrowing are exact.
    return vmovn_s64(vcvtq_s64_f64(d));
  }
  static GEMMKIT_INLINE void requant_store(std::uint8_t* dst, Reg v, float scale,
                                           std::int32_t zp, std::int32_t lo, std::int32_t hi) {
    const float64x2_t s = vdupq_n_f64(double(scale)), z = vdupq_n_f64(double(zp));
    const float64x2_t l = vdupq_n_f64(double(lo)), h = vdupq_n_f64(double(hi));
    const int32x4_t r = vcombine_s32(requant2(vget_low_s32(v), s, z, l, h),
                                     requant2(vget_high_s32(v), s, z, l, h));
    // Step 7: xtn keeps the low half of each lane (truncation, no saturation).
    const int16x4_t r16 = vmovn_s32(r);
    const int8x8_t r8 = vmovn_s16(vcombine_s16(r16, r16));
    const std::int32_t w = vget_lane_s32(vreinterpret_s32_s8(r8), 0);
    GEMMKIT_MEMCPY(dst, &w, sizeof w);
  }
};

}  // namespace gemmkit::simd

#endif  // __aarch64__
