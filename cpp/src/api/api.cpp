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

#include "api/error.hpp"
#include "dispatch/select_float.hpp"
#include "gemmkit/gemmkit.hpp"
#include "gemmkit/version.h"
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
  return __builtin_mul_overflow(a, b, out);
}

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
      __builtin_add_overflow(reach_r, reach_c, &total) ||
      mul_overflows(total + 1, index_t(sizeof(T)), &total)) {
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

// True when (i, j) -> i*rs + j*cs is one-to-one on the view.  Sufficient
// test: the smaller stride is non-zero and the larger one steps over the
// whole extent of the smaller dimension (how every strided array that does
// not alias itself is laid out).
bool addresses_uniquely(index_t rows, index_t cols, index_t rs, index_t cs) {
  if (rows == 0 || cols == 0 || (rows <= 1 && cols <= 1)) return true;
  if (rows <= 1) return cs != 0;
  if (cols <= 1) return rs != 0;
  // Order the two strides: s1 the smaller one, d1 the extent it steps over.
  index_t s1 = rs < 0 ? -rs : rs, d1 = rows;
  index_t s2 = cs < 0 ? -cs : cs;
  if (s1 > s2 || (s1 == s2 && rows > cols)) {
    const index_t t = s1;
    s1 = s2;
    s2 = t;
    d1 = cols;
  }
  index_t reach;
  if (s1 == 0 || mul_overflows(s1, d1, &reach)) return false;
  return s2 >= reach;
}

template <class T>
const dispatch::Selection<T>& selection();
template <>
const dispatch::Selection<float>& selection<float>() {
  return dispatch::select_f32();
}
template <>
const dispatch::Selection<double>& selection<double>() {
  return dispatch::select_f64();
}

// C <- act(beta * C_in + bias) for k == 0 or alpha == 0: A and B unread.
template <class T>
void scale_only(const GemmTask<T>& t) {
  for (index_t j = 0; j < t.n; ++j) {
    for (index_t i = 0; i < t.m; ++i) {
      T v = t.beta == T(0) ? T(0) : t.beta * t.c_in[i * t.rs_ci + j * t.cs_ci];
      const Epilogue<T>& e = t.epi;
      if (e.bias_kind == BiasKind::kPerRow) v += e.bias[i * e.bias_stride];
      if (e.bias_kind == BiasKind::kPerCol) v += e.bias[j * e.bias_stride];
      if (e.act == Activation::kRelu) v = v > T(0) ? v : T(0);
      if (e.act == Activation::kClip) {
        v = v > e.lo ? v : e.lo;
        v = v < e.hi ? v : e.hi;
      }
      t.c_out[i * t.rs_co + j * t.cs_co] = v;
    }
  }
}

}  // namespace

template <class T>
int gemm(T alpha, const MatrixRef<T>& a, const MatrixRef<T>& b, T beta,
         const MatrixRef<T>* c_in, const MatrixMut<T>& c_out,
         const FusedEpilogue<T>* epilogue) {
  api::clear_error();
  const dispatch::Selection<T>& sel = selection<T>();
  if (sel.status != GEMMKIT_OK) return api::fail(sel.status, "%s", sel.error);

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
  const bool read_c = c_in != nullptr && beta != T(0);
  if (c_in && (c_in->rows != m || c_in->cols != n))
    return api::fail(GEMMKIT_ERROR_SHAPE,
                     "gemmkit: shape mismatch: c is %tdx%td but a @ b is "
                     "%tdx%td",
                     c_in->rows, c_in->cols, m, n);

  Span sa, sb, sc, sci{0, 0, true};
  int st;
  if ((st = span_of("a", a.data, m, k, a.rs, a.cs, &sa)) ||
      (st = span_of("b", b.data, k, n, b.rs, b.cs, &sb)) ||
      (st = span_of("out", c_out.data, m, n, c_out.rs, c_out.cs, &sc)))
    return st;
  if (c_in && (st = span_of("c", c_in->data, m, n, c_in->rs, c_in->cs, &sci)))
    return st;
  if (!addresses_uniquely(m, n, c_out.rs, c_out.cs))
    return api::fail(GEMMKIT_ERROR_STRIDE,
                     "gemmkit: out view of %tdx%td (strides %td, %td) aliases "
                     "itself; out must address each element uniquely",
                     m, n, c_out.rs, c_out.cs);
  const bool reads_ab = k > 0 && alpha != T(0);
  if (reads_ab && overlaps(sc, sa))
    return api::fail(GEMMKIT_ERROR_OVERLAP,
                     "gemmkit: out overlaps a; the output must not share "
                     "memory with an input (gemmkit makes no hidden copies)");
  if (reads_ab && overlaps(sc, sb))
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

  GemmTask<T> t{};
  t.m = m;
  t.n = n;
  t.k = k;
  t.alpha = alpha;
  t.beta = read_c ? beta : T(0);
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
    const FusedEpilogue<T>& e = *epilogue;
    if (e.bias_kind != Bias::kNone) {
      const index_t want = e.bias_kind == Bias::kPerRow ? m : n;
      if (!e.bias || e.bias_len != want)
        return api::fail(GEMMKIT_ERROR_SHAPE,
                         "gemmkit: bias has %td values but the output has %td "
                         "%s",
                         e.bias_len, want,
                         e.bias_kind == Bias::kPerRow ? "rows" : "columns");
      Span sbias;
      if ((st = span_of("bias", e.bias, want, 1, e.bias_stride, 1, &sbias)))
        return st;
      if (overlaps(sc, sbias))
        return api::fail(GEMMKIT_ERROR_OVERLAP, "gemmkit: out overlaps bias");
      t.epi.bias = e.bias;
      t.epi.bias_stride = e.bias_stride;
      t.epi.bias_kind = e.bias_kind == Bias::kPerRow ? BiasKind::kPerRow
                                                     : BiasKind::kPerCol;
    }
    if (e.act == Act::kClip) {
      if (std::isnan(e.lo) || std::isnan(e.hi) || e.lo > e.hi)
        return api::fail(GEMMKIT_ERROR_VALUE,
                         "gemmkit: clip bounds must satisfy lo <= hi (got %g, "
                         "%g)",
                         double(e.lo), double(e.hi));
      t.epi.act = Activation::kClip;
      t.epi.lo = e.lo;
      t.epi.hi = e.hi;
    } else if (e.act == Act::kRelu) {
      t.epi.act = Activation::kRelu;
    }
  }

  if (m == 0 || n == 0) return GEMMKIT_OK;
  if (!reads_ab) {
    scale_only(t);
    return GEMMKIT_OK;
  }
  st = sel.desc.run(t);
  if (st == GEMMKIT_ERROR_ALLOC)
    return api::fail(st, "gemmkit: could not allocate the packing workspace");
  return st;
}

template int gemm<float>(float, const MatrixRef<float>&, const MatrixRef<float>&,
                         float, const MatrixRef<float>*, const MatrixMut<float>&,
                         const FusedEpilogue<float>*);
template int gemm<double>(double, const MatrixRef<double>&,
                          const MatrixRef<double>&, double,
                          const MatrixRef<double>*, const MatrixMut<double>&,
                          const FusedEpilogue<double>*);

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
