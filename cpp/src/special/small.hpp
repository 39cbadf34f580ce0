// L6 special: small products read straight from the operands, no packing.
//
//   C = act(alpha * A B + beta * C_in + bias), oriented so that C and A
//   have unit-stride columns (rs_co == 1, rs_a == 1).
//
// For small products, packing A and B into panels and the driver's
// blocking cost more than the arithmetic: a batch of 8x8x8 f32 products took
// 144 ns each through the driver and 50 ns here (one thread, AMD EPYC Zen 4
// VM, 2026-12-01).  Here each block of columns of C is one pass with eight
// accumulators (two row vectors by four columns), A's column segments
// loaded from L1 as they are used.  The per-element arithmetic is the
// driver's (one accumulator per element, the depth in order, alpha then
// beta then the epilogue), so results round as the blocked path's do.
#pragma once

#include "kernel/microkernel.hpp"
#include "kernel/task.hpp"
#include "simd/simd_ops.hpp"

namespace gemmkit::special {

template <class Token, class T>
struct Small {
  using Ops = simd::SimdOps<Token, T>;
  using Reg = typename Ops::Reg;
  static constexpr int L = Ops::kLanes;
  static constexpr int kCols = 4;  // columns per pass (x 2 row vectors: 8 accumulators)

  // Up to this many multiply-adds, with A small enough to stay in L1/L2
  // across the column passes, the direct pass beats packing (AMD EPYC Zen 4
  // VM, 2026-12-01, f32 AVX-512, one thread: 88-109 GFLOP/s direct against
  // 47-94 through the driver for 32^3..96^3; the driver wins from 128^3).
  static constexpr double kMaxWork = 96.0 * 96.0 * 96.0;
  static constexpr double kMaxABytes = 64.0 * 1024.0;

  // A wider window for a call on one thread where the driver would sum the
  // whole depth in one slice: it then adds each element's products from
  // zero in the same order as this pass, so the route changes no bit, and
  // the thread count that picks it changes none either (the caller checks
  // the slice: fits_one_slice).  WebAssembly only: under V8 the driver's
  // packing costs more than native code's; measured 2026-12-03 (AMD Zen 4,
  // simd128, against the driver in the same process or page): float32 at
  // 112-128 1.09-1.25x in node 22, 1.03-1.19x in Chromium 156, float64 at
  // 96-128 1.17-1.24x in node 22; 192-256 lost in Chromium, and an A of
  // 512 KiB (128x128x1024) lost in node 22.  Natively the driver wins from
  // 128^3 (above).
#if defined(__wasm__)
  static constexpr double kMaxWorkOneSlice = 128.0 * 128.0 * 128.0;
  static constexpr double kMaxABytesOneSlice = 128.0 * 1024.0;
#else
  static constexpr double kMaxWorkOneSlice = 0.0;
  static constexpr double kMaxABytesOneSlice = 0.0;
#endif

  static bool fits_layout(const GemmTask<T>& t) {
    return t.rs_co == 1 && t.rs_a == 1 && !t.packed_a;
  }
  static bool fits_size(const GemmTask<T>& t, double max_work, double max_a_bytes) {
    return double(t.m) * double(t.n) * double(t.k) <= max_work &&
           double(t.m) * double(t.k) * sizeof(T) <= max_a_bytes;
  }
  static bool fits(const GemmTask<T>& t) {
    return fits_layout(t) && fits_size(t, kMaxWork, kMaxABytes);
  }
  // The one-thread window; driver_kc() is the depth of the driver's slice
  // (asked last: it reads the blocking).
  template <class DriverKc>
  static bool fits_one_slice(const GemmTask<T>& t, DriverKc driver_kc) {
    return kMaxWorkOneSlice > 0 && t.max_threads == 1 && fits_layout(t) &&
           fits_size(t, kMaxWorkOneSlice, kMaxABytesOneSlice) && t.k <= driver_kc();
  }

  static GEMMKIT_INLINE Reg load_a(const T* p, int rows) {
    return rows == L ? Ops::loadu(p) : Ops::load_partial(p, rows);
  }

  // acc (raw sums of rows [i, i + rows) of column j) into C.
  static GEMMKIT_INLINE void store(const GemmTask<T>& t, index_t i, int rows, index_t j,
                                   Reg acc) {
    Reg v = t.alpha != T(1) ? Ops::mul(acc, Ops::splat(t.alpha)) : acc;
    T tmp[L] = {};
    if (t.beta != T(0)) {
      const T* c = t.c_in + i * t.rs_ci + j * t.cs_ci;
      if (t.rs_ci == 1) {
        v = Ops::mul_add(load_a(c, rows), Ops::splat(t.beta), v);
      } else {
        for (int l = 0; l < rows; ++l) tmp[l] = c[l * t.rs_ci];
        v = Ops::mul_add(Ops::loadu(tmp), Ops::splat(t.beta), v);
      }
    }
    const Epilogue<T>& e = t.epi;
    if (e.bias_kind == BiasKind::kPerRow) {
      for (int l = 0; l < rows; ++l) tmp[l] = e.bias[(i + l) * e.bias_stride];
      for (int l = rows; l < L; ++l) tmp[l] = T(0);
      v = Ops::add(v, Ops::loadu(tmp));
    } else if (e.bias_kind == BiasKind::kPerCol) {
      v = Ops::add(v, Ops::splat(e.bias[j * e.bias_stride]));
    }
    v = kernel::activate<Ops>(v, e);
    T* dst = t.c_out + i + j * t.cs_co;
    if (rows == L) Ops::storeu(dst, v);
    else Ops::store_partial(dst, v, rows);
  }

  // Rows [i, i + rows) (rows <= RB * L) of columns j0.. (cols <= kCols):
  // RB * kCols accumulators, named so they stay in registers.  kFull: rows
  // == RB * L, so the depth loop loads whole vectors (load_a's switch on a
  // partial row count, left inside the loop, cost node 24 an indirect jump
  // per depth step: 64^3 simd128 ran at 16 GFLOP/s there against 22 in node 20).
  template <int RB, bool kFull>
  static GEMMKIT_INLINE void block(const GemmTask<T>& t, index_t i, int rows, index_t j0,
                                   int cols, const T* const* b) {
    const int r0 = rows < L ? rows : L;
    const int r1 = RB > 1 ? rows - r0 : 0;
    Reg c00 = Ops::zero(), c01 = Ops::zero(), c02 = Ops::zero(), c03 = Ops::zero();
    Reg c10 = Ops::zero(), c11 = Ops::zero(), c12 = Ops::zero(), c13 = Ops::zero();
    const T* a = t.a + i;
    // The microkernel's order: each B splat used by both row vectors.  V8
    // loads all four splats of a step up front whatever this order, so the
    // loop holds 15 registers on x64 (simd128.hpp, "Register budget"); what
    // halved node 24's speed here was the partial-row switch (kFull above).
    for (index_t p = 0; p < t.k; ++p) {
      const T* ap = a + p * t.cs_a;
      const index_t off = p * t.rs_b;
      const Reg a0 = kFull ? Ops::loadu(ap) : load_a(ap, r0);
      const Reg a1 = RB == 1 ? a0 : kFull ? Ops::loadu(ap + L) : load_a(ap + L, r1);
      Reg bj = Ops::splat(b[0][off]);
      c00 = Ops::mul_add(a0, bj, c00);
      if constexpr (RB > 1) c10 = Ops::mul_add(a1, bj, c10);
      bj = Ops::splat(b[1][off]);
      c01 = Ops::mul_add(a0, bj, c01);
      if constexpr (RB > 1) c11 = Ops::mul_add(a1, bj, c11);
      bj = Ops::splat(b[2][off]);
      c02 = Ops::mul_add(a0, bj, c02);
      if constexpr (RB > 1) c12 = Ops::mul_add(a1, bj, c12);
      bj = Ops::splat(b[3][off]);
      c03 = Ops::mul_add(a0, bj, c03);
      if constexpr (RB > 1) c13 = Ops::mul_add(a1, bj, c13);
    }
    store(t, i, r0, j0, c00);
    if (cols > 1) store(t, i, r0, j0 + 1, c01);
    if (cols > 2) store(t, i, r0, j0 + 2, c02);
    if (cols > 3) store(t, i, r0, j0 + 3, c03);
    if constexpr (RB > 1) {
      store(t, i + L, r1, j0, c10);
      if (cols > 1) store(t, i + L, r1, j0 + 1, c11);
      if (cols > 2) store(t, i + L, r1, j0 + 2, c12);
      if (cols > 3) store(t, i + L, r1, j0 + 3, c13);
    }
  }

  // The product in the driver's depth slices of kc (BlockedGemm::
  // slice_depth): each slice's sums start from zero and meet in C (alpha on
  // every slice, beta on the first, the epilogue on the last), so every
  // element rounds as on the driver's path and as with a prepacked B.
  static int run(const GemmTask<T>& t, index_t kc) {
    if (kc <= 0 || kc >= t.k) {
      run_slice(t);
      return GEMMKIT_OK;
    }
    GemmTask<T> s = t;
    for (index_t pc = 0; pc < t.k; pc += kc) {
      s.k = t.k - pc < kc ? t.k - pc : kc;
      s.a = t.a + pc * t.cs_a;
      s.b = t.b + pc * t.rs_b;
      s.epi = pc + kc < t.k ? Epilogue<T>{} : t.epi;
      run_slice(s);
      s.beta = T(1);
      s.c_in = t.c_out;
      s.rs_ci = t.rs_co;
      s.cs_ci = t.cs_co;
    }
    return GEMMKIT_OK;
  }

  static void run_slice(const GemmTask<T>& t) {
    for (index_t j0 = 0; j0 < t.n; j0 += kCols) {
      const int cols = t.n - j0 >= kCols ? kCols : int(t.n - j0);
      // Columns past the edge re-read the last one (never stored).
      const T* b[kCols];
      for (int c = 0; c < kCols; ++c) b[c] = t.b + (j0 + (c < cols ? c : cols - 1)) * t.cs_b;
      index_t i = 0;
      for (; t.m - i >= 2 * L; i += 2 * L) block<2, true>(t, i, 2 * L, j0, cols, b);
      const index_t left = t.m - i;
      if (left > L) block<2, false>(t, i, int(left), j0, cols, b);
      else if (left > 0) block<1, false>(t, i, int(left), j0, cols, b);
    }
  }
};

}  // namespace gemmkit::special
