// L0 scalar: the requantization map of the int8 families, the reference every
// vector requant_store (simd/kernel_simd.hpp) must equal bit for bit.
//
//   requantize(v, scale, zp, lo, hi) = clamp(zp + round_half_even(v * scale), lo, hi)
//
// v is the int32 accumulator with any bias already added (wrapping, like the
// SIMD paddd it must agree with); scale is finite and > 0 (validated by the
// API), zp lies in [lo, hi]; (lo, hi) is (-128, 127) for an int8 output and
// (0, 255) for uint8.  The product is formed in double: v and float(scale)
// widen exactly and the one IEEE multiply is the only rounding before the
// round-half-even, so the map is the same on every ISA.
//
// The vector contract (each lane of a KernelSimd::requant_store, in order):
//   1. widen i32 -> f64 (exact)
//   2. multiply by double(scale) (exact widening, one IEEE multiply)
//   3. round to nearest even in hardware (roundpd / vrndscalepd / frintn /
//      f64x2.nearest).  round_ne_f64 below is roundTiesToEven for
//      |t| < 2^52; above 2^52 every double is already an integer, so the
//      hardware rounding is the identity there too
//   4. add double(zp)
//   5. clamp: max(double(lo)) then min(double(hi))
//   6. convert f64 -> i32, exact: the value is integral and inside [lo, hi]
//   7. store the low byte by truncation, never a saturating pack (the low
//      byte of a value in [lo, hi] reads the same as int8 or uint8)
// Why that equals the map below, case by case (t = the rounded product):
//   |t| < 2^52   t is exact, and so is t + zp in double (both far below
//                2^53); the scalar int64 t + zp cannot saturate either, so
//                both paths feed the same integer into the same clamp
//   t >= 2^52    both clamp to hi (scalar: saturating int64 add then clamp;
//                vector: t + zp is still >= 2^52 > hi, min gives hi); by
//                symmetry t <= -2^52 gives lo on both
//   NaN          cannot occur: scale is finite and > 0, v is a finite int32
//                (for definedness it maps to clamp(zp, lo, hi) here)
//
// static inline throughout: included in TUs compiled with different ISA
// flags (see simd/simd_ops.hpp).
#pragma once

#include <cstdint>

#include "../compiler.hpp"

namespace gemmkit::scalar {

// Round half to even by the 2^52 trick: for |x| < 2^52, adding 2^52 pushes
// the fraction out of the mantissa, rounding (in the default
// round-to-nearest-even mode, which gemmkit never changes) to an integer;
// subtracting it back is exact.  |x| >= 2^52 (and inf) is already integral.
// The caller's TUs are built without -ffast-math, so the compiler may not
// fold (ax + 2^52) - 2^52 into ax.
static inline double round_ne_f64(double x) {
  const double two52 = 4503599627370496.0;
  const double ax = GEMMKIT_FABS(x);
  if (!(ax < two52)) return x;
  return GEMMKIT_COPYSIGN((ax + two52) - two52, x);
}

// double -> int64 saturating (Rust's `as i64`): NaN -> 0.
static inline std::int64_t saturate_i64(double t) {
  if (t != t) return 0;
  if (t >= 9223372036854775808.0) return INT64_MAX;
  if (t < -9223372036854775808.0) return INT64_MIN;
  return std::int64_t(t);
}

static inline std::int32_t requantize(std::int32_t v, float scale, std::int32_t zp,
                                      std::int32_t lo, std::int32_t hi) {
  const double t = round_ne_f64(double(v) * double(scale));
  const std::int64_t ti = saturate_i64(t);
  std::int64_t s;
  if (GEMMKIT_ADD_OVERFLOWS(ti, std::int64_t(zp), &s)) s = ti > 0 ? INT64_MAX : INT64_MIN;
  if (s < lo) s = lo;
  if (s > hi) s = hi;
  return std::int32_t(s);
}

// The wrapping int32 add of the bias, as the vector paths do it (paddd):
// signed overflow is undefined in C++, so add in uint32_t.
static inline std::int32_t wrapping_add(std::int32_t a, std::int32_t b) {
  return std::int32_t(std::uint32_t(a) + std::uint32_t(b));
}

}  // namespace gemmkit::scalar
