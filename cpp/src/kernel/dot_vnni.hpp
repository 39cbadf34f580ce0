// L4 kernel: the int8 x int8 -> int32 dot family on Avx512Vnni (vpdpbusd),
// with its k-group interleaving packers (the L1 part of this family).
//
// vpdpbusd multiplies UNSIGNED bytes of its first source by SIGNED bytes of
// its second and adds each dword's four products to an int32 lane, with
// wrapping (never the saturating vpdpbusds).  Both gemmkit operands are
// signed, so A is biased at pack time: the packed byte is a + 128 (a ^ 0x80),
// and the kernel subtracts 128 * colsum(B) at the end:
//
//   sum_p (a_p + 128) * b_p - 128 * sum_p b_p  ==  sum_p a_p * b_p  (mod 2^32)
//
// Every step is exact or wraps modulo 2^32 (a 4-product group is at most
// 4 * 255 * 128 in magnitude; int32 adds wrap), and arithmetic modulo 2^32
// does not depend on the order of the additions, so acc ends bit-identical to
// the widening kernel (sign-extend to int32, multiply, wrapping add), for any
// kc and any seed in acc.
//
// Packed layouts (kMr = MR_REG * 16 rows, NR columns, G = ceil(kc / 4)):
//   A panel: uint8  [G][kMr][4]   byte (g, i, t) = uint8(A(i, 4g + t) + 128);
//                                 rows past width and depth past kc hold 128
//                                 (a biased zero)
//   B panel: int8   [G][NR][4]    byte (g, j, t) = B(4g + t, j); padding 0
//            then int32 [NR]      column sums of the real B values over this
//                                 panel's depth (0 for padding columns),
//                                 little-endian, at byte offset G * NR * 4
//                                 (4-byte aligned when the panel is)
// a_panel_size / b_panel_size count these bytes (the trailer included), so
// panels of one block are laid end to end.
//
// Contract with the driver: cpp/src/kernel/family.hpp.  Everything here is a
// template over the ISA token or has internal linkage (ODR: see
// simd/simd_ops.hpp); it needs AVX-512F + BW + VNNI, i.e. an avx512vnni
// translation unit.
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include "simd/x86_intrinsics.hpp"

#include <cstdint>
#include <cstring>

#include "kernel/task.hpp"
#include "pack/avx512_lanes.hpp"
#include "simd/avx512vnni.hpp"
#include "simd/simd_ops.hpp"

namespace gemmkit::kernel {

namespace dot_vnni_detail {

// Lane shuffles and masks: pack/avx512_lanes.hpp.
using pack::avx512::byte_mask;
using pack::avx512::low128;
using pack::avx512::unpackhi32;
using pack::avx512::unpackhi64;
using pack::avx512::unpacklo32;
using pack::avx512::unpacklo64;

// n bytes at p (0 <= n <= 16), the rest zero; p[n..16) is never touched.
static GEMMKIT_INLINE __m128i load_bytes(const std::int8_t* p, int n) {
  if (n >= 16) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if (n <= 0) return _mm_setzero_si128();
  return low128(_mm512_maskz_loadu_epi8(byte_mask(n), p));
}

// The first N bytes at p (N fixed), the rest zero, never touching p[N..16).
// Plain narrow loads where N allows: for N = 12 (the 32x12 tile's B panel)
// they packed 1.5-2x faster than a masked zmm load on a Sapphire Rapids
// core (2026-11).
template <int N>
static GEMMKIT_INLINE __m128i load_fixed(const std::int8_t* p) {
  if constexpr (N >= 16) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  } else if constexpr (N == 12 || N == 8) {
    const __m128i lo = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    if constexpr (N == 8) return lo;
    std::int32_t q;
    std::memcpy(&q, p + 8, 4);
    return _mm_insert_epi32(lo, q, 2);
  } else if constexpr (N == 4) {
    std::int32_t q;
    std::memcpy(&q, p, 4);
    return _mm_cvtsi32_si128(q);
  } else {
    return low128(_mm512_maskz_loadu_epi8(byte_mask(N), p));
  }
}

// Stores the first `bytes` (0..64) bytes of four consecutive 16-byte pieces.
static GEMMKIT_INLINE void store_pieces(std::uint8_t* d, const __m128i (&o)[4], int bytes) {
  GEMMKIT_UNROLL(4)
  for (int k = 0; k < 4; ++k) {
    const int b = bytes - 16 * k;
    if (b <= 0) break;
    if (b >= 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 16 * k), o[k]);
    } else {
      _mm512_mask_storeu_epi8(d + 16 * k, byte_mask(b), _mm512_zextsi128_si512(o[k]));
    }
  }
}

static GEMMKIT_INLINE void store_bytes(std::uint8_t* d, __m512i v, int bytes) {
  if (bytes >= 64) _mm512_storeu_si512(d, v);
  else _mm512_mask_storeu_epi8(d, byte_mask(bytes), v);
}

// Interleaves four depth rows r[0..3] of 16 lines bytewise with two rounds
// of unpacks: o[k] holds lines 4k..4k+3, each line's four depth bytes one
// dword.
static GEMMKIT_INLINE void interleave16(const __m128i (&r)[4], __m128i (&o)[4]) {
  const __m128i t0 = _mm_unpacklo_epi8(r[0], r[1]);
  const __m128i t1 = _mm_unpackhi_epi8(r[0], r[1]);
  const __m128i t2 = _mm_unpacklo_epi8(r[2], r[3]);
  const __m128i t3 = _mm_unpackhi_epi8(r[2], r[3]);
  o[0] = _mm_unpacklo_epi16(t0, t2);
  o[1] = _mm_unpackhi_epi16(t0, t2);
  o[2] = _mm_unpacklo_epi16(t1, t3);
  o[3] = _mm_unpackhi_epi16(t1, t3);
}

// The same for 32 lines in ymm: the unpacks work within 128-bit lanes, so
// lane 1 carries lines 16..31 and lane permutes restore the line order.
template <std::uint8_t kXor>
static GEMMKIT_INLINE void interleave32_store(const std::int8_t* s, index_t cs, std::uint8_t* d) {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(kXor));
  __m256i r[4];
  GEMMKIT_UNROLL(4)
  for (int t = 0; t < 4; ++t) {
    r[t] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + t * cs));
    if constexpr (kXor != 0) r[t] = _mm256_xor_si256(r[t], flip);
  }
  const __m256i t0 = _mm256_unpacklo_epi8(r[0], r[1]);
  const __m256i t1 = _mm256_unpackhi_epi8(r[0], r[1]);
  const __m256i t2 = _mm256_unpacklo_epi8(r[2], r[3]);
  const __m256i t3 = _mm256_unpackhi_epi8(r[2], r[3]);
  const __m256i o0 = _mm256_unpacklo_epi16(t0, t2);  // lines 0-3 | 16-19
  const __m256i o1 = _mm256_unpackhi_epi16(t0, t2);  // lines 4-7 | 20-23
  const __m256i o2 = _mm256_unpacklo_epi16(t1, t3);  // lines 8-11 | 24-27
  const __m256i o3 = _mm256_unpackhi_epi16(t1, t3);  // lines 12-15 | 28-31
  __m256i* out = reinterpret_cast<__m256i*>(d);
  _mm256_storeu_si256(out + 0, _mm256_permute2x128_si256(o0, o1, 0x20));
  _mm256_storeu_si256(out + 1, _mm256_permute2x128_si256(o2, o3, 0x20));
  _mm256_storeu_si256(out + 2, _mm256_permute2x128_si256(o0, o1, 0x31));
  _mm256_storeu_si256(out + 3, _mm256_permute2x128_si256(o2, o3, 0x31));
}

// Source contiguous along the panel (element (i, p) at src[i + p * cs]).
// Full panels run a branch-free loop over whole groups (ymm for each 32
// lines, xmm for 16, a narrow load for the rest, all fixed by W); partial
// panels and the last, partial group take the masked general path.
template <class Token, int W, std::uint8_t kXor>
static GEMMKIT_INLINE void pack_lines(index_t kc, index_t width, const std::int8_t* src,
                                      index_t cs, std::uint8_t* GEMMKIT_RESTRICT dst) {
  const __m128i flip = _mm_set1_epi8(static_cast<char>(kXor));
  const index_t groups = (kc + 3) / 4;
  constexpr int kY = W / 32 * 32;             // lines in ymm chunks
  constexpr int kX = (W - kY) / 16 * 16;      // lines in one full xmm chunk
  constexpr int kRest = W - kY - kX;          // lines in a masked chunk
  index_t g = 0;
  if (width >= W) {
    for (; g < kc / 4; ++g) {
      const std::int8_t* s = src + 4 * g * cs;
      std::uint8_t* d = dst + g * (W * 4);
      GEMMKIT_UNROLL(4)
      for (int c0 = 0; c0 < kY; c0 += 32) interleave32_store<kXor>(s + c0, cs, d + c0 * 4);
      if constexpr (kX + kRest > 0) {
        constexpr int c0 = kY;
        __m128i r[4], o[4];
        GEMMKIT_UNROLL(4)
        for (int t = 0; t < 4; ++t) {
          r[t] = load_fixed<(kX > 0 ? 16 : kRest)>(s + t * cs + c0);
          if constexpr (kXor != 0) r[t] = _mm_xor_si128(r[t], flip);
        }
        interleave16(r, o);
        store_pieces(d + c0 * 4, o, (kX > 0 ? 16 : kRest) * 4);
        if constexpr (kX > 0 && kRest > 0) {
          constexpr int c1 = kY + kX;
          GEMMKIT_UNROLL(4)
          for (int t = 0; t < 4; ++t) {
            r[t] = load_fixed<kRest>(s + t * cs + c1);
            if constexpr (kXor != 0) r[t] = _mm_xor_si128(r[t], flip);
          }
          interleave16(r, o);
          store_pieces(d + c1 * 4, o, kRest * 4);
        }
      }
    }
  }
  for (; g < groups; ++g) {
    const index_t p = 4 * g;
    const int nd = kc - p >= 4 ? 4 : int(kc - p);
    const std::int8_t* s = src + p * cs;
    std::uint8_t* d = dst + g * (W * 4);
    GEMMKIT_UNROLL(4)
    for (int c0 = 0; c0 < W; c0 += 16) {
      const int n = W - c0 < 16 ? W - c0 : 16;
      const int v = width - c0 >= n ? n : (width > c0 ? int(width - c0) : 0);
      __m128i r[4], o[4];
      GEMMKIT_UNROLL(4)
      for (int t = 0; t < 4; ++t) {
        r[t] = t < nd && v > 0 ? load_bytes(s + t * cs + c0, v) : _mm_setzero_si128();
        if constexpr (kXor != 0) r[t] = _mm_xor_si128(r[t], flip);
      }
      interleave16(r, o);
      store_pieces(d + c0 * 4, o, n * 4);
    }
  }
}

// Source contiguous along the depth (element (i, p) at src[i * rs + p]):
// each line's 4-byte group is one dword already.  16 lines x 16 depth bytes
// are loaded as four zmm (lane j of zmm k = line 4j + k) and transposed as
// dwords within lanes; the result is four whole groups of 16 lines.
template <class Token, int W, std::uint8_t kXor>
static GEMMKIT_INLINE void pack_depth(index_t kc, index_t width, const std::int8_t* src,
                                      index_t rs, std::uint8_t* GEMMKIT_RESTRICT dst) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(kXor));
  constexpr index_t kGroupStride = W * 4;
  GEMMKIT_UNROLL(4)
  for (int c0 = 0; c0 < W; c0 += 16) {
    const int n = W - c0 < 16 ? W - c0 : 16;
    const int v = width - c0 >= n ? n : (width > c0 ? int(width - c0) : 0);
    // Lines past the valid ones read line 0 (plain loads: discarded lanes)
    // or nothing (masked loads: zero).
    const std::int8_t* line[16];
    for (int l = 0; l < 16; ++l) line[l] = l < v ? src + (c0 + l) * rs : src;
    std::uint8_t* d = dst + c0 * 4;
    auto emit = [&](__m512i z0, __m512i z1, __m512i z2, __m512i z3, int ngroups) {
      const __m512i a = unpacklo32(z0, z1);
      const __m512i b = unpackhi32(z0, z1);
      const __m512i c = unpacklo32(z2, z3);
      const __m512i e = unpackhi32(z2, z3);
      __m512i gr[4] = {unpacklo64(a, c), unpackhi64(a, c),
                       unpacklo64(b, e), unpackhi64(b, e)};
      GEMMKIT_UNROLL(4)
      for (int t = 0; t < 4; ++t) {
        if (t >= ngroups) break;
        if constexpr (kXor != 0) gr[t] = _mm512_xor_si512(gr[t], flip);
        store_bytes(d + t * kGroupStride, gr[t], n * 4);
      }
    };
    index_t p0 = 0;
    if (v == n && v > 0) {
      // Every panel line is real: plain loads while 16 depth bytes remain.
      for (; p0 + 16 <= kc; p0 += 16) {
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
    for (; p0 < kc; p0 += 16) {
      const int nd = kc - p0 >= 16 ? 16 : int(kc - p0);
      __m512i z[4];
      GEMMKIT_UNROLL(4)
      for (int k = 0; k < 4; ++k) {
        auto ld = [&](int l) { return load_bytes(line[l] + p0, l < v ? nd : 0); };
        z[k] = _mm512_zextsi128_si512(ld(k));
        if (n > 4) z[k] = _mm512_inserti32x4(z[k], ld(4 + k), 1);
        if (n > 8) z[k] = _mm512_inserti32x4(z[k], ld(8 + k), 2);
        if (n > 12) z[k] = _mm512_inserti32x4(z[k], ld(12 + k), 3);
      }
      emit(z[0], z[1], z[2], z[3], (nd + 3) / 4);
      d += 4 * kGroupStride;
    }
  }
}

// Any strides: one byte at a time (rare layouts only).
template <class Token, int W, std::uint8_t kXor>
static GEMMKIT_INLINE void pack_strided(index_t kc, index_t width, const std::int8_t* src,
                                        index_t rs, index_t cs,
                                        std::uint8_t* GEMMKIT_RESTRICT dst) {
  const index_t groups = (kc + 3) / 4;
  for (index_t g = 0; g < groups; ++g) {
    for (index_t i = 0; i < W; ++i) {
      for (int t = 0; t < 4; ++t) {
        const index_t p = 4 * g + t;
        const std::int8_t x = i < width && p < kc ? src[i * rs + p * cs] : 0;
        dst[(g * W + i) * 4 + t] = static_cast<std::uint8_t>(x) ^ kXor;
      }
    }
  }
}

// pack_lines for `rows` lines as consecutive panels of W lines,
// panel_bytes apart, one depth group (4 steps) of every panel at a time:
// each source row segment is read front to back once, instead of a W-byte
// strip of it per panel.
template <class Token, int W, std::uint8_t kXor>
static GEMMKIT_INLINE void pack_lines_rows(index_t kc, index_t rows, const std::int8_t* src,
                                           index_t cs, std::uint8_t* GEMMKIT_RESTRICT dst,
                                           index_t panel_bytes) {
  for (index_t p = 0; p < kc; p += 4)
    for (index_t i = 0; i < rows; i += W)
      pack_lines<Token, W, kXor>(kc - p < 4 ? kc - p : 4, rows - i < W ? rows - i : W,
                                 src + p * cs + i, cs, dst + (i / W) * panel_bytes + p * W);
}

template <class Token, int W, std::uint8_t kXor>
static GEMMKIT_INLINE void pack(index_t kc, index_t width, const std::int8_t* src,
                                index_t rs, index_t cs, std::uint8_t* GEMMKIT_RESTRICT dst) {
  if (rs == 1) {
    pack_lines<Token, W, kXor>(kc, width, src, cs, dst);
  } else if (cs == 1) {
    pack_depth<Token, W, kXor>(kc, width, src, rs, dst);
  } else {
    pack_strided<Token, W, kXor>(kc, width, src, rs, cs, dst);
  }
}

// Column sums of a packed B panel (int8 [groups][NR][4]) into out[0, NR):
// vpdpbusd with all-ones as the unsigned operand adds each dword's four
// signed bytes.  Four chains hide the instruction's latency.
template <class Token, int NR>
static GEMMKIT_INLINE void column_sums(index_t groups, const std::int8_t* panel,
                                       std::int32_t* out) {
  const __m512i ones = _mm512_set1_epi8(1);
  GEMMKIT_UNROLL(2)
  for (int c0 = 0; c0 < NR; c0 += 16) {
    const int n = NR - c0 < 16 ? NR - c0 : 16;
    const __mmask64 m = byte_mask(n * 4);
    const std::int8_t* p = panel + c0 * 4;
    __m512i s[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(),
                    _mm512_setzero_si512(), _mm512_setzero_si512()};
    index_t g = 0;
    for (; g + 4 <= groups; g += 4) {
      GEMMKIT_UNROLL(4)
      for (int k = 0; k < 4; ++k)
        s[k] = _mm512_dpbusd_epi32(s[k], ones, _mm512_maskz_loadu_epi8(m, p + (g + k) * NR * 4));
    }
    for (; g < groups; ++g)
      s[0] = _mm512_dpbusd_epi32(s[0], ones, _mm512_maskz_loadu_epi8(m, p + g * NR * 4));
    const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(s[0], s[1]),
                                         _mm512_add_epi32(s[2], s[3]));
    _mm512_mask_storeu_epi32(out + c0, static_cast<__mmask16>((1u << n) - 1u), sum);
  }
}

}  // namespace dot_vnni_detail

template <class Token_, int MR_REG, int NR>
struct DotVnniFamily {
  using Token = Token_;
  using L = std::int8_t;
  using R = std::int8_t;
  using A = std::int32_t;
  using PA = std::uint8_t;
  using PB = std::int8_t;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMrReg = MR_REG;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;
  static constexpr int kDepthMultiple = 4;
  static constexpr bool kInplace = false;
  static_assert(kLanes == 16, "vpdpbusd on zmm: 16 int32 lanes");
  static_assert(MR_REG >= 1 && NR >= 1 && MR_REG * NR + MR_REG + 1 <= 32,
                "accumulators + A vectors + one broadcast must fit 32 zmm");

  static constexpr index_t groups(index_t kc) { return (kc + 3) / 4; }
  static constexpr index_t a_panel_size(index_t kc) { return groups(kc) * kMr * 4; }
  static constexpr index_t b_panel_size(index_t kc) {
    return groups(kc) * NR * 4 + NR * index_t(sizeof(std::int32_t));
  }
  // Byte offset of the column-sum trailer inside a packed B panel.
  static constexpr index_t b_colsum_offset(index_t kc) { return groups(kc) * NR * 4; }

  static void pack_a(index_t kc, index_t width, const L* src, index_t rs, index_t cs,
                     PA* dst) {
    dot_vnni_detail::pack<Token, kMr, 0x80>(kc, width, src, rs, cs, dst);
  }

  static void pack_b(index_t kc, index_t width, const R* src, index_t rs, index_t cs,
                     PB* dst) {
    std::uint8_t* d = reinterpret_cast<std::uint8_t*>(dst);
    dot_vnni_detail::pack<Token, NR, 0x00>(kc, width, src, rs, cs, d);
    dot_vnni_detail::column_sums<Token, NR>(
        groups(kc), dst, reinterpret_cast<std::int32_t*>(dst + b_colsum_offset(kc)));
  }

  // acc[j][r] += sum_p A(r * 16 + lane, p) * B(p, j), wrapping at 32 bits.
  // Per group: MR_REG 64-byte loads of A, then for each column one dword
  // broadcast of B feeding MR_REG vpdpbusd.
  static GEMMKIT_INLINE void accumulate(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                        const PB* GEMMKIT_RESTRICT b,
                                        Reg (&acc)[NR][MR_REG]) {
    const index_t ng = groups(kc);
    const PB* bp = b;
    GEMMKIT_UNROLL(2)
    for (index_t g = 0; g < ng; ++g) {
      __m512i av[MR_REG];
      GEMMKIT_UNROLL(8)
      for (int r = 0; r < MR_REG; ++r) av[r] = _mm512_loadu_si512(a + r * 64);
      GEMMKIT_UNROLL(16)
      for (int j = 0; j < NR; ++j) {
        std::int32_t q;
        std::memcpy(&q, bp + 4 * j, 4);
        const __m512i bj = _mm512_set1_epi32(q);
        GEMMKIT_UNROLL(8)
        for (int r = 0; r < MR_REG; ++r) acc[j][r] = _mm512_dpbusd_epi32(acc[j][r], av[r], bj);
      }
      a += kMr * 4;
      bp += NR * 4;
    }
    // Remove the +128 bias: 128 * colsum, computed unsigned so it wraps.
    const PB* sums = b + b_colsum_offset(kc);
    GEMMKIT_UNROLL(16)
    for (int j = 0; j < NR; ++j) {
      std::uint32_t s;
      std::memcpy(&s, sums + 4 * j, 4);
      const __m512i c = _mm512_set1_epi32(static_cast<std::int32_t>(s << 7));
      GEMMKIT_UNROLL(8)
      for (int r = 0; r < MR_REG; ++r) acc[j][r] = _mm512_sub_epi32(acc[j][r], c);
    }
  }
};

}  // namespace gemmkit::kernel

#endif  // x86
