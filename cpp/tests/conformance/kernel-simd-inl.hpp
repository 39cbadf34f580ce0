// L0 conformance test body for the mixed-precision and integer vocabulary:
// SimdOps<Token, int32_t>, SimdOps<Token, int64_t> and every KernelSimd seam
// of a token, against the scalar references of cpp/src/scalar/ (half.hpp,
// requant.hpp) and wrapping unsigned models, bit for bit.
//
// Included by each cpp/tests/conformance/<isa>.cpp (native, under that ISA's
// flags) and by tests/wasm/simd128_conformance.cpp (wasm32, -msimd128).  As
// in conformance-inl.hpp, everything is a template over the ISA token, and
// only compiler builtins and the C library are called (CONVENTIONS 3: no
// copy compiled for one ISA may be linked into another's caller).
//
// What is checked, per token:
//   int32 / int64   SimdOps<Token, T> for T = int32_t and int64_t, one
//   SimdOps         template, against a wrapping model in T's unsigned twin:
//                   zero/splat/loadu/storeu exact (sentinels, misaligned);
//                   load_partial/store_partial for every n in [0, kLanes]
//                   touch only [0, n) (sentinels, and a guard page: the end
//                   of a mapping, or of the wasm linear memory); add, mul,
//                   mul_add, fnma wrap modulo 2^32 / 2^64 (random lanes,
//                   special values, 8-bit products; MIN/MAX products and
//                   sums, MIN * -1, 2^h * 2^h for h half the lane width;
//                   int64 also: sign-extended and unsigned 32-bit operands,
//                   32-bit halves that carry); max, min signed (int64:
//                   operands equal in one 32-bit half included); reduce_sum
//                   wraps (MIN/MAX lanes included); kFusedMulAdd is false
//   f16 / bf16      widening: all 65536 bit patterns through load_lhs,
//                   load_out and splat_rhs equal scalar::to_float bit for
//                   bit (NaN payloads included);
//                   narrowing: store_out equals scalar::to_float16 /
//                   to_bfloat16 bit for bit on every f32 edge class (NaN
//                   payloads of both signs, +-inf, +-0, f32 subnormals,
//                   results that are half subnormals, max finite, overflow to
//                   inf), on the neighbours and exact midpoints of every one
//                   of the 65536 narrow values (ties both ways, every
//                   exponent), and on 2^21 pseudo-random bit patterns;
//                   store_out writes exactly kLanes elements; partials touch
//                   only [0, n)
//   f32 twins       accumulate side identical to the narrow seam, C plain f32
//   int8            load_lhs/splat_rhs sign-extend all 256 bytes; int32 C
//                   plain; requant_store equals scalar::requantize bit for
//                   bit (ties x.5 both signs, saturation at both ends, |v|
//                   near 2^31, tiny/subnormal and huge scales, zp at the
//                   range ends, i8 and u8 ranges, random), writes exactly
//                   kLanes bytes; the i8/u8-output forwarders agree;
//                   requant_store_partial touches only [0, n);
//                   kRequantVector matches what the unit expects
// scalar::requantize itself is checked against an independent, integer-only
// model of the map (run_requant_reference, from the scalar unit).
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <type_traits>

#include "../../src/scalar/half.hpp"
#include "../../src/scalar/requant.hpp"
#include "../../src/simd/kernel_simd.hpp"
#include "conformance-inl.hpp"

namespace gemmkit::conformance {

// The first byte past the memory a partial load/store may touch, with room
// for `bytes` bytes in front of it; null when this platform has no guard.
// Native: a PROT_NONE page (conformance-inl.hpp), so touching it faults.
// wasm: the end of the linear memory, where any access past it traps.
template <class Token>
struct GuardEnd {
#if defined(__wasm__)
  unsigned char* end() const {
    return reinterpret_cast<unsigned char*>(__builtin_wasm_memory_size(0) * 65536);
  }
  bool ok() const { return true; }
#else
  GuardPage<Token> page;
  unsigned char* end() const { return page.template end<unsigned char>(); }
  bool ok() const { return page.ok(); }
#endif
};

template <class Token>
class KernelSimdConformance {
 public:
  int failures = 0;
  long checks = 0;
  char first_failure[256] = {0};

  // want_requant_vector: the kRequantVector the unit expects of this token.
  int run(bool want_requant_vector) {
    int before = failures;
    int_ops<int32_t>();
    int_ops<int64_t>();
    narrow_seam<float16>("f16");
    narrow_seam<bfloat16>("bf16");
    f32_twin<float16>("f16->f32");
    f32_twin<bfloat16>("bf16->f32");
    int8_seam(want_requant_vector);
    printf("  %s/mixed: int32 ops, int64 ops, f16, bf16, f32 twins, int8, requant (vector=%d): "
           "%ld checks, %d failures\n",
           Token::kName, want_requant_vector ? 1 : 0, checks, failures - before);
    return failures - before;
  }

  // scalar::requantize against an independent integer-only model of the
  // map (no floating-point rounding anywhere in the model).
  int run_requant_reference() {
    int before = failures;
    for (const Range& r : kRanges) {
      for (int zi = 0; zi < kNumZp; ++zi) {
        const int32_t zp = zero_point(r, zi);
        for (float scale : kScales) {
          for (int32_t v : kValues) check_reference(v, scale, zp, r);
        }
      }
    }
    // Exact ties at many scales: v * 2^-m = k + 1/2.
    for (int m = 1; m <= 30; ++m) {
      const float scale = __builtin_ldexpf(1.0f, -m);
      for (int32_t k = -300; k <= 300; k += 7) {
        const int64_t v = (2 * int64_t(k) + 1) << (m - 1);
        if (v < INT32_MIN || v > INT32_MAX) continue;
        for (const Range& r : kRanges) check_reference(int32_t(v), scale, 0, r);
      }
    }
    for (int i = 0; i < 200000; ++i) {
      const Range& r = kRanges[next() & 1];
      check_reference(int32_t(uint32_t(next())), random_scale(), zero_point(r, int(next() % kNumZp)),
                      r);
    }
    printf("  %s/requant reference: scalar::requantize vs an integer model, %d failures\n",
           Token::kName, failures - before);
    return failures - before;
  }

 private:
  struct Range {
    int32_t lo, hi;
  };
  static constexpr Range kRanges[2] = {{-128, 127}, {0, 255}};
  static constexpr int kNumZp = 5;
  static constexpr float kScales[] = {
      0.5f, 0.25f, 1.0f, 1.5f, 2.5f, 0.125f, 3.0f, 0.1f, 0.3333333f, 7.0f, 1e-3f,
      0x1p-15f, 0x1p-24f, 1e-10f, 0x1p-126f /* min normal */, 0x1p-149f /* min subnormal */,
      1e-40f /* subnormal */, 1e30f, 3.4028235e38f /* max finite */, 65536.0f, 0x1p31f,
      0.999999940f, 1.00000012f};
  static constexpr int32_t kValues[] = {
      0, 1, -1, 2, -2, 3, -3, 5, -5, 127, -128, 128, -129, 254, 255, 256, 257, -255, -256,
      -257, 253, 251, 509, 511, 513, -509, -511, -513, 1 << 24, (1 << 24) + 1, -(1 << 24) - 1,
      1 << 30, -(1 << 30), INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 0x7fffff80,
      -0x7fffff80, 1000000007, -1000000007, 12345, -12345};

  using F32Ops = simd::SimdOps<Token, float>;
  using I32Ops = simd::SimdOps<Token, int32_t>;

  uint64_t state_ = 0x243f6a8885a308d3ull;

  uint64_t next() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return state_ >> 17;
  }
  // 2^-40 .. 2^12 with a random 24-bit mantissa.
  float random_scale() {
    const float m = 1.0f + float(next() & 0x7fffff) * 0x1p-23f;
    return __builtin_ldexpf(m, int(next() % 53) - 40);
  }
  static int32_t zero_point(const Range& r, int which) {
    switch (which) {
      case 0: return r.lo;
      case 1: return r.hi;
      case 2: return r.lo + 1;
      case 3: return r.hi - 1;
      default: return r.lo < 0 ? 0 : 128;
    }
  }

  void fail(const char* what, long index, unsigned long long got, unsigned long long want) {
    ++failures;
    if (failures == 1) {
      snprintf(first_failure, sizeof first_failure, "%s %s [%ld]: got 0x%llx, want 0x%llx",
               Token::kName, what, index, got, want);
    }
    if (failures <= 20) {
      printf("  FAIL %s %s [%ld]: got 0x%llx, want 0x%llx\n", Token::kName, what, index, got,
             want);
    }
  }
  void expect(bool ok, const char* what, long index, unsigned long long got,
              unsigned long long want) {
    ++checks;
    if (!ok) fail(what, index, got, want);
  }
  void expect_eq(unsigned long long got, unsigned long long want, const char* what,
                 long index) {
    expect(got == want, what, index, got, want);
  }
  static uint32_t bits(float f) { return scalar::float_bits(f); }
  static unsigned long long u32(int32_t v) { return uint32_t(v); }
  // next() has 47 random bits; two of them cover all 64.
  uint64_t next64() { return (next() << 32) ^ next(); }

  // Register lanes, through the already-checked storeu.
  template <class Reg>
  static void f32_lanes(Reg r, float* out) {
    F32Ops::storeu(out, r);
  }

  // ------------------------------------------------------------------
  // SimdOps<Token, T> for T = int32_t and int64_t, against a wrapping
  // model in U, T's unsigned twin
  // ------------------------------------------------------------------

  template <class T>
  using Unsigned = std::make_unsigned_t<T>;

  template <class T>
  static T wrap_add(T a, T b) { return T(Unsigned<T>(a) + Unsigned<T>(b)); }
  template <class T>
  static T wrap_mul(T a, T b) { return T(Unsigned<T>(a) * Unsigned<T>(b)); }
  template <class T>
  static T wrap_sub(T a, T b) { return T(Unsigned<T>(a) - Unsigned<T>(b)); }

  // One lane, compared as U; the check is named "i32 <what>" / "i64 <what>".
  template <class T>
  void expect_lane(T got, T want, const char* what, long index) {
    ++checks;
    if (got != want) {
      char name[128];
      snprintf(name, sizeof name, "%s %s", sizeof(T) == 4 ? "i32" : "i64", what);
      fail(name, index, Unsigned<T>(got), Unsigned<T>(want));
    }
  }

  // A lane with every bit random.
  template <class T>
  T random_lane() {
    if constexpr (sizeof(T) == 4) {
      return T(uint32_t(next()));
    } else {
      return T(next64());
    }
  }

  static int32_t special_i32(uint64_t which) {
    switch (which % 12) {
      case 0: return INT32_MIN;
      case 1: return INT32_MAX;
      case 2: return -1;
      case 3: return 0;
      case 4: return 1;
      case 5: return 0x10000;
      case 6: return -0x10000;
      case 7: return 0x7fff;
      case 8: return 46341;  // 46341^2 > INT32_MAX
      case 9: return INT32_MIN + 1;
      case 10: return -128;
      default: return 127;
    }
  }
  static int64_t special_i64(uint64_t which) {
    switch (which % 16) {
      case 0: return INT64_MIN;
      case 1: return INT64_MAX;
      case 2: return -1;
      case 3: return 0;
      case 4: return 1;
      case 5: return int64_t(1) << 32;
      case 6: return -(int64_t(1) << 32);
      case 7: return 0xffffffffll;  // lo*lo must be unsigned
      case 8: return 3037000500ll;  // 3037000500^2 > INT64_MAX
      case 9: return INT64_MIN + 1;
      case 10: return INT32_MIN;
      case 11: return INT32_MAX;
      case 12: return 0x100000001ll;
      case 13: return int64_t(0x80000000ffffffffull);
      case 14: return -128;
      default: return 0x7fffffff80000000ll;
    }
  }
  template <class T>
  static T special_lane(uint64_t which) {
    if constexpr (sizeof(T) == 4) {
      return special_i32(which);
    } else {
      return special_i64(which);
    }
  }

  // The operand shape of an arithmetic round: every third (int32) or sixth
  // (int64) round has 8-bit values; int64 rounds also cycle through
  // operands whose 32-bit halves are what matters.
  template <class T>
  void shape_operands(int round, uint64_t r, T& a, T& b) {
    constexpr bool kWide = sizeof(T) == 8;
    const int shape = round % (kWide ? 6 : 3);
    if (shape == 0) {  // small values: 8-bit products
      a = T(int8_t(a));
      b = T(int8_t(b));
    } else if constexpr (kWide) {
      switch (shape) {
        case 1:  // sign-extended 32-bit values: the high halves are 0 or ~0
          a = T(int32_t(uint32_t(a)));
          b = T(int32_t(uint32_t(b)));
          break;
        case 2:  // unsigned 32-bit values: lo*lo alone, up to 2^64 - 2^33 + 1
          a = T(uint32_t(a));
          b = T(uint32_t(b));
          break;
        case 3:  // equal high halves: max/min must compare the low ones too
          b = T(uint64_t(a) ^ (next() & 0xffffffffu));
          break;
        case 4:  // equal low halves, and sometimes equal operands
          b = (r & 8) ? a : T((uint64_t(a) & 0xffffffffu) ^ (next64() << 32));
          break;
        default:
          break;
      }
    }
  }

  template <class T>
  void int_ops() {
    if constexpr (!HasSimdOps<Token, T>::value) {
      fail(sizeof(T) == 4 ? "no SimdOps<Token, int32_t>" : "no SimdOps<Token, int64_t>", 0, 0, 1);
    } else {
      using Ops = simd::SimdOps<Token, T>;
      using U = Unsigned<T>;
      constexpr bool kWide = sizeof(T) == 8;
      constexpr int L = Ops::kLanes;
      constexpr int kBuf = L + 17;
      static_assert(!Ops::kFusedMulAdd, "integer mul_add has no rounding to fuse");
      static_assert(sizeof(typename Ops::Reg) == sizeof(T) * L, "one register of T");
      constexpr T kMax = T(U(~U(0)) >> 1);
      constexpr T kMin = T(-kMax - 1);
      constexpr T kHalfBit = T(U(1) << (4 * sizeof(T)));  // 2^16, 2^32
      constexpr T kLowOnes = T(U(~U(0)) >> (4 * sizeof(T)));  // 2^16 - 1, 2^32 - 1
      const T sentinel = T(U(0xA5A5A5A5A5A5A5A5ull));
      T a[kBuf], b[kBuf], c[kBuf], out[kBuf];

      Ops::storeu(out, Ops::zero());
      for (int i = 0; i < L; ++i) expect_lane<T>(out[i], 0, "zero", i);
      const T splats[] = {kMin, kMax, -1, 0, kWide ? T(0x0123456789abcdefll) : T(12345), kLowOnes};
      for (T v : splats) {
        Ops::storeu(out, Ops::splat(v));
        for (int i = 0; i < L; ++i) expect_lane<T>(out[i], v, "splat", i);
      }
      // loadu/storeu misaligned by 1..3 elements, sentinels around.
      for (int i = 0; i < kBuf; ++i) a[i] = random_lane<T>();
      for (int off = 0; off < 3; ++off) {
        for (int i = 0; i < kBuf; ++i) out[i] = sentinel;
        Ops::storeu(out + 8 + off, Ops::loadu(a + 1 + off));
        for (int i = 0; i < kBuf; ++i) {
          const int lane = i - 8 - off;
          const bool inside = lane >= 0 && lane < L;
          expect_lane<T>(out[i], inside ? a[1 + off + lane] : sentinel,
                         inside ? "loadu/storeu" : "storeu past kLanes", lane);
        }
      }
      // Partials with sentinels, every n in [0, kLanes].
      for (int n = 0; n <= L; ++n) {
        for (int i = 0; i < kBuf; ++i) b[i] = i < 1 + n ? a[i] : sentinel;
        Ops::storeu(out, Ops::load_partial(b + 1, n));
        for (int i = 0; i < L; ++i) {
          expect_lane<T>(out[i], i < n ? b[1 + i] : 0, "load_partial", n * 100 + i);
        }
        for (int i = 0; i < kBuf; ++i) out[i] = sentinel;
        Ops::store_partial(out + 8, Ops::loadu(a), n);
        for (int i = 0; i < kBuf; ++i) {
          const int lane = i - 8;
          const bool written = lane >= 0 && lane < n;
          expect_lane<T>(out[i], written ? a[lane] : sentinel,
                         written ? "store_partial" : "store_partial past n", n * 100 + lane);
        }
      }
      // Partials at a guard.
      GuardEnd<Token> guard;
      if (!guard.ok()) {
        fail("could not map a guard page", 0, 0, 1);
      } else {
        for (int n = 0; n <= L; ++n) {
          T* p = reinterpret_cast<T*>(guard.end()) - n;
          for (int i = 0; i < n; ++i) p[i] = a[i];
          Ops::storeu(out, Ops::load_partial(p, n));
          for (int i = 0; i < L; ++i) {
            expect_lane<T>(out[i], i < n ? a[i] : 0, "load_partial at guard", n);
          }
          for (int i = 0; i < n; ++i) p[i] = 0;
          Ops::store_partial(p, Ops::loadu(a + 1), n);
          for (int i = 0; i < n; ++i) expect_lane<T>(p[i], a[1 + i], "store_partial at guard", n);
        }
      }
      // Arithmetic, wrapping, against the U model.
      for (int round = 0; round < (kWide ? 600 : 300); ++round) {
        for (int i = 0; i < L; ++i) {
          const uint64_t r = next();
          a[i] = (r & 1) ? special_lane<T>(r >> 3) : random_lane<T>();
          b[i] = (r & 2) ? special_lane<T>(r >> 9) : random_lane<T>();
          c[i] = (r & 4) ? special_lane<T>(r >> 15) : random_lane<T>();
          shape_operands<T>(round, r, a[i], b[i]);
        }
        const auto va = Ops::loadu(a), vb = Ops::loadu(b), vc = Ops::loadu(c);
        Ops::storeu(out, Ops::add(va, vb));
        for (int i = 0; i < L; ++i) expect_lane<T>(out[i], wrap_add(a[i], b[i]), "add", i);
        Ops::storeu(out, Ops::mul(va, vb));
        for (int i = 0; i < L; ++i) expect_lane<T>(out[i], wrap_mul(a[i], b[i]), "mul", i);
        Ops::storeu(out, Ops::mul_add(va, vb, vc));
        for (int i = 0; i < L; ++i) {
          expect_lane<T>(out[i], wrap_add(wrap_mul(a[i], b[i]), c[i]), "mul_add", i);
        }
        Ops::storeu(out, Ops::fnma(va, vb, vc));
        for (int i = 0; i < L; ++i) {
          expect_lane<T>(out[i], wrap_sub(c[i], wrap_mul(a[i], b[i])), "fnma", i);
        }
        Ops::storeu(out, Ops::max(va, vb));
        for (int i = 0; i < L; ++i) expect_lane<T>(out[i], a[i] > b[i] ? a[i] : b[i], "max", i);
        Ops::storeu(out, Ops::min(va, vb));
        for (int i = 0; i < L; ++i) expect_lane<T>(out[i], a[i] < b[i] ? a[i] : b[i], "min", i);
        T sum = 0;
        for (int i = 0; i < L; ++i) sum = wrap_add(sum, a[i]);
        expect_lane<T>(Ops::reduce_sum(va), sum, "reduce_sum", round);
      }
      // Known wrap-arounds, independent of the wrap_* helpers (MAX, MIN:
      // INT32_ or INT64_; h = 16 or 32, half the lane width).
      expect_lane<T>(Ops::reduce_sum(Ops::splat(kMax)), T(U(L) * U(kMax)),
                     "reduce_sum of MAX lanes", L);
      expect_lane<T>(Ops::reduce_sum(Ops::splat(kMin)), L % 2 == 0 ? T(0) : kMin,
                     "reduce_sum of MIN lanes", L);
      Ops::storeu(out, Ops::add(Ops::splat(kMax), Ops::splat(1)));
      expect_lane<T>(out[0], kMin, "MAX + 1", 0);
      Ops::storeu(out, Ops::add(Ops::splat(kMin), Ops::splat(-1)));
      expect_lane<T>(out[L - 1], kMax, "MIN - 1", L - 1);
      Ops::storeu(out, Ops::mul(Ops::splat(kHalfBit), Ops::splat(kHalfBit)));
      expect_lane<T>(out[L - 1], 0, "2^h * 2^h", L - 1);
      Ops::storeu(out, Ops::mul(Ops::splat(kLowOnes), Ops::splat(kLowOnes)));
      expect_lane<T>(out[0], T(U(kWide ? 0xfffffffe00000001ull : 0xfffe0001ull)), "(2^h - 1)^2", 0);
      Ops::storeu(out, Ops::mul(Ops::splat(kMax), Ops::splat(kMax)));
      expect_lane<T>(out[0], 1, "MAX * MAX", 0);
      Ops::storeu(out, Ops::mul(Ops::splat(kMin), Ops::splat(kMin)));
      expect_lane<T>(out[L - 1], 0, "MIN * MIN", L - 1);
      Ops::storeu(out, Ops::mul(Ops::splat(-1), Ops::splat(-1)));
      expect_lane<T>(out[0], 1, "-1 * -1", 0);
      Ops::storeu(out, Ops::mul_add(Ops::splat(kMin), Ops::splat(-1), Ops::splat(0)));
      expect_lane<T>(out[0], kMin, "MIN * -1", 0);
      Ops::storeu(out, Ops::fnma(Ops::splat(kMax), Ops::splat(-1), Ops::splat(1)));
      expect_lane<T>(out[L - 1], kMin, "1 - MAX * -1", L - 1);
      Ops::storeu(out, Ops::max(Ops::splat(kMin), Ops::splat(kMax)));
      expect_lane<T>(out[0], kMax, "max(MIN, MAX)", 0);
      Ops::storeu(out, Ops::min(Ops::splat(-1), Ops::splat(kLowOnes)));
      expect_lane<T>(out[0], -1, "min(-1, 2^h - 1)", 0);
    }
  }

  // ------------------------------------------------------------------
  // f16 / bf16 seams
  // ------------------------------------------------------------------

  // Narrow type N for its 16 bits, and the scalar reference conversions.
  template <class N>
  static N make(uint32_t b) {
    return N{uint16_t(b)};
  }
  template <class N>
  static uint32_t widened_bits(N h) {
    return bits(scalar::to_float(h));
  }
  template <class N>
  static uint32_t narrowed_bits(uint32_t f) {
    return scalar::narrow<N>(scalar::float_from_bits(f)).bits;
  }

  // Checks store_out on kLanes f32 bit patterns: output equals the scalar
  // narrowing, and exactly kLanes elements are written.
  template <class N, class KS>
  void check_narrow_chunk(const uint32_t* pat, const char* what) {
    constexpr int L = KS::kLanes;
    float in[L];
    N out[L + 2];
    for (int i = 0; i < L; ++i) in[i] = scalar::float_from_bits(pat[i]);
    out[0] = make<N>(0xA5A5);
    out[L + 1] = make<N>(0x5A5A);
    KS::store_out(out + 1, F32Ops::loadu(in));
    for (int i = 0; i < L; ++i) {
      const uint32_t want = narrowed_bits<N>(pat[i]);
      ++checks;
      if (out[1 + i].bits != want) fail(what, long(pat[i]), out[1 + i].bits, want);
    }
    expect_eq(out[0].bits, 0xA5A5, "store_out before p", 0);
    expect_eq(out[L + 1].bits, 0x5A5A, "store_out past kLanes", L);
  }

  // Feeds patterns to check_narrow_chunk kLanes at a time.
  template <class N, class KS>
  struct NarrowFeeder {
    KernelSimdConformance* self;
    const char* what;
    uint32_t buf[KS::kLanes] = {};
    int fill = 0;
    void push(uint32_t p) {
      buf[fill++] = p;
      if (fill == KS::kLanes) {
        self->template check_narrow_chunk<N, KS>(buf, what);
        fill = 0;
      }
    }
    // (A one-lane token never holds a partial chunk.)
    void flush() {
      if constexpr (KS::kLanes > 1) {
        if (fill == 0) return;
        for (int i = fill; i < KS::kLanes; ++i) buf[i] = 0;
        self->template check_narrow_chunk<N, KS>(buf, what);
        fill = 0;
      }
    }
  };

  template <class N>
  void narrow_seam(const char* name) {
    using KS = simd::KernelSimd<Token, N, N, float, N>;
    constexpr int L = KS::kLanes;
    // (Reg is checked by use: f32_lanes() stores it through SimdOps<Token,
    // float>, and vector types of other element types do not convert.)
    static_assert(L == F32Ops::kLanes, "one f32 register");
    expect(!KS::kRequantVector, "narrow seam claims kRequantVector", 0, 1, 0);
    char what[64];

    // Widening: every bit pattern, through load_lhs, load_out and splat_rhs.
    N src[L + 1];
    float out[L];
    for (uint32_t base = 0; base < 65536; base += L) {
      for (int i = 0; i < L; ++i) src[1 + i] = make<N>(base + i);
      f32_lanes(KS::load_lhs(src + 1), out);
      snprintf(what, sizeof what, "%s load_lhs widening", name);
      for (int i = 0; i < L; ++i) {
        ++checks;
        if (bits(out[i]) != widened_bits(src[1 + i])) {
          fail(what, long(src[1 + i].bits), bits(out[i]), widened_bits(src[1 + i]));
        }
      }
      f32_lanes(KS::load_out(src + 1), out);
      snprintf(what, sizeof what, "%s load_out widening", name);
      for (int i = 0; i < L; ++i) {
        ++checks;
        if (bits(out[i]) != widened_bits(src[1 + i])) {
          fail(what, long(src[1 + i].bits), bits(out[i]), widened_bits(src[1 + i]));
        }
      }
    }
    snprintf(what, sizeof what, "%s splat_rhs widening", name);
    for (uint32_t h = 0; h < 65536; ++h) {
      f32_lanes(KS::splat_rhs(make<N>(h)), out);
      const uint32_t want = widened_bits(make<N>(h));
      for (int i = 0; i < L; ++i) {
        ++checks;
        if (bits(out[i]) != want) fail(what, long(h), bits(out[i]), want);
      }
    }

    // Narrowing.
    snprintf(what, sizeof what, "%s store_out narrowing", name);
    NarrowFeeder<N, KS> feed{this, what};
    static const uint32_t kEdges[] = {
        0x00000000u, 0x80000000u,                          // +-0
        0x7f800000u, 0xff800000u,                          // +-inf
        0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,  // NaNs: quiet, signaling
        0x7fbfffffu, 0xffbfffffu, 0x7fffffffu, 0xffffffffu, 0x7fa00000u, 0xff802000u,
        0x7f80ffffu, 0x7fc0a5a5u, 0xffc12345u, 0x7f810000u, 0x7f808000u, 0xff807fffu,
        0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,  // f32 subnormals
        0x00800000u, 0x80800000u,                          // f32 min normal
        0x7f7fffffu, 0xff7fffffu, 0x7f7f8000u, 0x7f7f7fffu, 0xff7f8000u,  // max finite, bf16 ties
        0x3f808000u, 0x3f818000u, 0xbf808000u, 0xbf818000u,  // bf16 ties to even, both ways
        0x3f800001u, 0x3f807fffu, 0x3f808001u,
        0x477fe000u, 0xc77fe000u,  // 65504, f16 max finite
        0x477fefffu, 0x477ff000u, 0xc77ff000u, 0x477ff001u, 0x47800000u,  // f16 overflow edge
        0x38800000u, 0x387fffffu, 0xb8800000u, 0x387ff000u, 0x387fe000u,  // f16 min normal edge
        0x33800000u, 0x33000000u, 0x33000001u, 0x32ffffffu, 0xb3000000u,  // 2^-24, 2^-25 ties
        0x33c00000u, 0x34200000u, 0x34400000u,  // 1.5, 2.5, 3 x 2^-24: subnormal ties
        0x3f800000u, 0xbf800000u, 0x40490fdbu, 0x3eaaaaabu};
    for (uint32_t e : kEdges) feed.push(e);
    // Neighbours and exact midpoints of every narrow value (both signs,
    // every exponent): the ties, and one f32 ulp either side of them.
    for (uint32_t h = 0; h < 65536; ++h) {
      const uint32_t fb = widened_bits(make<N>(h));
      if ((fb & 0x7fffffffu) > 0x7f800000u) {
        // A NaN: its widened pattern, more payload bits, the other quietness.
        feed.push(fb);
        feed.push(fb | 0x1fffu);
        feed.push(fb ^ 0x00400000u);
        continue;
      }
      feed.push(fb);
      feed.push(fb + 1);
      feed.push(fb - 1);
      // The exact midpoint to the next value of larger magnitude (same
      // sign; skipped when that is inf: the overflow edges are in kEdges),
      // and one f32 ulp either side of it.  a + (b - a) / 2 is exact: b - a
      // is one narrow ulp, and the midpoint needs one more bit than N has.
      if ((h & 0x7fffu) == 0x7fffu || (fb & 0x7fffffffu) == 0x7f800000u) continue;
      const uint32_t bb = widened_bits(make<N>(h + 1));
      if ((bb & 0x7fffffffu) >= 0x7f800000u) continue;
      const float a = scalar::float_from_bits(fb), b = scalar::float_from_bits(bb);
      const uint32_t mid = bits(a + (b - a) * 0.5f);
      feed.push(mid);
      feed.push(mid - 1);
      feed.push(mid + 1);
    }
    // Pseudo-random patterns (all classes, NaNs included).
    for (int i = 0; i < (1 << 21); ++i) feed.push(uint32_t(next()) ^ uint32_t(next() << 15));
    feed.flush();

    // Partials: lanes >= n read as 0 / are not written; nothing past n is
    // touched (sentinels, then a guard).
    N psrc[L + 2], pdst[L + 2];
    uint32_t pat[L];
    for (int i = 0; i < L; ++i) pat[i] = uint32_t(next());
    float pin[L];
    for (int i = 0; i < L; ++i) pin[i] = scalar::float_from_bits(pat[i]);
    const auto v = F32Ops::loadu(pin);
    for (int n = 0; n <= L; ++n) {
      for (int i = 0; i < L + 2; ++i) psrc[i] = make<N>(i < n ? 0x3c00u + 3 * i : 0x7e55u);
      f32_lanes(KS::load_out_partial(psrc, n), out);
      for (int i = 0; i < L; ++i) {
        expect_eq(bits(out[i]), i < n ? widened_bits(psrc[i]) : 0u, "load_out_partial", n * 100 + i);
      }
      for (int i = 0; i < L + 2; ++i) pdst[i] = make<N>(0xA5A5);
      KS::store_out_partial(pdst + 1, v, n);
      for (int i = 0; i < L + 2; ++i) {
        const int lane = i - 1;
        const bool written = lane >= 0 && lane < n;
        expect_eq(pdst[i].bits, written ? narrowed_bits<N>(pat[lane]) : 0xA5A5u,
                  written ? "store_out_partial" : "store_out_partial past n", n * 100 + lane);
      }
    }
    GuardEnd<Token> guard;
    if (!guard.ok()) {
      fail("could not map a guard page", 0, 0, 1);
    } else {
      for (int n = 0; n <= L; ++n) {
        N* p = reinterpret_cast<N*>(guard.end()) - n;
        for (int i = 0; i < n; ++i) p[i] = make<N>(0x4000u + uint32_t(i));
        f32_lanes(KS::load_out_partial(p, n), out);
        for (int i = 0; i < L; ++i) {
          expect_eq(bits(out[i]), i < n ? widened_bits(make<N>(0x4000u + uint32_t(i))) : 0u,
                    "load_out_partial at guard", n);
        }
        KS::store_out_partial(p, v, n);
        for (int i = 0; i < n; ++i) {
          expect_eq(p[i].bits, narrowed_bits<N>(pat[i]), "store_out_partial at guard", n);
        }
      }
      // The full-width forms touch exactly kLanes elements, too.
      N* p = reinterpret_cast<N*>(guard.end()) - L;
      for (int i = 0; i < L; ++i) p[i] = make<N>(0xc000u + uint32_t(i));
      f32_lanes(KS::load_lhs(p), out);
      for (int i = 0; i < L; ++i) {
        expect_eq(bits(out[i]), widened_bits(make<N>(0xc000u + uint32_t(i))), "load_lhs at guard", i);
      }
      f32_lanes(KS::load_out(p), out);
      for (int i = 0; i < L; ++i) {
        expect_eq(bits(out[i]), widened_bits(make<N>(0xc000u + uint32_t(i))), "load_out at guard", i);
      }
      KS::store_out(p, v);
      for (int i = 0; i < L; ++i) {
        expect_eq(p[i].bits, narrowed_bits<N>(pat[i]), "store_out at guard", i);
      }
    }
  }

  template <class N>
  void f32_twin(const char* name) {
    using KS = simd::KernelSimd<Token, N, N, float, float>;
    using Narrow = simd::KernelSimd<Token, N, N, float, N>;
    constexpr int L = KS::kLanes;
    expect(!KS::kRequantVector, "f32 twin claims kRequantVector", 0, 1, 0);
    char what[64];
    snprintf(what, sizeof what, "%s twin load_lhs/splat_rhs", name);
    N src[L];
    float got[L], want[L], in[L + 2], out[L + 2];
    for (int round = 0; round < 4096; ++round) {
      for (int i = 0; i < L; ++i) src[i] = make<N>(uint32_t(next()));
      f32_lanes(KS::load_lhs(src), got);
      f32_lanes(Narrow::load_lhs(src), want);
      for (int i = 0; i < L; ++i) expect_eq(bits(got[i]), bits(want[i]), what, round);
      f32_lanes(KS::splat_rhs(src[0]), got);
      f32_lanes(Narrow::splat_rhs(src[0]), want);
      for (int i = 0; i < L; ++i) expect_eq(bits(got[i]), bits(want[i]), what, round);
    }
    // C is plain f32: load_out/store_out move bits unchanged.
    for (int i = 0; i < L + 2; ++i) in[i] = scalar::float_from_bits(uint32_t(next()));
    for (int i = 0; i < L + 2; ++i) out[i] = scalar::float_from_bits(0xA5A5A5A5u);
    KS::store_out(out + 1, KS::load_out(in + 1));
    for (int i = 0; i < L + 2; ++i) {
      const bool inside = i >= 1 && i <= L;
      expect_eq(bits(out[i]), inside ? bits(in[i]) : 0xA5A5A5A5u, "twin load_out/store_out", i);
    }
    for (int n = 0; n <= L; ++n) {
      f32_lanes(KS::load_out_partial(in, n), got);
      for (int i = 0; i < L; ++i) {
        expect_eq(bits(got[i]), i < n ? bits(in[i]) : 0u, "twin load_out_partial", n);
      }
      for (int i = 0; i < L + 2; ++i) out[i] = scalar::float_from_bits(0xA5A5A5A5u);
      KS::store_out_partial(out + 1, KS::load_out(in), n);
      for (int i = 0; i < L + 2; ++i) {
        const bool written = i >= 1 && i <= n;
        expect_eq(bits(out[i]), written ? bits(in[i - 1]) : 0xA5A5A5A5u,
                  "twin store_out_partial", n);
      }
    }
  }

  // ------------------------------------------------------------------
  // int8 seam and requant_store
  // ------------------------------------------------------------------

  template <class KS>
  void check_requant_chunk(const int32_t* v, float scale, int32_t zp, const Range& r,
                           const char* what) {
    constexpr int L = KS::kLanes;
    uint8_t dst[L + 2];
    dst[0] = 0xA5;
    dst[L + 1] = 0x5A;
    KS::requant_store(dst + 1, I32Ops::loadu(v), scale, zp, r.lo, r.hi);
    for (int i = 0; i < L; ++i) {
      const uint8_t want = uint8_t(uint32_t(scalar::requantize(v[i], scale, zp, r.lo, r.hi)));
      ++checks;
      if (dst[1 + i] != want) {
        fail(what, long(v[i]), dst[1 + i], want);
        if (failures <= 20) {
          printf("    (scale %a, zp %d, lo %d, hi %d)\n", double(scale), zp, r.lo, r.hi);
        }
      }
    }
    expect_eq(dst[0], 0xA5, "requant_store before dst", 0);
    expect_eq(dst[L + 1], 0x5A, "requant_store past kLanes", L);
  }

  template <class KS>
  struct RequantFeeder {
    KernelSimdConformance* self;
    const char* what;
    float scale;
    int32_t zp;
    Range range;
    int32_t buf[KS::kLanes] = {};
    int fill = 0;
    void push(int32_t v) {
      buf[fill++] = v;
      if (fill == KS::kLanes) {
        self->template check_requant_chunk<KS>(buf, scale, zp, range, what);
        fill = 0;
      }
    }
    // (A one-lane token never holds a partial chunk.)
    void flush() {
      if constexpr (KS::kLanes > 1) {
        if (fill == 0) return;
        for (int i = fill; i < KS::kLanes; ++i) buf[i] = 0;
        self->template check_requant_chunk<KS>(buf, scale, zp, range, what);
        fill = 0;
      }
    }
  };

  template <class KS>
  void requant_cases(const char* what) {
    for (const Range& r : kRanges) {
      for (int zi = 0; zi < kNumZp; ++zi) {
        const int32_t zp = zero_point(r, zi);
        for (float scale : kScales) {
          RequantFeeder<KS> feed{this, what, scale, zp, r};
          for (int32_t v : kValues) feed.push(v);
          feed.flush();
        }
      }
      // Exact ties v * 2^-m = k + 1/2, both signs, around the clamp bounds
      // too (126.5, 127.5, -128.5, 255.5, ...).
      for (int m = 1; m <= 30; m += 1) {
        RequantFeeder<KS> feed{this, what, __builtin_ldexpf(1.0f, -m), 0, r};
        for (int32_t k = -300; k <= 300; ++k) {
          const int64_t v = (2 * int64_t(k) + 1) << (m - 1);
          if (v >= INT32_MIN && v <= INT32_MAX) feed.push(int32_t(v));
        }
        feed.flush();
      }
      // Random accumulators, random scales.
      for (int round = 0; round < 4000; ++round) {
        RequantFeeder<KS> feed{this, what, random_scale(), zero_point(r, int(next() % kNumZp)), r};
        for (int i = 0; i < 16; ++i) {
          const uint64_t x = next();
          feed.push((x & 3) == 0 ? int32_t(int16_t(x >> 8)) : int32_t(uint32_t(x >> 2)));
        }
        feed.flush();
      }
    }
  }

  void int8_seam(bool want_requant_vector) {
    using KS = simd::KernelSimd<Token, int8_t, int8_t, int32_t, int32_t>;
    using KS8 = simd::KernelSimd<Token, int8_t, int8_t, int32_t, int8_t>;
    using KSU8 = simd::KernelSimd<Token, int8_t, int8_t, int32_t, uint8_t>;
    constexpr int L = KS::kLanes;
    static_assert(L == I32Ops::kLanes, "one i32 register");
    expect_eq(KS::kRequantVector, want_requant_vector, "kRequantVector", 0);
    expect_eq(KS8::kRequantVector, KS::kRequantVector, "i8-output kRequantVector", 0);
    expect_eq(KSU8::kRequantVector, KS::kRequantVector, "u8-output kRequantVector", 0);

    int8_t src[L + 1];
    int32_t out[L + 2], in[L + 2];
    for (int base = 0; base < 256; base += L) {
      for (int i = 0; i < L; ++i) src[1 + i] = int8_t(uint8_t(base + i));
      I32Ops::storeu(out, KS::load_lhs(src + 1));
      for (int i = 0; i < L; ++i) expect_eq(u32(out[i]), u32(src[1 + i]), "i8 load_lhs", base + i);
      I32Ops::storeu(out, KS8::load_lhs(src + 1));
      for (int i = 0; i < L; ++i) expect_eq(u32(out[i]), u32(src[1 + i]), "i8-out load_lhs", base + i);
    }
    for (int b = 0; b < 256; ++b) {
      const int8_t v = int8_t(uint8_t(b));
      I32Ops::storeu(out, KS::splat_rhs(v));
      for (int i = 0; i < L; ++i) expect_eq(u32(out[i]), u32(v), "i8 splat_rhs", b);
      I32Ops::storeu(out, KSU8::splat_rhs(v));
      for (int i = 0; i < L; ++i) expect_eq(u32(out[i]), u32(v), "u8-out splat_rhs", b);
    }
    // int32 C: plain load/store, partials.
    for (int i = 0; i < L + 2; ++i) in[i] = int32_t(uint32_t(next()));
    for (int i = 0; i < L + 2; ++i) out[i] = int32_t(0xA5A5A5A5u);
    KS::store_out(out + 1, KS::load_out(in + 1));
    for (int i = 0; i < L + 2; ++i) {
      const bool inside = i >= 1 && i <= L;
      expect_eq(u32(out[i]), inside ? u32(in[i]) : 0xA5A5A5A5u, "i32 load_out/store_out", i);
    }
    for (int n = 0; n <= L; ++n) {
      I32Ops::storeu(out, KS::load_out_partial(in, n));
      for (int i = 0; i < L; ++i) expect_eq(u32(out[i]), i < n ? u32(in[i]) : 0u, "i32 load_out_partial", n);
      for (int i = 0; i < L + 2; ++i) out[i] = int32_t(0xA5A5A5A5u);
      KS::store_out_partial(out + 1, KS::load_out(in), n);
      for (int i = 0; i < L + 2; ++i) {
        const bool written = i >= 1 && i <= n;
        expect_eq(u32(out[i]), written ? u32(in[i - 1]) : 0xA5A5A5A5u, "i32 store_out_partial", n);
      }
    }

    // requant_store against scalar::requantize, through the i32 seam and
    // both forwarders.
    requant_cases<KS>("requant_store");
    requant_cases<KS8>("i8-output requant_store");
    requant_cases<KSU8>("u8-output requant_store");

    // requant_store_partial: [0, n) only, sentinels then a guard.
    int32_t acc[L];
    for (int i = 0; i < L; ++i) acc[i] = int32_t(uint32_t(next())) >> (i % 24);
    const auto v = I32Ops::loadu(acc);
    const float scale = 0x1p-20f;
    uint8_t bytes[L + 2];
    for (const Range& r : kRanges) {
      for (int n = 0; n <= L; ++n) {
        for (int i = 0; i < L + 2; ++i) bytes[i] = 0xA5;
        KS::requant_store_partial(bytes + 1, v, scale, r.lo + 3, r.lo, r.hi, n);
        for (int i = 0; i < L + 2; ++i) {
          const int lane = i - 1;
          const bool written = lane >= 0 && lane < n;
          const unsigned want =
              written ? uint8_t(uint32_t(scalar::requantize(acc[lane], scale, r.lo + 3, r.lo, r.hi)))
                      : 0xA5u;
          expect_eq(bytes[i], want, written ? "requant_store_partial" : "requant_store_partial past n",
                    n * 100 + lane);
        }
        for (int i = 0; i < L + 2; ++i) bytes[i] = 0xA5;
        KSU8::requant_store_partial(bytes + 1, v, scale, r.lo + 3, r.lo, r.hi, n);
        for (int i = 0; i < L + 2; ++i) {
          const int lane = i - 1;
          const bool written = lane >= 0 && lane < n;
          const unsigned want =
              written ? uint8_t(uint32_t(scalar::requantize(acc[lane], scale, r.lo + 3, r.lo, r.hi)))
                      : 0xA5u;
          expect_eq(bytes[i], want, "u8-output requant_store_partial", n * 100 + lane);
        }
      }
    }
    GuardEnd<Token> guard;
    if (!guard.ok()) {
      fail("could not map a guard page", 0, 0, 1);
    } else {
      for (int n = 0; n <= L; ++n) {
        uint8_t* p = guard.end() - n;
        KS::requant_store_partial(p, v, scale, 0, -128, 127, n);
        for (int i = 0; i < n; ++i) {
          expect_eq(p[i], uint8_t(uint32_t(scalar::requantize(acc[i], scale, 0, -128, 127))),
                    "requant_store_partial at guard", n);
        }
        int32_t* q = reinterpret_cast<int32_t*>(guard.end()) - n;
        for (int i = 0; i < n; ++i) q[i] = acc[i];
        I32Ops::storeu(out, KS::load_out_partial(q, n));
        for (int i = 0; i < L; ++i) {
          expect_eq(u32(out[i]), i < n ? u32(acc[i]) : 0u, "i32 load_out_partial at guard", n);
        }
        KS::store_out_partial(q, I32Ops::splat(7), n);
        for (int i = 0; i < n; ++i) expect_eq(u32(q[i]), 7u, "i32 store_out_partial at guard", n);
      }
      // The full-width forms touch exactly kLanes elements, too.
      int8_t* b = reinterpret_cast<int8_t*>(guard.end()) - L;
      for (int i = 0; i < L; ++i) b[i] = int8_t(-3 * i - 1);
      I32Ops::storeu(out, KS::load_lhs(b));
      for (int i = 0; i < L; ++i) expect_eq(u32(out[i]), u32(-3 * i - 1), "i8 load_lhs at guard", i);
      uint8_t* d = guard.end() - L;
      KS::requant_store(d, v, scale, 0, -128, 127);
      for (int i = 0; i < L; ++i) {
        expect_eq(d[i], uint8_t(uint32_t(scalar::requantize(acc[i], scale, 0, -128, 127))),
                  "requant_store at guard", i);
      }
    }
  }

  // ------------------------------------------------------------------
  // The integer model of the requant map (for run_requant_reference)
  // ------------------------------------------------------------------

  // clamp(zp + round_half_even(fl64(v * scale)), lo, hi), with fl64 the
  // IEEE double product (one rounding to 53 bits), computed in integers:
  // scale = M * 2^E exactly (M < 2^24), so v * scale = P * 2^E with
  // |P| < 2^55; no double can be subnormal or overflow here (2^-173 <=
  // |product| < 2^160), so fl64 only rounds P to 53 significant bits.
  static int32_t model_requantize(int32_t v, float scale, int32_t zp, int32_t lo, int32_t hi) {
    int e2 = 0;
    const float m = __builtin_frexpf(scale, &e2);  // scale = m * 2^e2, m in [0.5, 1)
    const uint64_t M = uint64_t(__builtin_ldexpf(m, 24));  // exact: 24-bit mantissa
    int E = e2 - 24;
    const bool neg = v < 0;
    uint64_t P = uint64_t(neg ? -int64_t(v) : int64_t(v)) * M;  // < 2^55
    // Round P to 53 significant bits, ties to even.
    int len = 0;
    for (uint64_t t = P; t != 0; t >>= 1) ++len;
    if (len > 53) {
      const int s = len - 53;
      const uint64_t rem = P & ((uint64_t(1) << s) - 1), half = uint64_t(1) << (s - 1);
      P >>= s;
      E += s;
      if (rem > half || (rem == half && (P & 1))) ++P;  // a carry to 2^53 is still exact
    }
    // Round P * 2^E to an integer, ties to even; saturate at 2^40 (far
    // outside any [lo, hi] once zp is added).
    len = 0;
    for (uint64_t t = P; t != 0; t >>= 1) ++len;
    int64_t t;
    if (P == 0) {
      t = 0;
    } else if (E >= 0) {
      t = len + E > 40 ? (int64_t(1) << 40) : int64_t(P << E);
    } else if (-E >= 64) {
      t = 0;  // P < 2^55, so the product is below 2^-9
    } else {
      const int s = -E;
      const uint64_t q = P >> s, rem = P & ((uint64_t(1) << s) - 1),
                     half = uint64_t(1) << (s - 1);
      t = int64_t(q + ((rem > half || (rem == half && (q & 1))) ? 1 : 0));
      if (t > (int64_t(1) << 40)) t = int64_t(1) << 40;
    }
    if (neg) t = -t;
    int64_t s = t + zp;
    if (s < lo) s = lo;
    if (s > hi) s = hi;
    return int32_t(s);
  }

  void check_reference(int32_t v, float scale, int32_t zp, const Range& r) {
    const int32_t got = scalar::requantize(v, scale, zp, r.lo, r.hi);
    const int32_t want = model_requantize(v, scale, zp, r.lo, r.hi);
    ++checks;
    if (got != want) {
      fail("scalar::requantize vs model", long(v), u32(got), u32(want));
      if (failures <= 20) {
        printf("    (scale %a, zp %d, lo %d, hi %d)\n", double(scale), zp, r.lo, r.hi);
      }
    }
  }
};

/// Runs the mixed-precision/int8 checks for Token; prints a summary line;
/// returns the number of failures.
template <class Token>
int run_kernel_simd_conformance(bool want_requant_vector) {
  KernelSimdConformance<Token> suite;
  return suite.run(want_requant_vector);
}

/// scalar::requantize against the integer model (instantiated by the
/// scalar unit: the map is the same code on every token).
template <class Token>
int run_requant_reference_conformance() {
  KernelSimdConformance<Token> suite;
  return suite.run_requant_reference();
}

}  // namespace gemmkit::conformance
