// L4 kernel: the one generic MR x NR microkernel, over any SIMD token and
// kernel family (family.hpp).
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

#include <cstdint>
#include <type_traits>

#include "kernel/task.hpp"
#include "scalar/requant.hpp"
#include "simd/kernel_simd.hpp"
#include "simd/simd_ops.hpp"

// Depth steps interleaved by the compiler.  On wasm the engine (not the
// compiler) allocates registers, and V8 has only 15 v128 registers on x64:
// interleaving steps raises the live count past that and spills.
#if defined(__wasm__)
#define GEMMKIT_UNROLL_DEPTH GEMMKIT_UNROLL(1)
#else
#define GEMMKIT_UNROLL_DEPTH GEMMKIT_UNROLL(4)
#endif

namespace gemmkit::kernel {

// The activation of one register (task.hpp states the rules).  Every
// token's max/min is exactly `a > b ? a : b` (resp. `<`; simd_ops.hpp), so
// a NaN or -0 v picks the second operand: NaN -> 0 (or lo) and -0 -> +0 on
// every ISA.
template <class Ops, class T>
static GEMMKIT_INLINE typename Ops::Reg activate(typename Ops::Reg v,
                                                 const Epilogue<T>& e) {
  if constexpr (is_complex_v<T>) {
    return v;  // no order, no activation (the api refuses one)
  } else if (e.act == Activation::kRelu) {
    v = Ops::max(v, Ops::zero());
  } else if (e.act == Activation::kClip) {
    v = Ops::min(Ops::max(v, Ops::splat(e.lo)), Ops::splat(e.hi));
  } else if constexpr (!std::is_integral_v<T>) {
    // Separate mul and add: see task.hpp for why this must not fuse.
    if (e.act == Activation::kLeakyRelu)
      v = Ops::add(Ops::max(v, Ops::zero()),
                   Ops::mul(Ops::splat(e.slope), Ops::min(v, Ops::zero())));
  }
  return v;
}

template <class Token, class T, int MR_REG, int NR>
struct FloatKernel {
  using Ops = simd::SimdOps<Token, T>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;

  // The depth loop.  b_at(p, j) is element (p, j) of the B micropanel: the
  // only thing that differs between a packed panel and in-place columns.
  // kStreamA: A is read in place, a stride apart per depth step, which the
  // hardware prefetchers do not follow: fetch kStreamDepth steps ahead
  // (16x4096x4096 in place: 0.55 -> 0.9x of packing it; 20 steps was worse).
  static constexpr index_t kStreamDepth = 8;
  template <bool kStreamA = false, class BAt>
  static GEMMKIT_INLINE void accumulate(index_t kc, const T* GEMMKIT_RESTRICT a,
                                        index_t a_step, BAt b_at,
                                        Reg (&acc)[NR][MR_REG]) {
    GEMMKIT_UNROLL_DEPTH
    for (index_t p = 0; p < kc; ++p) {
      Reg av[MR_REG];
      GEMMKIT_UNROLL(8)
      for (int r = 0; r < MR_REG; ++r) {
        if constexpr (kStreamA) GEMMKIT_PREFETCH_READ(a + kStreamDepth * a_step + r * kLanes);
        av[r] = Ops::loadu(a + r * kLanes);
      }
      GEMMKIT_UNROLL(16)
      for (int j = 0; j < NR; ++j) {
        const Reg bj = Ops::splat(b_at(p, j));
        GEMMKIT_UNROLL(8)
        for (int r = 0; r < MR_REG; ++r) acc[j][r] = Ops::mul_add(av[r], bj, acc[j][r]);
      }
      a += a_step;
    }
  }

};

// The store of one tile, shared by every family: acc (A registers) ->
// act(alpha * acc + beta * src + bias) -> O, or the requantizing map.
// For narrow O (f16/bf16) everything runs in float and rounds once, in
// KernelSimd::store_out.
template <class Token, class L, class R, class A, class O, int MR_REG, int NR>
struct TileStore {
  using KS = simd::KernelSimd<Token, L, R, A, O>;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  // int8 products' 8-bit outputs requantize; the 8-bit ring (uint8_t
  // inputs, kernel/widen.hpp) wraps.
  static constexpr bool kRequant = std::is_same_v<L, std::int8_t> && sizeof(O) == 1;

  // Where one tile's result goes and what it is combined with.
  struct Store {
    A alpha, beta;
    const O* src;  // read when beta != 0
    index_t rs_src, cs_src;
    O* dst;
    index_t rs_dst, cs_dst;
    const Epilogue<A>* epi;  // nullptr when inactive
    const Requant* rq;       // requantizing outputs only
    index_t row0, col0;      // position of the tile, for bias and scales
  };

  static GEMMKIT_INLINE Reg load_rows(const A* p, index_t stride, int rows) {
    if (stride == 1) return rows == kLanes ? Ops::loadu(p) : Ops::load_partial(p, rows);
    A tmp[kLanes] = {};
    for (int i = 0; i < rows; ++i) tmp[i] = p[i * stride];
    return Ops::loadu(tmp);
  }

  static GEMMKIT_INLINE Reg apply_epilogue(Reg v, const Epilogue<A>& e,
                                           index_t row, int rows, index_t col) {
    if (e.bias_kind == BiasKind::kPerRow) {
      v = Ops::add(v, load_rows(e.bias + row * e.bias_stride, e.bias_stride, rows));
    } else if (e.bias_kind == BiasKind::kPerCol) {
      v = Ops::add(v, Ops::splat(e.bias[col * e.bias_stride]));
    }
    return activate<Ops>(v, e);
  }

  // C's lanes [row, row + rows) of column pointer col, widened to A; the
  // seam's partials handle a ragged edge of a unit-stride column.
  static GEMMKIT_INLINE Reg load_c(const O* col, index_t row, index_t rs, int rows) {
    if (rs == 1) {
      return rows == kLanes ? KS::load_out(col + row) : KS::load_out_partial(col + row, rows);
    }
    O tmp[kLanes] = {};
    for (int i = 0; i < rows; ++i) tmp[i] = col[(row + i) * rs];
    return KS::load_out(tmp);
  }

  static GEMMKIT_INLINE void store_c(O* col, index_t row, index_t rs, int rows, Reg v) {
    if (rs == 1) {
      if (rows == kLanes) KS::store_out(col + row, v);
      else KS::store_out_partial(col + row, v, rows);
      return;
    }
    O tmp[kLanes];
    KS::store_out(tmp, v);
    for (int i = 0; i < rows; ++i) col[(row + i) * rs] = tmp[i];
  }

  // The requantizing store of lanes [row, row + rows) of column j.
  static GEMMKIT_INLINE void store_requant(O* col, index_t row, index_t rs, int rows,
                                           Reg v, const Requant& q, index_t grow,
                                           index_t gcol) {
    if (q.bias_kind == BiasKind::kPerRow) {
      v = Ops::add(v, load_rows(q.bias + grow * q.bias_stride, q.bias_stride, rows));
    } else if (q.bias_kind == BiasKind::kPerCol) {
      v = Ops::add(v, Ops::splat(q.bias[gcol * q.bias_stride]));
    }
    if constexpr (KS::kRequantVector) {
      // One scale for the whole register: the vector map (bit for bit the
      // scalar one).
      if (q.scale_kind != ScaleKind::kPerRow && rs == 1) {
        const float scale = q.scale[scale_index(q, grow, gcol)];
        auto* dst = reinterpret_cast<std::uint8_t*>(col + row);
        if (rows == kLanes) KS::requant_store(dst, v, scale, q.zero_point, q.lo, q.hi);
        else KS::requant_store_partial(dst, v, scale, q.zero_point, q.lo, q.hi, rows);
        return;
      }
    }
    A lanes[kLanes];
    Ops::storeu(lanes, v);
    for (int i = 0; i < rows; ++i) {
      const float scale = q.scale[scale_index(q, grow + i, gcol)];
      col[(row + i) * rs] = O(scalar::requantize(lanes[i], scale, q.zero_point, q.lo, q.hi));
    }
  }

  static GEMMKIT_INLINE void store(const Reg (&acc)[NR][MR_REG], index_t m_eff,
                                   index_t n_eff, const Store& s) {
    if constexpr (kRequant) {
      for (index_t j = 0; j < n_eff; ++j) {
        O* dcol = s.dst + j * s.cs_dst;
        GEMMKIT_UNROLL(8)
        for (int r = 0; r < MR_REG; ++r) {
          const index_t row = r * kLanes;
          if (row >= m_eff) break;
          const int rows = m_eff - row >= kLanes ? kLanes : int(m_eff - row);
          store_requant(dcol, row, s.rs_dst, rows, acc[j][r], *s.rq, s.row0 + row,
                        s.col0 + j);
        }
      }
      return;
    } else {
      const Reg alpha = Ops::splat(s.alpha);
      const Reg beta = Ops::splat(s.beta);
      const bool scale = s.alpha != A(1);
      const bool read_c = s.beta != A(0);
      for (index_t j = 0; j < n_eff; ++j) {
        O* dcol = s.dst + j * s.cs_dst;
        const O* scol = s.src + j * s.cs_src;
        GEMMKIT_UNROLL(8)
        for (int r = 0; r < MR_REG; ++r) {
          const index_t row = r * kLanes;
          if (row >= m_eff) break;
          const int rows = m_eff - row >= kLanes ? kLanes : int(m_eff - row);
          Reg v = scale ? Ops::mul(acc[j][r], alpha) : acc[j][r];
          if (read_c) v = Ops::mul_add(load_c(scol, row, s.rs_src, rows), beta, v);
          if (s.epi) v = apply_epilogue(v, *s.epi, s.row0 + row, rows, s.col0 + j);
          store_c(dcol, row, s.rs_dst, rows, v);
        }
      }
    }
  }

  // Start pulling the C tile in now so the stores after the depth loop do
  // not wait on write-allocate misses.
  static GEMMKIT_INLINE void prefetch_c(index_t m_eff, index_t n_eff, const Store& s) {
    if (s.rs_dst != 1) return;
    for (index_t j = 0; j < n_eff; ++j) {
      const O* col = s.dst + j * s.cs_dst;
      for (index_t i = 0; i < m_eff; i += 64 / index_t(sizeof(O)))
        GEMMKIT_PREFETCH_WRITE(col + i);
      GEMMKIT_PREFETCH_WRITE(col + m_eff - 1);
    }
  }
};

// One tile of any family (family.hpp): initialize the accumulators (zeros,
// or a seed read back from an A-typed scratch tile written by the previous
// depth slice), run the family's depth loop, store through TileStore.
template <class Family>
struct Microkernel {
  using Token = typename Family::Token;
  using L = typename Family::L;
  using R = typename Family::R;
  using A = typename Family::A;
  using PA = typename Family::PA;
  using PB = typename Family::PB;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  static constexpr int kMrReg = Family::kMrReg;
  static constexpr int kNr = Family::kNr;
  static constexpr int kLanes = Ops::kLanes;
  template <class O>
  using Store = TileStore<Token, L, R, A, O, kMrReg, kNr>;

  // A seed: the raw sums of earlier depth slices, m_eff x n_eff at seed
  // (unit row stride, column stride ld).
  struct Seed {
    const A* p;
    index_t ld;
  };

  static GEMMKIT_INLINE void init(Reg (&acc)[kNr][kMrReg], index_t m_eff,
                                  index_t n_eff, const Seed* seed) {
    GEMMKIT_UNROLL(16)
    for (int j = 0; j < kNr; ++j)
      GEMMKIT_UNROLL(8)
      for (int r = 0; r < kMrReg; ++r) acc[j][r] = Ops::zero();
    if (!seed) return;
    for (index_t j = 0; j < n_eff; ++j) {
      const A* col = seed->p + j * seed->ld;
      for (int r = 0; r < kMrReg; ++r) {
        const index_t row = r * kLanes;
        if (row >= m_eff) break;
        acc[j][r] = m_eff - row >= kLanes ? Ops::loadu(col + row)
                                          : Ops::load_partial(col + row, int(m_eff - row));
      }
    }
  }

  // Families whose depth loop can start a tile from zero in memory
  // (kernel/amx.hpp: accumulate_into with load_c false): with no seed, run
  // lets the tiles zero themselves instead of zeroing acc and loading it.
  static constexpr bool kZeroesInto = requires(const PA* a, const PB* b, A* c) {
    Family::accumulate_into(index_t(1), a, b, c, index_t(1), false);
  };

  // A full tile's seed the tile loads can read themselves (kZeroesInto
  // families: accumulate_from); an edge tile's seed may end short of a
  // whole tile, so it goes through init.
  static bool tile_seed(const Seed* seed, index_t m_eff, index_t n_eff) {
    return seed && m_eff == kMrReg * kLanes && n_eff == kNr;
  }

  template <class O>
  static void run(index_t kc, const PA* a, const PB* b, index_t m_eff, index_t n_eff,
                  const Seed* seed, const typename Store<O>::Store& s) {
    Store<O>::prefetch_c(m_eff, n_eff, s);
    Reg acc[kNr][kMrReg];
    if constexpr (kZeroesInto) {
      if (!seed) {
        Family::accumulate_into(kc, a, b, reinterpret_cast<A*>(&acc[0][0]), kMrReg * kLanes,
                                false);
        Store<O>::store(acc, m_eff, n_eff, s);
        return;
      }
      if (tile_seed(seed, m_eff, n_eff)) {
        Family::accumulate_from(kc, a, b, seed->p, seed->ld, acc);
        Store<O>::store(acc, m_eff, n_eff, s);
        return;
      }
    }
    init(acc, m_eff, n_eff, seed);
    Family::accumulate(kc, a, b, acc);
    Store<O>::store(acc, m_eff, n_eff, s);
  }

  // run() with B's kNr columns read in place, column j at b + j * b_cs
  // (tile families: Family::accumulate_columns, kernel/amx.hpp).
  template <class O>
  static void run_columns(index_t kc, const PA* a, const PB* b, index_t b_cs, index_t m_eff,
                          index_t n_eff, const Seed* seed, const typename Store<O>::Store& s) {
    Store<O>::prefetch_c(m_eff, n_eff, s);
    Reg acc[kNr][kMrReg];
    if (!seed) {
      Family::accumulate_into_columns(kc, a, b, b_cs, reinterpret_cast<A*>(&acc[0][0]),
                                      kMrReg * kLanes, false);
    } else if (tile_seed(seed, m_eff, n_eff)) {
      Family::accumulate_from_columns(kc, a, b, b_cs, seed->p, seed->ld, acc);
    } else {
      init(acc, m_eff, n_eff, seed);
      Family::accumulate_columns(kc, a, b, b_cs, acc);
    }
    Store<O>::store(acc, m_eff, n_eff, s);
  }

  // In-place variants of the homogeneous families (Family::kInplace): A
  // rows at a_step per depth step, and/or B read as NR columns contiguous
  // along the depth (column j at b + j * b_cs; columns past n_eff read
  // column 0: always valid memory, their sums are discarded).
  template <class O>
  static void run_inplace(index_t kc, const PA* a, index_t a_step, const PB* b,
                          index_t b_cs, bool b_cols, index_t m_eff, index_t n_eff,
                          const typename Store<O>::Store& s) {
    using Loop = FloatKernel<Token, A, kMrReg, kNr>;
    Store<O>::prefetch_c(m_eff, n_eff, s);
    Reg acc[kNr][kMrReg];
    init(acc, m_eff, n_eff, nullptr);
    if constexpr (requires { Family::accumulate_columns(kc, a, b, b_cs, acc); }) {
      // A family with its own loop over in-place columns (the avx512f
      // pipelined tiles, pipelined_avx512.hpp): full-width tiles of a packed A.
      if (b_cols && a_step == Loop::kMr && n_eff == kNr) {
        Family::accumulate_columns(kc, a, b, b_cs, acc);
        Store<O>::store(acc, m_eff, n_eff, s);
        return;
      }
    }
    if (b_cols) {
      // kNr columns read in place, each its own stream (rows of a row-major
      // A, a stride apart).  On a tile of one register of rows (the short
      // tile), float64 columns cross a cache line every 8 steps of a short
      // loop and the hardware prefetchers fall behind on a dozen such
      // streams, so every 8 steps each column's line 8 lines ahead is
      // fetched.  Measured on a Xeon, 2026-12-04, one thread: 4096x8x4096
      // float64 24 -> 27-29 GFLOP/s; the same on float32 (lines crossed
      // half as often) lost 10%, on the taller main tile 5-8%; WebAssembly
      // has no prefetch.
#if defined(__wasm__)
      constexpr bool kPrefetchColumns = false;
#else
      constexpr bool kPrefetchColumns = sizeof(PB) == 8 && kMrReg == 1;
#endif
      const PB* col[kNr];
      for (int j = 0; j < kNr; ++j) col[j] = b + (j < n_eff ? j : 0) * b_cs;
      if constexpr (kPrefetchColumns) {
        constexpr index_t kBStep = 64 / index_t(sizeof(PB));
        constexpr index_t kBAhead = 8 * kBStep;
        for (index_t p0 = 0; p0 < kc; p0 += kBStep) {
          const index_t steps = kc - p0 < kBStep ? kc - p0 : kBStep;
          if (p0 + kBAhead < kc)
            for (int j = 0; j < kNr; ++j) GEMMKIT_PREFETCH_READ(col[j] + p0 + kBAhead);
          const auto b_at = [&col, p0](index_t p, int j) { return col[j][p0 + p]; };
          const PA* a_p = a + p0 * a_step;
          if (a_step != Loop::kMr) Loop::template accumulate<true>(steps, a_p, a_step, b_at, acc);
          else Loop::accumulate(steps, a_p, a_step, b_at, acc);
        }
      } else {
        const auto b_at = [&col](index_t p, int j) { return col[j][p]; };
        if (a_step != Loop::kMr) Loop::template accumulate<true>(kc, a, a_step, b_at, acc);
        else Loop::accumulate(kc, a, a_step, b_at, acc);
      }
    } else if (a_step != Loop::kMr) {
      Loop::template accumulate<true>(kc, a, a_step,
                                      [b](index_t p, int j) { return b[p * kNr + j]; }, acc);
    } else {
      Loop::accumulate(kc, a, a_step, [b](index_t p, int j) { return b[p * kNr + j]; }, acc);
    }
    Store<O>::store(acc, m_eff, n_eff, s);
  }
};

}  // namespace gemmkit::kernel
