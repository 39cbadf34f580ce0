// L4 kernel: the complex split families (family.hpp), one template for every
// token: complex64 and complex128, interleaved as numpy stores them.
//
// Packing splits the parts: an A panel holds, per depth step, the kMr real
// parts and then the kMr imaginary parts (PA = T, 2 * kMr per step); a B
// panel holds, per depth step, kNr interleaved pairs (PB = complex<T>), which
// the depth loop broadcasts part by part.  Conjugation (the task's conj_a /
// conj_b, driver.hpp) negates the imaginary parts while packing, so one depth
// loop serves every flag.  Per depth step, register r and column j:
//   re += ar * br;  re -= ai * bi  (fnma);  im += ar * bi;  im += ai * br
// four real multiply-adds per complex one, into accumulators that are
// ComplexOps register pairs (simd/complex_ops.hpp), so TileStore applies
// complex alpha, beta and bias the way it does for real types.
//
// The two imaginary terms are the one place where the order of a product's
// operands shows in the bits: swapping A and B swaps them.  The kernel frame
// is C^T = B^T A^T wherever C's rows are contiguous and for every prepacked
// B (dispatch/gemm-inl.hpp), so that orientation sets the order, in the
// user's terms: im += Ai * Br, then im += Ar * Bi.  A product computed in the
// user's orientation (a column-major C, or a few columns of C) runs the
// UserFrame twin, which adds the terms the other way round in kernel terms:
// every orientation, and a prepacked B, gives the same bits.
#pragma once

#include <complex>

#include "kernel/family.hpp"
#include "kernel/microkernel.hpp"
#include "simd/complex_ops.hpp"

namespace gemmkit::kernel {

// USER_FRAME: the kernel's A is the user's A (see above).
template <class Token_, class T, int MR_REG, int NR, bool USER_FRAME = false>
struct ComplexFamily {
  using Token = Token_;
  using L = std::complex<T>;
  using R = L;
  using A = L;
  using PA = T;
  using PB = L;
  using Ops = simd::SimdOps<Token, A>;
  using Real = simd::SimdOps<Token, T>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMrReg = MR_REG;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;
  static constexpr int kDepthMultiple = 1;
  static constexpr bool kInplace = false;
  static constexpr bool kConjugates = true;
  // The same tile run in the user's orientation (dispatch/gemm-inl.hpp).
  template <int N>
  using UserFrame = ComplexFamily<Token_, T, MR_REG, N == 0 ? NR : N, true>;

  static constexpr index_t a_panel_size(index_t kc) { return 2 * kMr * kc; }
  static constexpr index_t b_panel_size(index_t kc) { return kNr * kc; }

  // Element (i, p) is src[i * rs + p * cs].  Unit stride along the panel is
  // walked step by step; otherwise row by row in depth blocks, so the rows
  // read stream and the block written stays in L1.
  static void pack_a(index_t kc, index_t width, const L* src, index_t rs, index_t cs,
                     PA* GEMMKIT_RESTRICT dst, bool conj) {
    const T sign = conj ? T(-1) : T(1);
    const T* s = reinterpret_cast<const T*>(src);
    constexpr index_t kDepthBlock = 64;
    for (index_t p0 = 0; p0 < kc; p0 += kDepthBlock) {
      const index_t pn = kc - p0 < kDepthBlock ? kc - p0 : kDepthBlock;
      if (rs == 1) {
        for (index_t p = p0; p < p0 + pn; ++p) {
          const T* col = s + 2 * p * cs;
          PA* d = dst + p * 2 * kMr;
          for (index_t i = 0; i < width; ++i) {
            d[i] = col[2 * i];
            d[kMr + i] = sign * col[2 * i + 1];
          }
        }
      } else {
        for (index_t i = 0; i < width; ++i) {
          const T* row = s + 2 * (i * rs + p0 * cs);
          PA* d = dst + p0 * 2 * kMr + i;
          for (index_t p = 0; p < pn; ++p) {
            d[p * 2 * kMr] = row[2 * p * cs];
            d[p * 2 * kMr + kMr] = sign * row[2 * p * cs + 1];
          }
        }
      }
      for (index_t p = p0; p < p0 + pn; ++p)
        for (index_t i = width; i < kMr; ++i) dst[p * 2 * kMr + i] = dst[p * 2 * kMr + kMr + i] = T(0);
    }
  }

  static void pack_b(index_t kc, index_t width, const R* src, index_t rs, index_t cs,
                     PB* GEMMKIT_RESTRICT dst, bool conj) {
    constexpr index_t kDepthBlock = 64;
    for (index_t p0 = 0; p0 < kc; p0 += kDepthBlock) {
      const index_t pn = kc - p0 < kDepthBlock ? kc - p0 : kDepthBlock;
      for (index_t j = 0; j < width; ++j) {
        const R* col = src + j * rs + p0 * cs;
        PB* d = dst + p0 * kNr + j;
        if (conj) {
          for (index_t p = 0; p < pn; ++p) d[p * kNr] = std::conj(col[p * cs]);
        } else {
          for (index_t p = 0; p < pn; ++p) d[p * kNr] = col[p * cs];
        }
      }
      for (index_t p = p0; p < p0 + pn; ++p)
        for (index_t j = width; j < kNr; ++j) dst[p * kNr + j] = PB(0);
    }
  }

  static GEMMKIT_INLINE void accumulate(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                        const PB* GEMMKIT_RESTRICT b,
                                        Reg (&acc)[NR][MR_REG]) {
    const T* bp = reinterpret_cast<const T*>(b);
    GEMMKIT_UNROLL_DEPTH
    for (index_t p = 0; p < kc; ++p) {
      typename Real::Reg ar[MR_REG], ai[MR_REG];
      GEMMKIT_UNROLL(8)
      for (int r = 0; r < MR_REG; ++r) {
        ar[r] = Real::loadu(a + r * kLanes);
        ai[r] = Real::loadu(a + kMr + r * kLanes);
      }
      GEMMKIT_UNROLL(16)
      for (int j = 0; j < NR; ++j) {
        const typename Real::Reg br = Real::splat(bp[2 * j]);
        const typename Real::Reg bi = Real::splat(bp[2 * j + 1]);
        GEMMKIT_UNROLL(8)
        for (int r = 0; r < MR_REG; ++r) {
          acc[j][r].re = Real::fnma(ai[r], bi, Real::mul_add(ar[r], br, acc[j][r].re));
          if constexpr (USER_FRAME)
            acc[j][r].im = Real::mul_add(ar[r], bi, Real::mul_add(ai[r], br, acc[j][r].im));
          else
            acc[j][r].im = Real::mul_add(ai[r], br, Real::mul_add(ar[r], bi, acc[j][r].im));
        }
      }
      a += 2 * kMr;
      bp += 2 * NR;
    }
  }
};

}  // namespace gemmkit::kernel
