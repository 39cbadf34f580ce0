// C++ GEMM oracle test: the dispatched kernels (whatever GEMMKIT_REQUIRE_ISA
// selects) against a naive double-precision product, over shapes that cross
// tile and block edges and over row-major, column-major, transposed and
// reversed layouts; then float16/bfloat16 (both outputs), int8 -> int32 and
// requantized int8/uint8 against exact or double references; then the fused
// epilogues (bias, ReLU, leaky ReLU, clip) of every float type bit for bit,
// NaN and -0 rules included; then, through the operand door
// (gemmkit_gemm_batched_ex), every wrapping integer pair (int8..uint64 in ==
// out, and int8 -> int32) bit for bit against uint64_t sums, bool (or of
// ands), complex64/complex128 with complex scalars and every conj_a/conj_b
// combination against long double sums, in row-major, column-major,
// reversed, in-place and batched layouts, and bit for bit between the
// orientations a complex product may run in; and the door's refusals (complex
// alpha on a real product, bool's alpha, an integer epilogue, conj_b on a
// packed b).  Runs without Python, so it also checks the NEON kernels under
// user-mode qemu.  Prints "N passed, N failed".
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "gemmkit/gemmkit.hpp"

namespace {

int g_passed = 0, g_failed = 0;

// Deterministic values in [-1, 1).
double hashed(unsigned i, unsigned salt) {
  unsigned x = i * 2654435761u ^ (salt * 40503u + 0x9e3779b9u);
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return double(x % 2000u) / 1000.0 - 1.0;
}

template <class T>
void check(long m, long n, long k, int layout, T alpha, T beta) {
  // Storage: A m x k, B k x n, C m x n; layout picks the strides.
  std::vector<T> a(std::size_t(m * k) + 1), b(std::size_t(k * n) + 1);
  std::vector<T> c(std::size_t(m * n) + 1), c0;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = T(hashed(unsigned(i), 1));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = T(hashed(unsigned(i), 2));
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = T(hashed(unsigned(i), 3));
  c0 = c;
  gemmkit::MatrixRef<T> va{a.data(), m, k, k, 1};  // row-major
  gemmkit::MatrixRef<T> vb{b.data(), k, n, n, 1};
  gemmkit::MatrixMut<T> vc{c.data(), m, n, n, 1};
  if (layout == 1) {  // column-major everything
    va = {a.data(), m, k, 1, m};
    vb = {b.data(), k, n, 1, k};
    vc = {c.data(), m, n, 1, m};
  } else if (layout == 2 && m > 0 && k > 0) {  // A reversed in both axes
    va = {a.data() + (m * k - 1), m, k, -k, -1};
  }
  const gemmkit::MatrixRef<T> vci{vc.data, m, n, vc.rs, vc.cs};
  // beta == 0 passes a literal nullptr for C_in: the C++ API deduces the
  // output type from c_out alone.
  const int st = beta == T(0) ? gemmkit::gemm<T>(alpha, va, vb, beta, nullptr, vc)
                              : gemmkit::gemm<T>(alpha, va, vb, beta, &vci, vc);
  double worst = 0;
  for (long i = 0; i < m; ++i) {
    for (long j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (long p = 0; p < k; ++p) {
        const double x = double(va.data[i * va.rs + p * va.cs]);
        const double y = double(vb.data[p * vb.rs + j * vb.cs]);
        ref += x * y;
        mag += std::fabs(x * y);
      }
      const double old = double(c0[std::size_t(i * vc.rs + j * vc.cs)]);
      ref = double(alpha) * ref + double(beta) * old;
      const double got = double(vc.data[i * vc.rs + j * vc.cs]);
      const double tol = 4.0 * double(k + 2) *
                         double(sizeof(T) == 4 ? 1.1920929e-7 : 2.220446e-16) *
                         (std::fabs(double(alpha)) * mag + std::fabs(double(beta) * old));
      const double err = std::fabs(got - ref);
      if (err - tol > worst) worst = err - tol;
    }
  }
  if (st == GEMMKIT_OK && worst <= 0) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED %s m=%ld n=%ld k=%ld layout=%d status=%d excess=%g\n",
                sizeof(T) == 4 ? "f32" : "f64", m, n, k, layout, st, worst);
  }
}

// Independent conversions for the oracle (bit manipulation; the kernels use
// their own): float16/bfloat16 -> double is exact.
double to_double(gemmkit::float16 h) {
  const int sign = h.bits >> 15, exp = (h.bits >> 10) & 31, man = h.bits & 1023;
  const double mag = exp == 0 ? std::ldexp(double(man), -24)
                              : std::ldexp(double(man | 1024), exp - 25);
  return sign ? -mag : mag;
}
double to_double(gemmkit::bfloat16 b) {
  const std::uint32_t u = std::uint32_t(b.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// Values of the form j / 64 with |j| < 128: exact in both narrow types.
template <class N>
N narrow_exact(double v) {
  if constexpr (std::is_same_v<N, gemmkit::bfloat16>) {
    float f = float(v);
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return N{std::uint16_t(u >> 16)};
  } else {
    // |v| in [2^-6, 2): normal float16, at most 8 significant bits.
    if (v == 0) return N{0};
    int e;
    const double fr = std::frexp(std::fabs(v), &e);  // v = fr * 2^e, fr in [0.5, 1)
    const int man = int(fr * 2048.0) - 1024;           // 10 fraction bits
    return N{std::uint16_t((v < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) | man)};
  }
}

template <class N, class O>
void check_narrow(long m, long n, long k, bool col_major) {
  std::vector<N> a(std::size_t(m * k)), b(std::size_t(k * n));
  std::vector<O> c(std::size_t(m * n));
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = narrow_exact<N>(std::round(hashed(unsigned(i), 4) * 127) / 64);
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = narrow_exact<N>(std::round(hashed(unsigned(i), 5) * 127) / 64);
  const gemmkit::MatrixRef<N> va{a.data(), m, k, k, 1}, vb{b.data(), k, n, n, 1};
  const gemmkit::MatrixMut<O> vc{c.data(), m, n, col_major ? 1 : n, col_major ? m : 1};
  const int st = gemmkit::gemm<N, O>(1.0f, va, vb, 0.0f, nullptr, vc);
  const double eps = std::is_same_v<N, gemmkit::float16> ? 1.0 / 1024 : 1.0 / 128;
  bool ok = st == GEMMKIT_OK;
  for (long i = 0; ok && i < m; ++i) {
    for (long j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (long p = 0; p < k; ++p) {
        const double t = to_double(a[std::size_t(i * k + p)]) * to_double(b[std::size_t(p * n + j)]);
        ref += t;
        mag += std::fabs(t);
      }
      const O& got_v = c[std::size_t(col_major ? i + j * m : i * n + j)];
      double got;
      if constexpr (std::is_same_v<O, float>) got = got_v;
      else got = to_double(got_v);
      // Sums of products of j/64 values are exact in float32 here (k is
      // small), so the only error is the final narrowing.
      const double tol = std::is_same_v<O, float> ? 1e-6 * mag : eps * std::fabs(ref);
      if (std::fabs(got - ref) > tol) ok = false;
    }
  }
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED narrow %zu->%zu m=%ld n=%ld k=%ld status=%d\n", sizeof(N), sizeof(O),
                m, n, k, st);
  }
}

// Exact requantization reference: round half to even of v * scale, in
// long double-free integer arithmetic (scale = 2^-s).
std::int32_t requant_ref(std::int64_t v, int s, std::int32_t zp, std::int32_t lo, std::int32_t hi) {
  const std::int64_t q = v >= 0 ? v >> s : -((-v) >> s);  // truncated toward zero
  const std::int64_t rem = v - (q << s);                   // same sign as v
  const std::int64_t half = std::int64_t(1) << (s - 1);
  std::int64_t r = q;
  const std::int64_t arem = rem < 0 ? -rem : rem;
  if (arem > half || (arem == half && (q & 1))) r += v < 0 ? -1 : 1;
  std::int64_t out = r + zp;
  return std::int32_t(out < lo ? lo : out > hi ? hi : out);
}

template <class O>
void check_int8(long m, long n, long k, bool packed) {
  std::vector<std::int8_t> a(std::size_t(m * k)), b(std::size_t(k * n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::int8_t(int(hashed(unsigned(i), 6) * 128.9) );
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::int8_t(int(hashed(unsigned(i), 7) * 128.9));
  if (!a.empty()) a[0] = -128;
  if (!b.empty()) b[0] = -128;
  std::vector<O> c(std::size_t(m * n));
  const gemmkit::MatrixRef<std::int8_t> va{a.data(), m, k, k, 1}, vb{b.data(), k, n, n, 1};
  const gemmkit::MatrixMut<O> vc{c.data(), m, n, n, 1};
  constexpr bool kRequant = sizeof(O) == 1;
  constexpr std::int32_t lo = std::is_same_v<O, std::uint8_t> ? 0 : -128;
  constexpr std::int32_t hi = std::is_same_v<O, std::uint8_t> ? 255 : 127;
  const float scale = 1.0f / 256;  // 2^-8: ties occur
  const std::int32_t zp = std::is_same_v<O, std::uint8_t> ? 128 : -3;
  std::vector<std::int32_t> bias(static_cast<std::size_t>(m));
  for (long i = 0; i < m; ++i) bias[std::size_t(i)] = std::int32_t(hashed(unsigned(i), 8) * 5000);
  const gemmkit::Requantize rq{gemmkit::Scale::kPerTensor, &scale, 1, 1, zp,
                               gemmkit::Bias::kPerRow, bias.data(), m, 1};
  gemmkit::PackedRhs* p = nullptr;
  int st = GEMMKIT_OK;
  if (packed) st = gemmkit::prepack_rhs<std::int8_t>(vb, &p);
  if (st == GEMMKIT_OK) {
    if constexpr (kRequant) {
      st = packed ? gemmkit::gemm_requant_packed<O>(va, *p, rq, vc)
                  : gemmkit::gemm_requant<O>(va, vb, rq, vc);
    } else {
      st = packed ? gemmkit::gemm_packed<std::int8_t, std::int32_t>(1, va, *p, 0, nullptr, vc)
                  : gemmkit::gemm<std::int8_t, std::int32_t>(1, va, vb, 0, nullptr, vc);
    }
  }
  gemmkit::free_packed_rhs(p);
  long bad = st == GEMMKIT_OK ? 0 : 1;
  for (long i = 0; !bad && i < m; ++i) {
    for (long j = 0; j < n; ++j) {
      std::int64_t acc = 0;
      for (long q = 0; q < k; ++q)
        acc += std::int64_t(a[std::size_t(i * k + q)]) * b[std::size_t(q * n + j)];
      std::int64_t want;
      if constexpr (kRequant) {
        const std::int32_t v = std::int32_t(std::uint32_t(acc) + std::uint32_t(bias[std::size_t(i)]));
        want = requant_ref(v, 8, zp, lo, hi);
      } else {
        want = std::int32_t(std::uint32_t(acc));
      }
      if (std::int64_t(c[std::size_t(i * n + j)]) != want) ++bad;
    }
  }
  if (!bad) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED int8->%zu%s m=%ld n=%ld k=%ld status=%d\n", sizeof(O),
                packed ? " packed" : "", m, n, k, st);
  }
}

// C += A B in place (beta 1 on C itself) over a deep product: the update
// every depth slice of a tile resumes from C, full and edge tiles alike.
void check_int8_update(long m, long n, long k) {
  std::vector<std::int8_t> a(std::size_t(m * k)), b(std::size_t(k * n));
  std::vector<std::int32_t> c(std::size_t(m * n)), c0;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::int8_t(int(hashed(unsigned(i), 9) * 128.9));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::int8_t(int(hashed(unsigned(i), 10) * 128.9));
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = std::int32_t(hashed(unsigned(i), 11) * 2e9);
  c0 = c;
  const gemmkit::MatrixRef<std::int8_t> va{a.data(), m, k, k, 1}, vb{b.data(), k, n, n, 1};
  const gemmkit::MatrixMut<std::int32_t> vc{c.data(), m, n, n, 1};
  const gemmkit::MatrixRef<std::int32_t> vci{c.data(), m, n, n, 1};
  const int st = gemmkit::gemm<std::int8_t, std::int32_t>(1, va, vb, 1, &vci, vc);
  long bad = st == GEMMKIT_OK ? 0 : 1;
  for (long i = 0; !bad && i < m; ++i) {
    for (long j = 0; j < n; ++j) {
      std::int64_t acc = c0[std::size_t(i * n + j)];
      for (long q = 0; q < k; ++q)
        acc += std::int64_t(a[std::size_t(i * k + q)]) * b[std::size_t(q * n + j)];
      if (c[std::size_t(i * n + j)] != std::int32_t(std::uint32_t(acc))) ++bad;
    }
  }
  if (!bad) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED int8 update m=%ld n=%ld k=%ld status=%d\n", m, n, k, st);
  }
}

// ---- Fused epilogues: act(alpha * A B + beta * C + bias) -------------------
// Inputs are multiples of 1/8 in [-2, 2] (exact in every type) and depths
// stay small enough that every sum is exact in float, so the value before
// the activation is the same on every ISA and in any summation order; the
// activation and the final rounding are then compared bit for bit (sign of
// zero included, NaN as "both NaN") against the rules written out below.
// A holds NaN and +-Inf (NaN, +-Inf and Inf - Inf sums), B zero columns
// (with alpha < 0: -0 results), C and the bias some -0 entries.

enum class EpiAct { kNone, kRelu, kLeaky, kClip };

struct EpiCase {
  EpiAct act;
  double param0, param1;  // slope, or (lo, hi)
};

// IEEE binary16 / bfloat16 encoding of a double, round half to even
// (independent of the library's own conversion).
std::uint16_t encode_narrow(double x, bool bf16) {
  const int man_bits = bf16 ? 7 : 10, bias = bf16 ? 127 : 15;
  const int exp_max = bf16 ? 255 : 31;
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return std::uint16_t(sign | (exp_max << man_bits) | (1 << (man_bits - 1)));
  const double a = std::fabs(x);
  const int emin = 1 - bias;  // exponent of the smallest normal
  if (a < std::ldexp(1.0, emin)) {  // subnormal (or rounds up to the smallest normal)
    return std::uint16_t(sign | int(std::nearbyint(std::ldexp(a, man_bits - emin))));
  }
  if (std::isinf(a)) return std::uint16_t(sign | (exp_max << man_bits));
  int e;
  const double fr = std::frexp(a, &e);  // a = fr * 2^e, fr in [0.5, 1)
  long q = long(std::nearbyint(std::ldexp(fr, man_bits + 1)));  // in [2^m, 2^(m+1)]
  if (q == (1L << (man_bits + 1))) {
    q >>= 1;
    ++e;
  }
  const int field = e - 1 + bias;
  if (field >= exp_max) return std::uint16_t(sign | (exp_max << man_bits));
  return std::uint16_t(sign | (field << man_bits) | int(q - (1L << man_bits)));
}

double decode(float v) { return v; }
double decode(double v) { return v; }
double decode(gemmkit::float16 v) {
  const int exp = (v.bits >> 10) & 31;
  if (exp == 31) {
    const double s = (v.bits & 1023) ? std::nan("") : HUGE_VAL;
    return (v.bits >> 15) ? -s : s;
  }
  return to_double(v);
}
double decode(gemmkit::bfloat16 v) { return to_double(v); }

template <class T>
T encode(double x) {
  if constexpr (std::is_same_v<T, gemmkit::float16>) return T{encode_narrow(x, false)};
  else if constexpr (std::is_same_v<T, gemmkit::bfloat16>) return T{encode_narrow(x, true)};
  else return T(x);
}

// The rules, spelled out case by case (the library computes them as
// max/min formulas): A is the accumulator type the epilogue runs in.
template <class A>
A ref_activation(A v, const EpiCase& c) {
  switch (c.act) {
    case EpiAct::kNone:
      return v;
    case EpiAct::kRelu:
      if (std::isnan(v) || v <= A(0)) return A(0);  // NaN, -0 and below -> +0
      return v;
    case EpiAct::kLeaky: {
      if (std::isnan(v) || v == A(0)) return A(0);
      if (v > A(0)) return v;
      const A r = A(c.param0) * v;  // -inf * 0 stays NaN (the formula's)
      return r == A(0) ? A(0) : r;   // a -0 product becomes +0
    }
    case EpiAct::kClip: {
      const A lo = A(c.param0), hi = A(c.param1);
      if (std::isnan(v) || v <= lo) v = lo;  // NaN -> lo
      if (v >= hi) v = hi;
      return v;
    }
  }
  return v;
}

bool same_value(double got, double want) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  return got == want && std::signbit(got) == std::signbit(want);
}

double epi_input(unsigned i, unsigned salt) {
  return std::round(hashed(i, salt) * 16) / 8;  // j / 8, |j| <= 16
}

// bias_mode: 0 none, 1 per row, 2 per column.
template <class L, class O>
void check_epilogue(long m, long n, long k, double alpha_d, double beta_d, int bias_mode,
                    const EpiCase& ec, bool col_major, bool packed) {
  using A = gemmkit::acc_t<L>;
  const A alpha = A(alpha_d), beta = A(beta_d);
  std::vector<L> a(std::size_t(m * k) + 1), b(std::size_t(k * n) + 1);
  for (long i = 0; i < m; ++i) {
    for (long p = 0; p < k; ++p) {
      double v = epi_input(unsigned(i * k + p), 21);
      const unsigned h = unsigned(i * 31 + p * 17 + m + 3 * n) % 53u;
      if (h == 0) v = std::nan("");
      else if (h == 1) v = HUGE_VAL;
      else if (h == 2) v = -HUGE_VAL;
      a[std::size_t(i * k + p)] = encode<L>(v);
    }
  }
  for (long p = 0; p < k; ++p)
    for (long j = 0; j < n; ++j)
      b[std::size_t(p * n + j)] = encode<L>(j % 4 == 2 ? 0.0 : epi_input(unsigned(p * n + j), 22));
  // C: in place; NaN when beta is 0 (it must not be read), some -0.
  std::vector<O> c(std::size_t(m * n) + 1);
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double v = beta_d == 0 ? std::nan("") : i % 5 == 1 ? -0.0 : epi_input(unsigned(i), 23);
    c[i] = encode<O>(v);
  }
  const std::vector<O> c0 = c;
  const long bias_len = bias_mode == 1 ? m : n;
  const long bias_stride = bias_len % 2 ? 1 : 3;
  std::vector<A> bias(std::size_t(bias_len * bias_stride) + 1);
  for (std::size_t i = 0; i < bias.size(); ++i)
    bias[i] = i % 3 == 0 ? A(-0.0) : A(epi_input(unsigned(i), 24));

  const gemmkit::MatrixRef<L> va{a.data(), m, k, k, 1}, vb{b.data(), k, n, n, 1};
  const gemmkit::MatrixMut<O> vc{c.data(), m, n, col_major ? 1 : n, col_major ? m : 1};
  const gemmkit::MatrixRef<O> vci{vc.data, m, n, vc.rs, vc.cs};
  gemmkit::FusedEpilogue<A> epi{};
  epi.bias_kind = bias_mode == 0 ? gemmkit::Bias::kNone
                  : bias_mode == 1 ? gemmkit::Bias::kPerRow : gemmkit::Bias::kPerCol;
  epi.bias = bias_mode ? bias.data() : nullptr;
  epi.bias_len = bias_mode ? bias_len : 0;
  epi.bias_stride = bias_stride;
  epi.act = ec.act == EpiAct::kNone    ? gemmkit::Act::kNone
            : ec.act == EpiAct::kRelu  ? gemmkit::Act::kRelu
            : ec.act == EpiAct::kLeaky ? gemmkit::Act::kLeakyRelu
                                       : gemmkit::Act::kClip;
  if (ec.act == EpiAct::kLeaky) epi.slope = A(ec.param0);
  if (ec.act == EpiAct::kClip) {
    epi.lo = A(ec.param0);
    epi.hi = A(ec.param1);
  }
  int st = GEMMKIT_OK;
  gemmkit::PackedRhs* pb = nullptr;
  if (packed) st = gemmkit::prepack_rhs<L>(vb, &pb);
  if (st == GEMMKIT_OK) {
    st = packed ? gemmkit::gemm_packed<L, O>(alpha, va, *pb, beta, &vci, vc, &epi)
                : gemmkit::gemm<L, O>(alpha, va, vb, beta, beta_d == 0 ? nullptr : &vci, vc,
                                      &epi);
  }
  gemmkit::free_packed_rhs(pb);

  const bool reads_ab = k > 0 && alpha_d != 0;
  long bad = st == GEMMKIT_OK ? 0 : 1;
  long bi = 0, bj = 0;
  double bgot = 0, bwant = 0;
  for (long i = 0; i < m; ++i) {
    for (long j = 0; j < n; ++j) {
      // Exact in double (and in A), IEEE specials included.
      double s = 0;
      for (long p = 0; p < k; ++p)
        s += decode(a[std::size_t(i * k + p)]) * decode(b[std::size_t(p * n + j)]);
      const std::size_t at = std::size_t(i * vc.rs + j * vc.cs);
      double v = 0;
      bool any = false;
      if (reads_ab) {
        v = alpha_d * s;
        any = true;
      }
      if (beta_d != 0) {
        const double t = beta_d * decode(c0[at]);
        v = any ? v + t : t;
        any = true;
      }
      if (bias_mode) v += double(bias[std::size_t((bias_mode == 1 ? i : j) * bias_stride)]);
      const A act = ref_activation(A(v), ec);
      const double want = decode(encode<O>(double(act)));
      const double got = decode(c[at]);
      if (!same_value(got, want)) {
        if (!bad) {
          bi = i;
          bj = j;
          bgot = got;
          bwant = want;
        }
        ++bad;
      }
    }
  }
  if (!bad) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED epilogue %zu->%zu%s m=%ld n=%ld k=%ld alpha=%g beta=%g bias=%d "
                "act=%d (%g, %g) %s status=%d: %ld bad, first (%ld, %ld) got %g want %g\n",
                sizeof(L), sizeof(O), std::is_same_v<L, gemmkit::bfloat16> ? " bf16" : "", m,
                n, k, alpha_d, beta_d, bias_mode, int(ec.act), ec.param0, ec.param1,
                col_major ? "col" : "row", st, bad, bi, bj, bgot, bwant);
  }
}

template <class L, class O>
void check_epilogues() {
  const EpiCase acts[] = {
      {EpiAct::kNone, 0, 0},      {EpiAct::kRelu, 0, 0},       {EpiAct::kLeaky, 0.25, 0},
      {EpiAct::kLeaky, -0.5, 0},  {EpiAct::kLeaky, 0.0, 0},    {EpiAct::kLeaky, 0.1, 0},
      {EpiAct::kClip, -0.5, 0.75}, {EpiAct::kClip, 0.0, 2.0},  {EpiAct::kClip, -0.0, 0.0},
      // slope * v underflows to -0: a fused multiply-add would keep it.
      {EpiAct::kLeaky, double(std::numeric_limits<gemmkit::acc_t<L>>::denorm_min()), 0},
  };
  constexpr int kActs = int(sizeof(acts) / sizeof(acts[0]));
  // GEMV (m == 1, n == 1), k == 0, ragged edges of every tile, and one
  // depth past the packed block.
  const long shapes[][3] = {{1, 1, 5},   {1, 19, 9},  {23, 1, 64}, {37, 29, 64},
                            {33, 13, 1}, {5, 7, 0},   {17, 19, 3}, {70, 45, 700}};
  // (alpha, beta): 0 and k == 0 take the scale-only path; -1 turns the
  // zero sums of B's zero columns into -0.
  const double ab[][2] = {{1, 0}, {-1, 0}, {0.5, -0.5}, {0, 1}, {-1, 1}, {2, 0}};
  // Every activation meets every (alpha, beta) pair across the shapes, and
  // both C layouts (C row-major runs transposed: per-row bias becomes
  // per-column) and the prepacked entry across the rest.
  int idx = 0;
  for (int si = 0; si < 8; ++si) {
    for (int bias_mode = 0; bias_mode < 3; ++bias_mode) {
      for (int ai = 0; ai < kActs; ++ai, ++idx) {
        const double* albe = ab[(ai + si + 2 * bias_mode) % 6];
        const bool col = (si + bias_mode + ai / 3) % 2, packed = idx % 5 == 3;
        check_epilogue<L, O>(shapes[si][0], shapes[si][1], shapes[si][2], albe[0], albe[1],
                             bias_mode, acts[ai], col, packed);
      }
    }
  }
}

// Bad parameters are refused before anything runs.
void check_epilogue_errors() {
  float a[4] = {1, 2, 3, 4}, c[4] = {};
  const gemmkit::MatrixRef<float> va{a, 2, 2, 2, 1};
  const gemmkit::MatrixMut<float> vc{c, 2, 2, 2, 1};
  bool ok = true;
  for (float slope : {std::nanf(""), HUGE_VALF, -HUGE_VALF}) {
    gemmkit::FusedEpilogue<float> e{};
    e.act = gemmkit::Act::kLeakyRelu;
    e.slope = slope;
    const int st = gemmkit::gemm<float, float>(1.0f, va, va, 0.0f, nullptr, vc, &e);
    ok = ok && st == GEMMKIT_ERROR_VALUE &&
         std::strstr(gemmkit::last_error(), "leaky_relu slope must be finite") != nullptr;
  }
  gemmkit::FusedEpilogue<float> clip{};
  clip.act = gemmkit::Act::kClip;
  clip.lo = 1;
  clip.hi = 0;
  ok = ok && gemmkit::gemm<float, float>(1.0f, va, va, 0.0f, nullptr, vc, &clip) ==
                 GEMMKIT_ERROR_VALUE;
  // int8 accumulates in int32: no slope to apply.
  std::int8_t ai[4] = {1, 2, 3, 4};
  std::int32_t ci[4] = {};
  gemmkit::FusedEpilogue<std::int32_t> ei{};
  ei.act = gemmkit::Act::kLeakyRelu;
  ok = ok && gemmkit::gemm<std::int8_t, std::int32_t>(
                 1, {ai, 2, 2, 2, 1}, {ai, 2, 2, 2, 1}, 0, nullptr, {ci, 2, 2, 2, 1}, &ei) ==
                 GEMMKIT_ERROR_DTYPE;
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED epilogue parameter checks: %s\n", gemmkit::last_error());
  }
}

// ---- The operand door: the other numpy dtypes -----------------------------
// Every integer pair, bool and complex product through
// gemmkit_gemm_batched_ex, the door the Python API takes for them.

// Full 64-bit hash (splitmix64): the integer families need every bit
// pattern, not just small values.
std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Full-range values, with the extremes (MIN, MAX, all ones, 0, 1) common
// enough that every tile meets them.
template <class T>
T ring_value(std::size_t i, unsigned salt) {
  using U = std::make_unsigned_t<T>;
  const std::uint64_t h = mix64(std::uint64_t(i) * 0x100000001b3ull + salt);
  switch (h % 13) {
    case 0: return std::numeric_limits<T>::min();
    case 1: return std::numeric_limits<T>::max();
    case 2: return T(U(~U(0)));
    case 3: return T(0);
    case 4: return T(1);
    default: return T(U(h >> 7));
  }
}

// The value mod 2^64 (sign-extended for signed types: what int8 -> int32
// multiplies; for in == out the extension cannot change the low bits).
template <class T>
std::uint64_t widen(T v) {
  if constexpr (std::is_signed_v<T>) return std::uint64_t(std::int64_t(v));
  else return std::uint64_t(v);
}

// Where element (0, 0) of one matrix of a slot lies, and its strides:
// 0 row-major, 1 column-major, 2 reversed in both axes (negative strides).
struct Layout {
  long off;
  std::ptrdiff_t rs, cs;
};
Layout layout_of(long rows, long cols, int layout) {
  if (layout == 1) return {0, 1, rows};
  if (layout == 2) return {rows * cols - 1, -cols, -1};
  return {0, cols, 1};
}

gemmkit_operand operand_of(void* base, int dtype, int flags, long batch, long slot, long rows,
                           long cols, const Layout& l, std::size_t elem) {
  return {static_cast<char*>(base) + std::size_t(l.off) * elem, dtype, flags, std::size_t(batch),
          std::size_t(rows), std::size_t(cols), batch > 1 ? slot : 0, l.rs, l.cs};
}

// alpha, beta of the ring checks: 1, 0 (the plain product) and small
// negative ones (reduced modulo the ring).
const double kRingScalars[3][2] = {{1, 0}, {-3, 2}, {7, -1}};

// out = alpha A B + beta C mod 2^bits, bit for bit; against a naive sum in
// uint64_t (wrapping is well defined there, and reduction mod 2^bits
// commutes with + and *).  c_mode: 0 no C, 1 its own buffer, 2 out itself.
template <class In, class Out>
void check_ring(int in_code, int out_code, long m, long n, long k, int layout, int abi,
                int c_mode, long batch) {
  const long sa = m * k + 3, sb = k * n + 1, so = m * n + 2;  // slots, with gaps
  std::vector<In> a(std::size_t(sa * batch)), b(std::size_t(sb * batch));
  std::vector<Out> c(std::size_t(so * batch)), o(std::size_t(so * batch));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = ring_value<In>(i, 31);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = ring_value<In>(i, 32);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = ring_value<Out>(i, 33);
  for (std::size_t i = 0; i < o.size(); ++i) o[i] = ring_value<Out>(i, 34);
  const std::vector<Out> c0 = c_mode == 2 ? o : c, o0 = o;
  // A and B take the layout; C and out row-major under the reversed A/B,
  // reversed under the row-major ones, so every pairing occurs.
  const Layout la = layout_of(m, k, layout), lb = layout_of(k, n, layout);
  const Layout lo = layout_of(m, n, layout == 1 ? 1 : 2 - layout);
  const gemmkit_operand va = operand_of(a.data(), in_code, GEMMKIT_OPERAND_READONLY, batch, sa,
                                        m, k, la, sizeof(In));
  const gemmkit_operand vb = operand_of(b.data(), in_code, GEMMKIT_OPERAND_READONLY, batch, sb,
                                        k, n, lb, sizeof(In));
  const gemmkit_operand vc = operand_of(c_mode == 2 ? o.data() : c.data(), out_code, 0, batch,
                                        so, m, n, lo, sizeof(Out));
  const gemmkit_operand vo = operand_of(o.data(), out_code, 0, batch, so, m, n, lo, sizeof(Out));
  const double* ab = kRingScalars[abi];
  const double alpha[2] = {ab[0], 0}, beta[2] = {c_mode ? ab[1] : 0.0, 0};
  const int st = gemmkit_gemm_batched_ex(alpha, &va, &vb, nullptr, beta, c_mode ? &vc : nullptr,
                                         &vo, nullptr, 0);
  const std::uint64_t ua = std::uint64_t(std::int64_t(alpha[0]));
  const std::uint64_t ub = std::uint64_t(std::int64_t(beta[0]));
  constexpr int kBits = int(sizeof(Out)) * 8;
  constexpr std::uint64_t kMask = kBits == 64 ? ~0ull : (1ull << (kBits % 64)) - 1;
  long bad = st == GEMMKIT_OK ? 0 : 1, bi = 0, bj = 0, bq = 0;
  std::uint64_t bgot = 0, bwant = 0;
  for (long q = 0; q < batch; ++q) {
    for (long i = 0; i < m; ++i) {
      for (long j = 0; j < n; ++j) {
        std::uint64_t acc = 0;
        for (long p = 0; p < k; ++p)
          acc += widen(a[std::size_t(q * sa + la.off + i * la.rs + p * la.cs)]) *
                 widen(b[std::size_t(q * sb + lb.off + p * lb.rs + j * lb.cs)]);
        const std::size_t at = std::size_t(q * so + lo.off + i * lo.rs + j * lo.cs);
        const std::uint64_t want = (ua * acc + ub * widen(c0[at])) & kMask;
        const std::uint64_t got = widen(o[at]) & kMask;
        if (got != want && !bad++) {
          bi = i, bj = j, bq = q;
          bgot = got, bwant = want;
        }
      }
    }
  }
  // Gaps between the matrices of a batch stay untouched.
  for (std::size_t i = 0; !bad && i < o.size(); ++i) {
    if (long(i) % so >= m * n) bad += widen(o[i]) != widen(o0[i]);
  }
  if (!bad) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED ring dtype %d->%d m=%ld n=%ld k=%ld layout=%d alpha=%g beta=%g c=%d "
                "batch=%ld status=%d: %ld bad, first [%ld](%ld, %ld) got 0x%llx want 0x%llx\n",
                in_code, out_code, m, n, k, layout, alpha[0], beta[0], c_mode, batch, st, bad, bq,
                bi, bj, (unsigned long long)bgot, (unsigned long long)bwant);
  }
}

// out[i][j] = OR_p (a[i][p] && b[p][j]); any nonzero byte is true (2, 255,
// 0x80 too), out bytes are exactly 0 or 1.  Inputs are sparse enough (about
// half the outputs false at every depth) that a missed or extra term shows.
void check_bool(long m, long n, long k, int layout, long batch) {
  const long sa = m * k + 3, sb = k * n + 1, so = m * n + 2;
  std::vector<std::uint8_t> a(std::size_t(sa * batch)), b(std::size_t(sb * batch));
  std::vector<std::uint8_t> o(std::size_t(so * batch), 0xAA);  // neither 0 nor 1
  const std::uint8_t trues[] = {1, 2, 255, 0x80, 7};
  const std::uint64_t per_mille = std::uint64_t(1000 * std::sqrt(0.7 / double(k))) + 1;
  auto fill = [&](std::vector<std::uint8_t>& v, unsigned salt) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::uint64_t h = mix64(std::uint64_t(i) * 0x100000001b3ull + salt);
      v[i] = h % 1000 < per_mille ? trues[(h >> 20) % 5] : 0;
    }
  };
  fill(a, 41);
  fill(b, 42);
  const std::vector<std::uint8_t> o0 = o;
  const Layout la = layout_of(m, k, layout), lb = layout_of(k, n, layout);
  const Layout lo = layout_of(m, n, layout == 1 ? 1 : 2 - layout);
  const gemmkit_operand va = operand_of(a.data(), GEMMKIT_BOOL, GEMMKIT_OPERAND_READONLY, batch,
                                        sa, m, k, la, 1);
  const gemmkit_operand vb = operand_of(b.data(), GEMMKIT_BOOL, GEMMKIT_OPERAND_READONLY, batch,
                                        sb, k, n, lb, 1);
  const gemmkit_operand vo = operand_of(o.data(), GEMMKIT_BOOL, 0, batch, so, m, n, lo, 1);
  const double one[2] = {1, 0}, zero[2] = {0, 0};
  const int st = gemmkit_gemm_batched_ex(one, &va, &vb, nullptr, zero, nullptr, &vo, nullptr, 0);
  long bad = st == GEMMKIT_OK ? 0 : 1, trues_seen = 0;
  for (long q = 0; q < batch; ++q) {
    for (long i = 0; i < m; ++i) {
      for (long j = 0; j < n; ++j) {
        bool want = false;
        for (long p = 0; p < k && !want; ++p)
          want = a[std::size_t(q * sa + la.off + i * la.rs + p * la.cs)] != 0 &&
                 b[std::size_t(q * sb + lb.off + p * lb.rs + j * lb.cs)] != 0;
        trues_seen += want;
        bad += o[std::size_t(q * so + lo.off + i * lo.rs + j * lo.cs)] != std::uint8_t(want);
      }
    }
  }
  for (std::size_t i = 0; i < o.size(); ++i) {
    if (long(i) % so >= m * n) bad += o[i] != o0[i];
  }
  if (!bad) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED bool m=%ld n=%ld k=%ld layout=%d batch=%ld status=%d: %ld bad "
                "(%ld true)\n",
                m, n, k, layout, batch, st, bad, trues_seen);
  }
}

// Every integer pair (the signed and unsigned type of one width share a
// kernel, so both are checked) and bool, on one shape.
void check_ring_pairs(long m, long n, long k, int layout, int abi, int c_mode, long batch) {
  using std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t;
  using std::int64_t, std::uint64_t;
  const int l = layout, ab = abi, c = c_mode;
  check_ring<int8_t, int8_t>(GEMMKIT_I8, GEMMKIT_I8, m, n, k, l, ab, c, batch);
  check_ring<uint8_t, uint8_t>(GEMMKIT_U8, GEMMKIT_U8, m, n, k, l, ab, c, batch);
  check_ring<int16_t, int16_t>(GEMMKIT_I16, GEMMKIT_I16, m, n, k, l, ab, c, batch);
  check_ring<uint16_t, uint16_t>(GEMMKIT_U16, GEMMKIT_U16, m, n, k, l, ab, c, batch);
  check_ring<int32_t, int32_t>(GEMMKIT_I32, GEMMKIT_I32, m, n, k, l, ab, c, batch);
  check_ring<uint32_t, uint32_t>(GEMMKIT_U32, GEMMKIT_U32, m, n, k, l, ab, c, batch);
  check_ring<int64_t, int64_t>(GEMMKIT_I64, GEMMKIT_I64, m, n, k, l, ab, c, batch);
  check_ring<uint64_t, uint64_t>(GEMMKIT_U64, GEMMKIT_U64, m, n, k, l, ab, c, batch);
  check_ring<int8_t, int32_t>(GEMMKIT_I8, GEMMKIT_I32, m, n, k, l, ab, c, batch);
  check_bool(m, n, k, l, batch);
}

// Over tile edges (every kernel's mr and nr, up to 32 x 12), layouts and
// scalars.
void check_rings() {
  const long dims[] = {1, 2, 3, 7, 17, 33, 65};
  const long depths[] = {1, 2, 5, 64, 300};
  int idx = 0;
  for (long m : dims) {
    for (long n : dims) {
      for (long k : depths) {
        // Every (layout, scalars, C) combination recurs across the shapes.
        const int layout = idx % 3, abi = (idx / 3) % 3;
        const int c_mode = abi == 0 ? (idx / 9) % 3 : 1 + (idx / 9) % 2;
        ++idx;
        check_ring_pairs(m, n, k, layout, abi, c_mode, 1);
      }
    }
  }
  // Batched: three matrices at a batch stride with gaps, own C and in place.
  check_ring_pairs(17, 33, 64, 0, 1, 1, 3);
  check_ring_pairs(65, 7, 300, 2, 2, 2, 3);
}

// complex64/complex128: alpha (0.5, -2), beta (1, 1), conj of a and/or b.
// The reference is written out in real long double arithmetic (not
// std::complex's operators, whose NaN/Inf recovery and library-specific
// rounding the oracle should not depend on).
template <class R>
void check_complex(int code, long m, long n, long k, int layout, int flags, int c_mode,
                   long batch) {
  const long sa = m * k + 3, sb = k * n + 1, so = m * n + 2;
  std::vector<R> a(std::size_t(2 * sa * batch)), b(std::size_t(2 * sb * batch));
  std::vector<R> c(std::size_t(2 * so * batch)), o(std::size_t(2 * so * batch));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = R(hashed(unsigned(i), 51));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = R(hashed(unsigned(i), 52));
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = R(hashed(unsigned(i), 53));
  for (std::size_t i = 0; i < o.size(); ++i) o[i] = R(hashed(unsigned(i), 54));
  const std::vector<R> c0 = c_mode == 2 ? o : c;
  const Layout la = layout_of(m, k, layout), lb = layout_of(k, n, layout);
  const Layout lo = layout_of(m, n, layout == 1 ? 1 : 2 - layout);
  const gemmkit_operand va = operand_of(a.data(), code, GEMMKIT_OPERAND_READONLY, batch, sa, m,
                                        k, la, 2 * sizeof(R));
  const gemmkit_operand vb = operand_of(b.data(), code, GEMMKIT_OPERAND_READONLY, batch, sb, k,
                                        n, lb, 2 * sizeof(R));
  const gemmkit_operand vc = operand_of(c_mode == 2 ? o.data() : c.data(), code, 0, batch, so, m,
                                        n, lo, 2 * sizeof(R));
  const gemmkit_operand vo = operand_of(o.data(), code, 0, batch, so, m, n, lo, 2 * sizeof(R));
  const double alpha[2] = {0.5, -2}, beta[2] = {1, 1};
  const int st = gemmkit_gemm_batched_ex(alpha, &va, &vb, nullptr, beta, c_mode ? &vc : nullptr,
                                         &vo, nullptr, flags);
  const long double sign_a = (flags & GEMMKIT_CONJ_A) ? -1 : 1;
  const long double sign_b = (flags & GEMMKIT_CONJ_B) ? -1 : 1;
  const double eps = double(std::numeric_limits<R>::epsilon());
  const double abs_alpha = std::hypot(alpha[0], alpha[1]), abs_beta = std::hypot(beta[0], beta[1]);
  // |a| and |b| once per element: the tolerance needs sum |a||b|.
  std::vector<double> ma(a.size() / 2), mb(b.size() / 2);
  for (std::size_t i = 0; i < ma.size(); ++i) ma[i] = std::hypot(a[2 * i], a[2 * i + 1]);
  for (std::size_t i = 0; i < mb.size(); ++i) mb[i] = std::hypot(b[2 * i], b[2 * i + 1]);
  long bad = st == GEMMKIT_OK ? 0 : 1;
  double worst = 0;
  for (long q = 0; q < batch; ++q) {
    for (long i = 0; i < m; ++i) {
      for (long j = 0; j < n; ++j) {
        long double sr = 0, si = 0;
        double mag = 0;
        for (long p = 0; p < k; ++p) {
          const std::size_t ia = std::size_t(q * sa + la.off + i * la.rs + p * la.cs);
          const std::size_t ib = std::size_t(q * sb + lb.off + p * lb.rs + j * lb.cs);
          const long double ar = a[2 * ia], ai = sign_a * a[2 * ia + 1];
          const long double br = b[2 * ib], bi = sign_b * b[2 * ib + 1];
          sr += ar * br - ai * bi;
          si += ar * bi + ai * br;
          mag += ma[ia] * mb[ib];
        }
        const std::size_t at = std::size_t(q * so + lo.off + i * lo.rs + j * lo.cs);
        long double rr = alpha[0] * sr - alpha[1] * si, ri = alpha[0] * si + alpha[1] * sr;
        double cmag = 0;
        if (c_mode) {
          const long double cr = c0[2 * at], ci = c0[2 * at + 1];
          rr += beta[0] * cr - beta[1] * ci;
          ri += beta[0] * ci + beta[1] * cr;
          cmag = std::hypot(double(cr), double(ci));
        }
        const double tol = 16.0 * double(k + 2) * eps * (abs_alpha * mag + abs_beta * cmag);
        const double er = std::fabs(double(o[2 * at] - rr));
        const double ei = std::fabs(double(o[2 * at + 1] - ri));
        const double excess = (er > ei ? er : ei) - tol;
        if (!(excess <= 0)) {  // NaN counts as bad
          ++bad;
          if (!(excess <= worst)) worst = excess;
        }
      }
    }
  }
  if (!bad) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED complex%d m=%ld n=%ld k=%ld layout=%d conj=%d c=%d batch=%ld status=%d: "
                "%ld bad, excess %g\n",
                int(16 * sizeof(R)), m, n, k, layout, flags, c_mode, batch, st, bad, worst);
  }
}

void check_complexes() {
  const long dims[] = {1, 3, 7, 17, 33};
  const long depths[] = {1, 2, 5, 64, 300};
  int idx = 0;
  for (long m : dims) {
    for (long n : dims) {
      for (long k : depths) {
        // Each conj combination meets each layout and C mode.
        const int flags = idx % 4, layout = (idx / 4) % 3, c_mode = (idx / 12) % 3;
        ++idx;
        check_complex<float>(GEMMKIT_C64, m, n, k, layout, flags, c_mode, 1);
        check_complex<double>(GEMMKIT_C128, m, n, k, layout, flags, c_mode, 1);
      }
    }
  }
  check_complex<float>(GEMMKIT_C64, 17, 33, 64, 2, GEMMKIT_CONJ_A | GEMMKIT_CONJ_B, 1, 3);
  check_complex<double>(GEMMKIT_C128, 33, 7, 300, 1, GEMMKIT_CONJ_B, 2, 3);
}

// A complex product gives the same bits whatever the orientation it runs in
// (kernel/complex.hpp): out row-major (run transposed), column-major (run as
// given) and B prepacked (always transposed), with conj_a; the m x n shapes
// cover few columns with many rows (run as given even into a row-major out)
// and depths of several slices.
template <class R>
void check_complex_orientations(int code, long m, long n, long k, int flags) {
  std::vector<R> a(std::size_t(2 * m * k)), b(std::size_t(2 * k * n)), c(std::size_t(2 * m * n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = R(hashed(unsigned(i), 61));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = R(hashed(unsigned(i), 62));
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = R(hashed(unsigned(i), 63));
  const Layout row = layout_of(m, n, 0), col = layout_of(m, n, 1);
  const gemmkit_operand va = operand_of(a.data(), code, GEMMKIT_OPERAND_READONLY, 1, 0, m, k,
                                        layout_of(m, k, 0), 2 * sizeof(R));
  const gemmkit_operand vb = operand_of(b.data(), code, GEMMKIT_OPERAND_READONLY, 1, 0, k, n,
                                        layout_of(k, n, 0), 2 * sizeof(R));
  const gemmkit_operand vc = operand_of(c.data(), code, GEMMKIT_OPERAND_READONLY, 1, 0, m, n,
                                        row, 2 * sizeof(R));
  gemmkit_packed_rhs* packed = nullptr;
  int st = gemmkit_prepack_rhs(gemmkit_dtype(code), std::size_t(k), std::size_t(n), b.data(),
                               n, 1, &packed);
  const double alpha[2] = {0.5, -2}, beta[2] = {1, 1};
  // (out layout, packed): row-major plain first, the one the others equal.
  const std::pair<Layout, bool> forms[] = {{row, false}, {col, false}, {row, true}, {col, true}};
  std::vector<std::vector<R>> outs;
  for (const auto& [lo, use_packed] : forms) {
    std::vector<R> o(std::size_t(2 * m * n));
    const gemmkit_operand vo = operand_of(o.data(), code, 0, 1, 0, m, n, lo, 2 * sizeof(R));
    if (st == GEMMKIT_OK)
      st = gemmkit_gemm_batched_ex(alpha, &va, use_packed ? nullptr : &vb,
                                   use_packed ? packed : nullptr, beta, &vc, &vo, nullptr,
                                   flags);
    // Element (i, j) of each form in row-major order.
    std::vector<R> in_rows(o.size());
    for (long i = 0; i < m; ++i)
      for (long j = 0; j < n; ++j)
        for (int part = 0; part < 2; ++part)
          in_rows[std::size_t(2 * (i * n + j) + part)] =
              o[std::size_t(2 * (lo.off + i * lo.rs + j * lo.cs) + part)];
    outs.push_back(std::move(in_rows));
  }
  gemmkit_packed_rhs_free(packed);
  long differ = 0;
  for (std::size_t f = 1; f < outs.size(); ++f)
    differ += std::memcmp(outs[f].data(), outs[0].data(), outs[0].size() * sizeof(R)) != 0;
  if (st == GEMMKIT_OK && !differ) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED complex%d orientations m=%ld n=%ld k=%ld conj=%d status=%d: %ld of 3 "
                "forms differ from the row-major one\n",
                int(16 * sizeof(R)), m, n, k, flags, st, differ);
  }
}

void check_complex_orientation_bits() {
  const long shapes[][3] = {{70, 50, 300}, {200, 3, 40}, {300, 7, 700}, {17, 33, 2}};
  for (const auto& s : shapes) {
    for (int flags : {0, int(GEMMKIT_CONJ_A)}) {
      check_complex_orientations<float>(GEMMKIT_C64, s[0], s[1], s[2], flags);
      check_complex_orientations<double>(GEMMKIT_C128, s[0], s[1], s[2], flags);
    }
  }
}

// What the door refuses before anything runs, by status and message.
void check_door_errors() {
  bool ok = true;
  auto expect = [&](int st, int want, const char* word, const char* what) {
    if (st == want && (!word || std::strstr(gemmkit_last_error(), word))) return;
    ok = false;
    std::printf("  %s: status %d (want %d): %s\n", what, st, want, gemmkit_last_error());
  };
  // 2 x 2 row-major operands.
  auto op22 = [](void* p, int dtype, bool input, std::size_t elem) {
    return operand_of(p, dtype, input ? GEMMKIT_OPERAND_READONLY : 0, 1, 0, 2, 2,
                      layout_of(2, 2, 0), elem);
  };
  float f[4] = {1, 2, 3, 4}, fo[4] = {};
  const gemmkit_operand fa = op22(f, GEMMKIT_F32, true, 4);
  const gemmkit_operand fout = op22(fo, GEMMKIT_F32, false, 4);
  const double imag[2] = {1, 0.5}, one[2] = {1, 0}, two[2] = {2, 0}, zero[2] = {0, 0};
  expect(gemmkit_gemm_batched_ex(imag, &fa, &fa, nullptr, zero, nullptr, &fout, nullptr, 0),
         GEMMKIT_ERROR_VALUE, "imaginary", "complex alpha for float32");
  std::uint8_t t[4] = {1, 0, 1, 1}, to[4] = {};
  const gemmkit_operand ta = op22(t, GEMMKIT_BOOL, true, 1);
  const gemmkit_operand tout = op22(to, GEMMKIT_BOOL, false, 1);
  expect(gemmkit_gemm_batched_ex(two, &ta, &ta, nullptr, zero, nullptr, &tout, nullptr, 0),
         GEMMKIT_ERROR_VALUE, nullptr, "bool with alpha 2");
  // The ring products take no epilogue, even a bias of the right type.
  std::int16_t s[4] = {1, 2, 3, 4}, so[4] = {};
  std::int32_t bias[2] = {5, 6};
  const gemmkit_operand sa = op22(s, GEMMKIT_I16, true, 2);
  const gemmkit_operand sout = op22(so, GEMMKIT_I16, false, 2);
  gemmkit_epilogue epi{};
  epi.bias_kind = GEMMKIT_BIAS_PER_ROW;
  epi.bias = {bias, GEMMKIT_I32, GEMMKIT_OPERAND_READONLY, 1, 2, 1, 0, 1, 1};
  expect(gemmkit_gemm_batched_ex(one, &sa, &sa, nullptr, zero, nullptr, &sout, &epi, 0),
         GEMMKIT_ERROR_DTYPE, nullptr, "bias epilogue on int16");
  // A packed b is used as packed: conj_b is refused, conj_a is not.
  float z[8] = {1, 2, 3, 4, 5, 6, 7, 8}, zo[8] = {};
  const gemmkit_operand za = op22(z, GEMMKIT_C64, true, 8);
  const gemmkit_operand zout = op22(zo, GEMMKIT_C64, false, 8);
  gemmkit_packed_rhs* packed = nullptr;
  expect(gemmkit_prepack_rhs(GEMMKIT_C64, 2, 2, z, 2, 1, &packed), GEMMKIT_OK, nullptr,
         "prepack complex64");
  if (packed) {
    expect(gemmkit_gemm_batched_ex(one, &za, nullptr, packed, zero, nullptr, &zout, nullptr,
                                   GEMMKIT_CONJ_B),
           GEMMKIT_ERROR_VALUE, nullptr, "conj_b with a packed b");
    expect(gemmkit_gemm_batched_ex(one, &za, nullptr, packed, zero, nullptr, &zout, nullptr,
                                   GEMMKIT_CONJ_A),
           GEMMKIT_OK, nullptr, "conj_a with a packed b");
    gemmkit_packed_rhs_free(packed);
  }
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED operand door refusals\n");
  }
}

}  // namespace

int main() {
  // A pin this CPU cannot run is a skip here (ctest SKIP_RETURN_CODE), not a
  // failure: the refusal itself is tested from Python.
  if (!gemmkit::dispatch_info_json()) {
    std::printf("skipped: %s\n", gemmkit::last_error());
    return 77;
  }
  // Around every tile height (4, 8, 16, 32 rows) and width (4..12 columns),
  // plus depths across a packed block (KC is a few hundred).
  const long dims[] = {1, 2, 3, 5, 7, 8, 9, 13, 17, 31, 33, 67};
  const long depths[] = {1, 2, 16, 65, 700};
  for (long m : dims) {
    for (long n : dims) {
      for (long k : depths) {
        const int layout = int((m + n + k) % 3);
        check<float>(m, n, k, layout, 1.0f, 0.0f);
        check<double>(m, n, k, layout, -0.5, 2.0);
      }
    }
  }
  // A row-major B whose rows lie a page or more apart (the packing's
  // side-by-side row walk), with ragged panels and depth slices.
  check<float>(50, 1030, 999, 0, 1.0f, 0.0f);
  check<double>(37, 520, 1001, 0, -0.5, 2.0);
  check<double>(70, 1100, 333, 0, 1.0, 0.0);
  // Mixed precision and int8 across the same tile edges and a deep product.
  const long mixed_dims[] = {1, 3, 8, 17, 33, 67};
  const long mixed_depths[] = {1, 3, 8, 65, 300};
  for (long m : mixed_dims) {
    for (long n : mixed_dims) {
      for (long k : mixed_depths) {
        const bool col = (m + n + k) % 2;
        check_narrow<gemmkit::float16, gemmkit::float16>(m, n, k, col);
        check_narrow<gemmkit::float16, float>(m, n, k, !col);
        check_narrow<gemmkit::bfloat16, gemmkit::bfloat16>(m, n, k, col);
        check_narrow<gemmkit::bfloat16, float>(m, n, k, !col);
        check_int8<std::int32_t>(m, n, k, col);
        check_int8<std::int8_t>(m, n, k, !col);
        check_int8<std::uint8_t>(m, n, k, col);
      }
    }
  }
  check_int8<std::int32_t>(40, 50, 3000, false);
  check_int8_update(70, 45, 2500);
  check_int8_update(64, 64, 1537);
  check_narrow<gemmkit::bfloat16, float>(45, 70, 1200, false);
  check_narrow<gemmkit::bfloat16, gemmkit::bfloat16>(45, 70, 1200, false);
  check_int8<std::int8_t>(40, 50, 3000, true);
  check<float>(300, 200, 900, 0, 1.0f, 1.0f);
  check<double>(129, 257, 513, 1, 1.0, 0.0);
  // Fused epilogues of every float type and output.
  check_epilogues<float, float>();
  check_epilogues<double, double>();
  check_epilogues<gemmkit::float16, gemmkit::float16>();
  check_epilogues<gemmkit::float16, float>();
  check_epilogues<gemmkit::bfloat16, gemmkit::bfloat16>();
  check_epilogues<gemmkit::bfloat16, float>();
  check_epilogue_errors();
  // Every other numpy dtype, through the operand door.
  check_rings();
  check_complexes();
  check_complex_orientation_bits();
  check_door_errors();
  const char* info = gemmkit::dispatch_info_json();
  std::printf("%s\n", info ? info : gemmkit::last_error());
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
