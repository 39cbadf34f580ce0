// L1 pack: copies blocks of A and B into the micropanel layouts the
// microkernel streams through.
//
//   A block (mc x kc) -> ceil(mc / MR) panels; panel q holds, for each depth
//   step p, rows q*MR .. q*MR+MR-1 contiguously (MR * kc elements).
//   B block (kc x nc) -> ceil(nc / NR) panels; panel q holds, for each depth
//   step p, columns q*NR .. q*NR+NR-1 contiguously (NR * kc elements).
//
// Tails past mc or nc are zero-filled, so the kernel always runs full-width
// arithmetic and the edge is handled only at the store.  The source may have
// any strides; the unit-stride cases are the fast paths.
#pragma once

#include <cstring>

#include "kernel/task.hpp"
#include "scalar/half.hpp"
#include "simd/kernel_simd.hpp"
#include "simd/simd_ops.hpp"

namespace gemmkit::pack {

// pack_panel's transposing path: element (i, p) at src[i * rs + p], rows
// i < width <= W (W >= 4), into dst[p * W + i] (zero for i >= width).
// Bands of 16 rows are read together, each row a stream of whole lines
// prefetched two ahead (more rows at once, or 16x16 register transposes,
// measured up to 2.4x slower on a 4096-wide float32 A: more streams than the
// prefetchers follow, and spills); inside a band, groups of four rows are
// turned into depth steps of four values.  A group past W % 4 overlaps the
// previous one and rewrites the same values.  Ragged depth steps are copied
// one element at a time.
template <class Ops, class T, int W>
GEMMKIT_INLINE void transpose_panel(index_t kc, index_t width, const T* src, index_t rs,
                                    T* GEMMKIT_RESTRICT dst) {
  static_assert(W >= 4);
  constexpr int L = Ops::kLanes;
  constexpr int kBand = 16;
  constexpr index_t kLine = 64 / sizeof(T);
  const index_t kv = kc / L * L;
  for (int band = 0; band < W; band += kBand) {
    const int band_end = W - band < kBand ? W : band + kBand;
    for (index_t p0 = 0; p0 < kv; p0 += L) {
      for (int h = band; h < band_end; h += 4) {
        const int g = h + 4 <= W ? h : W - 4;
        typename Ops::Reg r[4];
        for (int i = 0; i < 4; ++i) {
          const T* s = src + (g + i) * rs + p0;
          if (g + i >= width) {
            r[i] = Ops::zero();
            continue;
          }
          if (p0 % kLine == 0) GEMMKIT_PREFETCH_READ(s + 2 * kLine);
          r[i] = Ops::loadu(s);
        }
        Ops::store_transposed4(r, dst + p0 * W + g, W);
      }
    }
  }
  for (index_t p = kv; p < kc; ++p) {
    T* d = dst + p * W;
    index_t i = 0;
    for (; i < width; ++i) d[i] = src[i * rs + p];
    for (; i < W; ++i) d[i] = T(0);
  }
}

// Packs `width` (<= W) vectors-along-the-panel of a strided source:
// element (i, p) of the source block is src[i * rs + p * cs], for i in
// [0, width) and p in [0, kc).  Output: dst[p * W + i], zero for i >= width.
template <class Token, class T, int W>
GEMMKIT_INLINE void pack_panel(index_t kc, index_t width, const T* src,
                               index_t rs, index_t cs, T* GEMMKIT_RESTRICT dst) {
  using Ops = simd::SimdOps<Token, T>;
  constexpr int L = Ops::kLanes;
  if (rs == 1 && width == W && W % L == 0) {
    // Contiguous along the panel: a straight vector copy per depth step.
    for (index_t p = 0; p < kc; ++p) {
      const T* s = src + p * cs;
      GEMMKIT_UNROLL(8)
      for (int i = 0; i < W; i += L) Ops::storeu(dst + i, Ops::loadu(s + i));
      dst += W;
    }
    return;
  }
  if (rs == 1) {
    for (index_t p = 0; p < kc; ++p) {
      const T* s = src + p * cs;
      index_t i = 0;
      for (; i < width; ++i) dst[i] = s[i];
      for (; i < W; ++i) dst[i] = T(0);
      dst += W;
    }
    return;
  }
  // Contiguous along the depth (the A^T operand of a row-major product):
  // transposed in registers where the token can, each source line read
  // once, whole.  A gather per vector (below) measured 5x slower.
  if constexpr (W >= 4 && requires(const typename Ops::Reg (&r)[4], T* d) {
                  Ops::store_transposed4(r, d, index_t(1));
                }) {
    if (cs == 1) {
      transpose_panel<Ops, T, W>(kc, width, src, rs, dst);
      return;
    }
  }
  // Strided along the panel (typically contiguous along the depth, e.g. the
  // A^T operand of a row-major product): a gather per vector where the token
  // has one and the stride fits its 32-bit indices.
  if constexpr (requires { Ops::load_strided(src, rs, 0); }) {
    // |rs| * (L - 1) must fit the 32-bit indices; compared by division, as
    // the product itself overflows for strides near 2^63 / L.
    const index_t ars = rs < 0 ? -rs : rs;
    if (L == 1 || ars <= index_t(0x7fffffff) / (L - 1)) {
      constexpr index_t kLine = 64 / sizeof(T);
      for (index_t p = 0; p < kc; ++p) {
        const T* s = src + p * cs;
        // Each source line is W cache lines apart that the prefetchers do
        // not follow: fetch two lines ahead along the depth explicitly.
        if (cs == 1 && p % kLine == 0) {
          for (index_t i = 0; i < width; ++i) GEMMKIT_PREFETCH_READ(s + i * rs + 2 * kLine);
        }
        GEMMKIT_UNROLL(4)
        for (int i = 0; i < W; i += L) {
          const int n = width - i >= L ? L : (width > i ? int(width - i) : 0);
          const typename Ops::Reg v = Ops::load_strided(s + i * rs, rs, n);
          if (W - i >= L) Ops::storeu(dst + i, v);
          else Ops::store_partial(dst + i, v, W - i);
        }
        dst += W;
      }
      return;
    }
  }
  // Otherwise walk each source line along p, in depth blocks so the W
  // destination lines being written stay in L1.
  constexpr index_t kDepthBlock = 64;
  for (index_t p0 = 0; p0 < kc; p0 += kDepthBlock) {
    const index_t pn = kc - p0 < kDepthBlock ? kc - p0 : kDepthBlock;
    T* d = dst + p0 * W;
    for (index_t i = 0; i < width; ++i) {
      const T* s = src + i * rs + p0 * cs;
      if (cs == 1) {
        for (index_t p = 0; p < pn; ++p) d[p * W + i] = s[p];
      } else {
        for (index_t p = 0; p < pn; ++p) d[p * W + i] = s[p * cs];
      }
    }
    for (index_t i = width; i < W; ++i)
      for (index_t p = 0; p < pn; ++p) d[p * W + i] = T(0);
  }
}

// pack_a's row walk over a source whose rows lie at least a page apart
// (kFarRowBytes) reads kSideBySide of them side by side: for each panel, MR
// elements of eight depth steps, so eight row streams are in flight at
// once; one row at a time leaves one stream in flight and the prefetchers
// restart on every page.  Measured on an AMD EPYC Zen 4, 2026-12-07, one
// thread, alternating builds: 16x4096x4096 float64 +20% (23.6 -> 28.4
// GFLOP/s), float32 +9-12%; 48x8192x2048 +3-9%, 64x512x16384 float64 +7%;
// squares to 2048 unchanged; 4 rows side by side gained less, 16 less
// still, and fetching the next eight rows ahead lost half the gain.  (A C
// harness of the walk: one row at a time 8.5 GB/s, eight 15 GB/s, one
// sequential stream 21-25.)  Rows closer than a page read one at a time,
// the next row segment kPackAhead steps ahead fetched: the hardware
// prefetchers do not follow a walk that reads only a few lines of each row
// (AMD Zen 3, 2026-12-07: 16x4096x4096 float32 +15-20%, float64 +8-12%
// before the side-by-side walk, which is not measured there yet).
constexpr index_t kFarRowBytes = 4096;
constexpr index_t kSideBySide = 8;
constexpr index_t kPackAhead = 4;

// A block: rows [0, mc) and depth [0, kc) of a (rs_a, cs_a) view.
template <class Token, class T, int MR>
void pack_a(index_t mc, index_t kc, const T* a, index_t rs_a, index_t cs_a,
            T* dst) {
  using Ops = simd::SimdOps<Token, T>;
  constexpr int L = Ops::kLanes;
  constexpr index_t kLine = 64 / sizeof(T);
  index_t i = 0;
  if (rs_a == 1 && MR % L == 0) {
    // Unit stride along the rows (e.g. B^T of a row-major product): walk
    // the source by depth steps, reading each column segment front to back
    // and dealing it out to the panels, so the reads stream through whole
    // pages instead of hopping a column stride per panel.
    const index_t full = mc / MR;
    const index_t segment = full * MR;
    const auto copy = [](const T* s, T* d) {
      GEMMKIT_UNROLL(8)
      for (int r = 0; r < MR; r += L) Ops::storeu(d + r, Ops::loadu(s + r));
    };
    if (cs_a * index_t(sizeof(T)) >= kFarRowBytes) {
      for (index_t p0 = 0; p0 < kc; p0 += kSideBySide) {
        const index_t steps = kc - p0 < kSideBySide ? kc - p0 : kSideBySide;
        for (index_t q = 0; q < full; ++q) {
          const T* s = a + p0 * cs_a + q * MR;
          T* d = dst + q * MR * kc + p0 * MR;
          for (index_t t = 0; t < steps; ++t) copy(s + t * cs_a, d + t * MR);
        }
      }
    } else {
      for (index_t p = 0; p < kc; ++p) {
        const T* s = a + p * cs_a;
        T* d = dst + p * MR;
        if (p + kPackAhead < kc) {
          const T* ahead = s + kPackAhead * cs_a;
          for (index_t e = 0; e < segment; e += kLine) GEMMKIT_PREFETCH_READ(ahead + e);
        }
        for (index_t q = 0; q < full; ++q) copy(s + q * MR, d + q * MR * kc);
      }
    }
    i = full * MR;
    dst += full * MR * kc;
  }
  for (; i < mc; i += MR) {
    const index_t rows = mc - i < MR ? mc - i : MR;
    pack_panel<Token, T, MR>(kc, rows, a + i * rs_a, rs_a, cs_a, dst);
    dst += MR * kc;
  }
}

// B panels [q0, q1) of a kc x nc block of a (rs_b, cs_b) view.  rows_first:
// a source with unit stride along the columns (a row-major B) is read one
// depth step at a time, its row segment front to back and dealt out to the
// panels, as pack_a does for A, instead of a panel at a time, which hops a
// row stride for every NR elements.  That pays where the block streams from
// memory and costs where it sits in cache (the dealt-out writes then
// dominate): the caller decides.
template <class Token, class T, int NR>
void pack_b(index_t kc, index_t nc, index_t q0, index_t q1, const T* b,
            index_t rs_b, index_t cs_b, T* dst, bool rows_first) {
  index_t q = q0;
  if (cs_b == 1 && rows_first) {
    const index_t full = q1 < nc / NR ? q1 : nc / NR;
    for (index_t p = 0; p < kc; ++p) {
      const T* s = b + p * rs_b + q0 * NR;
      T* d = dst + q0 * NR * kc + p * NR;
      for (index_t r = q0; r < full; ++r) {
        std::memcpy(d, s, sizeof(T) * NR);
        s += NR;
        d += NR * kc;
      }
    }
    if (full > q) q = full;
  }
  for (; q < q1; ++q) {
    const index_t j = q * NR;
    const index_t cols = nc - j < NR ? nc - j : NR;
    pack_panel<Token, T, NR>(kc, cols, b + j * cs_b, cs_b, rs_b, dst + q * NR * kc);
  }
}

}  // namespace gemmkit::pack

namespace gemmkit::pack {

// pack_panel for a source narrower than the panel (float16/bfloat16 ->
// float, int8 -> int32): the same layout, each element widened exactly.
// Contiguous panels widen a vector at a time (KernelSimd::load_lhs); a
// source contiguous along the depth is widened a row segment at a time into
// a small buffer and then dealt out, so no path converts element by element
// through scalar code except the ragged remainders.
template <class Token, class L, class A, int W>
void pack_panel_widen(index_t kc, index_t width, const L* src, index_t rs,
                      index_t cs, A* GEMMKIT_RESTRICT dst) {
  using KS = simd::KernelSimd<Token, L, L, A, A>;
  using Ops = simd::SimdOps<Token, A>;
  constexpr int V = KS::kLanes;
  if (rs == 1 && width == W && W % V == 0) {
    for (index_t p = 0; p < kc; ++p) {
      const L* s = src + p * cs;
      GEMMKIT_UNROLL(8)
      for (int i = 0; i < W; i += V) Ops::storeu(dst + i, KS::load_lhs(s + i));
      dst += W;
    }
    return;
  }
  if (cs == 1 && width == W) {
    // Rows contiguous along the depth: widen kDepthBlock steps of each of
    // the W rows into buf (row-major), then transpose buf into the panel.
    constexpr index_t kDepthBlock = 64;
    static_assert(kDepthBlock % V == 0);
    A buf[W * kDepthBlock];
    for (index_t p0 = 0; p0 < kc; p0 += kDepthBlock) {
      const index_t pn = kc - p0 < kDepthBlock ? kc - p0 : kDepthBlock;
      const index_t pv = pn / V * V;
      for (int i = 0; i < W; ++i) {
        const L* s = src + i * rs + p0;
        A* b = buf + i * kDepthBlock;
        index_t p = 0;
        for (; p < pv; p += V) Ops::storeu(b + p, KS::load_lhs(s + p));
        for (; p < pn; ++p) b[p] = scalar::widen<A>(s[p]);
      }
      A* d = dst + p0 * W;
      for (index_t p = 0; p < pn; ++p)
        GEMMKIT_UNROLL(16)
        for (int i = 0; i < W; ++i) d[p * W + i] = buf[i * kDepthBlock + p];
    }
    return;
  }
  constexpr index_t kDepthBlock = 64;
  for (index_t p0 = 0; p0 < kc; p0 += kDepthBlock) {
    const index_t pn = kc - p0 < kDepthBlock ? kc - p0 : kDepthBlock;
    A* d = dst + p0 * W;
    for (index_t i = 0; i < width; ++i) {
      const L* s = src + i * rs + p0 * cs;
      for (index_t p = 0; p < pn; ++p) d[p * W + i] = scalar::widen<A>(s[p * cs]);
    }
    for (index_t i = width; i < W; ++i)
      for (index_t p = 0; p < pn; ++p) d[p * W + i] = A(0);
  }
}

}  // namespace gemmkit::pack
