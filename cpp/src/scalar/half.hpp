// L0 scalar: exact conversions between float and the 16-bit storage types
// gemmkit::float16 (IEEE binary16) and gemmkit::bfloat16, by bit manipulation
// only.
//
// These are the reference every vector path (simd/<token>.hpp KernelSimd
// seams) must match bit for bit, and the path edge elements take, so a full
// tile and an edge tile of the same matrix round the same way.  No F16C, no
// floating-point arithmetic, no dependence on the FP environment (rounding
// mode, FTZ/DAZ): the results are the same on every ISA and compiler.
//
// Everything is static inline (internal linkage): this header is included in
// translation units compiled with different ISA flags (see the ODR note in
// simd/simd_ops.hpp), and no copy compiled with AVX-512 may be picked by the
// linker for a baseline caller.
//
// NaN rules (the vector paths implement exactly these):
//   float16 -> float   quiet bit set, payload kept: sign | 0x7fc00000 |
//                      (mantissa << 13).  This is what F16C vcvtph2ps and
//                      AArch64 fcvtl do (both quiet a signaling NaN).
//   float   -> float16 quiet bit set, top 9 payload bits kept: sign | 0x7e00 |
//                      (mantissa >> 13).  What vcvtps2ph and fcvtn do.
//   bfloat16 -> float  bits << 16 (an integer shift: signaling NaNs stay).
//   float   -> bfloat16 sign | 0x7fc0: the canonical quiet NaN, exactly what
//                      ml_dtypes.bfloat16 (Eigen's float_to_bfloat16_rtne)
//                      produces, so results compare bit for bit with numpy
//                      arrays converted by ml_dtypes, NaN included.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../compiler.hpp"
#include "gemmkit/types.hpp"

namespace gemmkit::scalar {

static inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  GEMMKIT_MEMCPY(&u, &f, sizeof u);
  return u;
}

static inline float float_from_bits(std::uint32_t u) {
  float f;
  GEMMKIT_MEMCPY(&f, &u, sizeof f);
  return f;
}

static inline float to_float(float16 h) {
  const std::uint32_t sign = std::uint32_t(h.bits & 0x8000u) << 16;
  const std::uint32_t exp = (h.bits >> 10) & 0x1fu;
  std::uint32_t mant = h.bits & 0x3ffu;
  if (exp == 0x1f) {
    // Inf, or NaN with the quiet bit forced.
    return float_from_bits(sign | 0x7f800000u | (mant << 13) | (mant ? 0x00400000u : 0u));
  }
  if (exp != 0) {
    // Normal: rebias 15 -> 127.
    return float_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
  }
  if (mant == 0) return float_from_bits(sign);
  // Subnormal half: mant * 2^-24.  Normalize so the leading 1 lands on bit
  // 10 (the implicit bit), adjusting the exponent by the shift.
  std::uint32_t e = 113;  // biased float exponent of 2^-14
  while ((mant & 0x400u) == 0) {
    mant <<= 1;
    --e;
  }
  return float_from_bits(sign | (e << 23) | ((mant & 0x3ffu) << 13));
}

static inline float to_float(bfloat16 b) {
  return float_from_bits(std::uint32_t(b.bits) << 16);
}

// Round to nearest, ties to even; overflow (|x| >= 65520) to inf.
static inline float16 to_float16(float f) {
  const std::uint32_t x = float_bits(f);
  const std::uint16_t sign = std::uint16_t((x >> 16) & 0x8000u);
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) {
    return float16{std::uint16_t(sign | 0x7e00u | ((ax >> 13) & 0x3ffu))};
  }
  // 0x477ff000 is 65520, halfway between 65504 (max finite, odd mantissa)
  // and 65536: the tie goes to the even neighbour, which is infinity.
  if (ax >= 0x477ff000u) return float16{std::uint16_t(sign | 0x7c00u)};
  if (ax >= 0x38800000u) {
    // Normal half (>= 2^-14): rebias, then drop 13 mantissa bits with the
    // round-to-nearest-even bias; a carry into the exponent is correct.
    const std::uint32_t t = ax - 0x38000000u + 0xfffu + ((ax >> 13) & 1u);
    return float16{std::uint16_t(sign | (t >> 13))};
  }
  const std::uint32_t e = ax >> 23;
  // Below 2^-25 (and 2^-25 itself, a tie with 0) rounds to zero.
  if (e < 102) return float16{sign};
  // Subnormal half: value = m * 2^(e - 150), the half unit is 2^-24, so the
  // result is m >> (126 - e), rounded to nearest even.  A result of 0x400
  // is the smallest normal half, correctly encoded.
  const std::uint32_t m = (ax & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift = 126 - e;  // 14 .. 24
  std::uint32_t r = m >> shift;
  const std::uint32_t rem = m & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (r & 1u))) ++r;
  return float16{std::uint16_t(sign | r)};
}

// Round to nearest, ties to even, by the bias trick: adding 0x7fff plus the
// lowest kept bit carries into bit 16 exactly when the dropped half is above
// the tie, or at the tie with an odd kept part.  Overflow carries into the
// exponent and gives inf, as it should.
static inline bfloat16 to_bfloat16(float f) {
  const std::uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return bfloat16{std::uint16_t(((x >> 16) & 0x8000u) | 0x7fc0u)};
  }
  return bfloat16{std::uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16)};
}

// widen<A>(l): a stored element as the accumulator type A (exact).
//   identity; float16/bfloat16 -> float; int8_t, uint8_t, uint16_t ->
//   int32_t; bool8 -> 0 or 1.
template <class A, class L>
static inline A widen(L v) {
  if constexpr (std::is_same_v<A, L>) {
    return v;
  } else if constexpr (std::is_same_v<A, float> &&
                       (std::is_same_v<L, float16> || std::is_same_v<L, bfloat16>)) {
    return to_float(v);
  } else if constexpr (std::is_same_v<A, std::int32_t> &&
                       (std::is_same_v<L, std::int8_t> || std::is_same_v<L, std::uint8_t> ||
                        std::is_same_v<L, std::uint16_t>)) {
    return std::int32_t(v);
  } else if constexpr (std::is_same_v<A, std::int32_t> && std::is_same_v<L, bool8>) {
    return v.bits != 0;
  } else {
    static_assert(std::is_same_v<A, L>, "gemmkit::scalar::widen: unsupported pair");
    return A{};
  }
}

// narrow<O>(a): an accumulator value stored as O, rounded to nearest even.
//   identity; float -> float16/bfloat16; int32 -> uint8_t/uint16_t (the
//   low bits of the wrapped sum) and bool8 (count != 0).  (int8 products'
//   int32 -> int8/uint8 outputs are a requantization: scalar/requant.hpp.)
template <class O, class A>
static inline O narrow(A v) {
  if constexpr (std::is_same_v<O, A>) {
    return v;
  } else if constexpr (std::is_same_v<A, float> && std::is_same_v<O, float16>) {
    return to_float16(v);
  } else if constexpr (std::is_same_v<A, float> && std::is_same_v<O, bfloat16>) {
    return to_bfloat16(v);
  } else if constexpr (std::is_same_v<A, std::int32_t> &&
                       (std::is_same_v<O, std::uint8_t> || std::is_same_v<O, std::uint16_t>)) {
    return O(std::uint32_t(v));  // the ring's low bits
  } else if constexpr (std::is_same_v<A, std::int32_t> && std::is_same_v<O, bool8>) {
    return bool8{std::uint8_t(v != 0)};
  } else {
    static_assert(std::is_same_v<O, A>, "gemmkit::scalar::narrow: unsupported pair");
    return O{};
  }
}

}  // namespace gemmkit::scalar
