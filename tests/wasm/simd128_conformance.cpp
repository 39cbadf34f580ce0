// L0 conformance of the Simd128 token: every SimdOps<Simd128, T> operation
// against the Scalar token applied lane by lane, bit for bit (NaN compared as
// "both NaN").  Built by tests/wasm/conftest.py as a standalone wasm module
// (-msimd128, -ffp-contract=off, like the simd128 target TUs) and run in node
// by tests/wasm/node/simd128_l0.test.mjs.
//
// load_partial must never touch memory past n lanes: the partial loads read
// the last bytes of the linear memory, where a full 16-byte load would trap.
//
// Then the mixed-precision and int8 vocabulary of the same token, by the
// shared native body (cpp/tests/conformance/kernel-simd-inl.hpp):
// SimdOps<Simd128, int32_t> (wrapping), the f16/bf16 widen/narrow seams
// against scalar/half.hpp (all 65536 narrow patterns, every tie, NaN
// payloads, 2^21 random f32 patterns), the f32-output twins, the int8 seam
// and the vector requant_store against scalar::requantize, bit for bit;
// and the Scalar token's seams, as the wasm scalar build runs them.
//
// Built a second time with -mrelaxed-simd (relaxed_simd_conformance.wasm),
// it also checks SimdOps<RelaxedSimd, T>: every operation but mul_add and
// fnma is Simd128's bit for bit, and those two give, in each lane, either
// the fused result (one rounding) or Simd128's (two), the same choice in
// every lane and call: the rounding docs/dispatch.md promises.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "simd/relaxed_simd.hpp"
#include "simd/scalar.hpp"
#include "simd/simd128.hpp"
#include "../../cpp/tests/conformance/kernel-simd-inl.hpp"

#if !defined(__wasm_simd128__)
#error "build this test with -msimd128"
#endif

namespace {

using gemmkit::isa_scalar::Scalar;
using gemmkit::isa_simd128::Simd128;
using gemmkit::simd::SimdOps;

int g_failures = 0;
int g_checks = 0;
char g_first[256];

template <class T>
bool same(T x, T y) {
  if (x != x && y != y) return true;  // both NaN
  return memcmp(&x, &y, sizeof(T)) == 0;  // distinguishes -0.0 from +0.0
}

template <class T>
void check(bool ok, const char* op, int lane, T got, T want) {
  ++g_checks;
  if (ok) return;
  if (g_failures++ == 0) {
    snprintf(g_first, sizeof g_first, "%s (%s) lane %d: got %.17g, want %.17g",
             op, sizeof(T) == 4 ? "f32" : "f64", lane, double(got), double(want));
  }
}

template <class T>
const T* values(int* count) {
  static const T v[] = {
      T(0),   T(-0.0),  T(1),     T(-1),    T(0.1),   T(-2.5),  T(3e-7),
      T(1e30) * T(sizeof(T) == 8 ? 1e200 : 1),        T(-7),    T(1) / T(3),
      T(1e-38), T(65504), __builtin_nan(""),  __builtin_inf(), -__builtin_inf(),
      T(42.75)};
  *count = int(sizeof v / sizeof v[0]);
  return v;
}

template <class T>
void run_type() {
  using V = SimdOps<Simd128, T>;
  using S = SimdOps<Scalar, T>;
  constexpr int L = V::kLanes;
  static_assert(L == 16 / int(sizeof(T)), "one v128 of T");
  static_assert(!V::kFusedMulAdd, "wasm has no fused multiply-add");
  int nv = 0;
  const T* v = values<T>(&nv);

  T x[L], y[L], z[L], out[L];
  for (int s = 0; s < nv; ++s) {
    for (int i = 0; i < L; ++i) {
      x[i] = v[(s + i) % nv];
      y[i] = v[(3 * s + 5 * i + 1) % nv];
      z[i] = v[(7 * s + 3 * i + 2) % nv];
    }
    const auto a = V::loadu(x), b = V::loadu(y), c = V::loadu(z);
#define GK_BINARY(op)                                         \
  V::storeu(out, V::op(a, b));                                \
  for (int i = 0; i < L; ++i) {                               \
    const T want = S::op(x[i], y[i]);                         \
    check(same(out[i], want), #op, i, out[i], want);          \
  }
    GK_BINARY(mul)
    GK_BINARY(add)
    GK_BINARY(max)
    GK_BINARY(min)
#undef GK_BINARY
    V::storeu(out, V::mul_add(a, b, c));
    for (int i = 0; i < L; ++i) {
      const T want = S::mul_add(x[i], y[i], z[i]);
      check(same(out[i], want), "mul_add", i, out[i], want);
    }
    V::storeu(out, V::fnma(a, b, c));
    for (int i = 0; i < L; ++i) {
      const T want = S::fnma(x[i], y[i], z[i]);
      check(same(out[i], want), "fnma", i, out[i], want);
    }
    // reduce_sum: (l0 + l2) + (l1 + l3) for f32, l0 + l1 for f64.
    const T want_sum = L == 4 ? (x[0] + x[2]) + (x[1] + x[3]) : x[0] + x[1];
    const T got_sum = V::reduce_sum(a);
    check(same(got_sum, want_sum), "reduce_sum", 0, got_sum, want_sum);
    V::storeu(out, V::splat(x[0]));
    for (int i = 0; i < L; ++i) check(same(out[i], x[0]), "splat", i, out[i], x[0]);
  }
  V::storeu(out, V::zero());
  for (int i = 0; i < L; ++i) check(same(out[i], T(0)), "zero", i, out[i], T(0));

  // ReLU and clip are max/min against a splat: -0.0 and NaN inputs must
  // give the scalar answers (0 > -0 is false, so max(-0, 0) is 0 = b).
  const T relu_in[2] = {T(-0.0), __builtin_nan("")};
  for (T r : relu_in) {
    V::storeu(out, V::max(V::splat(r), V::zero()));
    check(same(out[0], S::max(r, T(0))), "relu", 0, out[0], S::max(r, T(0)));
  }

  // Partial loads at the very end of the linear memory: a full v128.load
  // there would trap, so passing proves no lane past n is touched.
  char* end = reinterpret_cast<char*>(__builtin_wasm_memory_size(0) * 65536);
  for (int n = 0; n <= L; ++n) {
    T* p = reinterpret_cast<T*>(end) - n;
    for (int i = 0; i < n; ++i) p[i] = T(i + 1);
    V::storeu(out, V::load_partial(p, n));
    for (int i = 0; i < L; ++i) {
      const T want = i < n ? T(i + 1) : T(0);
      check(same(out[i], want), "load_partial", i, out[i], want);
    }
    // store_partial writes lanes [0, n) at the end of memory (a full store
    // would trap) and leaves the canaries in front of them alone.
    T* q = reinterpret_cast<T*>(end) - n;
    T canary[L + 1];
    for (int i = 0; i <= L; ++i) canary[i] = T(-99);
    V::store_partial(q, V::loadu(x), n);
    for (int i = 0; i < n; ++i) check(same(q[i], x[i]), "store_partial", i, q[i], x[i]);
    V::store_partial(canary, V::loadu(x), n);
    for (int i = n; i <= L; ++i)
      check(same(canary[i], T(-99)), "store_partial canary", i, canary[i], T(-99));
  }
}

#if defined(__wasm_relaxed_simd__)
using gemmkit::isa_relaxed_simd::RelaxedSimd;

// How relaxed_madd has rounded so far: fused, unfused, or not yet told
// apart (the two agree for most inputs).
enum class Rounding { unknown, fused, unfused };
Rounding g_relaxed_rounding = Rounding::unknown;

template <class T>
void check_relaxed_lane(const char* op, int lane, T got, T fused, T unfused) {
  if (same(fused, unfused)) return check(same(got, fused), op, lane, got, fused);
  const Rounding seen = same(got, fused)     ? Rounding::fused
                        : same(got, unfused) ? Rounding::unfused
                                             : Rounding::unknown;
  if (seen == Rounding::unknown) return check(false, op, lane, got, fused);
  if (g_relaxed_rounding == Rounding::unknown) g_relaxed_rounding = seen;
  check(seen == g_relaxed_rounding, op, lane, got, seen == Rounding::fused ? unfused : fused);
}

template <class T>
void run_relaxed() {
  using R = SimdOps<RelaxedSimd, T>;
  using V = SimdOps<Simd128, T>;
  constexpr int L = R::kLanes;
  static_assert(!R::kFusedMulAdd, "nothing may rely on relaxed_madd fusing");
  int nv = 0;
  const T* v = values<T>(&nv);
  T x[L], y[L], z[L], got[L], want[L];
  // Products whose fused and unfused results differ (1 + 2^-p squared
  // minus 1), so both roundings are exercised, then the value table.
  const T e = sizeof(T) == 4 ? T(1.0f / 4096) : T(1.0 / 67108864);
  for (int s = -1; s < nv; ++s) {
    for (int i = 0; i < L; ++i) {
      x[i] = s < 0 ? T(1) + e * T(i + 1) : v[(s + i) % nv];
      y[i] = s < 0 ? T(1) + e * T(i + 1) : v[(3 * s + 5 * i + 1) % nv];
      z[i] = s < 0 ? T(-1) : v[(7 * s + 3 * i + 2) % nv];
    }
    const auto a = R::loadu(x), b = R::loadu(y), c = R::loadu(z);
#define GK_SAME_AS_SIMD128(expr_r, expr_v, name)                            \
  R::storeu(got, expr_r);                                                   \
  V::storeu(want, expr_v);                                                  \
  for (int i = 0; i < L; ++i) check(same(got[i], want[i]), name, i, got[i], want[i]);
    GK_SAME_AS_SIMD128(R::mul(a, b), V::mul(a, b), "relaxed mul")
    GK_SAME_AS_SIMD128(R::add(a, b), V::add(a, b), "relaxed add")
    GK_SAME_AS_SIMD128(R::max(a, b), V::max(a, b), "relaxed max")
    GK_SAME_AS_SIMD128(R::min(a, b), V::min(a, b), "relaxed min")
#undef GK_SAME_AS_SIMD128
    R::storeu(got, R::mul_add(a, b, c));
    for (int i = 0; i < L; ++i) {
      const T fused = sizeof(T) == 4 ? T(fmaf(float(x[i]), float(y[i]), float(z[i])))
                                     : T(fma(double(x[i]), double(y[i]), double(z[i])));
      check_relaxed_lane("relaxed mul_add", i, got[i], fused, x[i] * y[i] + z[i]);
    }
    R::storeu(got, R::fnma(a, b, c));
    for (int i = 0; i < L; ++i) {
      const T fused = sizeof(T) == 4 ? T(fmaf(-float(x[i]), float(y[i]), float(z[i])))
                                     : T(fma(-double(x[i]), double(y[i]), double(z[i])));
      check_relaxed_lane("relaxed fnma", i, got[i], fused, z[i] - x[i] * y[i]);
    }
  }
}
#endif

// Runs one KernelSimdConformance suite and folds its counts and first
// failure into this module's.
template <class Token>
void run_mixed(bool want_requant_vector, bool requant_reference) {
  gemmkit::conformance::KernelSimdConformance<Token> suite;
  suite.run(want_requant_vector);
  if (requant_reference) suite.run_requant_reference();
  if (suite.failures != 0 && g_failures == 0) {
    snprintf(g_first, sizeof g_first, "%s", suite.first_failure);
  }
  g_failures += suite.failures;
  g_checks += int(suite.checks);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int conformance_run(void) {
  g_failures = g_checks = 0;
  g_first[0] = 0;
  run_type<float>();
  run_type<double>();
  run_mixed<Simd128>(/*want_requant_vector=*/true, /*requant_reference=*/false);
  run_mixed<Scalar>(/*want_requant_vector=*/false, /*requant_reference=*/true);
#if defined(__wasm_relaxed_simd__)
  run_relaxed<float>();
  run_relaxed<double>();
#endif
  return g_failures;
}

// Which rounding relaxed_madd showed: 0 none told apart (or not a relaxed
// build), 1 fused, 2 unfused.
extern "C" __attribute__((visibility("default"))) int conformance_relaxed_rounding(void) {
#if defined(__wasm_relaxed_simd__)
  return int(g_relaxed_rounding);
#else
  return 0;
#endif
}

extern "C" __attribute__((visibility("default"))) int conformance_checks(void) {
  return g_checks;
}

extern "C" __attribute__((visibility("default"))) const char* conformance_first_failure(void) {
  return g_first;
}
