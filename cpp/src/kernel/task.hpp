// L4 kernel: the plain-data description of one GEMM, shared by every layer.
//
// L8 (api) turns user views into a GemmTask once it has validated them; from
// there on nothing is checked again.  Strides are signed and counted in
// elements; pointers address element (0, 0) of each view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gemmkit {

using index_t = std::ptrdiff_t;

// Fused epilogue applied at the store, after alpha * AB + beta * C:
//   out = act(alpha * AB + beta * C + bias)
// with max(a, b) = a > b ? a : b and min(a, b) = a < b ? a : b exactly (the
// SimdOps contract, every token):
//   kRelu       max(v, 0)                      NaN -> +0, -0 -> +0
//   kLeakyRelu  max(v, 0) + slope * min(v, 0)  NaN -> +0, -0 -> +0
//   kClip       min(max(v, lo), hi)            NaN -> lo
// For v <= 0, kLeakyRelu adds the product to max's +0, and +0 + -0 = +0
// gives the -0 rule; it must stay a separate add (-ffp-contract=off): a
// fused one rounds a negative product that underflows to -0.
enum class BiasKind : int { kNone = 0, kPerRow = 1, kPerCol = 2 };
enum class Activation : int { kNone = 0, kRelu = 1, kClip = 2, kLeakyRelu = 3 };

//
// These structs are trivial aggregates on purpose (value-initialize them with
// {}): they cross from baseline into ISA translation units, and a member
// function instantiated under two sets of compiler flags is the ODR hazard
// that simd_ops.hpp describes.  Helpers are internal-linkage free functions.
template <class T>
struct Epilogue {
  const T* bias;  // kPerRow: m values, kPerCol: n values
  index_t bias_stride;
  BiasKind bias_kind;
  Activation act;
  T lo;  // kClip bounds (kRelu needs none)
  T hi;
  T slope;  // kLeakyRelu: finite; floating-point T only
};

// Requantizing epilogue of the int8 families (kernel frame):
//   out = clamp(zero_point + round_half_even(scale * wrap32(acc + bias)), lo, hi)
enum class ScaleKind : int { kPerTensor = 0, kPerRow = 1, kPerCol = 2 };

struct Requant {
  const float* scale;  // 1, m or n values
  index_t scale_stride;
  ScaleKind scale_kind;
  const std::int32_t* bias;  // kPerRow: m values, kPerCol: n values
  index_t bias_stride;
  BiasKind bias_kind;
  std::int32_t zero_point, lo, hi;
};

// Index into rq.scale of element (row, col) of C.
static inline index_t scale_index(const Requant& q, index_t row, index_t col) {
  return q.scale_kind == ScaleKind::kPerTensor ? 0
         : q.scale_kind == ScaleKind::kPerRow  ? row * q.scale_stride
                                               : col * q.scale_stride;
}

// One GEMM in the kernel frame's types: inputs L, accumulator A, output O.
// (GemmTask<T> is the homogeneous f32/f64 case.)
template <class L, class A = L, class O = L>
struct GemmTask {
  index_t m, n, k;
  A alpha, beta;
  const L* a;
  index_t rs_a, cs_a;
  const L* b;
  index_t rs_b, cs_b;
  // Read only when beta != 0; may be the very same view as c_out.
  const O* c_in;
  index_t rs_ci, cs_ci;
  O* c_out;
  index_t rs_co, cs_co;
  Epilogue<A> epi;
  Requant rq;  // requantizing outputs only (A = int32, O = 8-bit)
  // Prepacked A operand (a PackedRhs seen through C^T = B^T A^T): panels in
  // the family's layout, in depth slices of packed_kc; a is then unused.
  const void* packed_a;
  index_t packed_kc;
  int max_threads;  // resolved by L8 from the tuning registry
  // A batch of products of this shape (batch > 1): product i reads a, b
  // and c_in and writes c_out at i * batch_a, ... elements from the views
  // above (0 broadcasts).  The kernel entry runs them in turn.
  index_t batch;
  index_t batch_a, batch_b, batch_c, batch_o;
  // Complex families: use conj(a) / conj(b) (kernel frame; others ignore).
  bool conj_a, conj_b;
};

template <class T>
static inline bool epilogue_active(const Epilogue<T>& e) {
  return e.bias_kind != BiasKind::kNone || e.act != Activation::kNone;
}

// The activation of one value, for the scalar paths (k == 0 or alpha == 0);
// the vector paths use kernel::activate, the same operations per lane.
template <class T>
static inline T activate_scalar(T v, const Epilogue<T>& e) {
  const auto max0 = [](T x) { return x > T(0) ? x : T(0); };
  const auto min0 = [](T x) { return x < T(0) ? x : T(0); };
  if (e.act == Activation::kRelu) return max0(v);
  if (e.act == Activation::kClip) {
    v = v > e.lo ? v : e.lo;
    return v < e.hi ? v : e.hi;
  }
  if constexpr (!std::is_integral_v<T>) {
    if (e.act == Activation::kLeakyRelu) return max0(v) + e.slope * min0(v);
  }
  return v;
}

// C^T = B^T A^T: the same product with the roles of m and n swapped.  The
// driver computes in whichever orientation gives unit-stride C columns.
// In place: the per-call paths of tiny products cannot afford copies of
// the task (a copy right after its fields were written stalls on store
// forwarding).
template <class L, class A, class O>
static inline void transpose(GemmTask<L, A, O>& t) {
  auto swap = [](auto& x, auto& y) {
    auto tmp = x;
    x = y;
    y = tmp;
  };
  swap(t.m, t.n);
  const L* a = t.a;
  t.a = t.b;
  t.b = a;
  const index_t rs_a = t.rs_a, cs_a = t.cs_a;
  t.rs_a = t.cs_b;
  t.cs_a = t.rs_b;
  t.rs_b = cs_a;
  t.cs_b = rs_a;
  swap(t.rs_ci, t.cs_ci);
  swap(t.rs_co, t.cs_co);
  swap(t.batch_a, t.batch_b);
  swap(t.conj_a, t.conj_b);
  auto flip_bias = [](BiasKind k) {
    return k == BiasKind::kPerRow ? BiasKind::kPerCol
           : k == BiasKind::kPerCol ? BiasKind::kPerRow : k;
  };
  t.epi.bias_kind = flip_bias(t.epi.bias_kind);
  t.rq.bias_kind = flip_bias(t.rq.bias_kind);
  if (t.rq.scale_kind == ScaleKind::kPerRow) t.rq.scale_kind = ScaleKind::kPerCol;
  else if (t.rq.scale_kind == ScaleKind::kPerCol) t.rq.scale_kind = ScaleKind::kPerRow;
}

// Rows [r0, r0 + rows) of the product (a task of its own): the same
// depth, columns and scalars; A, C and per-row biases and scales advanced
// by r0 rows.  Not for a prepacked A (its panels are laid out for all of m).
template <class L, class A, class O>
static inline GemmTask<L, A, O> row_block(const GemmTask<L, A, O>& task, index_t r0,
                                          index_t rows) {
  GemmTask<L, A, O> t = task;
  t.m = rows;
  t.a += r0 * t.rs_a;
  if (t.c_in) t.c_in += r0 * t.rs_ci;
  t.c_out += r0 * t.rs_co;
  if (t.epi.bias_kind == BiasKind::kPerRow) t.epi.bias += r0 * t.epi.bias_stride;
  if (t.rq.bias_kind == BiasKind::kPerRow) t.rq.bias += r0 * t.rq.bias_stride;
  if (t.rq.scale_kind == ScaleKind::kPerRow) t.rq.scale += r0 * t.rq.scale_stride;
  return t;
}

template <class L, class A, class O>
static inline GemmTask<L, A, O> transposed(const GemmTask<L, A, O>& task) {
  GemmTask<L, A, O> t = task;
  transpose(t);
  return t;
}

}  // namespace gemmkit
