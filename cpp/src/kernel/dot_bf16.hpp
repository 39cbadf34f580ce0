// L4 kernel: the bf16 x bf16 -> f32 dot family on Avx512Bf16 (vdpbf16ps),
// with its k-pair interleaving packers (the L1 part of this family).
//
// vdpbf16ps adds, per f32 lane, the products of two consecutive bf16 pairs:
// acc += a0 * b0 + a1 * b1.  Each bf16 product is exact in f32; the two
// additions round to nearest even and denormal inputs and outputs are
// flushed to zero, so this family rounds differently from widening to f32
// and running FMAs: it is held to a tolerance (family.hpp), not to bit
// identity with the widening bf16 family.
//
// Packed layouts (kMr = MR_REG * 16 rows, NR columns, G = ceil(kc / 2)),
// elements are bfloat16 bit patterns:
//   A panel: [G][kMr][2]   element (g, i, t) = A(i, 2g + t)
//   B panel: [G][NR][2]    element (g, j, t) = B(2g + t, j)
// Rows or columns past width, and the depth step past an odd kc, hold +0.
// There is no trailer: a_panel_size / b_panel_size are G * kMr * 2 and
// G * NR * 2 elements.
//
// Contract with the driver: cpp/src/kernel/family.hpp.  Everything here is a
// template over the ISA token or has internal linkage (ODR: see
// simd/simd_ops.hpp); it needs AVX-512F + BW + BF16, i.e. an avx512bf16
// translation unit.
//
// Speed note, measured 2026-11 on an Intel Xeon (Sapphire Rapids family,
// one core, 2.67 GHz): vdpbf16ps zmm issues one per two cycles (latency 8),
// about 82 GFLOP/s, while vfmadd231ps zmm issues two per cycle (171 GFLOP/s).
// On that core this kernel is slower than widening bf16 to f32 and using
// FMAs; on Zen 4 vdpbf16ps runs at twice the f32 FMA rate.
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include "simd/x86_intrinsics.hpp"

#include <cstdint>
#include <cstring>

#include "gemmkit/types.hpp"
#include "kernel/task.hpp"
#include "pack/avx512_lanes.hpp"
#include "simd/avx512bf16.hpp"
#include "simd/simd_ops.hpp"

namespace gemmkit::kernel {

namespace dot_bf16_detail {

// Lane shuffles and masks: pack/avx512_lanes.hpp.
using pack::avx512::byte_mask;
using pack::avx512::low128;
using pack::avx512::unpackhi32;
using pack::avx512::unpackhi64;
using pack::avx512::unpacklo32;
using pack::avx512::unpacklo64;
using pack::avx512::word_mask;

// n elements at p (0 <= n <= 32), the rest zero; p[n..32) is never touched.
static GEMMKIT_INLINE __m512i load_words(const std::uint16_t* p, int n) {
  if (n >= 32) return _mm512_loadu_si512(p);
  if (n <= 0) return _mm512_setzero_si512();
  return _mm512_maskz_loadu_epi16(word_mask(n), p);
}

// n elements at p (0 <= n <= 8) into an xmm, the rest zero.
static GEMMKIT_INLINE __m128i load_words8(const std::uint16_t* p, int n) {
  if (n >= 8) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if (n <= 0) return _mm_setzero_si128();
  return low128(_mm512_maskz_loadu_epi16(word_mask(n), p));
}

static GEMMKIT_INLINE void store_bytes(void* d, __m512i v, int bytes) {
  if (bytes >= 64) _mm512_storeu_si512(d, v);
  else if (bytes > 0) _mm512_mask_storeu_epi8(d, byte_mask(bytes), v);
}

// Source contiguous along the panel (element (i, p) at src[i + p * cs]):
// two depth rows of 32 lines are interleaved with one round of word unpacks
// (within 128-bit lanes) and two cross-lane permutes that put the lanes
// back in line order.  One depth pair (rows s and s + cs, the second only
// where `pair`) of one panel of W lines, `width` of them real, into d.
template <class Token, int W>
static GEMMKIT_INLINE void pack_lines_pair(index_t width, const std::uint16_t* s, index_t cs,
                                           bool pair, std::uint16_t* GEMMKIT_RESTRICT d) {
  const __m512i idx_lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
  const __m512i idx_hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
  GEMMKIT_UNROLL(4)
  for (int c0 = 0; c0 < W; c0 += 32) {
    const int n = W - c0 < 32 ? W - c0 : 32;
    const int v = width - c0 >= n ? n : (width > c0 ? int(width - c0) : 0);
    const __m512i r0 = v > 0 ? load_words(s + c0, v) : _mm512_setzero_si512();
    const __m512i r1 = pair && v > 0 ? load_words(s + cs + c0, v) : _mm512_setzero_si512();
    // lo lanes: lines 0-3, 8-11, 16-19, 24-27; hi lanes: 4-7, 12-15, ...
    const __m512i lo = _mm512_unpacklo_epi16(r0, r1);
    const __m512i hi = _mm512_unpackhi_epi16(r0, r1);
    store_bytes(d + c0 * 2, _mm512_permutex2var_epi64(lo, idx_lo, hi), n * 4);
    if (n > 16) {
      store_bytes(d + c0 * 2 + 32, _mm512_permutex2var_epi64(lo, idx_hi, hi), n * 4 - 64);
    }
  }
}

template <class Token, int W>
static GEMMKIT_INLINE void pack_lines(index_t kc, index_t width, const std::uint16_t* src,
                                      index_t cs, std::uint16_t* GEMMKIT_RESTRICT dst) {
  const index_t groups = (kc + 1) / 2;
  for (index_t g = 0; g < groups; ++g) {
    const index_t p = 2 * g;
    pack_lines_pair<Token, W>(width, src + p * cs, cs, kc - p >= 2, dst + g * (W * 2));
  }
}

// The same for `rows` lines as consecutive panels of W lines, panel_elems
// apart, a depth pair at a time across all the panels: each source row
// segment is read front to back once, instead of a W-line strip of it per
// panel, which hops a row stride every 64 bytes.
template <class Token, int W>
static GEMMKIT_INLINE void pack_lines_rows(index_t kc, index_t rows, const std::uint16_t* src,
                                           index_t cs, std::uint16_t* GEMMKIT_RESTRICT dst,
                                           index_t panel_elems) {
  const index_t groups = (kc + 1) / 2;
  for (index_t g = 0; g < groups; ++g) {
    const index_t p = 2 * g;
    const bool pair = kc - p >= 2;
    for (index_t i = 0; i < rows; i += W)
      pack_lines_pair<Token, W>(rows - i < W ? rows - i : W, src + p * cs + i, cs, pair,
                                dst + (i / W) * panel_elems + g * (W * 2));
  }
}

// Source contiguous along the depth (element (i, p) at src[i * rs + p]):
// each line's pair is one dword already.  16 lines x 8 depth elements are
// loaded as four zmm (lane j of zmm k = line 4j + k) and transposed as dwords
// within lanes; the result is four whole pairs of 16 lines.
template <class Token, int W>
static GEMMKIT_INLINE void pack_depth(index_t kc, index_t width, const std::uint16_t* src,
                                      index_t rs, std::uint16_t* GEMMKIT_RESTRICT dst) {
  constexpr index_t kGroupStride = W * 2;  // elements
  GEMMKIT_UNROLL(4)
  for (int c0 = 0; c0 < W; c0 += 16) {
    const int n = W - c0 < 16 ? W - c0 : 16;
    const int v = width - c0 >= n ? n : (width > c0 ? int(width - c0) : 0);
    // Lines past the valid ones read line 0 (plain loads: discarded lanes)
    // or nothing (masked loads: zero).
    const std::uint16_t* line[16];
    for (int l = 0; l < 16; ++l) line[l] = l < v ? src + (c0 + l) * rs : src;
    std::uint16_t* d = dst + c0 * 2;
    auto emit = [&](__m512i z0, __m512i z1, __m512i z2, __m512i z3, int ngroups) {
      const __m512i a = unpacklo32(z0, z1);
      const __m512i b = unpackhi32(z0, z1);
      const __m512i c = unpacklo32(z2, z3);
      const __m512i e = unpackhi32(z2, z3);
      const __m512i gr[4] = {unpacklo64(a, c), unpackhi64(a, c),
                             unpacklo64(b, e), unpackhi64(b, e)};
      GEMMKIT_UNROLL(4)
      for (int t = 0; t < 4; ++t) {
        if (t >= ngroups) break;
        store_bytes(d + t * kGroupStride, gr[t], n * 4);
      }
    };
    index_t p0 = 0;
    if (v == n && v > 0) {
      // Every panel line is real: plain loads while 8 depth steps remain.
      for (; p0 + 8 <= kc; p0 += 8) {
        __m512i z[4];
        GEMMKIT_UNROLL(4)
        for (int k = 0; k < 4; ++k) {
          auto ld = [&](int l) {
            return _mm_loadu_si128(reinterpret_cast<const __m128i*>(line[l] + p0));
          };
          z[k] = _mm512_zextsi128_si512(ld(k));
          if (n > 4) z[k] = _mm512_inserti32x4(z[k], ld(4 + k), 1);
          if (n > 8) z[k] = _mm512_inserti32x4(z[k], ld(8 + k), 2);
          if (n > 12) z[k] = _mm512_inserti32x4(z[k], ld(12 + k), 3);
        }
        emit(z[0], z[1], z[2], z[3], 4);
        d += 4 * kGroupStride;
      }
    }
    // Padding lines and the last partial block: masked loads (zeros).
    for (; p0 < kc; p0 += 8) {
      const int nd = kc - p0 >= 8 ? 8 : int(kc - p0);
      __m512i z[4];
      GEMMKIT_UNROLL(4)
      for (int k = 0; k < 4; ++k) {
        auto ld = [&](int l) { return load_words8(line[l] + p0, l < v ? nd : 0); };
        z[k] = _mm512_zextsi128_si512(ld(k));
        if (n > 4) z[k] = _mm512_inserti32x4(z[k], ld(4 + k), 1);
        if (n > 8) z[k] = _mm512_inserti32x4(z[k], ld(8 + k), 2);
        if (n > 12) z[k] = _mm512_inserti32x4(z[k], ld(12 + k), 3);
      }
      emit(z[0], z[1], z[2], z[3], (nd + 1) / 2);
      d += 4 * kGroupStride;
    }
  }
}

// Any strides: one element at a time (rare layouts only).
template <class Token, int W>
static GEMMKIT_INLINE void pack_strided(index_t kc, index_t width, const std::uint16_t* src,
                                        index_t rs, index_t cs,
                                        std::uint16_t* GEMMKIT_RESTRICT dst) {
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

// bfloat16 is a standard-layout wrapper of one uint16_t (types.hpp), so a
// panel is read and written as its bit patterns.
template <class Token, int W>
static GEMMKIT_INLINE void pack(index_t kc, index_t width, const bfloat16* src, index_t rs,
                                index_t cs, bfloat16* dst) {
  static_assert(sizeof(bfloat16) == 2 && alignof(bfloat16) == 2);
  const std::uint16_t* s = reinterpret_cast<const std::uint16_t*>(src);
  std::uint16_t* d = reinterpret_cast<std::uint16_t*>(dst);
  if (rs == 1) {
    pack_lines<Token, W>(kc, width, s, cs, d);
  } else if (cs == 1) {
    pack_depth<Token, W>(kc, width, s, rs, d);
  } else {
    pack_strided<Token, W>(kc, width, s, rs, cs, d);
  }
}

}  // namespace dot_bf16_detail

template <class Token_, int MR_REG, int NR>
struct DotBf16Family {
  using Token = Token_;
  using L = bfloat16;
  using R = bfloat16;
  using A = float;
  using PA = bfloat16;
  using PB = bfloat16;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMrReg = MR_REG;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;
  static constexpr int kDepthMultiple = 2;
  static constexpr bool kInplace = false;
  static_assert(kLanes == 16, "vdpbf16ps on zmm: 16 f32 lanes");
  static_assert(MR_REG >= 1 && NR >= 1 && MR_REG * NR + MR_REG + 1 <= 32,
                "accumulators + A vectors + one broadcast must fit 32 zmm");

  static constexpr index_t groups(index_t kc) { return (kc + 1) / 2; }
  static constexpr index_t a_panel_size(index_t kc) { return groups(kc) * kMr * 2; }
  static constexpr index_t b_panel_size(index_t kc) { return groups(kc) * NR * 2; }

  static void pack_a(index_t kc, index_t width, const L* src, index_t rs, index_t cs,
                     PA* dst) {
    dot_bf16_detail::pack<Token, kMr>(kc, width, src, rs, cs, dst);
  }

  static void pack_b(index_t kc, index_t width, const R* src, index_t rs, index_t cs,
                     PB* dst) {
    dot_bf16_detail::pack<Token, NR>(kc, width, src, rs, cs, dst);
  }

  // acc[j][r] += sum_p A(r * 16 + lane, p) * B(p, j), two depth steps per
  // vdpbf16ps: MR_REG 64-byte loads of A and one dword (pair) broadcast of
  // B per column.
  static GEMMKIT_INLINE void accumulate(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                        const PB* GEMMKIT_RESTRICT b,
                                        Reg (&acc)[NR][MR_REG]) {
    const index_t ng = groups(kc);
    GEMMKIT_UNROLL(2)
    for (index_t g = 0; g < ng; ++g) {
      __m512bh av[MR_REG];
      GEMMKIT_UNROLL(8)
      for (int r = 0; r < MR_REG; ++r) av[r] = (__m512bh)_mm512_loadu_si512(a + r * 32);
      GEMMKIT_UNROLL(16)
      for (int j = 0; j < NR; ++j) {
        std::int32_t q;
        std::memcpy(&q, b + 2 * j, 4);
        const __m512bh bj = (__m512bh)_mm512_set1_epi32(q);
        GEMMKIT_UNROLL(8)
        for (int r = 0; r < MR_REG; ++r) acc[j][r] = _mm512_dpbf16_ps(acc[j][r], av[r], bj);
      }
      a += kMr * 2;
      b += NR * 2;
    }
  }
};

}  // namespace gemmkit::kernel

#endif  // x86
