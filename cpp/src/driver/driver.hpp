// L5 driver: the generic blocked loop nest (BLIS's five loops) over any
// kernel family (kernel/family.hpp), token and tile geometry.
//
//   for jc in n by NC                 (B block -> L3)
//     for pc in k by KC               (pack B block, shared by the team)
//       for each (ic block, jr chunk) job of this thread
//         pack the A block (mc x kc)  (-> L2; or read A in place)
//         for jr in chunk by NR       (B micropanel -> L1)
//           for ir in block by MR     microkernel
//
// Where B is read in place under a small A (work_stream), the order turns:
// A is packed whole, and each B micropanel runs through every depth slice
// in turn (the same slices, so the same sums).  The tile families read B's
// whole micropanels in place where its columns are contiguous along the
// depth and close together (tile_columns); the tiles load what packing
// would have copied, so the sums are the same.
//
// Work is split only over output tiles and the depth loop is never split,
// so every element of C sees the same operations in the same order for any
// thread count: results are bit-identical across thread counts.
//
// Depth slices meet in C when the output is the accumulator (beta = 1 after
// the first slice).  A narrow or requantized output is written once: the
// depth is one slice, or the slices resume from raw sums kept in an A-typed
// scratch (the deep-K twin, and every prepacked call), bit-identical to one
// slice.  A prepacked A (a PackedRhs) replaces the A packing.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "cache/cache_info.hpp"
#include "kernel/microkernel.hpp"
#include "pack/pack.hpp"
#include "parallel/partition.hpp"
#include "parallel/thread_pool.hpp"
#include "parallel/workspace.hpp"
#include "tuning/tuning.hpp"
#include "gemmkit/gemmkit.h"

namespace gemmkit::driver {

// Family: see kernel/family.hpp.  O: the output type (Family::A itself, a
// narrower float, or an 8-bit requantized integer).
template <class Family, class O>
struct BlockedGemm {
  using Token = typename Family::Token;
  using L = typename Family::L;
  using A = typename Family::A;
  using PA = typename Family::PA;
  using PB = typename Family::PB;
  using Task = GemmTask<L, A, O>;
  using Kernel = kernel::Microkernel<Family>;
  using Seed = typename Kernel::Seed;
  using FinalStore = typename Kernel::template Store<O>::Store;
  using ScratchStore = typename Kernel::template Store<A>::Store;
  static constexpr int kMr = Family::kMr;
  static constexpr int NR = Family::kNr;
  // Outputs that cannot hold partial sums (narrow floats, requantized
  // integers) are written once, after the whole depth.
  static constexpr bool kOutIsAcc = std::is_same_v<A, O>;

  struct Plan {
    Task t;
    index_t kc, mc_max, nc;
    bool inplace_a;     // full MR panels of A are read without packing
    bool inplace_b;     // B's columns are contiguous along k: read in place
    bool seeded;        // depth slices accumulate in `scratch` (deep-K twin)
    bool direct;        // tile kernel summing straight into C (direct_mode)
    bool stream_b;      // B in place, each NR panel streamed through every slice (work_stream)
    bool tile_columns;  // tile family: B's whole NR panels read in place, the rest packed
    PB* b_pack;         // b_panel_size(kc) per NR panel
    PA* a_pack;         // one region of a_stride elements per team member
    index_t a_stride;
    A* scratch;         // m x nc raw sums, column-major, leading dim ld
    index_t ld;
    const PA* packed_a;  // prepacked A (t.packed_a), else nullptr
  };

  // Families whose depth loop can run on a tile of C in memory
  // (kernel/amx.hpp): accumulate_into(kc, a, b, c, ldc, load_c).
  static constexpr bool kDirect = requires(const PA* a, const PB* b, A* c) {
    Family::accumulate_into(index_t(1), a, b, c, index_t(1), true);
  };

  // Tile families that can also read B's columns in place (kernel/amx.hpp:
  // accumulate_columns, accumulate_into_columns).
  static constexpr bool kTileColumns = requires(const PA* a, const PB* b, A* c) {
    Family::accumulate_into_columns(index_t(1), a, b, index_t(1), c, index_t(1), true);
  };

  // A tile family's depth loop on C in memory (accumulate_into), B from its
  // packed panel or, where b_cols, its columns in place at b_src.
  static void tile_into(const Plan& plan, bool b_cols, index_t kc, const PA* a,
                        const PB* b_panel, const L* b_src, A* c, index_t ldc, bool load_c) {
    if constexpr (kTileColumns) {
      if (b_cols) {
        Family::accumulate_into_columns(kc, a, reinterpret_cast<const PB*>(b_src), plan.t.cs_b,
                                        c, ldc, load_c);
        return;
      }
    }
    Family::accumulate_into(kc, a, b_panel, c, ldc, load_c);
  }

  // Kernel::run, B as in tile_into.
  template <class Out>
  static void run_tile(const Plan& plan, bool b_cols, index_t kc, const PA* a,
                       const PB* b_panel, const L* b_src, index_t m_eff, index_t n_eff,
                       const Seed* seed, const typename Kernel::template Store<Out>::Store& s) {
    if constexpr (kTileColumns) {
      if (b_cols) {
        Kernel::template run_columns<Out>(kc, a, reinterpret_cast<const PB*>(b_src),
                                          plan.t.cs_b, m_eff, n_eff, seed, s);
        return;
      }
    }
    Kernel::template run<Out>(kc, a, b_panel, m_eff, n_eff, seed, s);
  }

  static index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }
  static index_t min_i(index_t a, index_t b) { return a < b ? a : b; }

  // Offset of panel q of the depth slice starting at pc in a prepacked A of
  // m rows (layout of prepack(): slices of plan.kc, panels end to end).
  static index_t packed_offset(const Plan& plan, index_t pc, index_t q, index_t kcs) {
    const index_t panels = ceil_div(plan.t.m, kMr);
    return (pc / plan.kc) * panels * Family::a_panel_size(plan.kc) +
           q * Family::a_panel_size(kcs);
  }

  // A packed A panel starts on a 64-byte line, or (a depth step of the panel
  // being shorter: scalar, simd128) on a multiple of that step: the packed
  // blocks and prepacked operands start on a line and the panels lie end to
  // end.  Checked in the sanitizer build (GEMMKIT_CHECK_ALIGNMENT), where
  // every GEMM of the C++ tests goes through here; a misaligned panel aborts.
  static void check_panel_alignment([[maybe_unused]] const PA* panel) {
#if defined(GEMMKIT_CHECK_ALIGNMENT)
    constexpr std::size_t kStep = std::size_t(Family::a_panel_size(1)) * sizeof(PA);
    constexpr std::size_t kAlign = kStep % 64 == 0 ? 64 : kStep & (~kStep + 1);
    if (reinterpret_cast<std::uintptr_t>(panel) % kAlign != 0) {
      std::fprintf(stderr, "gemmkit: packed panel %p of %s is not %zu-byte aligned\n",
                   static_cast<const void*>(panel), Token::kName, kAlign);
      std::abort();
    }
#endif
  }

  // Families that conjugate while packing (kernel/complex.hpp) take the
  // task's flag; the others have nothing to conjugate.
  static constexpr bool kConjugates = requires { Family::kConjugates; };
  static void pack_a_panel(index_t kc, index_t width, const L* src, index_t rs,
                           index_t cs, PA* dst, bool conj) {
    if constexpr (kConjugates) Family::pack_a(kc, width, src, rs, cs, dst, conj);
    else Family::pack_a(kc, width, src, rs, cs, dst);
  }
  static void pack_b_panel(index_t kc, index_t width, const L* src, index_t rs,
                           index_t cs, PB* dst, bool conj) {
    if constexpr (kConjugates) Family::pack_b(kc, width, src, rs, cs, dst, conj);
    else Family::pack_b(kc, width, src, rs, cs, dst);
  }

  // Packs rows [0, rows) x depth [0, kc) of A into consecutive MR panels.
  // A source contiguous along the rows goes to the family's pack_a_rows
  // where it has one (the tile families): a few depth steps of every panel
  // at a time, so each source row segment is read front to back, where a
  // panel at a time reads a 64-byte strip of it per row.  Measured on a Xeon
  // with AMX, 2026-12-05, one thread, row-major operands (alternating
  // builds): bfloat16 256^3 +3-12%, 512^3 +3-10%, 1024^3 +6-10%, 2048^3
  // -1..+6%; int8 1024^3 -1..+6%, 2048^3 +5-11%.  (float16's split packing
  // lost 3-6% at 1024 that way: its split pass re-reads each panel.)
  static void pack_a_block(index_t rows, index_t kc, const L* a, index_t rs,
                           index_t cs, PA* dst, bool conj) {
    if constexpr (Family::kInplace) {
      pack::pack_a<Token, A, kMr>(rows, kc, a, rs, cs, dst);
    } else {
      if constexpr (requires { Family::pack_a_rows(kc, rows, a, cs, dst); }) {
        if (rs == 1) return Family::pack_a_rows(kc, rows, a, cs, dst);
      }
      for (index_t i = 0; i < rows; i += kMr) {
        pack_a_panel(kc, min_i(kMr, rows - i), a + i * rs, rs, cs, dst, conj);
        dst += Family::a_panel_size(kc);
      }
    }
  }

  // The store of depth slice [pc, pc + kc) into C: alpha, beta on the first
  // slice (from c_in), beta 1 on the later ones (from c_out), the epilogue
  // on the last.
  static FinalStore slice_store(const Plan& plan, index_t pc, index_t kc) {
    const Task& t = plan.t;
    const bool first = pc == 0;
    const bool last = pc + kc >= t.k;
    FinalStore s{};
    s.alpha = t.alpha;
    s.beta = (first || !kOutIsAcc || plan.seeded) ? t.beta : A(1);
    const bool from_c_in = first || !kOutIsAcc || plan.seeded;
    s.src = from_c_in ? t.c_in : t.c_out;
    s.rs_src = from_c_in ? t.rs_ci : t.rs_co;
    s.cs_src = from_c_in ? t.cs_ci : t.cs_co;
    s.rs_dst = t.rs_co;
    s.cs_dst = t.cs_co;
    s.epi = last && epilogue_active(t.epi) ? &t.epi : nullptr;
    s.rq = &t.rq;
    return s;
  }

  // The same store placed at the tile of C at row i, column j.
  static FinalStore tile_store(const Task& t, const FinalStore& slice, index_t i, index_t j) {
    FinalStore s = slice;
    if (s.beta != A(0)) s.src += i * s.rs_src + j * s.cs_src;
    s.dst = t.c_out + i * t.rs_co + j * t.cs_co;
    s.row0 = i;
    s.col0 = j;
    return s;
  }

  // Streaming order, for B read in place under an A whose every slice stays
  // in L2 (few rows: a 4096x16 C seen transposed): each NR panel of B runs
  // through all the depth slices before the next panel starts, so its
  // columns are read front to back as a few long streams, where the usual
  // order (slices outside) restarts every column stream once per slice and
  // the hardware prefetchers ramp up again each time.  A is packed whole
  // first (or is prepacked).  The slices, and so every element's sums, are
  // those of the usual order: the same bits.
  static void work_stream(const Plan& plan, const parallel::Team& team) {
    const Task& t = plan.t;
    if (!plan.packed_a) {
      // Slices of A dealt out among the team, laid out as a prepacked A.
      for (index_t pc = team.tid * plan.kc; pc < t.k; pc += team.size * plan.kc)
        pack_a_block(t.m, min_i(plan.kc, t.k - pc), t.a + pc * t.cs_a, t.rs_a, t.cs_a,
                     plan.a_pack + packed_offset(plan, pc, 0, plan.kc), t.conj_a);
      if (team.size > 1) parallel::barrier(team);
    }
    const PA* a_all = plan.packed_a ? plan.packed_a : plan.a_pack;
    const index_t panels = ceil_div(t.n, NR);
    const index_t q1 = panels * (team.tid + 1) / team.size;
    for (index_t q = panels * team.tid / team.size; q < q1; ++q) {
      const index_t j = q * NR;
      const index_t n_eff = min_i(NR, t.n - j);
      for (index_t pc = 0; pc < t.k; pc += plan.kc) {
        const index_t kc = min_i(plan.kc, t.k - pc);
        const FinalStore slice = slice_store(plan, pc, kc);
        const L* b_cols = t.b + pc * t.rs_b + j * t.cs_b;
        for (index_t i = 0; i < t.m; i += kMr) {
          const PA* a_tile = a_all + packed_offset(plan, pc, i / kMr, kc);
          check_panel_alignment(a_tile);
          if constexpr (Family::kInplace)
            Kernel::template run_inplace<O>(kc, a_tile, kMr, b_cols, t.cs_b, true,
                                            min_i(kMr, t.m - i), n_eff,
                                            tile_store(t, slice, i, j));
        }
      }
    }
  }

  // Packs B panels [q0, q1) of the kc x nc block at b.  A row-major B is
  // read a row at a time (pack::pack_b's rows_first) when the block is
  // larger than half of L2, so that it streams from memory.  Measured on a
  // Xeon, 2026-12-05, one thread, C column-major and B row-major: float32
  // 2048^3 +5-9%, float64 512^3 +1-5%; 256^3 (in L2) lost 3-6% that way.
  // skip_full: only a last, partial panel is packed (the tile families read
  // whole panels in place: tile_columns).
  static void pack_b_block(index_t kc, index_t nc, index_t q0, index_t q1, const L* b,
                           index_t rs, index_t cs, PB* dst, bool conj, bool skip_full) {
    if constexpr (Family::kInplace) {
      const bool rows_first = double(kc) * double(nc) * sizeof(L) > double(cache::info().l2) / 2;
      pack::pack_b<Token, A, NR>(kc, nc, q0, q1, b, rs, cs, dst, rows_first);
    } else {
      const index_t panel = Family::b_panel_size(kc);
      for (index_t q = q0; q < q1; ++q) {
        const index_t width = min_i(NR, nc - q * NR);
        if (skip_full && width == NR) continue;
        pack_b_panel(kc, width, b + q * NR * cs, cs, rs, dst + q * panel, conj);
      }
    }
  }

  // The part of the loop nest one team member executes.
  static void work(void* ctx, const parallel::Team& team) {
    const Plan& plan = *static_cast<const Plan*>(ctx);
    if (plan.stream_b) return work_stream(plan, team);
    const Task& t = plan.t;
    const index_t kc_max = plan.kc;
    PA* a_pack = plan.a_pack + team.tid * plan.a_stride;

    for (index_t jc = 0; jc < t.n; jc += plan.nc) {
      const index_t nc = min_i(plan.nc, t.n - jc);
      const index_t panels = ceil_div(nc, NR);
      // Row blocks and panel chunks of this block: parallel/partition.hpp.
      const parallel::Partition part =
          parallel::partition(t.m, panels, plan.mc_max, kMr, team.size);
      const index_t chunks = part.chunks;
      const parallel::JobRange mine = parallel::jobs_of(part, team.tid, team.size);
      const index_t job0 = mine.first;
      const index_t job1 = mine.last;

      for (index_t pc = 0; pc < t.k; pc += kc_max) {
        const index_t kc = min_i(kc_max, t.k - pc);
        const index_t b_panel = Family::b_panel_size(kc);
        const bool first = pc == 0;
        const bool last = pc + kc >= t.k;
        // Pack this depth slice of B, each member a share of the panels.
        if (!plan.inplace_b) {
          const index_t q0 = panels * team.tid / team.size;
          const index_t q1 = panels * (team.tid + 1) / team.size;
          pack_b_block(kc, nc, q0, q1, t.b + pc * t.rs_b + jc * t.cs_b, t.rs_b, t.cs_b,
                       plan.b_pack, t.conj_b, plan.tile_columns);
          parallel::barrier(team);
        }

        // Final store: into C, with alpha, beta, epilogue, requantization.
        // Intermediate slices of a seeded run store raw sums into scratch.
        const FinalStore slice = slice_store(plan, pc, kc);
        ScratchStore ss{};
        ss.alpha = A(1);
        ss.beta = A(0);
        ss.rs_dst = 1;
        ss.cs_dst = plan.ld;

        index_t packed_block = -1;
        for (index_t job = job0; job < job1; ++job) {
          const index_t blk = job / chunks;
          const index_t chunk = job % chunks;
          const parallel::RowRange block_rows = parallel::rows_of(part, blk, t.m);
          const index_t i0 = block_rows.first;
          const index_t rows = block_rows.last - block_rows.first;
          const L* a_src = t.a + i0 * t.rs_a + pc * t.cs_a;
          const index_t full_rows = plan.inplace_a ? rows / kMr * kMr : 0;
          if (!plan.packed_a && packed_block != blk) {
            // In-place mode packs only the ragged last panel.
            pack_a_block(rows - full_rows, kc, a_src + full_rows * t.rs_a, t.rs_a,
                         t.cs_a, a_pack, t.conj_a);
            packed_block = blk;
          }
          const parallel::PanelRange run = parallel::panels_of(part, chunk, panels);
          const index_t q0 = run.first;
          const index_t q1 = run.last;
          for (index_t q = q0; q < q1; ++q) {
            const index_t j = jc + q * NR;
            const index_t n_eff = min_i(NR, t.n - j);
            const PB* b_panel_p = plan.b_pack + q * b_panel;
            const bool b_cols = plan.tile_columns && n_eff == NR;
            const L* b_src = t.b + pc * t.rs_b + j * t.cs_b;
            for (index_t ir = 0; ir < rows; ir += kMr) {
              const index_t m_eff = min_i(kMr, rows - ir);
              const index_t i = i0 + ir;
              const PA* a_tile;
              if (plan.packed_a) {
                a_tile = plan.packed_a + packed_offset(plan, pc, i / kMr, kc);
              } else if (ir < full_rows) {
                a_tile = nullptr;  // read in place below
              } else {
                a_tile = a_pack + (ir - full_rows) / kMr * Family::a_panel_size(kc);
              }
              if (a_tile) check_panel_alignment(a_tile);
              A* scratch_tile = plan.seeded ? plan.scratch + i + (j - jc) * plan.ld : nullptr;
              const Seed seed{scratch_tile, plan.ld};
              const Seed* seed_p = plan.seeded && !first ? &seed : nullptr;
              if constexpr (kDirect) {
                // Tile kernels run the depth on memory directly: raw sums
                // into the scratch, or C itself in direct mode.
                if (plan.seeded && !last && m_eff == kMr && n_eff == NR) {
                  tile_into(plan, b_cols, kc, a_tile, b_panel_p, b_src, scratch_tile, plan.ld,
                            !first);
                  continue;
                }
                if constexpr (kOutIsAcc) {
                  if (plan.direct) {
                    A* c_tile = t.c_out + i * t.rs_co + j * t.cs_co;
                    const bool resume = !first || t.beta != A(0);
                    if (m_eff == kMr && n_eff == NR) {
                      tile_into(plan, b_cols, kc, a_tile, b_panel_p, b_src, c_tile, t.cs_co,
                                resume);
                    } else {
                      // Edge tiles resume from C too, so every tile sums alike.
                      const Seed from_c{c_tile, t.cs_co};
                      ScratchStore cs = ss;
                      cs.dst = c_tile;
                      cs.cs_dst = t.cs_co;
                      run_tile<A>(plan, b_cols, kc, a_tile, b_panel_p, b_src, m_eff, n_eff,
                                  resume ? &from_c : nullptr, cs);
                    }
                    continue;
                  }
                }
              }
              if (plan.seeded && !last) {
                ss.dst = scratch_tile;
                ss.row0 = i;
                ss.col0 = j;
                run_tile<A>(plan, b_cols, kc, a_tile, b_panel_p, b_src, m_eff, n_eff, seed_p, ss);
                continue;
              }
              const FinalStore s = tile_store(t, slice, i, j);
              if constexpr (Family::kInplace) {
                if (plan.inplace_b || (!plan.packed_a && ir < full_rows)) {
                  const bool in_a = !plan.packed_a && ir < full_rows;
                  Kernel::template run_inplace<O>(
                      kc, in_a ? a_src + ir : a_tile, in_a ? t.cs_a : kMr,
                      plan.inplace_b ? t.b + pc * t.rs_b + j * t.cs_b : b_panel_p,
                      t.cs_b, plan.inplace_b, m_eff, n_eff, s);
                  continue;
                }
              }
              run_tile<O>(plan, b_cols, kc, a_tile, b_panel_p, b_src, m_eff, n_eff, seed_p, s);
            }
          }
        }
        if (!plan.inplace_b) parallel::barrier(team);  // B is repacked next slice
      }
    }
  }

  // Depth per slice: the cache blocking's kc (computed for the family's
  // main NR, so every tile width of one type slices the depth alike: a
  // prepacked operand and a plain call then round identically).  Outputs
  // that are not the accumulator take the whole depth as one slice unless
  // its B panel would overflow half of L2 (DEEP_KC_BYTES): then slices
  // accumulate in an A-typed scratch (the deep-K twin), which is
  // bit-identical because each slice resumes from the previous raw sums.
  static index_t slice_depth(index_t m, index_t n, index_t k, int blocking_nr) {
    return slice_depth_from(cache::blocking(kMr, blocking_nr, int(sizeof(PB)), m, n, k).kc, k);
  }

  // The same, from the blocking's kc, within the family's own depth rules
  // (the tile families, kernel/amx.hpp): equal slices near kDeepSliceDepth
  // in place of the blocking's, the whole depth as one slice up to
  // kOneSliceUpTo, slices of at least kMinSliceDepth.
  static index_t slice_depth_from(index_t kc, index_t k) {
    if constexpr (requires { Family::kDeepSliceDepth; }) {
      if (k > 0) kc = ceil_div(k, ceil_div(k, Family::kDeepSliceDepth));
    }
    if constexpr (requires { Family::kOneSliceUpTo; }) {
      if (k <= Family::kOneSliceUpTo) kc = k;
    }
    if constexpr (requires { Family::kMinSliceDepth; }) {
      if (kc < Family::kMinSliceDepth) kc = Family::kMinSliceDepth < k ? Family::kMinSliceDepth : k;
    }
    const index_t dm = Family::kDepthMultiple;
    kc = ceil_div(kc, dm) * dm;
    return kc;
  }

  // The byte limit a knob sets, where its 0 means half of L2.
  static double bytes_or_half_l2(tuning::Knob knob) {
    const std::size_t limit = tuning::get(knob);
    return double(limit != 0 ? limit : cache::info().l2 / 2);
  }

  static bool deep(index_t k, index_t kc) {
    if (k <= kc) return false;
    const double bytes = double(NR) * double(k) * double(sizeof(PB));
    return bytes > bytes_or_half_l2(tuning::Knob::kDeepKcBytes);
  }

  // Whether B read in place streams each panel through every slice
  // (work_stream) under an A of a_elems packed elements: while all of A
  // fits half of L2 (STREAM_B_BYTES).  Measured on a Xeon, 2026-12-05, one
  // thread, k = 4096, C of 4096 rows and n columns (A the n x 4096 side):
  // float64 n = 8 32 -> 43-45 GFLOP/s, n = 16 51-55 -> 70, n = 32 64-69 ->
  // 71-73; float32 n = 16 122 -> 141; two threads, float64 n = 16 +33%.
  static bool streams_b(index_t a_elems) {
    return double(a_elems) * double(sizeof(PA)) <= bytes_or_half_l2(tuning::Knob::kStreamBBytes);
  }

  // Direct mode (tile kernels): the output is the plain sum alpha = 1,
  // no epilogue, unit-stride C, beta 0 or beta 1 on C itself, so every
  // depth slice of every tile resumes from C in memory and no zmm store
  // pass runs at all.
  static bool direct_mode(const Task& t) {
    if (t.alpha != A(1) || epilogue_active(t.epi) || t.rs_co != 1) return false;
    if (t.beta == A(0)) return true;
    return t.beta == A(1) && t.c_in == t.c_out && t.rs_ci == 1 && t.cs_ci == t.cs_co;
  }

  // Entry for an oriented task (rs_co == 1 when C has a unit stride).
  // blocking_nr: the NR the depth slicing is computed for (the family's
  // main tile width when this is a narrower variant).
  static int run(const Task& t, int blocking_nr = NR) {
    Plan plan{};
    plan.t = t;
    const cache::Blocking blk =
        cache::blocking(kMr, blocking_nr, int(sizeof(PB)), t.m, t.n, t.k);
    plan.packed_a = static_cast<const PA*>(t.packed_a);
    index_t kc = plan.packed_a ? t.packed_kc : slice_depth_from(blk.kc, t.k);
    if constexpr (!kOutIsAcc) {
      // Tile kernels write raw sums cheaply (accumulate_into), so they always
      // slice the depth; the others only when one slice would not fit.
      plan.seeded = t.k > kc && (plan.packed_a || kDirect || deep(t.k, kc));
      if (!plan.seeded) kc = t.k;
    } else if constexpr (kDirect) {
      plan.direct = direct_mode(t);
    }
    if constexpr (kTileColumns) {
      // B with unit stride along the depth and columns under 1 KiB apart is
      // read in place: its whole panels are not packed (every slice is a
      // whole number of chunks).  Measured on a Xeon with AMX, 2026-12-05,
      // one thread, alternating builds: bfloat16 1024x1024x384 (768-byte
      // stride) +6-13%, 2048x2048x128 +2-6%, 256^3 -1..+7%; int8
      // 1024x1024x512 +4-6%, 256^3 +5-12%.  From 1 KiB the strided tile
      // loads lose to the packed panel: bfloat16 k = 512 -8%, 544 -10%,
      // 1056 -2%, 2048^3 -28%; int8 k = 1024 -12%.
      const index_t stride = (t.cs_b < 0 ? -t.cs_b : t.cs_b) * index_t(sizeof(PB));
      plan.tile_columns = t.rs_b == 1 && t.k % Family::kDepthMultiple == 0 && stride < 1024;
    }
    plan.kc = kc < t.k ? kc : t.k;
    if (plan.kc < 1) plan.kc = 1;
    // Whole panels of this family's NR: the blocking rounded nc to
    // blocking_nr, which a narrower variant's NR need not divide.
    const index_t nc_panels = ceil_div(index_t(blk.nc), NR) * NR;
    plan.nc = nc_panels < t.n ? nc_panels : t.n;
    // mc from the blocking, scaled down when one slice is deeper than the
    // blocking assumed, so the packed A block still fits its L2 share.
    index_t mc = blk.mc;
    if (plan.kc > blk.kc) mc = mc * blk.kc / plan.kc / kMr * kMr;
    plan.mc_max = mc < kMr ? kMr : mc;

    const int threads = team_size(t);
    index_t whole_a = 0;  // elements of the whole packed A (streaming order)
    if constexpr (Family::kInplace) {
      plan.inplace_a = !plan.packed_a && t.rs_a == 1 &&
                       t.n <= index_t(tuning::get(tuning::Knob::kInplaceLhsMaxN));
      // B with unit stride along k (a row-major A seen through the
      // transposed orientation) would need a transposing pack; reading its
      // columns in place costs nothing extra while NR of them stay in L1
      // next to the A panel, i.e. while their other dimension is small
      // enough to reuse, or when there are few row tiles (up to 8): each
      // element of B is then used a few times, from L1, and a pack would
      // only add traffic.  Measured on a Xeon, 2026-12-04, one thread, C of
      // 4096 rows and n columns, k = 4096: float64 n = 16 21.7 -> 37-40
      // GFLOP/s, n = 32 35 -> 45-49; float32 n = 64 105 -> 136-140, n = 256
      // 129 -> 148.
      plan.inplace_b = !plan.seeded && t.rs_b == 1 && t.cs_b != 1 &&
                       (t.n <= index_t(tuning::get(tuning::Knob::kInplaceRhsMaxN)) ||
                        t.m <= 8 * kMr);
      if (plan.inplace_b && kOutIsAcc && t.k > plan.kc) {
        whole_a = prepacked_elems(t.m, t.k, plan.kc);
        plan.stream_b = streams_b(whole_a);
      }
    }

    // The job split only ever shrinks mc below mc_max.
    index_t mc_cap = plan.mc_max;
    if (mc_cap > ceil_div(t.m, kMr) * kMr) mc_cap = ceil_div(t.m, kMr) * kMr;
    const index_t b_elems = ceil_div(plan.nc, NR) * Family::b_panel_size(plan.kc);
    // Each member's A block; in streaming order one whole A, shared.
    const index_t a_elems =
        plan.stream_b ? whole_a : ceil_div(mc_cap, kMr) * Family::a_panel_size(plan.kc);
    const int a_regions = plan.stream_b ? 1 : threads;
    plan.a_stride = plan.packed_a ? 0 : (a_elems + 63) / 64 * 64;
    // Whole cache lines, so the packed A block after it is 64-byte aligned
    // (b_elems is at most NC x KC panels, both bounded by the knobs' range).
    const double b_bytes = double((b_elems * index_t(sizeof(PB)) + 63) / 64 * 64);
    const double bytes = b_bytes + double(plan.a_stride) * a_regions * sizeof(PA);
    if (bytes > double(PTRDIFF_MAX / 4)) return GEMMKIT_ERROR_ALLOC;
    char* ws = static_cast<char*>(workspace::thread_buffer(
        workspace::kSlotPack, static_cast<std::size_t>(bytes) + 128));
    if (!ws) return GEMMKIT_ERROR_ALLOC;
    plan.b_pack = reinterpret_cast<PB*>(ws);
    plan.a_pack = reinterpret_cast<PA*>(ws + static_cast<std::size_t>(b_bytes));
    if (plan.seeded) {
      plan.ld = (t.m + 15) / 16 * 16;
      const double sbytes = double(plan.ld) * double(plan.nc) * sizeof(A);
      if (sbytes > double(PTRDIFF_MAX / 4)) return GEMMKIT_ERROR_ALLOC;
      plan.scratch = static_cast<A*>(workspace::thread_buffer(
          workspace::kSlotScratch, static_cast<std::size_t>(sbytes)));
      if (!plan.scratch) return GEMMKIT_ERROR_ALLOC;
    }

    if (threads <= 1) {
      work(&plan, parallel::Team{0, 1, nullptr});
    } else {
      parallel::run(threads, &work, &plan);
    }
    return GEMMKIT_OK;
  }

  // The threads run() gives the product: one below the parallel threshold,
  // else one per kMnkPerWorker of m n k, at most t.max_threads.
  static int team_size(const Task& t) {
    const double flops = double(t.m) * double(t.n) * double(t.k);
    if (t.max_threads <= 1 || flops < double(tuning::get(tuning::Knob::kParallelThreshold)))
      return 1;
    const double per = double(tuning::get(tuning::Knob::kMnkPerWorker));
    const double want = per > 0 ? flops / per : double(t.max_threads);
    return want < 1 ? 1 : (want > t.max_threads ? t.max_threads : int(want));
  }

  // Bytes of a prepacked A of m rows and depth k (see packed_offset), and
  // the packing itself: slices of kc, every MR panel of a slice in turn.
  static index_t prepacked_elems(index_t m, index_t k, index_t kc) {
    const index_t panels = ceil_div(m, kMr);
    index_t total = 0;
    for (index_t pc = 0; pc < k; pc += kc)
      total += panels * Family::a_panel_size(min_i(kc, k - pc));
    return total;
  }

  static void prepack(index_t m, index_t k, index_t kc, const L* a, index_t rs_a,
                      index_t cs_a, PA* dst) {
    for (index_t pc = 0; pc < k; pc += kc) {
      const index_t kcs = min_i(kc, k - pc);
      for (index_t i = 0; i < m; i += kMr) {
        pack_a_panel(kcs, min_i(kMr, m - i), a + i * rs_a + pc * cs_a, rs_a, cs_a, dst, false);
        dst += Family::a_panel_size(kcs);
      }
    }
  }
};

}  // namespace gemmkit::driver
