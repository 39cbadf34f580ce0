// Shared pieces of the gemmkit fuzz targets: a checked abort, strided
// operands allocated to exactly the span their strides reach (so ASan sees
// any access outside it), element codecs for every dtype, and the naive
// reference product that every result is compared with.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "gemmkit/gemmkit.h"
#include "gemmkit/types.hpp"
#include "scalar/half.hpp"

namespace fuzz {

// A wrong answer must be a crash that libFuzzer records, with the reason.
[[noreturn]] __attribute__((format(printf, 1, 2))) inline void fail(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  std::fputs("gemmkit fuzz check failed: ", stderr);
  std::vfprintf(stderr, fmt, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::abort();
}

#define FUZZ_CHECK(cond, ...)     \
  do {                            \
    if (!(cond)) ::fuzz::fail(__VA_ARGS__); \
  } while (0)

// ---------------------------------------------------------------- dtypes

enum class Family { kFloat, kInt, kBool, kComplex };

inline std::size_t dtype_size(int d) {
  switch (d) {
    case GEMMKIT_F32: case GEMMKIT_I32: case GEMMKIT_U32: return 4;
    case GEMMKIT_F64: case GEMMKIT_I64: case GEMMKIT_U64: case GEMMKIT_C64: return 8;
    case GEMMKIT_F16: case GEMMKIT_BF16: case GEMMKIT_I16: case GEMMKIT_U16: return 2;
    case GEMMKIT_I8: case GEMMKIT_U8: case GEMMKIT_BOOL: return 1;
    case GEMMKIT_C128: return 16;
    default: return 1;  // unknown codes: a byte-sized placeholder buffer
  }
}

inline Family family(int d) {
  switch (d) {
    case GEMMKIT_F32: case GEMMKIT_F64: case GEMMKIT_F16: case GEMMKIT_BF16:
      return Family::kFloat;
    case GEMMKIT_BOOL: return Family::kBool;
    case GEMMKIT_C64: case GEMMKIT_C128: return Family::kComplex;
    default: return Family::kInt;
  }
}

inline bool is_signed_int(int d) {
  return d == GEMMKIT_I8 || d == GEMMKIT_I16 || d == GEMMKIT_I32 || d == GEMMKIT_I64;
}

// Unit roundoff of a floating (or complex) type.
inline long double unit_roundoff(int d) {
  switch (d) {
    case GEMMKIT_F64: case GEMMKIT_C128: return std::ldexp(1.0L, -53);
    case GEMMKIT_F16: return std::ldexp(1.0L, -11);
    case GEMMKIT_BF16: return std::ldexp(1.0L, -8);
    default: return std::ldexp(1.0L, -24);
  }
}

// Smallest subnormal: the absolute error a rounding near zero may add.
inline long double min_subnormal(int d) {
  switch (d) {
    case GEMMKIT_F64: case GEMMKIT_C128: return std::ldexp(1.0L, -1074);
    case GEMMKIT_F16: return std::ldexp(1.0L, -24);
    case GEMMKIT_BF16: return std::ldexp(1.0L, -133);
    default: return std::ldexp(1.0L, -149);
  }
}

// Real element (or one complex part) -> long double, exactly.
inline long double read_real(int d, const unsigned char* p) {
  switch (d) {
    case GEMMKIT_F32: case GEMMKIT_C64: { float v; std::memcpy(&v, p, 4); return v; }
    case GEMMKIT_F64: case GEMMKIT_C128: { double v; std::memcpy(&v, p, 8); return v; }
    case GEMMKIT_F16: { gemmkit::float16 h; std::memcpy(&h, p, 2); return gemmkit::scalar::to_float(h); }
    default: { gemmkit::bfloat16 h; std::memcpy(&h, p, 2); return gemmkit::scalar::to_float(h); }
  }
}

// Stores an exactly representable value (inputs are built from them).
inline void write_real(int d, unsigned char* p, float v) {
  switch (d) {
    case GEMMKIT_F32: case GEMMKIT_C64: std::memcpy(p, &v, 4); break;
    case GEMMKIT_F64: case GEMMKIT_C128: { const double w = v; std::memcpy(p, &w, 8); break; }
    case GEMMKIT_F16: { const auto h = gemmkit::scalar::to_float16(v); std::memcpy(p, &h, 2); break; }
    default: { const auto h = gemmkit::scalar::to_bfloat16(v); std::memcpy(p, &h, 2); break; }
  }
}

// Integer element -> uint64, sign- or zero-extended by its type.
inline std::uint64_t read_int(int d, const unsigned char* p) {
  const std::size_t size = dtype_size(d);
  std::uint64_t u = 0;
  std::memcpy(&u, p, size);  // little-endian
  if (is_signed_int(d) && size < 8 && (u >> (8 * size - 1)) & 1) u |= ~std::uint64_t(0) << (8 * size);
  return u;
}

inline std::uint64_t width_mask(int d) {
  const std::size_t size = dtype_size(d);
  return size >= 8 ? ~std::uint64_t(0) : (std::uint64_t(1) << (8 * size)) - 1;
}

// An integer-valued double as the ring element it names (two's complement).
inline std::uint64_t ring_bits(double v) {
  const std::uint64_t m = static_cast<std::uint64_t>(std::fabs(v));
  return v < 0 ? ~m + 1 : m;
}

// ---------------------------------------------------------------- operands

// One operand: the descriptor and the allocation behind it, which holds
// exactly the elements from the lowest to the highest offset the view reaches.
struct Mat {
  gemmkit_operand op{};
  std::unique_ptr<unsigned char[]> mem;  // new[]: ASan knows its exact size
  std::size_t bytes = 0;
  std::ptrdiff_t lo = 0;  // element offset of mem[0] relative to op.data
  std::size_t esz = 1;

  // Byte offset in mem of element (b, i, j); a batch of one broadcasts.
  std::size_t offset(std::size_t b, std::size_t i, std::size_t j) const {
    const std::ptrdiff_t bi = op.batch == 1 ? 0 : std::ptrdiff_t(b);
    return std::size_t((bi * op.batch_stride + std::ptrdiff_t(i) * op.rs +
                        std::ptrdiff_t(j) * op.cs - lo)) * esz;
  }
  unsigned char* at(std::size_t b, std::size_t i, std::size_t j) const {
    return mem.get() + offset(b, i, j);
  }
  bool empty() const { return op.batch == 0 || op.rows == 0 || op.cols == 0; }
};

// Strides for a batch x rows x cols view: the dimensions nest in a random
// order (so distinct (b, i, j) never share an element, the layouts array
// libraries make), with random padding and signs; extent-1 dimensions get
// arbitrary strides (never stepped).  `broadcast` lets an input repeat a row,
// a column or the whole matrix with a zero stride.
inline void random_strides(FuzzedDataProvider& in, gemmkit_operand& op, bool broadcast) {
  const std::size_t extent[3] = {op.batch, op.rows, op.cols};
  std::ptrdiff_t stride[3] = {0, 0, 0};
  static const int kOrders[6][3] = {{2, 1, 0}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {0, 1, 2}};
  const int* order = kOrders[in.ConsumeIntegralInRange(0, 5)];  // innermost first
  std::ptrdiff_t step = 1;
  for (int r = 0; r < 3; ++r) {
    const int d = order[r];
    const std::uint8_t pick = in.ConsumeIntegral<std::uint8_t>();
    if (extent[d] <= 1) {
      stride[d] = std::ptrdiff_t(pick % 11) - 5;
      continue;
    }
    // Mostly dense; now and then padded by 1..3 elements.
    stride[d] = step + ((pick & 7) == 7 ? 1 + (pick >> 3) % 3 : 0);
    step = stride[d] * std::ptrdiff_t(extent[d]);
    if (pick & 0x40) stride[d] = -stride[d];
    if (broadcast && (pick & 0x80) && (pick & 0x30) == 0x30) stride[d] = 0;
  }
  op.batch_stride = stride[0];
  op.rs = stride[1];
  op.cs = stride[2];
}

// The lowest and highest element offsets the view reaches.
inline void reach(const gemmkit_operand& op, std::ptrdiff_t* lo, std::ptrdiff_t* hi) {
  *lo = *hi = 0;
  const std::size_t extent[3] = {op.batch == 1 ? 1 : op.batch, op.rows, op.cols};
  const std::ptrdiff_t stride[3] = {op.batch_stride, op.rs, op.cs};
  for (int d = 0; d < 3; ++d) {
    const std::ptrdiff_t far = std::ptrdiff_t(extent[d] - 1) * stride[d];
    if (far < 0) *lo += far;
    else *hi += far;
  }
}

// Allocates op's exact span (`extra` more elements at the end) and points
// op.data at element (0, 0, 0); every byte starts as 0xFF (NaN in every
// float type, -1 in the integers) so a stray read of padding shows.
inline void allocate(Mat& m, std::size_t extra = 0) {
  m.esz = dtype_size(m.op.dtype);
  std::ptrdiff_t hi = 0;
  reach(m.op, &m.lo, &hi);
  const std::size_t elems =
      (m.op.rows == 0 || m.op.cols == 0 || m.op.batch == 0) ? 0 : std::size_t(hi - m.lo + 1);
  m.bytes = (elems + extra) * m.esz;
  m.mem.reset(new unsigned char[m.bytes]);
  std::memset(m.mem.get(), 0xFF, m.bytes);
  m.op.data = m.mem.get() - m.lo * std::ptrdiff_t(m.esz);
}

inline Mat make_mat(FuzzedDataProvider& in, int dtype, std::size_t batch, std::size_t rows,
                    std::size_t cols, bool input) {
  Mat m;
  m.op.dtype = dtype;
  m.op.batch = batch;
  m.op.rows = rows;
  m.op.cols = cols;
  // The flag only forbids writes: inputs may carry it or not.
  m.op.flags = input && in.ConsumeBool() ? GEMMKIT_OPERAND_READONLY : 0;
  random_strides(in, m.op, input);
  allocate(m);
  return m;
}

// Input values: small multiples of 1/16 (exact in every float type, and
// far from float16's overflow for the depths used); with `specials`, a few
// NaN, infinities and -0.  Integers take raw bytes; bools mostly 0/1 but
// sometimes any byte (any nonzero byte is true).
inline void fill_element(FuzzedDataProvider& in, int dtype, unsigned char* p, bool specials) {
  auto real = [&] {
    const std::uint8_t b = in.ConsumeIntegral<std::uint8_t>();
    if (specials && b >= 0x80 && b <= 0x83) {
      static const float kSpecial[4] = {NAN, INFINITY, -INFINITY, -0.0f};
      return kSpecial[b - 0x80];
    }
    return float(std::int8_t(b)) / 16.0f;
  };
  switch (family(dtype)) {
    case Family::kFloat: write_real(dtype, p, real()); break;
    case Family::kComplex: {
      const std::size_t half = dtype_size(dtype) / 2;
      write_real(dtype, p, float(std::int8_t(in.ConsumeIntegral<std::uint8_t>())) / 16.0f);
      write_real(dtype, p + half, float(std::int8_t(in.ConsumeIntegral<std::uint8_t>())) / 16.0f);
      break;
    }
    case Family::kBool: {
      const std::uint8_t b = in.ConsumeIntegral<std::uint8_t>();
      *p = (b & 3) == 0 ? std::uint8_t(b >> 2 | 0x40) : std::uint8_t(b & 1);
      break;
    }
    case Family::kInt:
      for (std::size_t i = 0; i < dtype_size(dtype); ++i) p[i] = in.ConsumeIntegral<std::uint8_t>();
      break;
  }
}

inline void fill(FuzzedDataProvider& in, Mat& m, bool specials) {
  for (std::size_t b = 0; b < m.op.batch; ++b)
    for (std::size_t i = 0; i < m.op.rows; ++i)
      for (std::size_t j = 0; j < m.op.cols; ++j) fill_element(in, m.op.dtype, m.at(b, i, j), specials);
}

// Bytes of m that hold no element of its view (the padding between them).
inline std::vector<bool> view_mask(const Mat& m, std::size_t batch) {
  std::vector<bool> in_view(m.bytes / m.esz, false);
  if (!m.empty())
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t i = 0; i < m.op.rows; ++i)
        for (std::size_t j = 0; j < m.op.cols; ++j) in_view[m.offset(b, i, j) / m.esz] = true;
  return in_view;
}

// ---------------------------------------------------------------- reference

// The scalars of a call as the C ABI takes them.
struct Scalars {
  double alpha[2] = {1, 0}, beta[2] = {0, 0};
};

// Checks out (batch nb) against the naive product of a, b (or the original
// b passed as `b` for a packed call) and c's values before the call (`c0`,
// a copy, since c may be out itself).  a_dtype is the input type.
inline void check_product(const Scalars& s, const Mat& a, const Mat& b, const Mat* c0,
                          const Mat& out, int flags, const char* what) {
  const int in = a.op.dtype, od = out.op.dtype;
  const std::size_t nb = out.op.batch, m = out.op.rows, n = out.op.cols, k = a.op.cols;
  const Family fam = family(in);
  const bool alpha_zero = s.alpha[0] == 0 && s.alpha[1] == 0;
  const bool reads_ab = k > 0 && !alpha_zero;
  const bool reads_c = c0 && !(s.beta[0] == 0 && s.beta[1] == 0);
  for (std::size_t bi = 0; bi < nb; ++bi) {
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        const unsigned char* got = out.at(bi, i, j);
        if (fam == Family::kInt) {
          const bool i8_i32 = in == GEMMKIT_I8 && od == GEMMKIT_I32;
          const std::uint64_t al = i8_i32 ? std::uint64_t(std::int64_t(s.alpha[0])) : ring_bits(s.alpha[0]);
          const std::uint64_t be = i8_i32 ? std::uint64_t(std::int64_t(s.beta[0])) : ring_bits(s.beta[0]);
          std::uint64_t sum = 0, r = 0;  // wrapping, reduced to the width at the end
          if (reads_ab)
            for (std::size_t p = 0; p < k; ++p) sum += read_int(in, a.at(bi, i, p)) * read_int(in, b.at(bi, p, j));
          if (reads_ab) r = al * sum;
          if (reads_c) r += be * read_int(od, c0->at(bi, i, j));
          const std::uint64_t mask = width_mask(od), g = read_int(od, got) & mask;
          FUZZ_CHECK(g == (r & mask), "%s: %s [%zu](%zu,%zu) = %llu, expected %llu (m %zu n %zu k %zu)",
                     what, "int", bi, i, j, (unsigned long long)g,
                     (unsigned long long)(r & mask), m, n, k);
        } else if (fam == Family::kBool) {
          std::uint8_t r = 0;
          for (std::size_t p = 0; p < k && !r; ++p) r = *a.at(bi, i, p) != 0 && *b.at(bi, p, j) != 0;
          FUZZ_CHECK(*got == r, "%s: bool [%zu](%zu,%zu) = %u, expected %u (m %zu n %zu k %zu)", what,
                     bi, i, j, unsigned(*got), unsigned(r), m, n, k);
        } else if (fam == Family::kFloat) {
          long double sum = 0, bound = 0;
          if (reads_ab)
            for (std::size_t p = 0; p < k; ++p) {
              const long double t = read_real(in, a.at(bi, i, p)) * read_real(in, b.at(bi, p, j));
              sum += t;
              bound += std::fabs(t);
            }
          long double ref = reads_ab ? s.alpha[0] * sum : 0.0L;
          bound = reads_ab ? std::fabs(s.alpha[0]) * bound : 0.0L;
          if (reads_c) {
            const long double t = s.beta[0] * read_real(od, c0->at(bi, i, j));
            ref += t;
            bound += std::fabs(t);
          }
          const long double g = read_real(od, got);
          // Accumulation in the accumulator type (k + 2 roundings of at most
          // `bound`), then rounding to the output; a narrow output may be
          // rounded once per depth slice, each within the bound.
          const int acc = in == GEMMKIT_F64 ? GEMMKIT_F64 : GEMMKIT_F32;
          const long double slices = std::ceil((long double)(k + 1) / 16.0L);
          const long double tol = 2 * (k + 3) * unit_roundoff(acc) * bound +
                                  unit_roundoff(od) * (std::fabs(ref) + slices * bound) +
                                  min_subnormal(od);
          const bool ok = std::isnan(ref)   ? std::isnan(g)
                          : std::isinf(ref) ? g == ref
                                            : std::fabs(g - ref) <= tol;
          FUZZ_CHECK(ok, "%s: float [%zu](%zu,%zu) = %.17Lg, expected %.17Lg (tol %.3Lg, m %zu n %zu k %zu)",
                     what, bi, i, j, g, ref, tol, m, n, k);
        } else {
          const std::size_t half = dtype_size(in) / 2;
          long double sr = 0, si = 0, bound = 0;
          if (reads_ab)
            for (std::size_t p = 0; p < k; ++p) {
              const unsigned char* x = a.at(bi, i, p);
              const unsigned char* y = b.at(bi, p, j);
              const long double xr = read_real(in, x), yr = read_real(in, y);
              long double xi = read_real(in, x + half), yi = read_real(in, y + half);
              if (flags & GEMMKIT_CONJ_A) xi = -xi;
              if (flags & GEMMKIT_CONJ_B) yi = -yi;
              sr += xr * yr - xi * yi;
              si += xr * yi + xi * yr;
              bound += (std::fabs(xr) + std::fabs(xi)) * (std::fabs(yr) + std::fabs(yi));
            }
          long double rr = 0, ri = 0;
          if (reads_ab) {
            rr = s.alpha[0] * sr - s.alpha[1] * si;
            ri = s.alpha[0] * si + s.alpha[1] * sr;
            bound *= std::fabs(s.alpha[0]) + std::fabs(s.alpha[1]);
          } else {
            bound = 0;
          }
          if (reads_c) {
            const long double cr = read_real(od, c0->at(bi, i, j)), ci = read_real(od, c0->at(bi, i, j) + half);
            rr += s.beta[0] * cr - s.beta[1] * ci;
            ri += s.beta[0] * ci + s.beta[1] * cr;
            bound += (std::fabs(s.beta[0]) + std::fabs(s.beta[1])) * (std::fabs(cr) + std::fabs(ci));
          }
          const long double gr = read_real(od, got), gi = read_real(od, got + half);
          const long double tol = 4 * (k + 4) * unit_roundoff(od) * bound + min_subnormal(od);
          FUZZ_CHECK(std::fabs(gr - rr) <= tol && std::fabs(gi - ri) <= tol,
                     "%s: complex [%zu](%zu,%zu) = (%.17Lg, %.17Lg), expected (%.17Lg, %.17Lg) "
                     "(tol %.3Lg, flags %d, m %zu n %zu k %zu)",
                     what, bi, i, j, gr, gi, rr, ri, tol, flags, m, n, k);
        }
      }
    }
  }
}

// Copies m (descriptor and bytes) so later checks see the values before a call.
inline Mat clone(const Mat& m) {
  Mat c;
  c.op = m.op;
  c.bytes = m.bytes;
  c.lo = m.lo;
  c.esz = m.esz;
  c.mem.reset(new unsigned char[m.bytes]);
  if (m.bytes) std::memcpy(c.mem.get(), m.mem.get(), m.bytes);
  c.op.data = c.mem.get() - c.lo * std::ptrdiff_t(c.esz);
  return c;
}

// Bytes unchanged since `before` (a clone): inputs, refused outputs.
inline void check_unchanged(const Mat& before, const Mat& now, const char* what) {
  if (before.bytes && std::memcmp(before.mem.get(), now.mem.get(), before.bytes) != 0) {
    std::size_t i = 0;
    while (before.mem[i] == now.mem[i]) ++i;
    fail("%s: byte %zu of %zu changed (0x%02x -> 0x%02x)", what, i, before.bytes,
         unsigned(before.mem[i]), unsigned(now.mem[i]));
  }
}

// Only the elements of out's view may change: the padding keeps its bytes.
inline void check_padding(const Mat& before, const Mat& out, std::size_t batch, const char* what) {
  const std::vector<bool> in_view = view_mask(out, batch);
  for (std::size_t e = 0; e < in_view.size(); ++e)
    if (!in_view[e] && std::memcmp(before.mem.get() + e * out.esz, out.mem.get() + e * out.esz, out.esz))
      fail("%s: element %zu of out's buffer lies outside its view but was written", what, e);
}

// A refused call: the documented status, a message, and nothing written.
inline void check_refused(int st, int want, const char* what) {
  FUZZ_CHECK(st == want, "%s: status %d, expected %d (last error: %s)", what, st, want,
             gemmkit_last_error());
  const char* msg = gemmkit_last_error();
  FUZZ_CHECK(msg && *msg, "%s: status %d but gemmkit_last_error() is empty", what, st);
}

}  // namespace fuzz
