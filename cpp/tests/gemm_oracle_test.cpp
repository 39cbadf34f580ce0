// C++ GEMM oracle test: the dispatched kernels (whatever GEMMKIT_REQUIRE_ISA
// selects) against a naive double-precision product, over shapes that cross
// tile and block edges and over row-major, column-major, transposed and
// reversed layouts; then float16/bfloat16 (both outputs), int8 -> int32 and
// requantized int8/uint8 against exact or double references; then the fused
// epilogues (bias, ReLU, leaky ReLU, clip) of every float type bit for bit,
// NaN and -0 rules included.  Runs without Python, so it also checks the NEON
// kernels under user-mode qemu.  Prints "N passed, N failed".
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
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
  double worst = 0, scale = 0;
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
      scale += tol;
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
  const char* info = gemmkit::dispatch_info_json();
  std::printf("%s\n", info ? info : gemmkit::last_error());
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
