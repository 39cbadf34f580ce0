// L5 driver: the generic blocked loop nest (BLIS's five loops) over any
// token and tile geometry.
//
//   for jc in n by NC                 (B block -> L3)
//     for pc in k by KC               (pack B block, shared by the team)
//       for each (ic block, jr chunk) job of this thread
//         pack the A block (mc x kc)  (-> L2; or read A in place)
//         for jr in chunk by NR       (B micropanel -> L1)
//           for ir in block by MR     microkernel
//
// Work is split only over output tiles and the depth loop is never split,
// so every element of C sees the same operations in the same order for any
// thread count: results are bit-identical across thread counts.
#pragma once

#include <cstdint>

#include "cache/cache_info.hpp"
#include "kernel/microkernel.hpp"
#include "pack/pack.hpp"
#include "parallel/thread_pool.hpp"
#include "parallel/workspace.hpp"
#include "tuning/tuning.hpp"
#include "gemmkit/gemmkit.h"

namespace gemmkit::driver {

template <class Token, class T, int MR_REG, int NR>
struct BlockedGemm {
  using Kernel = kernel::FloatKernel<Token, T, MR_REG, NR>;
  using Store = typename Kernel::Store;
  static constexpr int kMr = Kernel::kMr;

  struct Plan {
    GemmTask<T> t;
    cache::Blocking blk;
    bool inplace_a;     // full MR panels of A are read without packing
    bool inplace_b;     // B's columns are contiguous along k: read in place
    T* b_pack;          // kc * round_up(nc, NR)
    T* a_pack;          // one region of a_stride elements per team member
    index_t a_stride;
  };

  static index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }
  static index_t min_i(index_t a, index_t b) { return a < b ? a : b; }

  // The part of the loop nest one team member executes.
  static void work(void* ctx, const parallel::Team& team) {
    const Plan& plan = *static_cast<const Plan*>(ctx);
    const GemmTask<T>& t = plan.t;
    const index_t kc_max = plan.blk.kc;
    T* a_pack = plan.a_pack + team.tid * plan.a_stride;

    for (index_t jc = 0; jc < t.n; jc += plan.blk.nc) {
      const index_t nc = min_i(plan.blk.nc, t.n - jc);
      const index_t panels = ceil_div(nc, NR);
      // Row blocks: at least one per team member when there are enough rows,
      // and equal in size so no member waits for a thin last block.
      index_t blocks = ceil_div(t.m, plan.blk.mc);
      if (team.size > 1 && blocks % team.size) blocks += team.size - blocks % team.size;
      const index_t mc = (ceil_div(ceil_div(t.m, blocks), kMr)) * kMr;
      blocks = ceil_div(t.m, mc);
      // Column chunks: split the NR panels too when there are too few row
      // blocks to feed the team.
      index_t chunks = 1;
      if (blocks < 2 * team.size) chunks = min_i(panels, ceil_div(2 * team.size, blocks));
      const index_t jobs = blocks * chunks;
      const index_t job0 = jobs * team.tid / team.size;
      const index_t job1 = jobs * (team.tid + 1) / team.size;

      for (index_t pc = 0; pc < t.k; pc += kc_max) {
        const index_t kc = min_i(kc_max, t.k - pc);
        const bool first = pc == 0;
        const bool last = pc + kc >= t.k;
        // Pack this depth slice of B, each member a share of the panels.
        if (!plan.inplace_b) {
          pack::pack_b<Token, T, NR>(kc, nc, panels * team.tid / team.size,
                                     panels * (team.tid + 1) / team.size,
                                     t.b + pc * t.rs_b + jc * t.cs_b, t.rs_b,
                                     t.cs_b, plan.b_pack);
          parallel::barrier(team);
        }

        Store s;
        s.alpha = t.alpha;
        s.beta = first ? t.beta : T(1);
        s.src = first ? t.c_in : t.c_out;
        s.rs_src = first ? t.rs_ci : t.rs_co;
        s.cs_src = first ? t.cs_ci : t.cs_co;
        s.rs_dst = t.rs_co;
        s.cs_dst = t.cs_co;
        s.epi = last && epilogue_active(t.epi) ? &t.epi : nullptr;

        index_t packed_block = -1;
        for (index_t job = job0; job < job1; ++job) {
          const index_t blk = job / chunks;
          const index_t chunk = job % chunks;
          const index_t i0 = blk * mc;
          const index_t rows = min_i(mc, t.m - i0);
          const T* a_src = t.a + i0 * t.rs_a + pc * t.cs_a;
          const index_t full_rows = plan.inplace_a ? rows / kMr * kMr : 0;
          if (packed_block != blk) {
            // In-place mode packs only the ragged last panel.
            pack::pack_a<Token, T, kMr>(rows - full_rows, kc,
                                        a_src + full_rows * t.rs_a, t.rs_a,
                                        t.cs_a, a_pack);
            packed_block = blk;
          }
          const index_t q0 = panels * chunk / chunks;
          const index_t q1 = panels * (chunk + 1) / chunks;
          for (index_t q = q0; q < q1; ++q) {
            const index_t j = jc + q * NR;
            const index_t n_eff = min_i(NR, t.n - j);
            const T* b_panel = plan.b_pack + q * NR * kc;
            const T* b_cols = t.b + pc * t.rs_b + j * t.cs_b;
            for (index_t ir = 0; ir < rows; ir += kMr) {
              const index_t m_eff = min_i(kMr, rows - ir);
              const index_t i = i0 + ir;
              s.src = (first ? t.c_in : t.c_out);
              if (s.beta != T(0)) s.src += i * s.rs_src + j * s.cs_src;
              s.dst = t.c_out + i * t.rs_co + j * t.cs_co;
              s.row0 = i;
              s.col0 = j;
              const T* a_tile = ir < full_rows ? a_src + ir : a_pack + (ir - full_rows) * kc;
              const index_t a_step = ir < full_rows ? t.cs_a : kMr;
              if (plan.inplace_b) {
                Kernel::run_cols(kc, a_tile, a_step, b_cols, t.cs_b, m_eff, n_eff, s);
              } else {
                Kernel::run(kc, a_tile, a_step, b_panel, m_eff, n_eff, s);
              }
            }
          }
        }
        if (!plan.inplace_b) parallel::barrier(team);  // B is repacked next slice
      }
    }
  }

  // Entry for an oriented task (rs_co == 1 when C has a unit stride).
  static int run(const GemmTask<T>& t) {
    Plan plan;
    plan.t = t;
    plan.blk = cache::blocking(kMr, NR, int(sizeof(T)), t.m, t.n, t.k);
    const index_t kc = plan.blk.kc < t.k ? plan.blk.kc : t.k;
    const index_t nc = plan.blk.nc < t.n ? plan.blk.nc : t.n;

    int threads = 1;
    const double flops = double(t.m) * double(t.n) * double(t.k);
    if (t.max_threads > 1 &&
        flops >= double(tuning::get(tuning::Knob::kParallelThreshold))) {
      const double per = double(tuning::get(tuning::Knob::kMnkPerWorker));
      const double want = per > 0 ? flops / per : double(t.max_threads);
      threads = want < 1 ? 1 : (want > t.max_threads ? t.max_threads : int(want));
    }
    plan.inplace_a = t.rs_a == 1 &&
                     t.n <= index_t(tuning::get(tuning::Knob::kInplaceLhsMaxN));
    // B with unit stride along k (a row-major A seen through the transposed
    // orientation) would need a transposing pack; reading its columns in
    // place costs nothing extra while NR of them stay in L1 next to the A
    // panel, i.e. while their other dimension is small enough to reuse.
    plan.inplace_b = t.rs_b == 1 && t.cs_b != 1 &&
                     t.n <= index_t(tuning::get(tuning::Knob::kInplaceRhsMaxN));

    // The job split only ever shrinks mc below the blocking's value.
    index_t mc_cap = plan.blk.mc;
    if (mc_cap > ceil_div(t.m, kMr) * kMr) mc_cap = ceil_div(t.m, kMr) * kMr;
    const index_t b_elems = kc * ceil_div(nc, NR) * NR;
    plan.a_stride = (mc_cap * kc + 63) / 64 * 64;
    const double bytes = (double(b_elems) + double(plan.a_stride) * threads) * sizeof(T);
    if (bytes > double(PTRDIFF_MAX / 4)) return GEMMKIT_ERROR_ALLOC;
    T* ws = static_cast<T*>(workspace::thread_buffer(
        workspace::kSlotPack, static_cast<std::size_t>(bytes) + 64));
    if (!ws) return GEMMKIT_ERROR_ALLOC;
    plan.b_pack = ws;
    plan.a_pack = ws + (b_elems + 63) / 64 * 64;

    if (threads <= 1) {
      work(&plan, parallel::Team{0, 1, nullptr});
    } else {
      parallel::run(threads, &work, &plan);
    }
    return GEMMKIT_OK;
  }
};

}  // namespace gemmkit::driver
