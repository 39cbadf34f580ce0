// L6 special: small products read straight from the operands, no packing.
//
//   C = act(alpha * A B + beta * C_in + bias), oriented so that C and A
//   have unit-stride columns (rs_co == 1, rs_a == 1).
//
// Below a few thousand multiply-adds, packing A and B into panels and the
// driver's blocking cost more than the arithmetic (an 8x8x8 product spent
// ~600 ns in the driver on the 2026-12 Xeon, most of it outside the
// kernel).  Here each column block of C is one pass: four columns of
// accumulators, A's column segments loaded from L1 as they are used.  The
// per-element arithmetic is the driver's (one accumulator per element, the
// depth in order, alpha then beta then the epilogue), so the results are
// those of the blocked path.
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
  static constexpr int kCols = 4;  // columns (independent accumulators) per pass

  // Multiply-adds up to which the direct pass beats packing (measured: the
  // crossover lies between 24^3 and 40^3 for f32 on AVX-512 and AVX2).
  static constexpr double kMaxWork = 32.0 * 32.0 * 32.0;

  static bool fits(const GemmTask<T>& t) {
    return t.rs_co == 1 && t.rs_a == 1 && !t.packed_a &&
           double(t.m) * double(t.n) * double(t.k) <= kMaxWork;
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

  static int run(const GemmTask<T>& t) {
    const index_t lda = t.cs_a, ldb = t.cs_b, rsb = t.rs_b;
    for (index_t j0 = 0; j0 < t.n; j0 += kCols) {
      const int cols = t.n - j0 >= kCols ? kCols : int(t.n - j0);
      // Columns past the edge re-read the last one (never stored): the four
      // accumulators stay named registers, never an array in memory.
      const T* b0 = t.b + j0 * ldb;
      const T* b1 = t.b + (j0 + (cols > 1 ? 1 : 0)) * ldb;
      const T* b2 = t.b + (j0 + (cols > 2 ? 2 : 0)) * ldb;
      const T* b3 = t.b + (j0 + (cols > 3 ? 3 : 0)) * ldb;
      for (index_t i = 0; i < t.m; i += L) {
        const int rows = t.m - i >= L ? L : int(t.m - i);
        Reg c0 = Ops::zero(), c1 = Ops::zero(), c2 = Ops::zero(), c3 = Ops::zero();
        const T* a = t.a + i;
        for (index_t p = 0; p < t.k; ++p) {
          const Reg av = load_a(a + p * lda, rows);
          const index_t off = p * rsb;
          c0 = Ops::mul_add(av, Ops::splat(b0[off]), c0);
          c1 = Ops::mul_add(av, Ops::splat(b1[off]), c1);
          c2 = Ops::mul_add(av, Ops::splat(b2[off]), c2);
          c3 = Ops::mul_add(av, Ops::splat(b3[off]), c3);
        }
        store(t, i, rows, j0, c0);
        if (cols > 1) store(t, i, rows, j0 + 1, c1);
        if (cols > 2) store(t, i, rows, j0 + 2, c2);
        if (cols > 3) store(t, i, rows, j0 + 3, c3);
      }
    }
    return GEMMKIT_OK;
  }
};

}  // namespace gemmkit::special
