// L4 kernel: the int8 x int8 -> int32 "i16 pair" dot family for the 128/256-
// bit tokens without a byte dot product (Simd128, Fma), with its k-pair
// interleaving packers (the L1 part of this family).
//
// Both operands are sign-extended to int16 at pack time, two depth steps per
// 32-bit unit, so one pair-dot instruction folds two depth steps into each
// int32 lane:
//   Simd128: i32x4.dot_i16x8_s + i32x4.add    (pmaddwd + paddd in V8)
//   Fma:     vpmaddwd ymm + vpaddd ymm
// The widening family instead multiplies int32 lanes (i32x4.mul, vpmulld:
// two uops and ten cycles of latency on x86) one depth step at a time.
//
// Exactness: each product of two int8 is at most 2^14 in magnitude, so a pair
// sum is at most 2^15 and the pair-dot computes it exactly in int32 (it can
// only overflow for (-2^15)^2 + (-2^15)^2, far outside int8 inputs).  The
// adds into acc wrap modulo 2^32, and a sum modulo 2^32 does not depend on
// the order of its terms, so acc ends bit-identical to the widening kernel
// (sign-extend to int32, multiply, wrapping add, one step at a time), for
// any kc and any seed in acc.
//
// Packed layouts (kMr = MR_REG * kLanes rows, kLanes int32 lanes per vector,
// NR columns, G = ceil(kc / 2)), elements int16:
//   A panel: [G][kMr][2]   element (g, i, t) = A(i, 2g + t)
//   B panel: [G][NR][2]    element (g, j, t) = B(2g + t, j)
// Rows or columns past width, and the depth step past an odd kc, hold 0.
// There is no trailer: a_panel_size / b_panel_size are G * kMr * 2 and
// G * NR * 2 elements.  One A vector is then kLanes rows' pairs, lane for
// lane the rows of one int32 accumulator, and a B pair is one 32-bit
// broadcast.
//
// Register budget per depth pair: MR_REG * NR accumulators + MR_REG A vectors
// + one broadcast + one pair-dot result before its add, exactly as the f32
// tiles (their product before its add, or FMA): Simd128 8x4 keeps 11 v128
// live plus that temporary (V8 has 15 xmm on x64; the depth loop is not
// unrolled on wasm, GEMMKIT_UNROLL_DEPTH), Fma 16x6 all 16 ymm.
//
// Speed, measured 2026-11-30 on one core of an Intel Xeon (Sapphire Rapids
// family), single thread, row-major squares 256-1024, best of rounds on a
// shared machine: Fma about 110 GOP/s against 75 GFLOP/s for f32 16x6 (the
// widening family: about 37), i.e. about 1.5x f32, the port bound (two
// vpmaddwd + vpaddd per FMA pair's work); Simd128 in node 20 (V8 11.3) about
// 50 GOP/s against 27 GFLOP/s for f32 8x4 (widening: about 18).
//
// Contract with the driver: cpp/src/kernel/family.hpp.  Everything here is a
// template over the ISA token (ODR: see simd/simd_ops.hpp); the token's
// PairOps specialization below exists only in a unit compiled for it.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernel/family.hpp"
#include "kernel/microkernel.hpp"
#include "kernel/task.hpp"
#include "simd/simd_ops.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>

#include "simd/simd128.hpp"
#endif
// The Fma token's vocabulary needs AVX2, FMA and F16C in this unit's flags.
#if (defined(__x86_64__) || defined(_M_X64) || defined(__i386__)) && GEMMKIT_TARGET_AVX2_FMA_F16C
#define GEMMKIT_PAIR_I8_FMA 1
#include "simd/x86_intrinsics.hpp"

#include "simd/fma.hpp"
#endif

namespace gemmkit::kernel {

namespace pair_i8_detail {

// PairOps<Token>: the few operations of this family that differ per token.
//   V                     a 16-byte vector of bytes (the packers' unit)
//   load16(p)             16 bytes at p
//   load<N>(p)            N (< 16) bytes at p, the rest zero; never touches
//                         p[N..16): a source may end at a page boundary or
//                         at the end of the wasm linear memory
//   zero()
//   zip8/16/32/64_lo/hi   interleave the low / high halves of two vectors
//                         in units of 1, 2, 4, 8 bytes (punpckl/h*)
//   store_wide<N>(d, v)   sign-extend bytes 0..N-1 of v to int16, store N
//   Reg, load_a(p)        a vector of kLanes int16 pairs (kLanes rows)
//   splat_pair(p)         the int16 pair at p, broadcast to every lane
//   dot_add(acc, a, b)    acc + pairwise dot of a and b, per int32 lane
// The primary template is undefined: a token without an implementation fails
// at compile time.
template <class Token>
struct PairOps;

#if defined(__wasm_simd128__)
template <>
struct PairOps<isa_simd128::Simd128> {
  using V = v128_t;
  using Reg = v128_t;

  static GEMMKIT_INLINE V zero() { return wasm_i32x4_const_splat(0); }
  static GEMMKIT_INLINE V load16(const std::int8_t* p) { return wasm_v128_load(p); }
  template <int N>
  static GEMMKIT_INLINE V load(const std::int8_t* p) {
    static_assert(N > 0 && N < 16);
    if constexpr (N == 8) {
      return wasm_v128_load64_zero(p);
    } else if constexpr (N == 4) {
      return wasm_v128_load32_zero(p);
    } else if constexpr (N == 12) {
      return wasm_v128_load32_lane(p + 8, wasm_v128_load64_zero(p), 2);
    } else {
      std::int8_t tmp[16] = {};
      std::memcpy(tmp, p, N);
      return wasm_v128_load(tmp);
    }
  }
  static GEMMKIT_INLINE V zip8_lo(V a, V b) {
    return wasm_i8x16_shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  }
  static GEMMKIT_INLINE V zip8_hi(V a, V b) {
    return wasm_i8x16_shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15,
                              31);
  }
  static GEMMKIT_INLINE V zip16_lo(V a, V b) {
    return wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
  }
  static GEMMKIT_INLINE V zip16_hi(V a, V b) {
    return wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
  }
  static GEMMKIT_INLINE V zip32_lo(V a, V b) { return wasm_i32x4_shuffle(a, b, 0, 4, 1, 5); }
  static GEMMKIT_INLINE V zip32_hi(V a, V b) { return wasm_i32x4_shuffle(a, b, 2, 6, 3, 7); }
  static GEMMKIT_INLINE V zip64_lo(V a, V b) { return wasm_i64x2_shuffle(a, b, 0, 2); }
  static GEMMKIT_INLINE V zip64_hi(V a, V b) { return wasm_i64x2_shuffle(a, b, 1, 3); }

  template <int N>
  static GEMMKIT_INLINE void store_wide(std::int16_t* d, V v) {
    static_assert(N > 0 && N <= 16);
    const V lo = wasm_i16x8_extend_low_i8x16(v);
    if constexpr (N == 16) {
      wasm_v128_store(d, lo);
      wasm_v128_store(d + 8, wasm_i16x8_extend_high_i8x16(v));
    } else if constexpr (N == 8) {
      wasm_v128_store(d, lo);
    } else if constexpr (N == 4) {
      wasm_v128_store64_lane(d, lo, 0);
    } else if constexpr (N == 12) {
      wasm_v128_store(d, lo);
      wasm_v128_store64_lane(d + 8, wasm_i16x8_extend_high_i8x16(v), 0);
    } else {
      std::int16_t tmp[16];
      wasm_v128_store(tmp, lo);
      wasm_v128_store(tmp + 8, wasm_i16x8_extend_high_i8x16(v));
      std::memcpy(d, tmp, N * sizeof(std::int16_t));
    }
  }

  static GEMMKIT_INLINE Reg load_a(const std::int16_t* p) { return wasm_v128_load(p); }
  static GEMMKIT_INLINE Reg splat_pair(const std::int16_t* p) {
    return wasm_v128_load32_splat(p);
  }
  static GEMMKIT_INLINE Reg dot_add(Reg acc, Reg a, Reg b) {
    return wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(a, b));
  }
};
#endif  // __wasm_simd128__

#if defined(GEMMKIT_PAIR_I8_FMA)
template <>
struct PairOps<isa_fma::Fma> {
  using V = __m128i;
  using Reg = __m256i;

  static GEMMKIT_INLINE V zero() { return _mm_setzero_si128(); }
  static GEMMKIT_INLINE V load16(const std::int8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
  template <int N>
  static GEMMKIT_INLINE V load(const std::int8_t* p) {
    static_assert(N > 0 && N < 16);
    if constexpr (N == 8) {
      return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    } else if constexpr (N == 4) {
      std::int32_t q;
      std::memcpy(&q, p, 4);
      return _mm_cvtsi32_si128(q);
    } else if constexpr (N == 12) {
      std::int32_t q;
      std::memcpy(&q, p + 8, 4);
      return _mm_insert_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), q, 2);
    } else if constexpr (N == 6) {
      std::int32_t q;
      std::int16_t r;
      std::memcpy(&q, p, 4);
      std::memcpy(&r, p + 4, 2);
      return _mm_insert_epi16(_mm_cvtsi32_si128(q), r, 2);
    } else {
      std::int8_t tmp[16] = {};
      std::memcpy(tmp, p, N);
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(tmp));
    }
  }
  static GEMMKIT_INLINE V zip8_lo(V a, V b) { return _mm_unpacklo_epi8(a, b); }
  static GEMMKIT_INLINE V zip8_hi(V a, V b) { return _mm_unpackhi_epi8(a, b); }
  static GEMMKIT_INLINE V zip16_lo(V a, V b) { return _mm_unpacklo_epi16(a, b); }
  static GEMMKIT_INLINE V zip16_hi(V a, V b) { return _mm_unpackhi_epi16(a, b); }
  static GEMMKIT_INLINE V zip32_lo(V a, V b) { return _mm_unpacklo_epi32(a, b); }
  static GEMMKIT_INLINE V zip32_hi(V a, V b) { return _mm_unpackhi_epi32(a, b); }
  static GEMMKIT_INLINE V zip64_lo(V a, V b) { return _mm_unpacklo_epi64(a, b); }
  static GEMMKIT_INLINE V zip64_hi(V a, V b) { return _mm_unpackhi_epi64(a, b); }

  template <int N>
  static GEMMKIT_INLINE void store_wide(std::int16_t* d, V v) {
    static_assert(N > 0 && N <= 16);
    if constexpr (N == 16) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_cvtepi8_epi16(v));
    } else if constexpr (N == 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_cvtepi8_epi16(v));
    } else if constexpr (N == 4) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d), _mm_cvtepi8_epi16(v));
    } else if constexpr (N == 12) {
      const __m256i w = _mm256_cvtepi8_epi16(v);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm256_castsi256_si128(w));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d + 8), _mm256_extracti128_si256(w, 1));
    } else {
      std::int16_t tmp[16];
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(tmp), _mm256_cvtepi8_epi16(v));
      std::memcpy(d, tmp, N * sizeof(std::int16_t));
    }
  }

  static GEMMKIT_INLINE Reg load_a(const std::int16_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static GEMMKIT_INLINE Reg splat_pair(const std::int16_t* p) {
    std::int32_t q;
    std::memcpy(&q, p, 4);
    return _mm256_set1_epi32(q);
  }
  static GEMMKIT_INLINE Reg dot_add(Reg acc, Reg a, Reg b) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
  }
};
#endif  // GEMMKIT_PAIR_I8_FMA

// The first n (0 <= n <= 16) bytes at p, the rest zero, for the ragged
// edges (partial panels, the depth tail): never touches p[n..16).
template <class P>
static GEMMKIT_INLINE typename P::V load_bytes(const std::int8_t* p, int n) {
  if (n >= 16) return P::load16(p);
  std::int8_t tmp[16] = {};
  for (int k = 0; k < n; ++k) tmp[k] = p[k];
  return P::load16(tmp);
}

// N bytes at p for a full panel line (N fixed by the panel width), the rest
// zero.
template <class P, int N>
static GEMMKIT_INLINE typename P::V load_fixed(const std::int8_t* p) {
  if constexpr (N >= 16) {
    return P::load16(p);
  } else {
    return P::template load<N>(p);
  }
}

// Source contiguous along the panel (element (i, p) at src[i + p * cs]):
// per depth pair, the two depth rows of up to 16 lines are interleaved
// bytewise (zip8) into the pairs, which widen to int16 on the store.  Full
// panels take fixed-size loads; a partial panel and the odd last depth step
// take the zero-filling path.
template <class Token, int W>
static GEMMKIT_INLINE void pack_lines(index_t kc, index_t width, const std::int8_t* src,
                                      index_t cs, std::int16_t* GEMMKIT_RESTRICT dst) {
  using P = PairOps<Token>;
  const index_t groups = (kc + 1) / 2;
  index_t g = 0;
  if (width >= W) {
    for (; g < kc / 2; ++g) {
      const std::int8_t* s = src + 2 * g * cs;
      std::int16_t* d = dst + g * (W * 2);
      GEMMKIT_UNROLL(4)
      for (int c0 = 0; c0 < W; c0 += 16) {
        constexpr int kFull = W >= 16 ? 16 : W;
        if constexpr (W % 16 == 0 || W < 16) {
          const typename P::V r0 = load_fixed<P, kFull>(s + c0);
          const typename P::V r1 = load_fixed<P, kFull>(s + cs + c0);
          if constexpr (kFull > 8) {
            P::template store_wide<16>(d + 2 * c0, P::zip8_lo(r0, r1));
            P::template store_wide<2 * kFull - 16>(d + 2 * c0 + 16, P::zip8_hi(r0, r1));
          } else {
            P::template store_wide<2 * kFull>(d + 2 * c0, P::zip8_lo(r0, r1));
          }
        } else {
          // W > 16 and not a multiple of 16: a full chunk, then a ragged one.
          const int n = W - c0 < 16 ? W - c0 : 16;
          const typename P::V r0 = load_bytes<P>(s + c0, n);
          const typename P::V r1 = load_bytes<P>(s + cs + c0, n);
          std::int16_t tmp[32];
          P::template store_wide<16>(tmp, P::zip8_lo(r0, r1));
          P::template store_wide<16>(tmp + 16, P::zip8_hi(r0, r1));
          std::memcpy(d + 2 * c0, tmp, sizeof(std::int16_t) * 2 * n);
        }
      }
    }
  }
  for (; g < groups; ++g) {
    const index_t p = 2 * g;
    const bool pair = kc - p >= 2;
    const std::int8_t* s = src + p * cs;
    std::int16_t* d = dst + g * (W * 2);
    for (int c0 = 0; c0 < W; c0 += 16) {
      const int n = W - c0 < 16 ? W - c0 : 16;
      const int v = width - c0 >= n ? n : (width > c0 ? int(width - c0) : 0);
      const typename P::V r0 = load_bytes<P>(s + c0, v);
      const typename P::V r1 = pair ? load_bytes<P>(s + cs + c0, v) : P::zero();
      std::int16_t tmp[32];
      P::template store_wide<16>(tmp, P::zip8_lo(r0, r1));
      P::template store_wide<16>(tmp + 16, P::zip8_hi(r0, r1));
      std::memcpy(d + 2 * c0, tmp, sizeof(std::int16_t) * 2 * n);
    }
  }
}

// Transposes 16 depth bytes (8 pairs) of ROWS <= 8 lines, r[l] holding line
// l, and stores the 8 groups: group t's ROWS pairs at d + t * stride.
template <class P, int ROWS>
static GEMMKIT_INLINE void transpose_store(const typename P::V (&r)[8], std::int16_t* d,
                                           index_t stride, int ngroups) {
  using V = typename P::V;
  // Pairs are 2-byte units: zip16 pairs lines 2m, 2m+1, zip32 lines 4m..4m+3.
  const V t0 = P::zip16_lo(r[0], r[1]), t1 = P::zip16_hi(r[0], r[1]);
  const V t2 = P::zip16_lo(r[2], r[3]), t3 = P::zip16_hi(r[2], r[3]);
  // q[k] holds pairs 2k, 2k+1 of lines 0-3.
  const V q[4] = {P::zip32_lo(t0, t2), P::zip32_hi(t0, t2), P::zip32_lo(t1, t3),
                  P::zip32_hi(t1, t3)};
  if constexpr (ROWS <= 4) {
    GEMMKIT_UNROLL(4)
    for (int k = 0; k < 4; ++k) {
      if (2 * k >= ngroups) break;
      P::template store_wide<2 * ROWS>(d + 2 * k * stride, q[k]);
      if (2 * k + 1 >= ngroups) break;
      P::template store_wide<2 * ROWS>(d + (2 * k + 1) * stride, P::zip64_hi(q[k], q[k]));
    }
  } else {
    const V t4 = P::zip16_lo(r[4], r[5]), t5 = P::zip16_hi(r[4], r[5]);
    const V t6 = P::zip16_lo(r[6], r[7]), t7 = P::zip16_hi(r[6], r[7]);
    const V u[4] = {P::zip32_lo(t4, t6), P::zip32_hi(t4, t6), P::zip32_lo(t5, t7),
                    P::zip32_hi(t5, t7)};
    GEMMKIT_UNROLL(4)
    for (int k = 0; k < 4; ++k) {
      if (2 * k >= ngroups) break;
      P::template store_wide<2 * ROWS>(d + 2 * k * stride, P::zip64_lo(q[k], u[k]));
      if (2 * k + 1 >= ngroups) break;
      P::template store_wide<2 * ROWS>(d + (2 * k + 1) * stride, P::zip64_hi(q[k], u[k]));
    }
  }
}

// Source contiguous along the depth (element (i, p) at src[i * rs + p]):
// each line's pair is two adjacent bytes already, so 16 depth bytes of 8
// lines transpose as 2-byte units into 8 groups of 8 lines.
template <class Token, int W>
static GEMMKIT_INLINE void pack_depth(index_t kc, index_t width, const std::int8_t* src,
                                      index_t rs, std::int16_t* GEMMKIT_RESTRICT dst) {
  using P = PairOps<Token>;
  using V = typename P::V;
  constexpr index_t kGroupStride = W * 2;
  GEMMKIT_UNROLL(4)
  for (int c0 = 0; c0 < W; c0 += 8) {
    const int n = W - c0 < 8 ? W - c0 : 8;
    // Lines past the panel's valid ones read nothing (zeros).
    const int v = width - c0 >= n ? n : (width > c0 ? int(width - c0) : 0);
    const std::int8_t* line[8];
    for (int l = 0; l < 8; ++l) line[l] = l < v ? src + (c0 + l) * rs : src;
    std::int16_t* d = dst + 2 * c0;
    auto emit = [&](const V (&r)[8], int ngroups) {
      if constexpr (W % 8 == 0) {
        transpose_store<P, 8>(r, d, kGroupStride, ngroups);
      } else if (n == 8) {
        transpose_store<P, 8>(r, d, kGroupStride, ngroups);
      } else {
        // The last chunk of a width that is not a multiple of 8 (6, 4, ...).
        transpose_store<P, W % 8>(r, d, kGroupStride, ngroups);
      }
    };
    index_t p0 = 0;
    if (v == n) {
      for (; p0 + 16 <= kc; p0 += 16) {
        V r[8];
        GEMMKIT_UNROLL(8)
        for (int l = 0; l < 8; ++l) r[l] = l < v ? P::load16(line[l] + p0) : P::zero();
        emit(r, 8);
        d += 8 * kGroupStride;
      }
    }
    // The depth tail and partial panels: zero-filling loads.
    for (; p0 < kc; p0 += 16) {
      const int nd = kc - p0 >= 16 ? 16 : int(kc - p0);
      V r[8];
      GEMMKIT_UNROLL(8)
      for (int l = 0; l < 8; ++l) r[l] = l < v ? load_bytes<P>(line[l] + p0, nd) : P::zero();
      emit(r, (nd + 1) / 2);
      d += 8 * kGroupStride;
    }
  }
}

// Any strides: one element at a time (rare layouts only).
template <int W>
static GEMMKIT_INLINE void pack_strided(index_t kc, index_t width, const std::int8_t* src,
                                        index_t rs, index_t cs,
                                        std::int16_t* GEMMKIT_RESTRICT dst) {
  const index_t groups = (kc + 1) / 2;
  for (index_t g = 0; g < groups; ++g) {
    for (index_t i = 0; i < W; ++i) {
      for (int t = 0; t < 2; ++t) {
        const index_t p = 2 * g + t;
        dst[(g * W + i) * 2 + t] = i < width && p < kc ? src[i * rs + p * cs] : 0;
      }
    }
  }
}

template <class Token, int W>
static GEMMKIT_INLINE void pack(index_t kc, index_t width, const std::int8_t* src, index_t rs,
                                index_t cs, std::int16_t* GEMMKIT_RESTRICT dst) {
  if (rs == 1) {
    pack_lines<Token, W>(kc, width, src, cs, dst);
  } else if (cs == 1) {
    pack_depth<Token, W>(kc, width, src, rs, dst);
  } else {
    pack_strided<W>(kc, width, src, rs, cs, dst);
  }
}

}  // namespace pair_i8_detail

template <class Token_, int MR_REG, int NR>
struct PairI8Family {
  using Token = Token_;
  using L = std::int8_t;
  using R = std::int8_t;
  using A = std::int32_t;
  using PA = std::int16_t;
  using PB = std::int16_t;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  using P = pair_i8_detail::PairOps<Token>;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMrReg = MR_REG;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;
  static constexpr int kDepthMultiple = 2;
  static constexpr bool kInplace = false;
  static_assert(sizeof(typename P::Reg) == sizeof(Reg),
                "one A vector of pairs is one int32 accumulator's rows");
  static_assert(MR_REG >= 1 && NR >= 1, "a tile has at least one vector and one column");

  static constexpr index_t groups(index_t kc) { return (kc + 1) / 2; }
  static constexpr index_t a_panel_size(index_t kc) { return groups(kc) * kMr * 2; }
  static constexpr index_t b_panel_size(index_t kc) { return groups(kc) * NR * 2; }

  static void pack_a(index_t kc, index_t width, const L* src, index_t rs, index_t cs,
                     PA* dst) {
    pair_i8_detail::pack<Token, kMr>(kc, width, src, rs, cs, dst);
  }
  static void pack_b(index_t kc, index_t width, const R* src, index_t rs, index_t cs,
                     PB* dst) {
    pair_i8_detail::pack<Token, NR>(kc, width, src, rs, cs, dst);
  }

  // acc[j][r] += sum_p A(r * kLanes + lane, p) * B(p, j), wrapping at 32
  // bits.  Per depth pair: MR_REG vector loads of A pairs, then per column
  // one 32-bit broadcast of the B pair feeding MR_REG pair-dots.
  static GEMMKIT_INLINE void accumulate(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                        const PB* GEMMKIT_RESTRICT b,
                                        Reg (&acc)[NR][MR_REG]) {
    const index_t ng = groups(kc);
    GEMMKIT_UNROLL_DEPTH
    for (index_t g = 0; g < ng; ++g) {
      Reg av[MR_REG];
      GEMMKIT_UNROLL(8)
      for (int r = 0; r < MR_REG; ++r) av[r] = P::load_a(a + r * kLanes * 2);
      GEMMKIT_UNROLL(16)
      for (int j = 0; j < NR; ++j) {
        const Reg bj = P::splat_pair(b + 2 * j);
        GEMMKIT_UNROLL(8)
        for (int r = 0; r < MR_REG; ++r) acc[j][r] = P::dot_add(acc[j][r], av[r], bj);
      }
      a += kMr * 2;
      b += NR * 2;
    }
  }
};

}  // namespace gemmkit::kernel
