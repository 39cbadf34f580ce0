// L8 api: argument checking, once, here; then the dispatched descriptor.
//
// Checked: shapes agree; each view's extent is addressable (no ptrdiff_t
// overflow); C addresses each (i, j) uniquely; C shares no memory with A or
// B; C_in, when it is read, is either C_out itself or disjoint from it;
// bias lengths; clip bounds.  Degenerate shapes exit here: m == 0 or n == 0
// does nothing, k == 0 or alpha == 0 scales C and never reads A or B.
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <type_traits>

#include "api/batched.hpp"
#include "api/error.hpp"
#include "compiler.hpp"
#include "dispatch/select.hpp"
#include "gemmkit/gemmkit.hpp"
#include "gemmkit/version.h"
#include "parallel/thread_pool.hpp"
#include "scalar/half.hpp"
#include "scalar/requant.hpp"
#include "tuning/tuning.hpp"

namespace gemmkit {

namespace api {

namespace {
thread_local char g_last_error[512];
}

int fail(int status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(g_last_error, sizeof g_last_error, fmt, args);
  va_end(args);
  return status;
}

void clear_error() { g_last_error[0] = 0; }

const char* message() { return g_last_error; }

}  // namespace api

namespace {

// Byte range [lo, hi) a view touches; empty views touch nothing.
struct Span {
  std::uintptr_t lo, hi;
  bool empty;
};

bool mul_overflows(index_t a, index_t b, index_t* out) {
  return GEMMKIT_MUL_OVERFLOWS(a, b, out);
}

// No view spans more bytes than a 57-bit address space holds (x86-64 with
// 5-level paging, AArch64 at most 52): larger spans cannot be real memory,
// and refusing them keeps every offset the kernels form far from overflow.
constexpr index_t kMaxSpanBytes = PTRDIFF_MAX >> (sizeof(void*) >= 8 ? 6 : 0);

// Computes the byte span of a rows x cols view, failing closed on overflow.
template <class T>
int span_of(const char* name, const T* data, index_t rows, index_t cols,
            index_t rs, index_t cs, Span* out) {
  out->empty = rows == 0 || cols == 0;
  if (out->empty) return GEMMKIT_OK;
  index_t reach_r, reach_c, total;
  const index_t ars = rs < 0 ? -rs : rs, acs = cs < 0 ? -cs : cs;
  if (rs == PTRDIFF_MIN || cs == PTRDIFF_MIN ||
      mul_overflows(rows - 1, ars, &reach_r) ||
      mul_overflows(cols - 1, acs, &reach_c) ||
      GEMMKIT_ADD_OVERFLOWS(reach_r, reach_c, &total) ||
      mul_overflows(total + 1, index_t(sizeof(T)), &total) || total > kMaxSpanBytes) {
    return api::fail(GEMMKIT_ERROR_STRIDE,
                     "gemmkit: %s view of %tdx%td (strides %td, %td) is too "
                     "large to address",
                     name, rows, cols, rs, cs);
  }
  index_t low = 0;
  if (rs < 0) low -= reach_r;
  if (cs < 0) low -= reach_c;
  const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(data);
  out->lo = base + low * index_t(sizeof(T));
  out->hi = out->lo + std::uintptr_t(total);
  return GEMMKIT_OK;
}

bool overlaps(const Span& x, const Span& y) {
  return !x.empty && !y.empty && x.lo < y.hi && y.lo < x.hi;
}

// True when the index -> sum(index[d] * stride[d]) map of a view with
// these extents is one-to-one.  Sufficient test (exact for every layout an
// array library makes): ordered by |stride|, each stride steps past the
// whole reach of the smaller ones.  Dimensions of extent 1 never step.
bool addresses_uniquely(int dims, const index_t* extent, const index_t* stride) {
  index_t s[3], d[3];
  int n = 0;
  for (int i = 0; i < dims; ++i) {
    if (extent[i] == 0) return true;  // touches nothing
    if (extent[i] == 1) continue;
    index_t v = stride[i] < 0 ? -stride[i] : stride[i];
    if (stride[i] == PTRDIFF_MIN) return false;
    int j = n++;
    for (; j > 0 && s[j - 1] > v; --j) {  // insertion sort, ascending
      s[j] = s[j - 1];
      d[j] = d[j - 1];
    }
    s[j] = v;
    d[j] = extent[i];
  }
  index_t reach = 0;  // the largest offset the smaller strides reach
  for (int i = 0; i < n; ++i) {
    index_t step;
    if (s[i] <= reach || mul_overflows(s[i], d[i] - 1, &step) ||
        GEMMKIT_ADD_OVERFLOWS(reach, step, &reach))
      return false;
  }
  return true;
}

bool addresses_uniquely(index_t rows, index_t cols, index_t rs, index_t cs) {
  const index_t extent[2] = {rows, cols}, stride[2] = {rs, cs};
  return addresses_uniquely(2, extent, stride);
}

// The run entry of a descriptor for output type O.
template <class L, class O>
dispatch::GemmFn<L, O> entry(const dispatch::Descriptor<L>& d, bool requant) {
  if constexpr (std::is_same_v<L, std::int8_t>) {
    if constexpr (std::is_same_v<O, std::int32_t>) return d.run_i32;
    else if constexpr (std::is_same_v<O, std::int8_t>) return requant ? d.run_requant_i8 : nullptr;
    else return d.run_requant_u8;
  } else if constexpr (std::is_same_v<O, L>) {
    return d.run;
  } else {
    return d.run_f32;
  }
}

template <class L>
constexpr const char* dtype_word() {
  if constexpr (std::is_same_v<L, float>) return "float32";
  else if constexpr (std::is_same_v<L, double>) return "float64";
  else if constexpr (std::is_same_v<L, float16>) return "float16";
  else if constexpr (std::is_same_v<L, bfloat16>) return "bfloat16";
  else if constexpr (std::is_same_v<L, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<L, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<L, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<L, std::uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<L, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<L, bool8>) return "bool";
  else if constexpr (std::is_same_v<L, complex64>) return "complex64";
  else return "complex128";
}

// x * y; complex by the textbook formula, as the kernels (and numpy's own
// loops) compute it, not C's Annex G operator with its inf/NaN recovery.
template <class A>
A times(A x, A y) {
  if constexpr (is_complex_v<A>) {
    return A(x.real() * y.real() - x.imag() * y.imag(),
             x.real() * y.imag() + x.imag() * y.real());
  } else {
    return x * y;
  }
}

// out <- act(beta * c_in + bias) (or the requant map of bias alone) for
// k == 0 or alpha == 0: A and B are never read.
template <class L, class A, class O>
void scale_only(const GemmTask<L, A, O>& t) {
  for (index_t j = 0; j < t.n; ++j) {
    for (index_t i = 0; i < t.m; ++i) {
      O* dst = t.c_out + i * t.rs_co + j * t.cs_co;
      if constexpr (std::is_same_v<L, std::int8_t> && sizeof(O) == 1) {
        const Requant& q = t.rq;
        std::int32_t v = 0;
        if (q.bias_kind == BiasKind::kPerRow) v = q.bias[i * q.bias_stride];
        if (q.bias_kind == BiasKind::kPerCol) v = q.bias[j * q.bias_stride];
        *dst = O(scalar::requantize(v, q.scale[scale_index(q, i, j)], q.zero_point, q.lo, q.hi));
      } else if constexpr (std::is_integral_v<A>) {
        // Wrapping arithmetic, done unsigned to stay defined; the epilogue
        // as the kernels apply it (wrapping bias add).
        using U = std::make_unsigned_t<A>;
        const Epilogue<A>& e = t.epi;
        const U c = t.beta == 0 ? U(0)
                                : U(scalar::widen<A>(t.c_in[i * t.rs_ci + j * t.cs_ci]));
        U u = U(t.beta) * c;
        if (e.bias_kind == BiasKind::kPerRow) u += U(e.bias[i * e.bias_stride]);
        if (e.bias_kind == BiasKind::kPerCol) u += U(e.bias[j * e.bias_stride]);
        *dst = scalar::narrow<O>(activate_scalar(A(u), e));
      } else {
        A v = t.beta == A(0) ? A(0)
                             : times(t.beta, scalar::widen<A>(t.c_in[i * t.rs_ci + j * t.cs_ci]));
        const Epilogue<A>& e = t.epi;
        if (e.bias_kind == BiasKind::kPerRow) v += e.bias[i * e.bias_stride];
        if (e.bias_kind == BiasKind::kPerCol) v += e.bias[j * e.bias_stride];
        if constexpr (is_complex_v<A>) *dst = v;
        else *dst = scalar::narrow<O>(activate_scalar(v, e));
      }
    }
  }
}

template <class A>
bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>) return std::isnan(v);
  else return false;
}

// The checks every entry shares, then the task.  b_data == nullptr means a
// prepacked B (its memory is gemmkit's own: no span or overlap checks).
// out_span, when given, receives the byte span of c_out for later checks.
template <class L, class O>
int prepare(acc_t<L> alpha, const MatrixRef<L>& a, const MatrixRef<L>& b,
            acc_t<L> beta, const MatrixRef<std::type_identity_t<O>>* c_in,
            const MatrixMut<O>& c_out, const FusedEpilogue<acc_t<L>>* epilogue,
            GemmTask<L, acc_t<L>, O>* out, bool* reads_ab, Span* out_span = nullptr) {
  using A = acc_t<L>;
  const index_t m = a.rows, k = a.cols, n = b.cols;
  if (m < 0 || k < 0 || n < 0 || b.rows < 0 || c_out.rows < 0 || c_out.cols < 0)
    return api::fail(GEMMKIT_ERROR_SHAPE, "gemmkit: negative dimension");
  if (b.rows != k)
    return api::fail(GEMMKIT_ERROR_SHAPE,
                     "gemmkit: shape mismatch: a is %tdx%td but b is %tdx%td "
                     "(a.cols != b.rows)",
                     m, k, b.rows, n);
  if (c_out.rows != m || c_out.cols != n)
    return api::fail(GEMMKIT_ERROR_SHAPE,
                     "gemmkit: shape mismatch: out is %tdx%td but a @ b is "
                     "%tdx%td",
                     c_out.rows, c_out.cols, m, n);
  const bool read_c = c_in != nullptr && beta != A(0);
  if (c_in && (c_in->rows != m || c_in->cols != n))
    return api::fail(GEMMKIT_ERROR_SHAPE,
                     "gemmkit: shape mismatch: c is %tdx%td but a @ b is "
                     "%tdx%td",
                     c_in->rows, c_in->cols, m, n);

  Span sa{}, sb{0, 0, true}, sc{}, sci{0, 0, true};
  int st;
  if ((st = span_of("a", a.data, m, k, a.rs, a.cs, &sa)) ||
      (b.data && (st = span_of("b", b.data, k, n, b.rs, b.cs, &sb))) ||
      (st = span_of("out", c_out.data, m, n, c_out.rs, c_out.cs, &sc)))
    return st;
  if (c_in && (st = span_of("c", c_in->data, m, n, c_in->rs, c_in->cs, &sci)))
    return st;
  if (!addresses_uniquely(m, n, c_out.rs, c_out.cs))
    return api::fail(GEMMKIT_ERROR_STRIDE,
                     "gemmkit: out view of %tdx%td (strides %td, %td) aliases "
                     "itself; out must address each element uniquely",
                     m, n, c_out.rs, c_out.cs);
  *reads_ab = k > 0 && alpha != A(0);
  if (*reads_ab && overlaps(sc, sa))
    return api::fail(GEMMKIT_ERROR_OVERLAP,
                     "gemmkit: out overlaps a; the output must not share "
                     "memory with an input (gemmkit makes no hidden copies)");
  if (*reads_ab && overlaps(sc, sb))
    return api::fail(GEMMKIT_ERROR_OVERLAP,
                     "gemmkit: out overlaps b; the output must not share "
                     "memory with an input (gemmkit makes no hidden copies)");
  const bool same_c = c_in && c_in->data == c_out.data &&
                      (m <= 1 || c_in->rs == c_out.rs) &&
                      (n <= 1 || c_in->cs == c_out.cs);
  if (read_c && !same_c && overlaps(sc, sci))
    return api::fail(GEMMKIT_ERROR_OVERLAP,
                     "gemmkit: out overlaps c without being the same view "
                     "(an in-place update needs out to be c itself)");

  GemmTask<L, A, O> t{};
  t.m = m;
  t.n = n;
  t.k = k;
  t.alpha = alpha;
  t.beta = read_c ? beta : A(0);
  t.a = a.data;
  t.rs_a = a.rs;
  t.cs_a = a.cs;
  t.b = b.data;
  t.rs_b = b.rs;
  t.cs_b = b.cs;
  t.c_in = read_c ? c_in->data : nullptr;
  t.rs_ci = read_c ? c_in->rs : 0;
  t.cs_ci = read_c ? c_in->cs : 0;
  t.c_out = c_out.data;
  t.rs_co = c_out.rs;
  t.cs_co = c_out.cs;
  t.max_threads = tuning::max_threads();
  if (epilogue) {
    const FusedEpilogue<A>& e = *epilogue;
    if (e.bias_kind != Bias::kNone) {
      const index_t want = e.bias_kind == Bias::kPerRow ? m : n;
      if (!e.bias || e.bias_len != want)
        return api::fail(GEMMKIT_ERROR_SHAPE,
                         "gemmkit: bias has %td values but the output has %td "
                         "%s",
                         e.bias_len, want,
                         e.bias_kind == Bias::kPerRow ? "rows" : "columns");
      Span sbias{};
      if ((st = span_of("bias", e.bias, want, 1, e.bias_stride, 1, &sbias)))
        return st;
      if (overlaps(sc, sbias))
        return api::fail(GEMMKIT_ERROR_OVERLAP, "gemmkit: out overlaps bias");
      t.epi.bias = e.bias;
      t.epi.bias_stride = e.bias_stride;
      t.epi.bias_kind = e.bias_kind == Bias::kPerRow ? BiasKind::kPerRow
                                                     : BiasKind::kPerCol;
    }
    if constexpr (is_complex_v<A>) {
      if (e.act != Act::kNone)
        return api::fail(GEMMKIT_ERROR_DTYPE,
                         "gemmkit: %s products take a bias but no activation (complex "
                         "numbers have no order)",
                         dtype_word<L>());
    } else if (e.act == Act::kClip) {
      if (is_nan(e.lo) || is_nan(e.hi) || e.lo > e.hi)
        return api::fail(GEMMKIT_ERROR_VALUE,
                         "gemmkit: clip bounds must satisfy lo <= hi (got %g, "
                         "%g)",
                         double(e.lo), double(e.hi));
      t.epi.act = Activation::kClip;
      t.epi.lo = e.lo;
      t.epi.hi = e.hi;
    } else if (e.act == Act::kRelu) {
      t.epi.act = Activation::kRelu;
    } else if (e.act == Act::kLeakyRelu) {
      if constexpr (std::is_integral_v<A>) {
        return api::fail(GEMMKIT_ERROR_DTYPE,
                         "gemmkit: leaky_relu needs a floating-point type (%s "
                         "products accumulate in int32)",
                         dtype_word<L>());
      } else {
        if (!std::isfinite(e.slope))
          return api::fail(GEMMKIT_ERROR_VALUE,
                           "gemmkit: leaky_relu slope must be finite (got %g)",
                           double(e.slope));
        t.epi.act = Activation::kLeakyRelu;
        t.epi.slope = e.slope;
      }
    } else if (e.act != Act::kNone) {
      return api::fail(GEMMKIT_ERROR_VALUE, "gemmkit: unknown activation %d",
                       int(e.act));
    }
  }
  *out = t;
  if (out_span) *out_span = sc;
  return GEMMKIT_OK;
}

// Checks the requantization parameters against an m x n output whose bytes
// span sc, and puts them into t.rq (user frame).
template <class O>
int prepare_requant(const Requantize& rq, index_t m, index_t n, const Span& sc, Requant* q) {
  constexpr bool kU8 = std::is_same_v<O, std::uint8_t>;
  const std::int32_t lo = kU8 ? 0 : -128, hi = kU8 ? 255 : 127;
  const index_t want = rq.scale_kind == Scale::kPerTensor ? 1
                       : rq.scale_kind == Scale::kPerRow  ? m
                                                          : n;
  const char* what = rq.scale_kind == Scale::kPerTensor ? "value (per tensor)"
                     : rq.scale_kind == Scale::kPerRow  ? "rows"
                                                        : "columns";
  if (!rq.scale || rq.scale_len != want)
    return api::fail(GEMMKIT_ERROR_SHAPE,
                     "gemmkit: requantize scale has %td values but needs %td "
                     "(one per %s)",
                     rq.scale_len, want, what);
  for (index_t i = 0; i < want; ++i) {
    const float s = rq.scale[i * rq.scale_stride];
    if (!(std::isfinite(s) && s > 0.0f))
      return api::fail(GEMMKIT_ERROR_VALUE,
                       "gemmkit: requantize scale must be finite and > 0 (got "
                       "%g at index %td)",
                       double(s), i);
  }
  if (rq.zero_point < lo || rq.zero_point > hi)
    return api::fail(GEMMKIT_ERROR_VALUE,
                     "gemmkit: zero_point %d is out of the %s range [%d, %d]",
                     int(rq.zero_point), kU8 ? "uint8" : "int8", int(lo), int(hi));
  Span ss{};
  int st;
  if ((st = span_of("scale", rq.scale, want, 1, rq.scale_stride, 1, &ss))) return st;
  if (overlaps(sc, ss))
    return api::fail(GEMMKIT_ERROR_OVERLAP, "gemmkit: out overlaps the requantize scales");
  Requant r{};
  r.scale = rq.scale;
  r.scale_stride = rq.scale_stride;
  r.scale_kind = rq.scale_kind == Scale::kPerTensor ? ScaleKind::kPerTensor
                 : rq.scale_kind == Scale::kPerRow  ? ScaleKind::kPerRow
                                                    : ScaleKind::kPerCol;
  r.bias_kind = BiasKind::kNone;
  if (rq.bias_kind != Bias::kNone) {
    const index_t bwant = rq.bias_kind == Bias::kPerRow ? m : n;
    if (!rq.bias || rq.bias_len != bwant)
      return api::fail(GEMMKIT_ERROR_SHAPE,
                       "gemmkit: requantize bias has %td values but the output "
                       "has %td %s",
                       rq.bias_len, bwant, rq.bias_kind == Bias::kPerRow ? "rows" : "columns");
    Span sb{};
    if ((st = span_of("bias", rq.bias, bwant, 1, rq.bias_stride, 1, &sb))) return st;
    if (overlaps(sc, sb))
      return api::fail(GEMMKIT_ERROR_OVERLAP, "gemmkit: out overlaps the requantize bias");
    r.bias = rq.bias;
    r.bias_stride = rq.bias_stride;
    r.bias_kind = rq.bias_kind == Bias::kPerRow ? BiasKind::kPerRow : BiasKind::kPerCol;
  }
  r.zero_point = rq.zero_point;
  r.lo = lo;
  r.hi = hi;
  *q = r;
  return GEMMKIT_OK;
}

template <class L>
int selected(const dispatch::Selection<L>** out) {
  const dispatch::Selection<L>& sel = dispatch::select<L>();
  if (sel.status != GEMMKIT_OK) return api::fail(sel.status, "%s", sel.error);
  *out = &sel;
  return GEMMKIT_OK;
}

template <class L, class A, class O>
int execute(const dispatch::Selection<L>& sel, const GemmTask<L, A, O>& t, bool reads_ab,
            bool requant) {
  if (t.m == 0 || t.n == 0) return GEMMKIT_OK;
  if (!reads_ab) {
    scale_only(t);
    return GEMMKIT_OK;
  }
  const dispatch::GemmFn<L, O> fn = entry<L, O>(sel.desc, requant);
  if (!fn)
    return api::fail(GEMMKIT_ERROR_DTYPE, "gemmkit: %s input has no %s output",
                     dtype_word<L>(), dtype_word<O>());
  const int st = fn(t);
  if (st == GEMMKIT_ERROR_ALLOC)
    return api::fail(st, "gemmkit: could not allocate the packing workspace");
  return st;
}

}  // namespace

// The prepacked operand: B packed as the kernel-frame A of C^T = B^T A^T by
// the descriptor that was selected for its type, plus what a later call
// needs to prove it was made for it.
struct PackedRhs {
  const char* dtype;
  index_t k, n, kc;
  const char* isa;
  int mr, nr, depth_multiple;
  char kernel[64];
  void* data;
  std::size_t bytes;
  char json[256];
};

template <class L, class O>
int gemm(acc_t<L> alpha, const MatrixRef<L>& a, const MatrixRef<L>& b, acc_t<L> beta,
         const MatrixRef<std::type_identity_t<O>>* c_in, const MatrixMut<O>& c_out,
         const FusedEpilogue<acc_t<L>>* epilogue) {
  api::clear_error();
  const dispatch::Selection<L>* sel = nullptr;
  int st;
  if ((st = selected(&sel))) return st;
  GemmTask<L, acc_t<L>, O> t;
  bool reads_ab;
  if ((st = prepare<L, O>(alpha, a, b, beta, c_in, c_out, epilogue, &t, &reads_ab)))
    return st;
  return execute(*sel, t, reads_ab, false);
}

// Checks that `packed` was made for L, for this dispatch choice, and for a
// product with depth k.
template <class L>
int check_packed(const dispatch::Selection<L>& sel, const PackedRhs& p, index_t k) {
  if (std::strcmp(p.dtype, dtype_word<L>()) != 0)
    return api::fail(GEMMKIT_ERROR_DTYPE,
                     "gemmkit: the packed operand holds %s but a is %s",
                     p.dtype, dtype_word<L>());
  if (std::strcmp(p.isa, sel.desc.isa) != 0 || p.mr != sel.desc.mr ||
      p.depth_multiple != sel.desc.depth_multiple)
    return api::fail(GEMMKIT_ERROR_ISA,
                     "gemmkit: the packed operand was laid out for %s, but "
                     "this process runs %s",
                     p.kernel, sel.kernel);
  if (p.k != k)
    return api::fail(GEMMKIT_ERROR_SHAPE,
                     "gemmkit: shape mismatch: a has %td columns but the packed "
                     "b has %td rows",
                     k, p.k);
  return GEMMKIT_OK;
}

// The kernel-frame task of a packed product: C^T (n x m) = (B^T) (A^T).
template <class L, class A, class O>
GemmTask<L, A, O> packed_task(const GemmTask<L, A, O>& user, const PackedRhs& p) {
  GemmTask<L, A, O> t = transposed(user);
  t.a = nullptr;
  t.packed_a = p.data;
  t.packed_kc = p.kc;
  return t;
}

template <class L, class O>
int gemm_packed(acc_t<L> alpha, const MatrixRef<L>& a, const PackedRhs& b, acc_t<L> beta,
                const MatrixRef<std::type_identity_t<O>>* c_in, const MatrixMut<O>& c_out,
                const FusedEpilogue<acc_t<L>>* epilogue) {
  api::clear_error();
  const dispatch::Selection<L>* sel = nullptr;
  int st;
  if ((st = selected(&sel))) return st;
  if ((st = check_packed(*sel, b, a.cols))) return st;
  const MatrixRef<L> vb{nullptr, b.k, b.n, 0, 0};
  GemmTask<L, acc_t<L>, O> t;
  bool reads_ab;
  if ((st = prepare<L, O>(alpha, a, vb, beta, c_in, c_out, epilogue, &t, &reads_ab)))
    return st;
  return execute(*sel, reads_ab ? packed_task(t, b) : t, reads_ab, false);
}

template <class O>
int gemm_requant(const MatrixRef<std::int8_t>& a, const MatrixRef<std::int8_t>& b,
                 const Requantize& rq, const MatrixMut<O>& c_out) {
  api::clear_error();
  const dispatch::Selection<std::int8_t>* sel = nullptr;
  int st;
  if ((st = selected(&sel))) return st;
  GemmTask<std::int8_t, std::int32_t, O> t;
  bool reads_ab;
  Span sc{};
  if ((st = prepare<std::int8_t, O>(1, a, b, 0, nullptr, c_out, nullptr, &t, &reads_ab,
                                    &sc)))
    return st;
  if ((st = prepare_requant<O>(rq, t.m, t.n, sc, &t.rq))) return st;
  return execute(*sel, t, reads_ab, true);
}

template <class O>
int gemm_requant_packed(const MatrixRef<std::int8_t>& a, const PackedRhs& b,
                        const Requantize& rq, const MatrixMut<O>& c_out) {
  api::clear_error();
  const dispatch::Selection<std::int8_t>* sel = nullptr;
  int st;
  if ((st = selected(&sel))) return st;
  if ((st = check_packed(*sel, b, a.cols))) return st;
  const MatrixRef<std::int8_t> vb{nullptr, b.k, b.n, 0, 0};
  GemmTask<std::int8_t, std::int32_t, O> t;
  bool reads_ab;
  Span sc{};
  if ((st = prepare<std::int8_t, O>(1, a, vb, 0, nullptr, c_out, nullptr, &t, &reads_ab,
                                    &sc)))
    return st;
  if ((st = prepare_requant<O>(rq, t.m, t.n, sc, &t.rq))) return st;
  return execute(*sel, reads_ab ? packed_task(t, b) : t, reads_ab, true);
}

template <class L>
int prepack_rhs(const MatrixRef<L>& b, PackedRhs** out) {
  api::clear_error();
  if (!out) return api::fail(GEMMKIT_ERROR_VALUE, "gemmkit: prepack_rhs needs an output handle");
  *out = nullptr;
  const dispatch::Selection<L>* sel = nullptr;
  int st;
  if ((st = selected(&sel))) return st;
  if (b.rows < 0 || b.cols < 0)
    return api::fail(GEMMKIT_ERROR_SHAPE, "gemmkit: negative dimension");
  Span sb{};
  if ((st = span_of("b", b.data, b.rows, b.cols, b.rs, b.cs, &sb))) return st;
  const dispatch::Descriptor<L>& d = sel->desc;
  // Panels hold at most 4 bytes per element plus a tile of padding on each
  // side; refuse (without computing it in index_t) what cannot exist.
  const double bound = (double(b.rows) + 64) * (double(b.cols) + 64) * 4.0;
  if (bound > double(PTRDIFF_MAX / 4))
    return api::fail(GEMMKIT_ERROR_ALLOC,
                     "gemmkit: a packed operand of %tdx%td is too large to allocate",
                     b.rows, b.cols);
  const index_t bytes = d.packed_bytes(b.rows, b.cols);
  auto* p = static_cast<PackedRhs*>(std::calloc(1, sizeof(PackedRhs)));
  void* data = nullptr;
  if (!p || (bytes > 0 && GEMMKIT_ALLOCATE_ALIGNED(&data, 64, std::size_t(bytes)) != 0)) {
    std::free(p);
    return api::fail(GEMMKIT_ERROR_ALLOC,
                     "gemmkit: could not allocate %td bytes for the packed operand", bytes);
  }
  p->dtype = dtype_word<L>();
  p->k = b.rows;
  p->n = b.cols;
  p->kc = d.packed_kc(b.rows);
  p->isa = d.isa;
  p->mr = d.mr;
  p->nr = d.nr;
  p->depth_multiple = d.depth_multiple;
  std::snprintf(p->kernel, sizeof p->kernel, "%s", sel->kernel);
  p->data = data;
  p->bytes = std::size_t(bytes);
  if (b.rows > 0 && b.cols > 0) d.prepack(b.rows, b.cols, b.data, b.rs, b.cs, data);
  std::snprintf(p->json, sizeof p->json,
                "{\"dtype\":\"%s\",\"k\":%td,\"n\":%td,\"isa\":\"%s\","
                "\"kernel\":\"%s\",\"bytes\":%zu}",
                p->dtype, p->k, p->n, p->isa, p->kernel, p->bytes);
  *out = p;
  return GEMMKIT_OK;
}

void free_packed_rhs(PackedRhs* packed) {
  if (!packed) return;
  GEMMKIT_FREE_ALIGNED(packed->data);
  std::free(packed);
}

PackedRhsInfo packed_rhs_info(const PackedRhs& p) {
  return PackedRhsInfo{p.dtype, p.k, p.n, p.isa, p.kernel, p.bytes};
}

const char* packed_rhs_json(const PackedRhs& p) { return p.json; }

namespace api {

namespace {

// An operand's matrix 0 as the typed views of the C++ API.
template <class T>
MatrixRef<T> ref_of(const gemmkit_operand& op) {
  return {static_cast<const T*>(op.data), index_t(op.rows), index_t(op.cols), op.rs, op.cs};
}

template <class T>
MatrixMut<T> mut_of(const gemmkit_operand& op) {
  return {static_cast<T*>(op.data), index_t(op.rows), index_t(op.cols), op.rs, op.cs};
}

// Element offset of matrix i: batches of one broadcast.
index_t batch_step(const gemmkit_operand& op) { return op.batch == 1 ? 0 : op.batch_stride; }

// The byte span of a whole batch: matrix 0's, widened by batch - 1 steps.
template <class T>
int batch_span(const char* name, const gemmkit_operand& op, index_t batch, Span* out) {
  int st;
  if ((st = span_of(name, static_cast<const T*>(op.data), index_t(op.rows), index_t(op.cols),
                    op.rs, op.cs, out)))
    return st;
  if (batch == 0) out->empty = true;
  const index_t bs = batch_step(op);
  if (out->empty || batch <= 1 || bs == 0) return GEMMKIT_OK;
  index_t reach;
  if (bs == PTRDIFF_MIN || mul_overflows(batch - 1, bs < 0 ? -bs : bs, &reach) ||
      mul_overflows(reach, index_t(sizeof(T)), &reach) ||
      reach > kMaxSpanBytes - index_t(out->hi - out->lo))
    return fail(GEMMKIT_ERROR_STRIDE,
                "gemmkit: %s batch of %td matrices (batch stride %td) is too large to address",
                name, batch, bs);
  if (bs < 0) out->lo -= std::uintptr_t(reach);
  else out->hi += std::uintptr_t(reach);
  return GEMMKIT_OK;
}

// Sizes first: everything after works in index_t.
int check_operand_dims(const char* name, const gemmkit_operand& op, std::size_t batch) {
  const std::size_t limit = std::size_t(PTRDIFF_MAX);
  if (op.rows > limit || op.cols > limit || op.batch > limit)
    return fail(GEMMKIT_ERROR_SHAPE, "gemmkit: %s has a dimension too large to address", name);
  if (op.batch != batch && op.batch != 1)
    return fail(GEMMKIT_ERROR_SHAPE,
                "gemmkit: batch mismatch: %s holds %zu matrices but out holds %zu "
                "(a batch of 1 broadcasts)",
                name, op.batch, batch);
  return GEMMKIT_OK;
}

// The batch is split across threads, one product per thread at a time,
// when the driver would not split a product itself (below two workers'
// worth of GEMMKIT_MNK_PER_WORKER), or when there are at least two products
// per thread; otherwise each product shares the threads tile by tile.
// Below this much work in all, the parallel region costs more than it
// gives (the driver's GEMMKIT_PARALLEL_THRESHOLD is of the same order).
constexpr double kBatchMinParallelWork = 32.0 * 32.0 * 32.0;

template <class L, class O>
struct BatchJob {
  const dispatch::Selection<L>* sel = nullptr;
  GemmTask<L, acc_t<L>, O> t0;
  const PackedRhs* packed;
  index_t batch, step_a, step_b, step_c, step_o;
  bool reads_ab, requant;
  int status;  // the first failure (written under the pool's barrier rules: one int)
};

// Products [lo, hi) of the batch: one descriptor call runs them all (the
// kernel entry loops), except where nothing is read (scale_only per matrix).
template <class L, class O>
int run_chunk(const BatchJob<L, O>& job, index_t lo, index_t hi) {
  GemmTask<L, acc_t<L>, O> t = job.t0;
  if (t.a) t.a += lo * job.step_a;
  if (t.b) t.b += lo * job.step_b;
  if (t.c_in) t.c_in += lo * job.step_c;
  t.c_out += lo * job.step_o;
  if (!job.reads_ab) {
    for (index_t i = lo; i < hi; ++i) {
      if (int st = execute(*job.sel, t, false, job.requant)) return st;
      if (t.c_in) t.c_in += job.step_c;
      t.c_out += job.step_o;
    }
    return GEMMKIT_OK;
  }
  t.batch = hi - lo;
  t.batch_a = job.step_a;
  t.batch_b = job.step_b;
  t.batch_c = job.step_c;
  t.batch_o = job.step_o;
  return execute(*job.sel, job.packed ? packed_task(t, *job.packed) : t, true, job.requant);
}

template <class L, class O>
void batch_worker(void* ctx, const parallel::Team& team) {
  auto& job = *static_cast<BatchJob<L, O>*>(ctx);
  const index_t lo = job.batch * team.tid / team.size;
  const index_t hi = job.batch * (team.tid + 1) / team.size;
  if (lo < hi) {
    const int st = run_chunk(job, lo, hi);
    if (st != GEMMKIT_OK) __atomic_store_n(&job.status, st, __ATOMIC_RELAXED);
  }
}

template <class L, class O>
int run_batch(BatchJob<L, O>& job) {
  const auto& t = job.t0;
  const double work = double(t.m) * double(t.n) * double(t.k);
  const int threads = t.max_threads;
  const bool across = job.batch > 1 && threads > 1 &&
                      work * double(job.batch) >= kBatchMinParallelWork &&
                      (work < 2.0 * double(tuning::get(tuning::Knob::kMnkPerWorker)) ||
                       job.batch >= 2 * index_t(threads));
  if (!across) return run_chunk(job, 0, job.batch);
  job.t0.max_threads = 1;  // one product per thread; the results do not depend on it
  job.status = GEMMKIT_OK;
  const int team = job.batch < index_t(threads) ? int(job.batch) : threads;
  parallel::run(team, &batch_worker<L, O>, &job);
  const int st = __atomic_load_n(&job.status, __ATOMIC_RELAXED);
  if (st == GEMMKIT_ERROR_ALLOC)
    return fail(st, "gemmkit: could not allocate the packing workspace");
  return st;
}

// Everything the door checks, then the batch.  rq is non-null for the
// requantized outputs.
template <class L, class O>
int door(acc_t<L> alpha, const gemmkit_operand& a, const gemmkit_operand* b,
         const PackedRhs* packed, acc_t<L> beta, const gemmkit_operand* c,
         const gemmkit_operand& out, const FusedEpilogue<acc_t<L>>* epilogue,
         const Requantize* rq, int flags) {
  using A = acc_t<L>;
  clear_error();
  const dispatch::Selection<L>* sel = nullptr;
  int st;
  if ((st = selected(&sel))) return st;
  if (out.flags & GEMMKIT_OPERAND_READONLY)
    return fail(GEMMKIT_ERROR_STRIDE, "gemmkit: out is read-only");
  const std::size_t nb = out.batch;
  if ((st = check_operand_dims("out", out, nb)) || (st = check_operand_dims("a", a, nb)) ||
      (b && (st = check_operand_dims("b", *b, nb))) ||
      (c && (st = check_operand_dims("c", *c, nb))))
    return st;
  const index_t batch = index_t(nb);
  if (packed && (st = check_packed(*sel, *packed, index_t(a.cols)))) return st;

  if (batch == 0) {
    // An empty batch touches no memory: only the shapes must agree.  Its
    // views are checked as contiguous and unread (alpha 0, no c).
    const MatrixRef<L> va0{nullptr, index_t(a.rows), index_t(a.cols), index_t(a.cols), 1};
    const MatrixRef<L> vb0{nullptr, packed ? packed->k : index_t(b->rows),
                           packed ? packed->n : index_t(b->cols), 1, 1};
    const MatrixMut<O> vo0{nullptr, index_t(out.rows), index_t(out.cols), index_t(out.cols), 1};
    GemmTask<L, A, O> t0;
    bool reads0;
    return prepare<L, O>(A(0), va0, vb0, A(0), nullptr, vo0, epilogue, &t0, &reads0);
  }
  // Matrix 0 carries the shape, stride, epilogue and pairwise checks.
  const MatrixRef<L> va = ref_of<L>(a);
  const MatrixRef<L> vb = packed ? MatrixRef<L>{nullptr, packed->k, packed->n, 0, 0}
                                 : ref_of<L>(*b);
  const MatrixRef<O> vc = c ? ref_of<O>(*c) : MatrixRef<O>{};
  const MatrixMut<O> vo = mut_of<O>(out);
  GemmTask<L, A, O> t;
  bool reads_ab;
  Span so0{};
  if ((st = prepare<L, O>(alpha, va, vb, beta, c ? &vc : nullptr, vo, epilogue, &t, &reads_ab,
                          &so0)))
    return st;
  t.conj_a = (flags & GEMMKIT_CONJ_A) != 0;
  t.conj_b = (flags & GEMMKIT_CONJ_B) != 0;
  // bool products count the true terms in int32 (types.hpp): a count of
  // 2^32 would read as false.
  if (std::is_same_v<L, bool8> && t.k > index_t(INT32_MAX))
    return fail(GEMMKIT_ERROR_SHAPE,
                "gemmkit: bool products support a depth below 2^31, got %td", t.k);

  // The whole batch: addressable, written once, disjoint from the inputs.
  Span sa{}, sb{0, 0, true}, sc{0, 0, true}, so{};
  if ((st = batch_span<L>("a", a, batch, &sa)) ||
      (b && (st = batch_span<L>("b", *b, batch, &sb))) ||
      (c && (st = batch_span<O>("c", *c, batch, &sc))) ||
      (st = batch_span<O>("out", out, batch, &so)))
    return st;
  const index_t extent[3] = {batch, t.m, t.n};
  const index_t stride[3] = {out.batch_stride, out.rs, out.cs};
  if (batch > 1 && !addresses_uniquely(3, extent, stride))
    return fail(GEMMKIT_ERROR_STRIDE,
                "gemmkit: out batch of %td matrices of %tdx%td (strides %td, %td, %td) "
                "aliases itself; out must address each element uniquely",
                batch, t.m, t.n, out.batch_stride, out.rs, out.cs);
  if (reads_ab && overlaps(so, sa))
    return fail(GEMMKIT_ERROR_OVERLAP,
                "gemmkit: out overlaps a; the output must not share memory with an "
                "input (gemmkit makes no hidden copies)");
  if (reads_ab && overlaps(so, sb))
    return fail(GEMMKIT_ERROR_OVERLAP,
                "gemmkit: out overlaps b; the output must not share memory with an "
                "input (gemmkit makes no hidden copies)");
  const bool same_c = c && c->data == out.data && batch_step(*c) == batch_step(out) &&
                      (t.m <= 1 || c->rs == out.rs) && (t.n <= 1 || c->cs == out.cs);
  if (t.c_in && !same_c && overlaps(so, sc))
    return fail(GEMMKIT_ERROR_OVERLAP,
                "gemmkit: out overlaps c without being the same view (an in-place "
                "update needs out to be c itself)");
  if (t.epi.bias_kind != BiasKind::kNone && batch > 1) {
    Span sbias{};
    const index_t len = epilogue->bias_len;
    if ((st = span_of("bias", t.epi.bias, len, 1, t.epi.bias_stride, 1, &sbias))) return st;
    if (overlaps(so, sbias)) return fail(GEMMKIT_ERROR_OVERLAP, "gemmkit: out overlaps bias");
  }
  if (rq && (st = prepare_requant<O>(*rq, t.m, t.n, so, &t.rq))) return st;

  BatchJob<L, O> job{sel, t, packed, batch, batch_step(a), b ? batch_step(*b) : 0,
                     c ? batch_step(*c) : 0, out.batch_stride, reads_ab, rq != nullptr,
                     GEMMKIT_OK};
  return run_batch(job);
}

}  // namespace

template <class L, class O>
int gemm_operands(acc_t<L> alpha, const gemmkit_operand& a, const gemmkit_operand* b,
                  const PackedRhs* packed, acc_t<L> beta, const gemmkit_operand* c,
                  const gemmkit_operand& out, const FusedEpilogue<acc_t<L>>* epilogue,
                  int flags) {
  return door<L, O>(alpha, a, b, packed, beta, c, out, epilogue, nullptr, flags);
}

template <class O>
int requant_operands(const gemmkit_operand& a, const gemmkit_operand* b,
                     const PackedRhs* packed, const Requantize& rq,
                     const gemmkit_operand& out) {
  return door<std::int8_t, O>(1, a, b, packed, 0, nullptr, out, nullptr, &rq, 0);
}

#define GEMMKIT_INSTANTIATE_OPERANDS(L, O)                                            \
  template int gemm_operands<L, O>(acc_t<L>, const gemmkit_operand&,                  \
                                   const gemmkit_operand*, const PackedRhs*, acc_t<L>, \
                                   const gemmkit_operand*, const gemmkit_operand&,    \
                                   const FusedEpilogue<acc_t<L>>*, int);
GEMMKIT_INSTANTIATE_OPERANDS(float, float)
GEMMKIT_INSTANTIATE_OPERANDS(double, double)
GEMMKIT_INSTANTIATE_OPERANDS(float16, float16)
GEMMKIT_INSTANTIATE_OPERANDS(float16, float)
GEMMKIT_INSTANTIATE_OPERANDS(bfloat16, bfloat16)
GEMMKIT_INSTANTIATE_OPERANDS(bfloat16, float)
GEMMKIT_INSTANTIATE_OPERANDS(std::int8_t, std::int32_t)
GEMMKIT_INSTANTIATE_OPERANDS(std::uint8_t, std::uint8_t)
GEMMKIT_INSTANTIATE_OPERANDS(std::uint16_t, std::uint16_t)
GEMMKIT_INSTANTIATE_OPERANDS(std::int32_t, std::int32_t)
GEMMKIT_INSTANTIATE_OPERANDS(std::int64_t, std::int64_t)
GEMMKIT_INSTANTIATE_OPERANDS(bool8, bool8)
GEMMKIT_INSTANTIATE_OPERANDS(complex64, complex64)
GEMMKIT_INSTANTIATE_OPERANDS(complex128, complex128)
#undef GEMMKIT_INSTANTIATE_OPERANDS
template int requant_operands<std::int8_t>(const gemmkit_operand&, const gemmkit_operand*,
                                           const PackedRhs*, const Requantize&,
                                           const gemmkit_operand&);
template int requant_operands<std::uint8_t>(const gemmkit_operand&, const gemmkit_operand*,
                                            const PackedRhs*, const Requantize&,
                                            const gemmkit_operand&);

}  // namespace api

#define GEMMKIT_INSTANTIATE_GEMM(L, O)                                              \
  template int gemm<L, O>(acc_t<L>, const MatrixRef<L>&, const MatrixRef<L>&,       \
                          acc_t<L>, const MatrixRef<O>*, const MatrixMut<O>&,        \
                          const FusedEpilogue<acc_t<L>>*);                           \
  template int gemm_packed<L, O>(acc_t<L>, const MatrixRef<L>&, const PackedRhs&,   \
                                 acc_t<L>, const MatrixRef<O>*, const MatrixMut<O>&, \
                                 const FusedEpilogue<acc_t<L>>*);
GEMMKIT_INSTANTIATE_GEMM(float, float)
GEMMKIT_INSTANTIATE_GEMM(double, double)
GEMMKIT_INSTANTIATE_GEMM(float16, float16)
GEMMKIT_INSTANTIATE_GEMM(float16, float)
GEMMKIT_INSTANTIATE_GEMM(bfloat16, bfloat16)
GEMMKIT_INSTANTIATE_GEMM(bfloat16, float)
GEMMKIT_INSTANTIATE_GEMM(std::int8_t, std::int32_t)
GEMMKIT_INSTANTIATE_GEMM(std::int32_t, std::int32_t)
GEMMKIT_INSTANTIATE_GEMM(std::int64_t, std::int64_t)
GEMMKIT_INSTANTIATE_GEMM(complex64, complex64)
GEMMKIT_INSTANTIATE_GEMM(complex128, complex128)
#undef GEMMKIT_INSTANTIATE_GEMM

template int prepack_rhs<float>(const MatrixRef<float>&, PackedRhs**);
template int prepack_rhs<double>(const MatrixRef<double>&, PackedRhs**);
template int prepack_rhs<float16>(const MatrixRef<float16>&, PackedRhs**);
template int prepack_rhs<bfloat16>(const MatrixRef<bfloat16>&, PackedRhs**);
template int prepack_rhs<std::int8_t>(const MatrixRef<std::int8_t>&, PackedRhs**);
template int prepack_rhs<complex64>(const MatrixRef<complex64>&, PackedRhs**);
template int prepack_rhs<complex128>(const MatrixRef<complex128>&, PackedRhs**);

template int gemm_requant<std::int8_t>(const MatrixRef<std::int8_t>&,
                                       const MatrixRef<std::int8_t>&, const Requantize&,
                                       const MatrixMut<std::int8_t>&);
template int gemm_requant<std::uint8_t>(const MatrixRef<std::int8_t>&,
                                        const MatrixRef<std::int8_t>&, const Requantize&,
                                        const MatrixMut<std::uint8_t>&);
template int gemm_requant_packed<std::int8_t>(const MatrixRef<std::int8_t>&, const PackedRhs&,
                                              const Requantize&,
                                              const MatrixMut<std::int8_t>&);
template int gemm_requant_packed<std::uint8_t>(const MatrixRef<std::int8_t>&,
                                               const PackedRhs&, const Requantize&,
                                               const MatrixMut<std::uint8_t>&);

const char* last_error() { return api::message(); }

void set_num_threads(std::size_t n) {
  if (n == 0) tuning::reset(tuning::Knob::kNumThreads);
  else tuning::set(tuning::Knob::kNumThreads, n);
}

std::size_t get_num_threads() {
  return static_cast<std::size_t>(tuning::max_threads());
}

const char* version() { return GEMMKIT_VERSION_STRING; }

}  // namespace gemmkit
