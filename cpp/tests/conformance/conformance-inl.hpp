// L0 conformance test body: every SimdOps<Token, T> primitive against scalar
// arithmetic, lane by lane.
//
// Included by each cpp/tests/conformance/<isa>.cpp, which is compiled with
// that ISA's flags (cpp/cmake/gemmkit_isa.cmake).  Everything here is a
// template whose first parameter is the ISA token, so every instantiation
// carries gemmkit::isa_<isa> in its mangled name and can never be merged by
// the linker with a copy compiled for another ISA (CONVENTIONS 3).  For the
// same reason no standard-library template or inline function is used: math
// goes through compiler builtins, memory through the C library.
//
// What "conforms" means, per primitive (contract: cpp/src/simd/simd_ops.hpp):
//   zero/splat/loadu/storeu   bit-exact, any alignment, storeu writes exactly
//                             kLanes elements
//   load_partial(p, n)        lanes < n are p[i], lanes >= n are 0, and
//                             p[n..kLanes) is never touched: the source ends
//                             at a PROT_NONE guard page, so a wide load faults
//   store_partial(p, v, n)    writes p[0..n) only (sentinels and the guard
//                             page catch anything more)
//   mul, add                  bit-exact IEEE results
//   mul_add, fnma             bit-exact against one rounding (fused) when
//                             kFusedMulAdd, else against two roundings; a
//                             probe whose two answers differ checks the flag
//   max, min                  the larger/smaller input (no NaN, no +-0 ties:
//                             those are unspecified)
//   reduce_sum                exact on small integers; otherwise within
//                             (kLanes - 1) * eps * sum |x| of the exact sum
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <type_traits>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#define GEMMKIT_CONFORMANCE_GUARD_PAGES 1
#else
#define GEMMKIT_CONFORMANCE_GUARD_PAGES 0
#endif

#include "../../src/simd/simd_ops.hpp"

namespace gemmkit::conformance {

// True when the token has a SimdOps specialization for T (the primary
// template is declared but deliberately left undefined).
template <class Token, class T, class = void>
struct HasSimdOps : std::false_type {};
template <class Token, class T>
struct HasSimdOps<Token, T, std::void_t<decltype(sizeof(simd::SimdOps<Token, T>))>>
    : std::true_type {};

// Two pages, the second PROT_NONE: end<T>() points at the first byte a
// correct partial load/store never touches.
template <class Token>
struct GuardPage {
  unsigned char* base = nullptr;
  size_t page = 0;

  GuardPage() {
#if GEMMKIT_CONFORMANCE_GUARD_PAGES
    page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    base = static_cast<unsigned char*>(p);
    if (mprotect(base + page, page, PROT_NONE) != 0) {
      munmap(base, 2 * page);
      base = nullptr;
    }
#endif
  }
  ~GuardPage() {
#if GEMMKIT_CONFORMANCE_GUARD_PAGES
    if (base != nullptr) munmap(base, 2 * page);
#endif
  }
  GuardPage(const GuardPage&) = delete;
  GuardPage& operator=(const GuardPage&) = delete;

  bool ok() const { return base != nullptr; }
  template <class T>
  T* end() const {
    return reinterpret_cast<T*>(base + page);
  }
};

template <class Token, class T>
class SimdOpsConformance {
 public:
  using Ops = simd::SimdOps<Token, T>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  // Slack around every buffer: sentinels after the lanes catch overlong
  // stores; the offset makes loads/stores unaligned.
  static constexpr int kGuard = 8;
  static constexpr int kBuf = kLanes + 2 * kGuard + 1;
  static_assert(kLanes >= 1 && kLanes <= 64, "unexpected lane count");
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float or double only");

  int failures = 0;
  long checks = 0;

  int run() {
    check_zero_splat();
    check_loadu_storeu();
    check_load_partial();
    check_store_partial();
    check_guarded_partials();
    for (int round = 0; round < 200; ++round) check_arithmetic(round);
    check_fused_flag();
    check_reduce_sum();
    printf("  %s/%s: %d lanes, fused=%d, %ld checks, %d failures\n",
           Token::kName, type_name(), kLanes, Ops::kFusedMulAdd ? 1 : 0,
           checks, failures);
    return failures;
  }

 private:
  using UInt = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  uint64_t state_ = 0x9e3779b97f4a7c15ull;

  static const char* type_name() { return sizeof(T) == 4 ? "float" : "double"; }
  static T nan() { return sizeof(T) == 4 ? T(__builtin_nanf("")) : T(__builtin_nan("")); }
  static T inf() { return sizeof(T) == 4 ? T(__builtin_inff()) : T(__builtin_inf()); }
  static T eps() { return sizeof(T) == 4 ? T(1.0f / 8388608.0f) : T(1.0 / 4503599627370496.0); }
  static bool is_nan(T v) { return v != v; }
  static T abs_of(T v) { return v < T(0) ? -v : v; }
  static UInt bits(T v) {
    UInt u;
    memcpy(&u, &v, sizeof u);
    return u;
  }
  // Same value bit for bit; any two NaNs match (payloads are unspecified).
  static bool same(T got, T want) {
    return (is_nan(got) && is_nan(want)) || bits(got) == bits(want);
  }
  static T fused(T a, T b, T c) {
    if constexpr (sizeof(T) == 4) {
      return __builtin_fmaf(a, b, c);
    } else {
      return __builtin_fma(a, b, c);
    }
  }
  // Two roundings even where the compiler may contract a * b + c: the
  // volatile product must be stored (rounded) before the add.
  static T mul_then_add(T a, T b, T c) {
    volatile T p = a * b;
    return p + c;
  }
  static T c_minus_mul(T a, T b, T c) {
    volatile T p = a * b;
    return c - p;
  }

  uint64_t next() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return state_ >> 11;
  }
  // A finite value with a random 52-bit mantissa, exponent in [-6, 6].
  T random_value() {
    uint64_t r = next();
    double mant = 1.0 + double(r & ((1ull << 45) - 1)) / double(1ull << 45);
    int e = int((r >> 45) % 13) - 6;
    double v = mant;
    for (; e > 0; --e) v *= 2.0;
    for (; e < 0; ++e) v *= 0.5;
    return T((r >> 44) & 1 ? -v : v);
  }
  T special_value(uint64_t which) {
    switch (which % 9) {
      case 0: return T(0);
      case 1: return -T(0);
      case 2: return inf();
      case 3: return -inf();
      case 4: return nan();
      case 5: return T(1);
      case 6: return sizeof(T) == 4 ? T(1e-40f) : T(1e-310);  // subnormal
      case 7: return sizeof(T) == 4 ? T(3e38f) : T(1e308);    // overflows
      default: return T(-1);
    }
  }

  void fail(const char* what, int n, int lane, T got, T want) {
    ++failures;
    if (failures <= 20) {
      printf("  FAIL %s/%s %s (n or round %d) lane %d: got %.17g [0x%llx], want %.17g [0x%llx]\n",
             Token::kName, type_name(), what, n, lane, double(got),
             (unsigned long long)bits(got), double(want),
             (unsigned long long)bits(want));
    }
  }
  void expect(bool ok, const char* what, int n, int lane, T got, T want) {
    ++checks;
    if (!ok) fail(what, n, lane, got, want);
  }

  // Lanes of a register, read back through storeu (itself checked first).
  void lanes_of(Reg r, T* out) { Ops::storeu(out, r); }

  // A pointer the optimizer cannot see through.  Each primitive loads its
  // operands through one, so it is compiled on its own, as in a kernel:
  // without this the compiler folds constants, and shares a * b between
  // mul, mul_add and fnma, which hides whether this TU's flags let it
  // contract a separate multiply and add into an FMA.
  static const T* opaque(const T* p) {
    const T* volatile laundered = p;
    return laundered;
  }
  static Reg load(const T* p) { return Ops::loadu(opaque(p)); }

  void check_zero_splat() {
    T out[kBuf];
    lanes_of(Ops::zero(), out);
    for (int i = 0; i < kLanes; ++i) {
      expect(bits(out[i]) == 0, "zero", kLanes, i, out[i], T(0));
    }
    const T values[] = {T(1.5), -T(0), T(-3.25), inf(), nan(), random_value()};
    for (T v : values) {
      lanes_of(Ops::splat(v), out);
      for (int i = 0; i < kLanes; ++i) expect(same(out[i], v), "splat", kLanes, i, out[i], v);
    }
  }

  void check_loadu_storeu() {
    // Misaligned by one element on both sides; sentinels around the store.
    T src[kBuf], dst[kBuf];
    const T sentinel = T(-7777);
    for (int i = 0; i < kBuf; ++i) {
      src[i] = random_value();
      dst[i] = sentinel;
    }
    for (int off = 0; off < 3; ++off) {
      for (int i = 0; i < kBuf; ++i) dst[i] = sentinel;
      Ops::storeu(dst + kGuard + off, Ops::loadu(src + 1 + off));
      for (int i = 0; i < kBuf; ++i) {
        int lane = i - kGuard - off;
        bool inside = lane >= 0 && lane < kLanes;
        T want = inside ? src[1 + off + lane] : sentinel;
        expect(same(dst[i], want), inside ? "loadu/storeu" : "storeu past kLanes",
               kLanes, lane, dst[i], want);
      }
    }
  }

  void check_load_partial() {
    T src[kBuf], out[kBuf];
    for (int n = 0; n <= kLanes; ++n) {
      for (int i = 0; i < kBuf; ++i) src[i] = i < 1 + n ? random_value() : nan();
      lanes_of(Ops::load_partial(src + 1, n), out);
      for (int i = 0; i < kLanes; ++i) {
        T want = i < n ? src[1 + i] : T(0);
        bool ok = i < n ? same(out[i], want) : out[i] == T(0);
        expect(ok, i < n ? "load_partial" : "load_partial tail not zero", n, i, out[i], want);
      }
    }
  }

  void check_store_partial() {
    T src[kBuf], dst[kBuf];
    const T sentinel = T(-7777);
    for (int i = 0; i < kBuf; ++i) src[i] = random_value();
    Reg v = Ops::loadu(src);
    for (int n = 0; n <= kLanes; ++n) {
      for (int i = 0; i < kBuf; ++i) dst[i] = sentinel;
      Ops::store_partial(dst + kGuard, v, n);
      for (int i = 0; i < kBuf; ++i) {
        int lane = i - kGuard;
        bool written = lane >= 0 && lane < n;
        T want = written ? src[lane] : sentinel;
        expect(same(dst[i], want), written ? "store_partial" : "store_partial past n",
               n, lane, dst[i], want);
      }
    }
  }

  // The first element after the n valid ones is the first byte of a
  // PROT_NONE page: a partial load or store that touches p[n..kLanes), even
  // if it then masks the values away, faults here.
  void check_guarded_partials() {
#if GEMMKIT_CONFORMANCE_GUARD_PAGES
    GuardPage<Token> guard;
    if (!guard.ok()) {
      ++failures;
      printf("  FAIL %s/%s: could not map a guard page\n", Token::kName, type_name());
      return;
    }
    T* end = guard.template end<T>();
    T vals[kBuf], out[kBuf];
    for (int i = 0; i < kBuf; ++i) vals[i] = random_value();
    Reg v = Ops::loadu(vals);
    for (int n = 0; n <= kLanes; ++n) {
      T* p = end - n;
      for (int i = 0; i < n; ++i) p[i] = vals[i];
      lanes_of(Ops::load_partial(p, n), out);
      for (int i = 0; i < kLanes; ++i) {
        T want = i < n ? vals[i] : T(0);
        bool ok = i < n ? same(out[i], want) : out[i] == T(0);
        expect(ok, "load_partial at a guard page", n, i, out[i], want);
      }
      for (int i = 0; i < n; ++i) p[i] = T(0);
      Ops::store_partial(p, v, n);
      for (int i = 0; i < n; ++i) {
        expect(same(p[i], vals[i]), "store_partial at a guard page", n, i, p[i], vals[i]);
      }
    }
#endif
  }

  void check_arithmetic(int round) {
    T a[kBuf], b[kBuf], c[kBuf];
    for (int i = 0; i < kLanes; ++i) {
      a[i] = random_value();
      b[i] = random_value();
      c[i] = random_value();
    }
    // Every 8th round sprinkles IEEE specials into random lanes.
    const bool specials = round % 8 == 7;
    if (specials) {
      for (int i = 0; i < kLanes; ++i) {
        uint64_t r = next();
        if (r & 1) a[i] = special_value(r >> 1);
        if (r & 2) b[i] = special_value(r >> 5);
        if (r & 4) c[i] = special_value(r >> 9);
      }
    }
    T out[kBuf];

    lanes_of(Ops::mul(load(a), load(b)), out);
    for (int i = 0; i < kLanes; ++i) {
      T want = a[i] * b[i];
      expect(same(out[i], want), "mul", round, i, out[i], want);
    }
    lanes_of(Ops::add(load(a), load(b)), out);
    for (int i = 0; i < kLanes; ++i) {
      T want = a[i] + b[i];
      expect(same(out[i], want), "add", round, i, out[i], want);
    }
    lanes_of(Ops::mul_add(load(a), load(b), load(c)), out);
    for (int i = 0; i < kLanes; ++i) {
      T want = Ops::kFusedMulAdd ? fused(a[i], b[i], c[i]) : mul_then_add(a[i], b[i], c[i]);
      expect(same(out[i], want), "mul_add", round, i, out[i], want);
    }
    lanes_of(Ops::fnma(load(a), load(b), load(c)), out);
    for (int i = 0; i < kLanes; ++i) {
      T want = Ops::kFusedMulAdd ? fused(-a[i], b[i], c[i]) : c_minus_mul(a[i], b[i], c[i]);
      expect(same(out[i], want), "fnma", round, i, out[i], want);
    }
    // max/min: NaN inputs and +0/-0 ties are unspecified; skip those lanes.
    T mx[kBuf], mn[kBuf];
    lanes_of(Ops::max(load(a), load(b)), mx);
    lanes_of(Ops::min(load(a), load(b)), mn);
    for (int i = 0; i < kLanes; ++i) {
      if (is_nan(a[i]) || is_nan(b[i])) continue;
      if (a[i] == b[i] && bits(a[i]) != bits(b[i])) continue;
      T want_max = a[i] > b[i] ? a[i] : b[i];
      T want_min = a[i] < b[i] ? a[i] : b[i];
      expect(same(mx[i], want_max), "max", round, i, mx[i], want_max);
      expect(same(mn[i], want_min), "min", round, i, mn[i], want_min);
    }
  }

  // a = 1 + e, b = 1 - e, c = -1: a * b = 1 - e^2 rounds to 1 (e^2 is below
  // half an ulp of 1), so two roundings give 0 and one gives -e^2.
  void check_fused_flag() {
    const T e = sizeof(T) == 4 ? T(1.0 / 8192.0) : T(1.0 / 268435456.0);
    T a[kBuf], b[kBuf], minus_one[kBuf], one[kBuf];
    for (int i = 0; i < kBuf; ++i) {
      a[i] = T(1) + e;
      b[i] = T(1) - e;
      minus_one[i] = T(-1);
      one[i] = T(1);
    }
    T out[kBuf];
    lanes_of(Ops::mul_add(load(a), load(b), load(minus_one)), out);
    const T want = Ops::kFusedMulAdd ? -(e * e) : T(0);
    for (int i = 0; i < kLanes; ++i) {
      expect(same(out[i], want), "mul_add rounding vs kFusedMulAdd", kLanes, i, out[i], want);
    }
    lanes_of(Ops::fnma(load(a), load(b), load(one)), out);
    const T want_fnma = Ops::kFusedMulAdd ? e * e : T(0);
    for (int i = 0; i < kLanes; ++i) {
      expect(same(out[i], want_fnma), "fnma rounding vs kFusedMulAdd", kLanes, i, out[i],
             want_fnma);
    }
  }

  void check_reduce_sum() {
    using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
    T x[kBuf];
    // Small integers: every partial sum is exact, so any order is exact.
    for (int round = 0; round < 20; ++round) {
      T want = 0;
      for (int i = 0; i < kLanes; ++i) {
        x[i] = T(int(next() % 201) - 100);
        want += x[i];
      }
      T got = Ops::reduce_sum(Ops::loadu(x));
      expect(same(got, want), "reduce_sum (integers)", kLanes, -1, got, want);
    }
    // Distinct lanes: a sum that drops or repeats a lane is off by far more
    // than rounding.
    for (int i = 0; i < kLanes; ++i) x[i] = T(1 << (i % 20)) * T(i < 20 ? 1 : 3);
    {
      T want = 0;
      for (int i = 0; i < kLanes; ++i) want += x[i];
      T got = Ops::reduce_sum(Ops::loadu(x));
      expect(same(got, want), "reduce_sum (powers of two)", kLanes, -1, got, want);
    }
    for (int round = 0; round < 50; ++round) {
      Wide exact = 0, mag = 0;
      for (int i = 0; i < kLanes; ++i) {
        x[i] = random_value();
        exact += Wide(x[i]);
        mag += Wide(abs_of(x[i]));
      }
      T got = Ops::reduce_sum(Ops::loadu(x));
      Wide err = Wide(got) - exact;
      if (err < 0) err = -err;
      // kLanes - 1 additions, each within half an ulp, plus the final
      // rounding of the exact sum to T.
      Wide tol = Wide(kLanes) * Wide(eps()) * mag;
      expect(err <= tol, "reduce_sum (random)", kLanes, -1, got, T(exact));
    }
  }
};

/// Runs every check for SimdOps<Token, T>; prints failures and a summary
/// line; returns the number of failures.  A token without a SimdOps for T is
/// reported (not silently passed) and counts as no failure.
template <class Token, class T>
int run_simd_ops_conformance() {
  if constexpr (HasSimdOps<Token, T>::value) {
    SimdOpsConformance<Token, T> suite;
    return suite.run();
  } else {
    printf("  %s/%s: no SimdOps specialization (not tested)\n", Token::kName,
           sizeof(T) == 4 ? "float" : "double");
    return 0;
  }
}

}  // namespace gemmkit::conformance
