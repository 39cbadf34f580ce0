// L4 kernel: the one generic MR x NR microkernel, over any SIMD token.
//
// Contract (see CONTRACT.md beside this file):
//  - A micropanel: for each depth step p, MR consecutive elements starting at
//    a + p * a_step.  a_step == MR for a packed panel; a larger a_step reads
//    a unit-stride A in place (only ever for full MR-row tiles).
//  - B micropanel: packed, NR consecutive elements per depth step.
//  - The tile is m_eff x n_eff (<= MR x NR); lanes and columns past the edge
//    are neither read from C nor written.
//  - out = act(alpha * AB + beta * src + bias).  beta == 0 never reads src,
//    so NaN in an uninitialized C cannot leak.
//  - The arithmetic is the same for full and edge tiles and for every C
//    layout, so a result never depends on where a tile falls.
#pragma once

#include "kernel/task.hpp"
#include "simd/simd_ops.hpp"

// Depth steps interleaved by the compiler.  On wasm the engine (not the
// compiler) allocates registers, and V8 has only 15 v128 registers on x64:
// interleaving steps raises the live count past that and spills.
#if defined(__wasm__)
#define GEMMKIT_UNROLL_DEPTH _Pragma("GCC unroll 1")
#else
#define GEMMKIT_UNROLL_DEPTH _Pragma("GCC unroll 4")
#endif

namespace gemmkit::kernel {

template <class Token, class T, int MR_REG, int NR>
struct FloatKernel {
  using Ops = simd::SimdOps<Token, T>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;

  // Where one tile's result goes and what it is combined with.
  struct Store {
    T alpha, beta;
    const T* src;  // read when beta != 0
    index_t rs_src, cs_src;
    T* dst;
    index_t rs_dst, cs_dst;
    const Epilogue<T>* epi;  // nullptr when inactive
    index_t row0, col0;      // position of the tile, for the bias
  };

  // The depth loop.  b_at(p, j) is element (p, j) of the B micropanel: the
  // only thing that differs between a packed panel and in-place columns.
  template <class BAt>
  static GEMMKIT_INLINE void accumulate(index_t kc, const T* GEMMKIT_RESTRICT a,
                                        index_t a_step, BAt b_at,
                                        Reg (&acc)[NR][MR_REG]) {
    GEMMKIT_UNROLL_DEPTH
    for (index_t p = 0; p < kc; ++p) {
      Reg av[MR_REG];
#pragma GCC unroll 8
      for (int r = 0; r < MR_REG; ++r) av[r] = Ops::loadu(a + r * kLanes);
#pragma GCC unroll 16
      for (int j = 0; j < NR; ++j) {
        const Reg bj = Ops::splat(b_at(p, j));
#pragma GCC unroll 8
        for (int r = 0; r < MR_REG; ++r) acc[j][r] = Ops::mul_add(av[r], bj, acc[j][r]);
      }
      a += a_step;
    }
  }

  static GEMMKIT_INLINE Reg apply_epilogue(Reg v, const Epilogue<T>& e,
                                           index_t row, int rows, index_t col) {
    if (e.bias_kind == BiasKind::kPerRow) {
      const T* p = e.bias + row * e.bias_stride;
      Reg bias;
      if (e.bias_stride == 1) {
        bias = rows == kLanes ? Ops::loadu(p) : Ops::load_partial(p, rows);
      } else {
        T tmp[kLanes] = {};
        for (int i = 0; i < rows; ++i) tmp[i] = p[i * e.bias_stride];
        bias = Ops::loadu(tmp);
      }
      v = Ops::add(v, bias);
    } else if (e.bias_kind == BiasKind::kPerCol) {
      v = Ops::add(v, Ops::splat(e.bias[col * e.bias_stride]));
    }
    if (e.act == Activation::kRelu) {
      v = Ops::max(v, Ops::zero());
    } else if (e.act == Activation::kClip) {
      v = Ops::min(Ops::max(v, Ops::splat(e.lo)), Ops::splat(e.hi));
    }
    return v;
  }

  static GEMMKIT_INLINE void store(const Reg (&acc)[NR][MR_REG], index_t m_eff,
                                   index_t n_eff, const Store& s) {
    const Reg alpha = Ops::splat(s.alpha);
    const Reg beta = Ops::splat(s.beta);
    const bool scale = s.alpha != T(1);
    const bool read_c = s.beta != T(0);
    for (index_t j = 0; j < n_eff; ++j) {
      T* dcol = s.dst + j * s.cs_dst;
      const T* scol = s.src + j * s.cs_src;
#pragma GCC unroll 8
      for (int r = 0; r < MR_REG; ++r) {
        const index_t row = r * kLanes;
        if (row >= m_eff) break;
        const int rows = m_eff - row >= kLanes ? kLanes : int(m_eff - row);
        Reg v = scale ? Ops::mul(acc[j][r], alpha) : acc[j][r];
        if (read_c) {
          Reg c;
          if (s.rs_src == 1) {
            c = rows == kLanes ? Ops::loadu(scol + row) : Ops::load_partial(scol + row, rows);
          } else {
            T tmp[kLanes] = {};
            for (int i = 0; i < rows; ++i) tmp[i] = scol[(row + i) * s.rs_src];
            c = Ops::loadu(tmp);
          }
          v = Ops::mul_add(c, beta, v);
        }
        if (s.epi) v = apply_epilogue(v, *s.epi, s.row0 + row, rows, s.col0 + j);
        if (s.rs_dst == 1) {
          if (rows == kLanes) Ops::storeu(dcol + row, v);
          else Ops::store_partial(dcol + row, v, rows);
        } else {
          T tmp[kLanes];
          Ops::storeu(tmp, v);
          for (int i = 0; i < rows; ++i) dcol[(row + i) * s.rs_dst] = tmp[i];
        }
      }
    }
  }

  // Start pulling the C tile in now so the stores after the depth loop do
  // not wait on write-allocate misses.
  static GEMMKIT_INLINE void prefetch_c(index_t m_eff, index_t n_eff, const Store& s) {
    if (s.rs_dst != 1) return;
    for (index_t j = 0; j < n_eff; ++j) {
      const T* col = s.dst + j * s.cs_dst;
      for (index_t i = 0; i < m_eff; i += 64 / index_t(sizeof(T)))
        __builtin_prefetch(col + i, 1, 3);
      __builtin_prefetch(col + m_eff - 1, 1, 3);
    }
  }

  // One tile: C[0:m_eff, 0:n_eff] = epilogue(alpha * A B + beta * src),
  // B from a packed micropanel.
  static void run(index_t kc, const T* a, index_t a_step, const T* b,
                  index_t m_eff, index_t n_eff, const Store& s) {
    prefetch_c(m_eff, n_eff, s);
    Reg acc[NR][MR_REG];
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j)
#pragma GCC unroll 8
      for (int r = 0; r < MR_REG; ++r) acc[j][r] = Ops::zero();
    accumulate(kc, a, a_step, [b](index_t p, int j) { return b[p * NR + j]; }, acc);
    store(acc, m_eff, n_eff, s);
  }

  // One tile with B read in place: column j of the tile starts at
  // b + j * b_cs and is contiguous along the depth.  Columns past n_eff
  // read column 0 instead (always valid memory; their sums are discarded).
  static void run_cols(index_t kc, const T* a, index_t a_step, const T* b,
                       index_t b_cs, index_t m_eff, index_t n_eff, const Store& s) {
    prefetch_c(m_eff, n_eff, s);
    const T* col[NR];
    for (int j = 0; j < NR; ++j) col[j] = b + (j < n_eff ? j : 0) * b_cs;
    Reg acc[NR][MR_REG];
#pragma GCC unroll 16
    for (int j = 0; j < NR; ++j)
#pragma GCC unroll 8
      for (int r = 0; r < MR_REG; ++r) acc[j][r] = Ops::zero();
    // Element (p, j) is col[j][p]: NR streams, each contiguous along p.
    accumulate(kc, a, a_step, [&col](index_t p, int j) { return col[j][p]; }, acc);
    store(acc, m_eff, n_eff, s);
  }
};

}  // namespace gemmkit::kernel
