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
// Register budget: V8 on x64 gives wasm 15 xmm registers, and it loads all
// of a depth step's B broadcasts up front, so a tile holds accumulators + A
// vectors + NR broadcasts (+ the unfused product): 15 for f32 8x4 and f64
// 4x4 (dispatch/targets/simd128/target.hpp).
//
// Also here: SimdOps<Simd128, int32_t>, SimdOps<Simd128, int64_t> and the
// Simd128 KernelSimd seams, all without any conversion instruction wasm
// lacks: f16 and bf16 by vector integer ops (plus one exact f32 multiply or
// add where noted), int8 by sign extension, and the vector requant_store on
// f64x2 lanes (f64x2.nearest).  wasm floating point is IEEE
// round-to-nearest-even with subnormals, always: no FP environment to depend
// on.
#pragma once

#if defined(__wasm_simd128__)

#include <wasm_simd128.h>

#include <cstdint>

#include "../scalar/half.hpp"
#include "kernel_simd.hpp"
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


// int32 lanes wrap modulo 2^32 (i32x4.add / i32x4.mul keep the low 32 bits).
template <>
struct SimdOps<isa_simd128::Simd128, std::int32_t> {
  using Reg = v128_t;
  static constexpr int kLanes = 4;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE Reg zero() { return wasm_i32x4_const_splat(0); }
  static GEMMKIT_INLINE Reg splat(std::int32_t v) { return wasm_i32x4_splat(v); }
  static GEMMKIT_INLINE Reg loadu(const std::int32_t* p) { return wasm_v128_load(p); }
  static GEMMKIT_INLINE void storeu(std::int32_t* p, Reg v) { wasm_v128_store(p, v); }
  // Lane by lane, as for f32: never past the end of the linear memory.
  static GEMMKIT_INLINE Reg load_partial(const std::int32_t* p, int n) {
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
  static GEMMKIT_INLINE void store_partial(std::int32_t* p, Reg v, int n) {
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
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return wasm_i32x4_mul(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return wasm_i32x4_add(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return wasm_i32x4_add(wasm_i32x4_mul(a, b), c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return wasm_i32x4_sub(c, wasm_i32x4_mul(a, b));
  }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return wasm_i32x4_max(a, b); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return wasm_i32x4_min(a, b); }
  static GEMMKIT_INLINE Reg bit_and(Reg a, Reg b) { return wasm_v128_and(a, b); }
  static GEMMKIT_INLINE Reg bit_or(Reg a, Reg b) { return wasm_v128_or(a, b); }
  static GEMMKIT_INLINE std::int32_t reduce_sum(Reg v) {
    const Reg s = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
    return wasm_i32x4_extract_lane(wasm_i32x4_add(s, wasm_i32x4_shuffle(s, s, 1, 0, 3, 2)), 0);
  }
};

// int64 lanes wrap modulo 2^64 (i64x2.add / i64x2.mul keep the low 64 bits).
template <>
struct SimdOps<isa_simd128::Simd128, std::int64_t> {
  using Reg = v128_t;
  static constexpr int kLanes = 2;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE Reg zero() { return wasm_i64x2_const_splat(0); }
  static GEMMKIT_INLINE Reg splat(std::int64_t v) { return wasm_i64x2_splat(v); }
  static GEMMKIT_INLINE Reg loadu(const std::int64_t* p) { return wasm_v128_load(p); }
  static GEMMKIT_INLINE void storeu(std::int64_t* p, Reg v) { wasm_v128_store(p, v); }
  // Lane by lane, as for f64: never past the end of the linear memory.
  static GEMMKIT_INLINE Reg load_partial(const std::int64_t* p, int n) {
    if (n <= 0) return zero();
    if (n == 1) return wasm_v128_load64_zero(p);
    return wasm_v128_load(p);
  }
  static GEMMKIT_INLINE void store_partial(std::int64_t* p, Reg v, int n) {
    if (n <= 0) return;
    if (n == 1) {
      wasm_v128_store64_lane(p, v, 0);
      return;
    }
    wasm_v128_store(p, v);
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return wasm_i64x2_mul(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return wasm_i64x2_add(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return wasm_i64x2_add(wasm_i64x2_mul(a, b), c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return wasm_i64x2_sub(c, wasm_i64x2_mul(a, b));
  }
  // No i64x2.max / i64x2.min in wasm SIMD: signed compare and select.
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) {
    return wasm_v128_bitselect(a, b, wasm_i64x2_gt(a, b));
  }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) {
    return wasm_v128_bitselect(a, b, wasm_i64x2_lt(a, b));
  }
  // The vector add wraps; a scalar int64 + could overflow (undefined).
  static GEMMKIT_INLINE std::int64_t reduce_sum(Reg v) {
    return wasm_i64x2_extract_lane(wasm_i64x2_add(v, wasm_i64x2_shuffle(v, v, 1, 0)), 0);
  }
};

// f16 <-> f32 by vector integer ops, bit-identical to scalar/half.hpp.
//   widen:  (bits & 0x7fff) << 13 read as an f32 is the value times 2^-112,
//           for normals and subnormals alike; one f32 multiply by 2^112 is
//           exact.  Inf/NaN (exponent 31) are rebuilt by integer ops, the
//           NaN quiet bit forced.
//   narrow: normals by the rebias and bias trick of scalar::to_float16;
//           results below 2^-14 by adding 0.5f (whose ulp is 2^-24, the
//           half subnormal unit): the f32 add rounds to nearest even and
//           leaves the half mantissa in the low bits; overflow and NaN by
//           integer selects.
template <>
struct KernelSimd<isa_simd128::Simd128, float16, float16, float, float16>
    : detail::BufferedOutPartials<
          KernelSimd<isa_simd128::Simd128, float16, float16, float, float16>, float16, 4> {
  using Ops = SimdOps<isa_simd128::Simd128, float>;
  using Reg = v128_t;
  static constexpr int kLanes = 4;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg widen(v128_t h) {  // h: 4 x u32 holding half bits
    const v128_t em = wasm_v128_and(h, wasm_i32x4_const_splat(0x7fff));
    const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_const_splat(0x8000)), 16);
    const v128_t shifted = wasm_i32x4_shl(em, 13);
    const v128_t finite = wasm_f32x4_mul(shifted, wasm_f32x4_const_splat(0x1p112f));
    const v128_t is_nan = wasm_i32x4_gt(em, wasm_i32x4_const_splat(0x7c00));
    const v128_t special =
        wasm_v128_or(wasm_v128_or(shifted, wasm_i32x4_const_splat(0x7f800000)),
                     wasm_v128_and(is_nan, wasm_i32x4_const_splat(0x00400000)));
    const v128_t is_special = wasm_i32x4_ge(em, wasm_i32x4_const_splat(0x7c00));
    return wasm_v128_or(wasm_v128_bitselect(special, finite, is_special), sign);
  }
  static GEMMKIT_INLINE Reg load_lhs(const float16* p) { return widen(wasm_u32x4_load16x4(p)); }
  static GEMMKIT_INLINE Reg splat_rhs(float16 v) {
    return widen(wasm_i32x4_splat(static_cast<std::int32_t>(v.bits)));
  }
  static GEMMKIT_INLINE Reg load_out(const float16* p) { return load_lhs(p); }
  static GEMMKIT_INLINE void store_out(float16* p, Reg v) {
    const v128_t sign = wasm_v128_and(wasm_u32x4_shr(v, 16), wasm_i32x4_const_splat(0x8000));
    const v128_t ax = wasm_v128_and(v, wasm_i32x4_const_splat(0x7fffffff));
    // Normal halves: rebias 127 -> 15 and round off 13 bits (nearest even).
    const v128_t lsb = wasm_v128_and(wasm_u32x4_shr(ax, 13), wasm_i32x4_const_splat(1));
    const v128_t normal = wasm_u32x4_shr(
        wasm_i32x4_add(wasm_i32x4_sub(ax, wasm_i32x4_const_splat(0x38000000 - 0xfff)), lsb), 13);
    // Subnormal halves (|x| < 2^-14): |x| + 0.5f, minus the bits of 0.5f.
    const v128_t sub = wasm_i32x4_sub(wasm_f32x4_add(ax, wasm_f32x4_const_splat(0.5f)),
                                      wasm_i32x4_const_splat(0x3f000000));
    v128_t r = wasm_v128_bitselect(sub, normal,
                                   wasm_i32x4_lt(ax, wasm_i32x4_const_splat(0x38800000)));
    r = wasm_v128_bitselect(wasm_i32x4_const_splat(0x7c00), r,
                            wasm_i32x4_ge(ax, wasm_i32x4_const_splat(0x477ff000)));
    const v128_t qnan = wasm_v128_or(
        wasm_v128_and(wasm_u32x4_shr(ax, 13), wasm_i32x4_const_splat(0x3ff)),
        wasm_i32x4_const_splat(0x7e00));
    r = wasm_v128_bitselect(qnan, r, wasm_i32x4_gt(ax, wasm_i32x4_const_splat(0x7f800000)));
    r = wasm_v128_or(r, sign);
    // Every lane is in [0, 0xffff]: the saturating narrow is exact.
    wasm_v128_store64_lane(p, wasm_u16x8_narrow_i32x4(r, r), 0);
  }
};

// bf16 <-> f32 by integer ops: widening is a 16-bit left shift; narrowing
// adds 0x7fff plus the lowest kept bit and keeps the top half, NaN forced to
// sign | 0x7fc0 as in scalar::to_bfloat16.
template <>
struct KernelSimd<isa_simd128::Simd128, bfloat16, bfloat16, float, bfloat16>
    : detail::BufferedOutPartials<
          KernelSimd<isa_simd128::Simd128, bfloat16, bfloat16, float, bfloat16>, bfloat16, 4> {
  using Ops = SimdOps<isa_simd128::Simd128, float>;
  using Reg = v128_t;
  static constexpr int kLanes = 4;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const bfloat16* p) {
    return wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16);
  }
  static GEMMKIT_INLINE Reg splat_rhs(bfloat16 v) {
    return wasm_i32x4_splat(static_cast<std::int32_t>(std::uint32_t(v.bits) << 16));
  }
  static GEMMKIT_INLINE Reg load_out(const bfloat16* p) { return load_lhs(p); }
  static GEMMKIT_INLINE void store_out(bfloat16* p, Reg v) {
    const v128_t hi = wasm_u32x4_shr(v, 16);
    const v128_t lsb = wasm_v128_and(hi, wasm_i32x4_const_splat(1));
    v128_t r = wasm_u32x4_shr(
        wasm_i32x4_add(wasm_i32x4_add(v, wasm_i32x4_const_splat(0x7fff)), lsb), 16);
    const v128_t is_nan = wasm_i32x4_gt(wasm_v128_and(v, wasm_i32x4_const_splat(0x7fffffff)),
                                        wasm_i32x4_const_splat(0x7f800000));
    const v128_t qnan = wasm_v128_or(wasm_v128_and(hi, wasm_i32x4_const_splat(0x8000)),
                                     wasm_i32x4_const_splat(0x7fc0));
    r = wasm_v128_bitselect(qnan, r, is_nan);
    wasm_v128_store64_lane(p, wasm_u16x8_narrow_i32x4(r, r), 0);
  }
};

// int8 -> int32: sign-extend 4 LHS bytes (one 32-bit load: exactly kLanes
// bytes); C is plain int32; requant_store on two f64x2 halves.
template <>
struct KernelSimd<isa_simd128::Simd128, std::int8_t, std::int8_t, std::int32_t, std::int32_t>
    : detail::BufferedRequantPartial<
          KernelSimd<isa_simd128::Simd128, std::int8_t, std::int8_t, std::int32_t, std::int32_t>,
          4> {
  using Ops = SimdOps<isa_simd128::Simd128, std::int32_t>;
  using Reg = v128_t;
  static constexpr int kLanes = 4;
  static constexpr bool kRequantVector = true;

  static GEMMKIT_INLINE Reg load_lhs(const std::int8_t* p) {
    return wasm_i32x4_extend_low_i16x8(wasm_i16x8_extend_low_i8x16(wasm_v128_load32_zero(p)));
  }
  static GEMMKIT_INLINE Reg splat_rhs(std::int8_t v) { return wasm_i32x4_splat(v); }
  static GEMMKIT_INLINE Reg load_out(const std::int32_t* p) { return Ops::loadu(p); }
  static GEMMKIT_INLINE void store_out(std::int32_t* p, Reg v) { Ops::storeu(p, v); }
  static GEMMKIT_INLINE Reg load_out_partial(const std::int32_t* p, int n) {
    return Ops::load_partial(p, n);
  }
  static GEMMKIT_INLINE void store_out_partial(std::int32_t* p, Reg v, int n) {
    Ops::store_partial(p, v, n);
  }

  // Steps 1-6 of the requant contract (scalar/requant.hpp) on lanes 0, 1
  // of q; the result is in i32 lanes 0, 1 (lanes 2, 3 are zero).
  static GEMMKIT_INLINE v128_t requant2(v128_t q, v128_t scale, v128_t zp, v128_t lo,
                                        v128_t hi) {
    v128_t d = wasm_f64x2_mul(wasm_f64x2_convert_low_i32x4(q), scale);
    d = wasm_f64x2_nearest(d);
    d = wasm_f64x2_add(d, zp);
    d = wasm_f64x2_min(wasm_f64x2_max(d, lo), hi);
    // Integral and inside [lo, hi]: the truncating conversion is exact.
    return wasm_i32x4_trunc_sat_f64x2_zero(d);
  }
  static GEMMKIT_INLINE void requant_store(std::uint8_t* dst, Reg v, float scale,
                                           std::int32_t zp, std::int32_t lo, std::int32_t hi) {
    const v128_t s = wasm_f64x2_splat(double(scale)), z = wasm_f64x2_splat(double(zp));
    const v128_t l = wasm_f64x2_splat(double(lo)), h = wasm_f64x2_splat(double(hi));
    const v128_t r0 = requant2(v, s, z, l, h);
    const v128_t r1 = requant2(wasm_i32x4_shuffle(v, v, 2, 3, 2, 3), s, z, l, h);
    const v128_t r = wasm_i32x4_shuffle(r0, r1, 0, 1, 4, 5);
    // Step 7: the low byte of each lane (a shuffle: truncation, no pack).
    const v128_t b = wasm_i8x16_shuffle(r, r, 0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12);
    wasm_v128_store32_lane(dst, b, 0);
  }
};

}  // namespace gemmkit::simd

#endif  // defined(__wasm_simd128__)
