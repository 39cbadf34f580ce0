// L6 special: matrix-vector products (n == 1 after orientation), routed
// away from the blocked driver because they are bound by memory bandwidth,
// not arithmetic: packing would only add traffic.
//
//   y = act(alpha * A x + beta * y_in + bias),  A m x k, x and y vectors.
//
// Two forms, chosen by A's layout:
//  - axpy form (A has unit-stride columns): y += A[:, p] * x[p], four
//    columns per pass over a block of rows kept in registers/L1;
//  - dot form (A has unit-stride rows): y[i] = <A[i, :], x>, four rows at a
//    time with vector accumulators reduced at the end.
// Every row's arithmetic is independent of how rows are grouped, so the
// split across threads does not change a single bit of the result.
#pragma once

#include "kernel/microkernel.hpp"
#include "kernel/task.hpp"
#include "parallel/thread_pool.hpp"
#include "parallel/workspace.hpp"
#include "simd/simd_ops.hpp"
#include "tuning/tuning.hpp"
#include "gemmkit/gemmkit.h"

namespace gemmkit::special {

template <class Token, class T>
struct Gemv {
  using Ops = simd::SimdOps<Token, T>;
  using Reg = typename Ops::Reg;
  static constexpr int L = Ops::kLanes;
  // Rows per block: 16 KiB of y accumulators stays in L1 across the k loop
  // and each column segment read from A spans whole 4 KiB pages, which keeps
  // the hardware prefetchers streaming.
  static constexpr index_t kRowBlock = 16384 / sizeof(T) / L * L;

  // Depth of one copied piece of a strided x for the dot form: the copy
  // stays in L1/L2 whatever k is (a zero-stride x of 2^28 elements once
  // cost 2 GiB).  The axpy form reads x with its stride and copies nothing.
  static constexpr index_t kDepthChunk = 16384 / sizeof(T) * 4;

  struct Ctx {
    GemmTask<T> t;  // n == 1; x is B's column, at stride t.rs_b
    int status;     // GEMMKIT_ERROR_ALLOC when a member found no buffer
  };

  // y_out[i0:i0+rows] from the raw sums in acc[0:rows].
  static GEMMKIT_INLINE void finish(const GemmTask<T>& t, index_t i0,
                                    index_t rows, const T* acc) {
    const Reg alpha = Ops::splat(t.alpha), beta = Ops::splat(t.beta);
    const bool scale = t.alpha != T(1), read_c = t.beta != T(0);
    const Epilogue<T>& e = t.epi;
    for (index_t r = 0; r < rows; r += L) {
      const int n = rows - r >= L ? L : int(rows - r);
      const index_t i = i0 + r;
      Reg v = Ops::load_partial(acc + r, n);
      if (scale) v = Ops::mul(v, alpha);
      T tmp[L] = {};
      if (read_c) {
        for (int l = 0; l < n; ++l) tmp[l] = t.c_in[(i + l) * t.rs_ci];
        v = Ops::mul_add(Ops::loadu(tmp), beta, v);
      }
      if (e.bias_kind == BiasKind::kPerRow) {
        for (int l = 0; l < n; ++l) tmp[l] = e.bias[(i + l) * e.bias_stride];
        v = Ops::add(v, Ops::loadu(tmp));
      } else if (e.bias_kind == BiasKind::kPerCol) {
        v = Ops::add(v, Ops::splat(e.bias[0]));
      }
      v = kernel::activate<Ops>(v, e);
      if (t.rs_co == 1) {
        Ops::store_partial(t.c_out + i, v, n);
      } else {
        Ops::storeu(tmp, v);
        for (int l = 0; l < n; ++l) t.c_out[(i + l) * t.rs_co] = tmp[l];
      }
    }
  }

  static void axpy_block(const GemmTask<T>& t, const T* x, index_t xs, index_t i0,
                         index_t rows, T* acc) {
    const index_t vec_rows = rows / L * L;
    for (index_t r = 0; r < rows; ++r) acc[r] = T(0);
    const T* a = t.a + i0;  // rs_a == 1
    const index_t lda = t.cs_a;
    index_t p = 0;
    for (; p + 4 <= t.k; p += 4) {
      const T* a0 = a + p * lda;
      const Reg x0 = Ops::splat(x[p * xs]), x1 = Ops::splat(x[(p + 1) * xs]);
      const Reg x2 = Ops::splat(x[(p + 2) * xs]), x3 = Ops::splat(x[(p + 3) * xs]);
      for (index_t r = 0; r < vec_rows; r += L) {
        Reg y = Ops::loadu(acc + r);
        y = Ops::mul_add(Ops::loadu(a0 + r), x0, y);
        y = Ops::mul_add(Ops::loadu(a0 + lda + r), x1, y);
        y = Ops::mul_add(Ops::loadu(a0 + 2 * lda + r), x2, y);
        y = Ops::mul_add(Ops::loadu(a0 + 3 * lda + r), x3, y);
        Ops::storeu(acc + r, y);
      }
      for (index_t r = vec_rows; r < rows; ++r) {
        Reg y = Ops::load_partial(acc + r, 1);
        for (int q = 0; q < 4; ++q)
          y = Ops::mul_add(Ops::load_partial(a0 + q * lda + r, 1),
                           Ops::splat(x[(p + q) * xs]), y);
        Ops::store_partial(acc + r, y, 1);
      }
    }
    for (; p < t.k; ++p) {
      const T* a0 = a + p * lda;
      const Reg xp = Ops::splat(x[p * xs]);
      for (index_t r = 0; r < rows; r += L) {
        const int n = rows - r >= L ? L : int(rows - r);
        Reg y = Ops::load_partial(acc + r, n);
        y = Ops::mul_add(Ops::load_partial(a0 + r, n), xp, y);
        Ops::store_partial(acc + r, y, n);
      }
    }
  }

  // Dot of one contiguous row with x: two accumulators to hide FMA latency.
  static GEMMKIT_INLINE T dot(const T* a, const T* x, index_t k) {
    Reg s0 = Ops::zero(), s1 = Ops::zero();
    index_t p = 0;
    for (; p + 2 * L <= k; p += 2 * L) {
      s0 = Ops::mul_add(Ops::loadu(a + p), Ops::loadu(x + p), s0);
      s1 = Ops::mul_add(Ops::loadu(a + p + L), Ops::loadu(x + p + L), s1);
    }
    for (; p < k; p += L) {
      const int n = k - p >= L ? L : int(k - p);
      s0 = Ops::mul_add(Ops::load_partial(a + p, n), Ops::load_partial(x + p, n), s0);
    }
    return Ops::reduce_sum(Ops::add(s0, s1));
  }

  // Four rows per pass share each load of x (which may not fit in L1).
  // acc[r] (+)= <A[i0 + r, :], x> over t's depth; `add` accumulates (the
  // later depth pieces of a strided x).
  static void dot_block(const GemmTask<T>& t, const T* x, index_t i0,
                        index_t rows, T* acc, bool add) {
    index_t r = 0;
    if (t.cs_a == 1) {
      for (; r + 4 <= rows; r += 4) {
        const T* a0 = t.a + (i0 + r) * t.rs_a;
        const T* a1 = a0 + t.rs_a;
        const T* a2 = a1 + t.rs_a;
        const T* a3 = a2 + t.rs_a;
        Reg s0 = Ops::zero(), s1 = Ops::zero(), s2 = Ops::zero(), s3 = Ops::zero();
        index_t p = 0;
        for (; p + L <= t.k; p += L) {
          const Reg xv = Ops::loadu(x + p);
          s0 = Ops::mul_add(Ops::loadu(a0 + p), xv, s0);
          s1 = Ops::mul_add(Ops::loadu(a1 + p), xv, s1);
          s2 = Ops::mul_add(Ops::loadu(a2 + p), xv, s2);
          s3 = Ops::mul_add(Ops::loadu(a3 + p), xv, s3);
        }
        if (p < t.k) {
          const int n = int(t.k - p);
          const Reg xv = Ops::load_partial(x + p, n);
          s0 = Ops::mul_add(Ops::load_partial(a0 + p, n), xv, s0);
          s1 = Ops::mul_add(Ops::load_partial(a1 + p, n), xv, s1);
          s2 = Ops::mul_add(Ops::load_partial(a2 + p, n), xv, s2);
          s3 = Ops::mul_add(Ops::load_partial(a3 + p, n), xv, s3);
        }
        const T d[4] = {Ops::reduce_sum(s0), Ops::reduce_sum(s1), Ops::reduce_sum(s2),
                        Ops::reduce_sum(s3)};
        for (int q = 0; q < 4; ++q) acc[r + q] = add ? acc[r + q] + d[q] : d[q];
      }
    }
    for (; r < rows; ++r) {
      const T* row = t.a + (i0 + r) * t.rs_a;
      T d;
      if (t.cs_a == 1) {
        d = dot(row, x, t.k);
      } else {
        d = T(0);
        for (index_t p = 0; p < t.k; ++p) d += row[p * t.cs_a] * x[p];
      }
      acc[r] = add ? acc[r] + d : d;
    }
  }

  // The dot form over a strided x: x copied piece by piece into this
  // thread's buffer, each piece's sums added in order.
  static bool dot_strided(const GemmTask<T>& t, index_t i0, index_t rows, T* acc) {
    T* buf = static_cast<T*>(workspace::thread_buffer(
        workspace::kSlotSpecial, std::size_t(kDepthChunk) * sizeof(T) + 64));
    if (!buf) return false;
    GemmTask<T> piece = t;
    for (index_t p0 = 0; p0 < t.k; p0 += kDepthChunk) {  // k > 0 here (L8)
      const index_t depth = t.k - p0 < kDepthChunk ? t.k - p0 : kDepthChunk;
      for (index_t p = 0; p < depth; ++p) buf[p] = t.b[(p0 + p) * t.rs_b];
      piece.a = t.a + p0 * t.cs_a;
      piece.k = depth;
      dot_block(piece, buf, i0, rows, acc, p0 > 0);
    }
    return true;
  }

  static void work(void* vctx, const parallel::Team& team) {
    Ctx& c = *static_cast<Ctx*>(vctx);
    alignas(64) T acc[kRowBlock];
    // Contiguous, lane-aligned share of the rows for this member.
    const index_t units = (c.t.m + L - 1) / L;
    const index_t r0 = units * team.tid / team.size * L;
    index_t r1 = units * (team.tid + 1) / team.size * L;
    if (r1 > c.t.m) r1 = c.t.m;
    for (index_t i0 = r0; i0 < r1; i0 += kRowBlock) {
      const index_t rows = r1 - i0 < kRowBlock ? r1 - i0 : kRowBlock;
      if (c.t.rs_a == 1 && c.t.m > 1) {
        axpy_block(c.t, c.t.b, c.t.rs_b, i0, rows, acc);
      } else if (c.t.rs_b == 1) {
        dot_block(c.t, c.t.b, i0, rows, acc, false);
      } else if (!dot_strided(c.t, i0, rows, acc)) {
        __atomic_store_n(&c.status, GEMMKIT_ERROR_ALLOC, __ATOMIC_RELAXED);
        return;
      }
      finish(c.t, i0, rows, acc);
    }
  }

  static int run(const GemmTask<T>& t) {
    Ctx c;
    c.t = t;
    c.status = GEMMKIT_OK;
    const double bytes = double(t.m) * double(t.k) * sizeof(T);
    const index_t units = (t.m + L - 1) / L;
    int threads = 1;
    if (t.max_threads > 1 && units > 1 &&
        bytes >= double(tuning::get(tuning::Knob::kGemvParallelBytes))) {
      threads = t.max_threads < units ? t.max_threads : int(units);
    }
    if (threads <= 1) work(&c, parallel::Team{0, 1, nullptr});
    else parallel::run(threads, &work, &c);
    return __atomic_load_n(&c.status, __ATOMIC_RELAXED);
  }
};

}  // namespace gemmkit::special
