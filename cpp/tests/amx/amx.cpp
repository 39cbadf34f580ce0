// AMX kernel test, amx unit: AmxBf16Family (tdpbf16ps), AmxF16SplitFamily
// (float16 as bfloat16 parts, tdpbf16ps) and AmxInt8Family (tdpbssd) pack
// exactly and accumulate within their contracts.  Compiled
// with the amx flags; run by cpp/tests/amx_kernel_test.cpp only on CPUs with
// AMX-TILE/BF16/INT8 and after the kernel granted the tile state.
//
// For random shapes (every panel width, depths around the chunk sizes 32
// and 64 and long ones, all three source layouts, negative strides) it
// checks:
//   1. the packed elements against the documented layout (kernel/amx.hpp),
//      zero padding included, and that nothing outside the panel is written;
//      sources end at a guard page, so over-reads fault;
//   2. int8: acc after accumulate equals the exact int64 sum reduced modulo
//      2^32 and the widening kernel's wrapping int32 sum, from seeds near
//      INT32_MIN / INT32_MAX, with -128 / 127 everywhere, and a depth whose
//      true sums pass 2^31;
//   3. bf16: acc against a float64 reference of the same inputs within
//      (kc + 2) 2^-24 (|seed| + sum |a b|) (the products are exact and reach
//      the f32 accumulator with at most one rounding each), and small
//      integers exactly (no partial sum rounds);
//   4. padding rows and columns leave the seed untouched, bit for bit;
//   5. the microkernel (Microkernel<Family>::run: zero or seeded init, the
//      AMX depth loop, the f32 / i32 store) on edge tiles, and
//      accumulate_into (C = AB or C += AB on a tile of C in memory), C
//      canaries intact; B's columns read in place give the packed B's bits;
//      pack_a_rows writes pack_a's bytes for a whole block;
//   f16 split: the packed parts are the nearest bfloat16 and an exact rest
//      (every float16 bit pattern, once), acc within the family's bound;
//   6. the tile configuration: correct results after tilerelease, after a
//      different configuration was loaded, and on a fresh thread; and ours
//      reads back unchanged, so accumulate does not reload it every time.
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/amx.hpp"
#include "kernel/microkernel.hpp"
#include "../dot/dot_test-inl.hpp"

namespace gemmkit::isa_amx {

namespace {

using dot_test::Panel;
using dot_test::Rng;
using dot_test::Source;
using Tok = Amx;

int g_reported = 0;
constexpr int kMaxReports = 12;

// One microtile, accumulators loaded from and stored to io[j * kMr + i].
template <class F>
__attribute__((noinline)) void run_tile(index_t kc, const typename F::PA* a,
                                        const typename F::PB* b, typename F::A* io) {
  typename F::Reg acc[F::kNr][F::kMrReg];
  for (int j = 0; j < F::kNr; ++j)
    for (int r = 0; r < F::kMrReg; ++r) acc[j][r] = F::Ops::loadu(io + j * F::kMr + r * 16);
  F::accumulate(kc, a, b, acc);
  for (int j = 0; j < F::kNr; ++j)
    for (int r = 0; r < F::kMrReg; ++r) F::Ops::storeu(io + j * F::kMr + r * 16, acc[j][r]);
}

float bf16_to_float(uint16_t bits) {
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

bool same_bits(float x, float y) { return memcmp(&x, &y, 4) == 0; }

// ---------------------------------------------------------------------------
// Element traits: values, seeds, references and the packed layouts.

// Whether a float accumulator is within rel * (|seed| + sum |a b|) of the
// float64 sum of the seed and the products of row i of av and row j of bv
// (kc values each, read through to_float); else false and a message.
bool float_acc_ok(float (*to_float)(uint16_t), const uint16_t* av, const uint16_t* bv, index_t i,
                  index_t j, index_t kc, float s, float got, double rel, char* msg, size_t len) {
  double ref = s, mag = s < 0 ? -double(s) : double(s);
  for (index_t p = 0; p < kc; ++p) {
    const double prod = double(to_float(av[i * kc + p])) * double(to_float(bv[j * kc + p]));
    ref += prod;
    mag += prod < 0 ? -prod : prod;
  }
  const double tol = rel * mag;
  const double err = double(got) - ref;
  if (err <= tol && -err <= tol) return true;
  snprintf(msg, len, "acc(%ld,%ld) = %.9g, want %.9g (error %.3g > tol %.3g)", long(i), long(j),
           double(got), ref, err < 0 ? -err : err, tol);
  return false;
}

struct Bf16Traits {
  using E = uint16_t;    // stored bit pattern
  using Acc = float;
  static constexpr int kGroup = 2;   // depth values per A-panel group
  static constexpr int kChunk = 32;  // depth values per chunk
  static constexpr int kModes = 3;
  static constexpr int kSeedModes = 1;

  // Value modes: 0 random normal bf16 with magnitude in [2^-4, 2^3), 1 small
  // integers in [-8, 8] (exact), 2 like 0 with zeros mixed in.
  static E value(Rng& rng, int mode) {
    if (mode == 1) {
      const float f = float(rng.range(-8, 8));
      uint32_t u;
      memcpy(&u, &f, 4);
      return uint16_t(u >> 16);
    }
    if (mode == 2 && rng.range(0, 3) == 0) return 0;
    const uint32_t sign = uint32_t(rng.range(0, 1)) << 15;
    const uint32_t exp = uint32_t(127 + rng.range(-4, 2)) << 7;
    return uint16_t(sign | exp | uint32_t(rng.range(0, 127)));
  }
  // Integer seeds in [-1024, 1024] for integer values (never -0), else
  // random ones in +-[1, 64).
  static Acc seed(Rng& rng, int mode, int /*seed_mode*/) {
    return mode == 1 ? float(rng.range(-1024, 1024))
                     : float(rng.range(-63, 63)) + float(rng.range(1, 255)) / 256.0f;
  }

  // true when got is acceptable for the real element (i, j); else false and
  // a message.
  static bool check(const E* av, const E* bv, index_t i, index_t j, index_t kc, Acc s, Acc got,
                    int mode, char* msg, size_t len) {
    return float_acc_ok(bf16_to_float, av, bv, i, j, kc, s, got,
                        mode == 1 ? 0.0 : double(kc + 2) * 0x1p-24, msg, len);
  }
  static bool same(Acc x, Acc y) { return same_bits(x, y); }
};

float f16_to_float(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const float v = e == 0 ? ldexpf(float(m), -24)
                  : e == 31 ? (m ? NAN : INFINITY)
                            : ldexpf(float(m + 1024), e - 25);
  return (h & 0x8000) ? -v : v;
}

// A small integer (|v| < 2^11) as float16.
uint16_t int_to_f16(int v) {
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned mag = unsigned(v < 0 ? -v : v), e = 0;
  while ((mag >> e) > 1) ++e;
  return uint16_t(sign | ((e + 15) << 10) | ((mag << (10 - e)) & 1023));
}

// bfloat16 nearest to a finite float, ties to even.
uint16_t bf16_nearest(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

// A float16 x and its packed parts (AmxF16SplitFamily): high is x to the
// nearest bfloat16, high + low == x exactly; infinities and NaN keep their
// class in high with low +0.
bool split_ok(uint16_t x, uint16_t high, uint16_t low) {
  const float f = f16_to_float(x);
  if (isnan(f)) return isnan(bf16_to_float(high)) && low == 0;
  if (isinf(f)) return same_bits(bf16_to_float(high), f) && low == 0;
  return high == bf16_nearest(f) &&
         double(bf16_to_float(high)) + double(bf16_to_float(low)) == double(f);
}

// float16 split into bfloat16 parts (AmxF16SplitFamily): the packed panels
// hold the parts (split_ok); acc within the family's bound
// (2^-16 + (3 kc + 2) 2^-24) (|seed| + sum |a b|), small integers exactly.
struct F16SplitTraits {
  using E = uint16_t;  // float16 bit pattern (the parts: bfloat16)
  using Acc = float;
  static constexpr int kGroup = 2;
  static constexpr int kChunk = 32;
  static constexpr int kModes = 4;
  static constexpr int kSeedModes = 1;
  static constexpr bool kSplit = true;

  // Value modes: 0 random float16 with magnitude in [2^-4, 2^3) and every
  // significand bit random (nonzero low parts), 1 small integers in [-8, 8]
  // (exact), 2 like 0 with zeros mixed in, 3 the range's ends: 65504,
  // subnormals, neighbours of 1.
  static E value(Rng& rng, int mode) {
    const uint16_t sign = uint16_t(rng.range(0, 1) << 15);
    if (mode == 1) return int_to_f16(int(rng.range(-8, 8)));
    if (mode == 2 && rng.range(0, 3) == 0) return 0;
    if (mode == 3) {
      static const uint16_t kEdge[4] = {0x7BFF, 0x3C01, 0x3BFF, 0x0001};
      const int pick = int(rng.range(0, 5));
      if (pick < 4) return uint16_t(sign | kEdge[pick]);
      if (pick == 4) return uint16_t(sign | uint16_t(rng.range(1, 1023)));  // subnormal
    }
    const uint16_t exp = uint16_t((15 + rng.range(-4, 2)) << 10);
    return uint16_t(sign | exp | uint16_t(rng.range(0, 1023)));
  }
  static Acc seed(Rng& rng, int mode, int seed_mode) {
    return Bf16Traits::seed(rng, mode, seed_mode);
  }
  static bool check(const E* av, const E* bv, index_t i, index_t j, index_t kc, Acc s, Acc got,
                    int mode, char* msg, size_t len) {
    return float_acc_ok(f16_to_float, av, bv, i, j, kc, s, got,
                        mode == 1 ? 0.0 : 0x1p-16 + double(3 * kc + 2) * 0x1p-24, msg, len);
  }
  static bool same(Acc x, Acc y) { return same_bits(x, y); }
};

struct Int8Traits {
  using E = int8_t;
  using Acc = int32_t;
  static constexpr int kGroup = 4;
  static constexpr int kChunk = 64;
  static constexpr int kModes = 4;
  static constexpr int kSeedModes = 4;

  // Value modes: 0 uniform, 1 all -128, 2 all 127, 3 extremes and small.
  static E value(Rng& rng, int mode) {
    static const int8_t kEdge[6] = {-128, 127, -127, -1, 0, 1};
    switch (mode) {
      case 1: return -128;
      case 2: return 127;
      case 3: return kEdge[rng.range(0, 5)];
      default: return static_cast<int8_t>(rng.range(-128, 127));
    }
  }
  // Seed modes: 0 random, 1 just below INT32_MAX, 2 just above INT32_MIN,
  // 3 zero.
  static Acc seed(Rng& rng, int /*mode*/, int seed_mode) {
    switch (seed_mode) {
      case 1: return INT32_MAX - int32_t(rng.range(0, 1000));
      case 2: return INT32_MIN + int32_t(rng.range(0, 1000));
      case 3: return 0;
      default: return static_cast<int32_t>(static_cast<uint32_t>(rng.next()));
    }
  }
  static bool check(const E* av, const E* bv, index_t i, index_t j, index_t kc, Acc s, Acc got,
                    int /*mode*/, char* msg, size_t len) {
    int64_t exact = s;
    uint32_t widen = uint32_t(s);
    for (index_t p = 0; p < kc; ++p) {
      const int32_t prod = int32_t(av[i * kc + p]) * int32_t(bv[j * kc + p]);
      exact += prod;
      widen += uint32_t(prod);
    }
    const int32_t want = int32_t(uint32_t(uint64_t(exact)));
    if (want != int32_t(widen)) {
      snprintf(msg, len, "reference error: int64 sum mod 2^32 != widening sum");
      return false;
    }
    if (got == want) return true;
    snprintf(msg, len, "acc(%ld,%ld) = %d, want %d", long(i), long(j), got, want);
    return false;
  }
  static bool same(Acc x, Acc y) { return x == y; }
};

struct Case {
  const char* cfg;
  index_t wa, wb, kc;
  int oa, ob;
  bool nega, negb;
  int mode_a, mode_b, mode_seed;
};

void report(const Case& c, const char* what) {
  if (++g_reported > kMaxReports) return;
  printf("  FAIL %s: %s (wa=%ld wb=%ld kc=%ld A %s%s B %s%s values %d/%d seed %d)\n", c.cfg,
         what, long(c.wa), long(c.wb), long(c.kc), dot_test::orient_name(c.oa),
         c.nega ? " neg" : "", dot_test::orient_name(c.ob), c.negb ? " neg" : "", c.mode_a,
         c.mode_b, c.mode_seed);
}

// The packed layouts of kernel/amx.hpp, element by element.
template <class F, class T>
bool layout_ok(const Case& c, const typename T::E* av, const typename T::E* bv,
               const typename T::E* a, const typename T::E* b) {
  using E = typename T::E;
  constexpr int kMr = F::kMr, kNr = F::kNr, kG = T::kGroup, kD = T::kChunk;
  const index_t kc = c.kc;
  const index_t chunks = (kc + kD - 1) / kD;
  // The split family stores each chunk twice over: its high parts, then its
  // low parts, at the positions the bf16 layout gives the values.
  constexpr bool kSplit = requires { T::kSplit; };
  constexpr index_t kParts = kSplit ? 2 : 1;
  if (F::a_panel_size(kc) != kParts * chunks * kD * kMr ||
      F::b_panel_size(kc) != kParts * chunks * kD * kNr) {
    report(c, "panel size differs from the layout");
    return false;
  }
  auto holds = [&](const E* panel, index_t chunk_size, index_t at, E x) {
    if constexpr (kSplit) {
      const index_t q = at / chunk_size, off = at % chunk_size;
      return split_ok(x, panel[2 * q * chunk_size + off], panel[(2 * q + 1) * chunk_size + off]);
    } else {
      (void)chunk_size;
      return panel[at] == x;
    }
  };
  for (index_t g = 0; g < chunks * kD / kG; ++g)
    for (index_t i = 0; i < kMr; ++i)
      for (index_t e = 0; e < kG; ++e) {
        const index_t p = g * kG + e;
        const E x = i < c.wa && p < kc ? av[i * kc + p] : E(0);
        if (!holds(a, kD * kMr, (g * kMr + i) * kG + e, x)) {
          report(c, "packed A element differs from the layout");
          return false;
        }
      }
  for (index_t q = 0; q < chunks; ++q)
    for (index_t j = 0; j < kNr; ++j)
      for (index_t e = 0; e < kD; ++e) {
        const index_t p = q * kD + e;
        const E y = j < c.wb && p < kc ? bv[j * kc + p] : E(0);
        if (!holds(b, kD * kNr, (q * kNr + j) * kD + e, y)) {
          report(c, "packed B element differs from the layout");
          return false;
        }
      }
  return true;
}

// Returns 1 on failure, 0 on success.
template <class F, class T>
int check_case(Rng& rng, const Case& c) {
  using E = typename T::E;
  using Acc = typename T::Acc;
  constexpr int kMr = F::kMr, kNr = F::kNr;
  const index_t kc = c.kc;
  E* av = static_cast<E*>(malloc(sizeof(E) * size_t(c.wa * kc)));
  E* bv = static_cast<E*>(malloc(sizeof(E) * size_t(c.wb * kc)));
  Acc* io = static_cast<Acc*>(malloc(sizeof(Acc) * kMr * kNr));
  Acc* seeds = static_cast<Acc*>(malloc(sizeof(Acc) * kMr * kNr));
  int failed = 0;
  for (index_t k = 0; k < c.wa * kc; ++k) av[k] = T::value(rng, c.mode_a);
  for (index_t k = 0; k < c.wb * kc; ++k) bv[k] = T::value(rng, c.mode_b);
  for (int k = 0; k < kMr * kNr; ++k) seeds[k] = io[k] = T::seed(rng, c.mode_a, c.mode_seed);

  using L = typename F::L;
  Source<L> sa, sb;
  Panel pa, pb;
  if (!sa.place(rng, reinterpret_cast<const L*>(av), c.wa, kc, c.oa, c.nega) ||
      !sb.place(rng, reinterpret_cast<const L*>(bv), c.wb, kc, c.ob, c.negb) ||
      !pa.alloc(sizeof(E) * size_t(F::a_panel_size(kc))) ||
      !pb.alloc(sizeof(E) * size_t(F::b_panel_size(kc)))) {
    report(c, "out of memory");
    failed = 1;
  } else {
    auto* a = reinterpret_cast<typename F::PA*>(pa.data());
    auto* b = reinterpret_cast<typename F::PB*>(pb.data());
    F::pack_a(kc, c.wa, sa.base, sa.rs, sa.cs, a);
    F::pack_b(kc, c.wb, sb.base, sb.rs, sb.cs, b);
    if (!pa.canaries_intact() || !pb.canaries_intact()) {
      report(c, "pack wrote outside its panel");
      failed = 1;
    }
    if (!failed && !layout_ok<F, T>(c, av, bv, reinterpret_cast<const E*>(a),
                                    reinterpret_cast<const E*>(b)))
      failed = 1;
    if (!failed) {
      run_tile<F>(kc, a, b, io);
      char msg[200];
      for (index_t j = 0; j < kNr && !failed; ++j) {
        for (index_t i = 0; i < kMr; ++i) {
          const Acc s = seeds[j * kMr + i];
          const Acc got = io[j * kMr + i];
          if (i >= c.wa || j >= c.wb) {
            if (!T::same(got, s)) {
              snprintf(msg, sizeof msg, "padding acc(%ld,%ld) changed its seed", long(i),
                       long(j));
              report(c, msg);
              failed = 1;
              break;
            }
            continue;
          }
          if (!T::check(av, bv, i, j, kc, s, got, c.mode_a, msg, sizeof msg)) {
            report(c, msg);
            failed = 1;
            break;
          }
        }
      }
    }
  }
  free(av);
  free(bv);
  free(io);
  free(seeds);
  return failed;
}

template <class F, class T>
void run_config(Rng& rng, const char* cfg, int& cases, int& failures) {
  constexpr int kMr = F::kMr, kNr = F::kNr;
  static const index_t kDepths[] = {1,  2,  3,  4,  5,   7,   15,  16,  17,  31,  32,
                                    33, 63, 64, 65, 127, 128, 129, 200, 257, 1024};
  auto one = [&](const Case& c) {
    ++cases;
    failures += check_case<F, T>(rng, c);
  };
  auto width = [&](int full) {
    return rng.range(0, 2) == 0 ? index_t(full) : index_t(rng.range(1, full));
  };
  auto mode = [&] { return int(rng.range(0, T::kModes - 1)); };
  auto seed_mode = [&] { return int(rng.range(0, T::kSeedModes - 1)); };
  // Every depth x every pair of layouts x both stride signs, random widths
  // (full panels a third of the time: the fast paths) and value modes.  The
  // bf16 value mode is shared by A and B (integers stay exact only then).
  for (index_t kc : kDepths)
    for (int oa = 0; oa < 3; ++oa)
      for (int ob = 0; ob < 3; ++ob)
        for (int neg = 0; neg < 2; ++neg) {
          const int ma = mode();
          one({cfg, width(kMr), width(kNr), kc, oa, ob, neg != 0, neg != 0, ma,
               T::kSeedModes == 1 ? ma : mode(), seed_mode()});
        }
  // Every panel width, each layout, depths on and off a chunk boundary.
  for (int o = 0; o < 3; ++o) {
    for (index_t w = 1; w <= kMr; ++w) {
      const int ma = mode();
      one({cfg, w, kNr, rng.range(0, 1) ? 2 * T::kChunk + 3 : T::kChunk, o,
           int(rng.range(0, 2)), o == 1, false, ma, T::kSeedModes == 1 ? ma : mode(),
           seed_mode()});
    }
    for (index_t w = 1; w <= kNr; ++w) {
      const int ma = mode();
      one({cfg, kMr, w, rng.range(0, 1) ? 2 * T::kChunk + 3 : T::kChunk,
           int(rng.range(0, 2)), o, false, o == 1, ma, T::kSeedModes == 1 ? ma : mode(),
           seed_mode()});
    }
  }
  // The extremes everywhere (int8: every product +-16384 or +-16256, seeds
  // at both ends); long exact integer depths (bf16).
  if constexpr (T::kSeedModes > 1) {
    for (int ma = 1; ma <= 2; ++ma)
      for (int mb = 1; mb <= 2; ++mb)
        for (int ms = 0; ms < 4; ++ms)
          one({cfg, kMr, kNr, 257, int(rng.range(0, 2)), int(rng.range(0, 2)), false, false,
               ma, mb, ms});
  } else {
    static const index_t kLong[] = {1023, 1024, 1025};
    for (index_t kc : kLong)
      one({cfg, kMr, kNr, kc, int(rng.range(0, 2)), int(rng.range(0, 2)), false, false, 1, 1,
           0});
  }
}

// ---------------------------------------------------------------------------
// 5. The microkernel on full and edge tiles: Microkernel<F>::run with
// O = A, C column-major with a leading dimension past the tile, canaries
// around it; the seed (earlier sums) has a leading dimension of its own, so
// a full tile's seed read by the tile loads (accumulate_from) is read with
// its stride, and an edge tile's through the zmm init.

template <class F, class T>
int check_microkernel(Rng& rng, const char* cfg, index_t m_eff, index_t n_eff, index_t kc,
                      bool seeded) {
  using E = typename T::E;
  using Acc = typename T::Acc;
  using K = kernel::Microkernel<F>;
  constexpr int kMr = F::kMr;
  const int mode = T::kSeedModes == 1 ? 1 : 0;
  const index_t ld = m_eff + 3;
  const index_t c_elems = ld * (n_eff + 2);
  E* av = static_cast<E*>(malloc(sizeof(E) * size_t(kMr * kc)));
  E* bv = static_cast<E*>(malloc(sizeof(E) * size_t(F::kNr * kc)));
  constexpr index_t seed_ld = kMr + 5;
  Acc* seeds = static_cast<Acc*>(malloc(sizeof(Acc) * seed_ld * F::kNr));
  Acc* cbuf = static_cast<Acc*>(malloc(sizeof(Acc) * size_t(c_elems)));
  auto* a = static_cast<typename F::PA*>(malloc(sizeof(E) * size_t(F::a_panel_size(kc))));
  auto* b = static_cast<typename F::PB*>(malloc(sizeof(E) * size_t(F::b_panel_size(kc))));
  for (index_t k = 0; k < m_eff * kc; ++k) av[k] = T::value(rng, mode);
  for (index_t k = 0; k < n_eff * kc; ++k) bv[k] = T::value(rng, mode);
  for (index_t k = 0; k < seed_ld * F::kNr; ++k) seeds[k] = seeded ? T::seed(rng, mode, 0) : Acc(0);
  Acc canary;
  memset(&canary, 0x5A, sizeof canary);
  for (index_t k = 0; k < c_elems; ++k) cbuf[k] = canary;
  // Depth-contiguous sources (cs == 1) for both operands.
  F::pack_a(kc, m_eff, reinterpret_cast<const typename F::L*>(av), kc, 1, a);
  F::pack_b(kc, n_eff, reinterpret_cast<const typename F::R*>(bv), kc, 1, b);

  Acc* c = cbuf + ld + 1;  // one canary column before, one row above
  typename K::template Store<Acc>::Store s{};
  s.alpha = Acc(1);
  s.beta = Acc(0);
  s.dst = c;
  s.rs_dst = 1;
  s.cs_dst = ld;
  const typename K::Seed seed{seeds, seed_ld};
  K::template run<Acc>(kc, a, b, m_eff, n_eff, seeded ? &seed : nullptr, s);

  int failed = 0;
  char msg[200];
  for (index_t col = -1; col <= n_eff && !failed; ++col) {
    for (index_t row = -1; row < ld - 1; ++row) {
      const Acc got = c[row + col * ld];
      const bool inside = row >= 0 && row < m_eff && col >= 0 && col < n_eff;
      if (!inside) {
        if (!T::same(got, canary)) {
          snprintf(msg, sizeof msg, "microkernel %ldx%ld kc=%ld wrote C(%ld,%ld) outside its tile",
                   long(m_eff), long(n_eff), long(kc), long(row), long(col));
          failed = 1;
          break;
        }
        continue;
      }
      if (!T::check(av, bv, row, col, kc, seeds[col * seed_ld + row], got, mode, msg,
                    sizeof msg)) {
        failed = 1;
        break;
      }
    }
  }
  if (failed && ++g_reported <= kMaxReports)
    printf("  FAIL %s microkernel m_eff=%ld n_eff=%ld kc=%ld %s: %s\n", cfg, long(m_eff),
           long(n_eff), long(kc), seeded ? "seeded" : "zero", msg);
  free(av);
  free(bv);
  free(seeds);
  free(cbuf);
  free(a);
  free(b);
  return failed;
}

template <class F, class T>
void run_microkernel_config(Rng& rng, const char* cfg, int& cases, int& failures) {
  const index_t shapes[][3] = {{F::kMr, F::kNr, 1},       {F::kMr, F::kNr, 300},
                               {1, 1, 64},                {F::kMr - 1, F::kNr - 3, 33},
                               {5, F::kNr, 129},          {F::kMr, 7, 1024}};
  for (const auto& sh : shapes)
    for (int seeded = 0; seeded < 2; ++seeded) {
      ++cases;
      failures += check_microkernel<F, T>(rng, cfg, sh[0], sh[1], sh[2], seeded != 0);
    }
}

// accumulate_into on a full tile of C in memory (column j at c + j * ld):
// C = AB from zero (load_c false, with NaN-like garbage in C that must not
// be read) or C += AB from a seed already in C; canaries around the tile.
template <class F, class T>
int check_into(Rng& rng, const char* cfg, index_t kc, bool load_c) {
  using E = typename T::E;
  using Acc = typename T::Acc;
  constexpr int kMr = F::kMr, kNr = F::kNr;
  const int mode = T::kSeedModes == 1 ? 1 : 3;
  const index_t ld = kMr + 5;
  const index_t c_elems = ld * (kNr + 2);
  E* av = static_cast<E*>(malloc(sizeof(E) * size_t(kMr * kc)));
  E* bv = static_cast<E*>(malloc(sizeof(E) * size_t(kNr * kc)));
  Acc* seeds = static_cast<Acc*>(malloc(sizeof(Acc) * kMr * kNr));
  Acc* cbuf = static_cast<Acc*>(malloc(sizeof(Acc) * size_t(c_elems)));
  auto* a = static_cast<typename F::PA*>(malloc(sizeof(E) * size_t(F::a_panel_size(kc))));
  auto* b = static_cast<typename F::PB*>(malloc(sizeof(E) * size_t(F::b_panel_size(kc))));
  for (index_t k = 0; k < kMr * kc; ++k) av[k] = T::value(rng, mode);
  for (index_t k = 0; k < kNr * kc; ++k) bv[k] = T::value(rng, mode);
  Acc canary, garbage;
  memset(&canary, 0x5A, sizeof canary);
  memset(&garbage, 0xFF, sizeof garbage);  // a NaN as f32
  for (index_t k = 0; k < c_elems; ++k) cbuf[k] = canary;
  Acc* c = cbuf + ld + 2;
  for (int j = 0; j < kNr; ++j)
    for (int i = 0; i < kMr; ++i) {
      seeds[j * kMr + i] = load_c ? T::seed(rng, mode, int(rng.range(0, T::kSeedModes - 1)))
                                  : Acc(0);
      c[i + j * ld] = load_c ? seeds[j * kMr + i] : garbage;
    }
  F::pack_a(kc, kMr, reinterpret_cast<const typename F::L*>(av), kc, 1, a);
  F::pack_b(kc, kNr, reinterpret_cast<const typename F::R*>(bv), kc, 1, b);
  F::accumulate_into(kc, a, b, c, ld, load_c);

  int failed = 0;
  char msg[200];
  for (index_t col = -1; col <= kNr && !failed; ++col) {
    for (index_t row = -2; row < ld - 2; ++row) {
      const Acc got = c[row + col * ld];
      if (row < 0 || row >= kMr || col < 0 || col >= kNr) {
        if (!T::same(got, canary)) {
          snprintf(msg, sizeof msg, "wrote C(%ld,%ld) outside its tile", long(row), long(col));
          failed = 1;
          break;
        }
        continue;
      }
      if (!T::check(av, bv, row, col, kc, seeds[col * kMr + row], got, mode, msg, sizeof msg)) {
        failed = 1;
        break;
      }
    }
  }
  if (failed && ++g_reported <= kMaxReports)
    printf("  FAIL %s accumulate_into kc=%ld %s: %s\n", cfg, long(kc),
           load_c ? "C += AB" : "C = AB", msg);
  free(av);
  free(bv);
  free(seeds);
  free(cbuf);
  free(a);
  free(b);
  return failed;
}

template <class F, class T>
void run_into_config(Rng& rng, const char* cfg, int& cases, int& failures) {
  static const index_t kDepths[] = {1, 33, 64, 65, 384, 1024};
  for (index_t kc : kDepths)
    for (int load = 0; load < 2; ++load) {
      ++cases;
      failures += check_into<F, T>(rng, cfg, kc, load != 0);
    }
}

// accumulate_into_columns, accumulate_columns and accumulate_from_columns
// (B's columns read in place, the driver's tile_columns) give the bits of
// accumulate_into, accumulate and accumulate_from (itself held to run_tile
// on a copy of its seed) on the packed B of the same columns, for depths of whole
// chunks, columns a positive or negative stride apart, the last element
// before a guard page (a read past any column's depth faults).
template <class F, class T>
int check_columns(Rng& rng, const char* cfg, index_t kc, bool neg) {
  using E = typename T::E;
  using Acc = typename T::Acc;
  constexpr int kMr = F::kMr, kNr = F::kNr;
  const int mode = T::kSeedModes == 1 ? 1 : 3;
  E* av = static_cast<E*>(malloc(sizeof(E) * size_t(kMr * kc)));
  E* bv = static_cast<E*>(malloc(sizeof(E) * size_t(kNr * kc)));
  auto* a = static_cast<typename F::PA*>(malloc(sizeof(E) * size_t(F::a_panel_size(kc))));
  auto* b = static_cast<typename F::PB*>(malloc(sizeof(E) * size_t(F::b_panel_size(kc))));
  for (index_t k = 0; k < kMr * kc; ++k) av[k] = T::value(rng, mode);
  for (index_t k = 0; k < kNr * kc; ++k) bv[k] = T::value(rng, mode);
  F::pack_a(kc, kMr, reinterpret_cast<const typename F::L*>(av), kc, 1, a);
  F::pack_b(kc, kNr, reinterpret_cast<const typename F::R*>(bv), kc, 1, b);
  Source<E> cols;
  int failed = 0;
  if (!cols.place(rng, bv, kNr, kc, dot_test::kDepth, neg)) {
    printf("  FAIL %s columns: no guarded source\n", cfg);
    failed = 1;
  }
  const auto* b_cols = reinterpret_cast<const typename F::PB*>(cols.base);
  alignas(64) Acc want[kNr * kMr], got[kNr * kMr];
  for (int load = 0; load < 2 && !failed; ++load) {
    for (int k = 0; k < kNr * kMr; ++k)
      want[k] = got[k] = T::seed(rng, mode, int(rng.range(0, T::kSeedModes - 1)));
    F::accumulate_into(kc, a, b, want, kMr, load != 0);
    F::accumulate_into_columns(kc, a, b_cols, cols.rs, got, kMr, load != 0);
    for (int k = 0; k < kNr * kMr && !failed; ++k) failed = !T::same(got[k], want[k]);
  }
  if (!failed) {
    for (int k = 0; k < kNr * kMr; ++k)
      want[k] = got[k] = T::seed(rng, mode, int(rng.range(0, T::kSeedModes - 1)));
    run_tile<F>(kc, a, b, want);
    typename F::Reg acc[kNr][F::kMrReg];
    for (int j = 0; j < kNr; ++j)
      for (int r = 0; r < F::kMrReg; ++r) acc[j][r] = F::Ops::loadu(got + j * kMr + r * 16);
    F::accumulate_columns(kc, a, b_cols, cols.rs, acc);
    for (int j = 0; j < kNr; ++j)
      for (int r = 0; r < F::kMrReg; ++r) F::Ops::storeu(got + j * kMr + r * 16, acc[j][r]);
    for (int k = 0; k < kNr * kMr && !failed; ++k) failed = !T::same(got[k], want[k]);
  }
  if (!failed) {
    // A seed a leading dimension past the tile, read by the tile loads
    // (accumulate_from, accumulate_from_columns) against run_tile on its
    // copy.
    constexpr int ld = kMr + 3;
    alignas(64) Acc seed[ld * kNr];
    for (int k = 0; k < ld * kNr; ++k)
      seed[k] = T::seed(rng, mode, int(rng.range(0, T::kSeedModes - 1)));
    for (int j = 0; j < kNr; ++j)
      for (int i = 0; i < kMr; ++i) want[j * kMr + i] = seed[j * ld + i];
    run_tile<F>(kc, a, b, want);
    typename F::Reg acc[kNr][F::kMrReg];
    for (int from_cols = 0; from_cols < 2 && !failed; ++from_cols) {
      if (from_cols) F::accumulate_from_columns(kc, a, b_cols, cols.rs, seed, ld, acc);
      else F::accumulate_from(kc, a, b, seed, ld, acc);
      for (int j = 0; j < kNr; ++j)
        for (int r = 0; r < F::kMrReg; ++r) F::Ops::storeu(got + j * kMr + r * 16, acc[j][r]);
      for (int k = 0; k < kNr * kMr && !failed; ++k) failed = !T::same(got[k], want[k]);
    }
  }
  if (failed && ++g_reported <= kMaxReports)
    printf("  FAIL %s columns kc=%ld stride %s: not the bits of the packed B\n", cfg, long(kc),
           neg ? "negative" : "positive");
  free(av);
  free(bv);
  free(a);
  free(b);
  return failed;
}

template <class F, class T>
void run_columns_config(Rng& rng, const char* cfg, int& cases, int& failures) {
  constexpr index_t kChunk = F::kDepthMultiple;
  for (index_t chunks : {1, 2, 5, 16, 32})
    for (int neg = 0; neg < 2; ++neg) {
      ++cases;
      failures += check_columns<F, T>(rng, cfg, chunks * kChunk, neg != 0);
    }
}

// pack_a_rows (the driver's block packer for sources contiguous along the
// rows) writes the bytes of pack_a panel by panel, for row counts that end
// in a partial panel, depths with partial groups and chunks, and a source
// whose last element sits before a guard page.
template <class F, class T>
int check_rows(Rng& rng, const char* cfg, index_t rows, index_t kc, bool neg) {
  using E = typename T::E;
  const index_t panels = (rows + F::kMr - 1) / F::kMr;
  const size_t bytes = size_t(panels * F::a_panel_size(kc)) * sizeof(typename F::PA);
  E* vals = static_cast<E*>(malloc(sizeof(E) * size_t(rows * kc)));
  for (index_t k = 0; k < rows * kc; ++k) vals[k] = T::value(rng, 1);
  Source<E> src;
  int failed = 0;
  if (!src.place(rng, vals, rows, kc, dot_test::kLines, neg)) {
    printf("  FAIL %s pack_a_rows: no guarded source\n", cfg);
    failed = 1;
  }
  auto* want = static_cast<unsigned char*>(malloc(bytes));
  auto* got = static_cast<unsigned char*>(malloc(bytes));
  memset(want, 0xCD, bytes);
  memset(got, 0xAB, bytes);
  if (!failed) {
    const auto* base = reinterpret_cast<const typename F::L*>(src.base);
    for (index_t q = 0; q < panels; ++q) {
      const index_t width = rows - q * F::kMr < F::kMr ? rows - q * F::kMr : F::kMr;
      F::pack_a(kc, width, base + q * F::kMr, 1, src.cs,
                reinterpret_cast<typename F::PA*>(want) + q * F::a_panel_size(kc));
    }
    F::pack_a_rows(kc, rows, base, src.cs, reinterpret_cast<typename F::PA*>(got));
    failed = memcmp(want, got, bytes) != 0;
  }
  if (failed && ++g_reported <= kMaxReports)
    printf("  FAIL %s pack_a_rows rows=%ld kc=%ld: not pack_a's bytes\n", cfg, long(rows),
           long(kc));
  free(vals);
  free(want);
  free(got);
  return failed;
}

template <class F, class T>
void run_rows_config(Rng& rng, const char* cfg, int& cases, int& failures) {
  for (index_t rows : {1, 31, 32, 33, 100, 256})
    for (index_t kc : {1, 2, 3, 5, 33, 64, 65, 130})
      for (int neg = 0; neg < 2; ++neg) {
        ++cases;
        failures += check_rows<F, T>(rng, cfg, rows, kc, neg != 0);
      }
}

// ---------------------------------------------------------------------------
// 6. Tile configuration: whatever state another library left the thread's
// tiles in, accumulate must (re)configure them itself.

// A configuration other code might leave behind: palette 1, tmm0..7 of
// 8 rows x 32 bytes.
void load_foreign_config() {
  kernel::amx_detail::TileConfig c;
  memset(c.bytes, 0, 64);
  c.bytes[0] = 1;
  for (int t = 0; t < 8; ++t) {
    c.bytes[16 + 2 * t] = 32;
    c.bytes[48 + t] = 8;
  }
  kernel::amx_detail::load_config(c);
}

using MainInt8 = kernel::AmxInt8Family<Tok, 2, 32>;
using MainBf16 = kernel::AmxBf16Family<Tok, 2, 32>;

int config_cases(Rng& rng) {
  int failures = 0;
  const Case ci{"int8 32x32 after tilerelease", 32, 32, 200, 0, 1, false, false, 0, 0, 0};
  const Case cb{"bf16 32x32 after tilerelease", 32, 32, 200, 1, 0, false, false, 0, 0, 0};
  kernel::amx_detail::release_tiles();
  failures += check_case<MainInt8, Int8Traits>(rng, ci);
  kernel::amx_detail::release_tiles();
  failures += check_case<MainBf16, Bf16Traits>(rng, cb);
  Case fi = ci, fb = cb;
  fi.cfg = "int8 32x32 after a foreign tile config";
  fb.cfg = "bf16 32x32 after a foreign tile config";
  load_foreign_config();
  failures += check_case<MainInt8, Int8Traits>(rng, fi);
  load_foreign_config();
  failures += check_case<MainBf16, Bf16Traits>(rng, fb);
  // Ours stays loaded: the live configuration reads back as the image, so
  // the next accumulate skips ldtilecfg (~230 cycles) instead of paying it
  // on every tile.
  kernel::amx_detail::TileConfig live;
  kernel::amx_detail::store_config(live);
  alignas(64) unsigned char want[64];
  _mm512_store_si512(want, kernel::amx_detail::tile_config_image());
  if (memcmp(live.bytes, want, 64) != 0) {
    printf("  FAIL the live tile configuration differs from the image accumulate loads\n");
    ++failures;
  }
  return failures;
}

struct ThreadArg {
  uint64_t seed;
  int failures;
};

void* thread_main(void* p) {
  ThreadArg* arg = static_cast<ThreadArg*>(p);
  Rng rng{arg->seed};
  arg->failures =
      check_case<MainInt8, Int8Traits>(
          rng, {"int8 32x32 on a fresh thread", 32, 32, 129, 1, 0, false, false, 0, 0, 0}) +
      check_case<MainBf16, Bf16Traits>(
          rng, {"bf16 32x32 on a fresh thread", 32, 32, 129, 0, 1, false, false, 0, 0, 0});
  return nullptr;
}

int thread_cases() {
  ThreadArg arg{0x5eed0013u, 0};
  pthread_t th;
  if (pthread_create(&th, nullptr, thread_main, &arg) != 0) {
    printf("  FAIL could not start the fresh-thread case\n");
    return 1;
  }
  pthread_join(th, nullptr);
  return arg.failures;
}

// Every float16 bit pattern through the split (amx_detail::split_f16_chunks).
int split_all_f16() {
  constexpr index_t kWords = 2048, kChunks = 65536 / kWords;
  uint16_t* buf = static_cast<uint16_t*>(aligned_alloc(64, 2 * 65536 * sizeof(uint16_t)));
  if (!buf) return 1;
  for (uint32_t h = 0; h < 65536; ++h) buf[65536 + h] = uint16_t(h);
  kernel::amx_detail::split_f16_chunks(kChunks, kWords, buf);
  int bad = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const index_t q = h / kWords, off = h % kWords;
    const uint16_t high = buf[2 * q * kWords + off], low = buf[(2 * q + 1) * kWords + off];
    if (!split_ok(uint16_t(h), high, low) && ++bad <= 3)
      printf("  FAIL split of float16 0x%04x: high 0x%04x low 0x%04x\n", h, high, low);
  }
  free(buf);
  return bad != 0;
}

}  // namespace

int run_amx_kernel_tests() {
  Rng rng{0x5eed0011u};
  int cases = 0, failures = 0;
  using kernel::AmxBf16Family;
  using kernel::AmxF16SplitFamily;
  using kernel::AmxInt8Family;
  run_config<AmxInt8Family<Tok, 2, 32>, Int8Traits>(rng, "int8 32x32", cases, failures);
  run_config<AmxInt8Family<Tok, 2, 16>, Int8Traits>(rng, "int8 32x16", cases, failures);
  run_config<AmxInt8Family<Tok, 1, 32>, Int8Traits>(rng, "int8 16x32", cases, failures);
  run_config<AmxInt8Family<Tok, 1, 16>, Int8Traits>(rng, "int8 16x16", cases, failures);
  run_config<AmxBf16Family<Tok, 2, 32>, Bf16Traits>(rng, "bf16 32x32", cases, failures);
  run_config<AmxBf16Family<Tok, 2, 16>, Bf16Traits>(rng, "bf16 32x16", cases, failures);
  run_config<AmxBf16Family<Tok, 1, 32>, Bf16Traits>(rng, "bf16 16x32", cases, failures);
  run_config<AmxBf16Family<Tok, 1, 16>, Bf16Traits>(rng, "bf16 16x16", cases, failures);
  ++cases;
  failures += split_all_f16();
  run_config<AmxF16SplitFamily<Tok, 2, 32>, F16SplitTraits>(rng, "f16 32x32", cases, failures);
  run_config<AmxF16SplitFamily<Tok, 2, 16>, F16SplitTraits>(rng, "f16 32x16", cases, failures);
  run_config<AmxF16SplitFamily<Tok, 1, 32>, F16SplitTraits>(rng, "f16 16x32", cases, failures);
  run_config<AmxF16SplitFamily<Tok, 1, 16>, F16SplitTraits>(rng, "f16 16x16", cases, failures);
  // Sums past 2^31: (2^17 + 5) * 16384 wraps even from a zero seed.
  {
    const index_t kDeep = (index_t(1) << 17) + 5;
    const int modes[2][2] = {{1, 1}, {1, 2}};
    for (int o = 0; o < 2; ++o)
      for (const auto& m : modes) {
        ++cases;
        failures += check_case<MainInt8, Int8Traits>(
            rng, {"int8 32x32 deep", MainInt8::kMr, 7, kDeep, o, 1 - o, false, o == 1, m[0],
                  m[1], 3});
      }
  }
  run_microkernel_config<AmxInt8Family<Tok, 2, 32>, Int8Traits>(rng, "int8 32x32", cases,
                                                                failures);
  run_microkernel_config<AmxInt8Family<Tok, 2, 16>, Int8Traits>(rng, "int8 32x16", cases,
                                                                failures);
  run_microkernel_config<AmxBf16Family<Tok, 2, 32>, Bf16Traits>(rng, "bf16 32x32", cases,
                                                                failures);
  run_microkernel_config<AmxBf16Family<Tok, 2, 16>, Bf16Traits>(rng, "bf16 32x16", cases,
                                                                failures);
  run_into_config<AmxInt8Family<Tok, 2, 32>, Int8Traits>(rng, "int8 32x32", cases, failures);
  run_into_config<AmxInt8Family<Tok, 1, 16>, Int8Traits>(rng, "int8 16x16", cases, failures);
  run_into_config<AmxBf16Family<Tok, 2, 32>, Bf16Traits>(rng, "bf16 32x32", cases, failures);
  run_into_config<AmxBf16Family<Tok, 2, 16>, Bf16Traits>(rng, "bf16 32x16", cases, failures);
  run_rows_config<AmxInt8Family<Tok, 2, 32>, Int8Traits>(rng, "int8 32x32", cases, failures);
  run_rows_config<AmxInt8Family<Tok, 1, 16>, Int8Traits>(rng, "int8 16x16", cases, failures);
  run_rows_config<AmxBf16Family<Tok, 2, 32>, Bf16Traits>(rng, "bf16 32x32", cases, failures);
  run_rows_config<AmxBf16Family<Tok, 1, 16>, Bf16Traits>(rng, "bf16 16x16", cases, failures);
  run_columns_config<AmxInt8Family<Tok, 2, 32>, Int8Traits>(rng, "int8 32x32", cases, failures);
  run_columns_config<AmxInt8Family<Tok, 1, 16>, Int8Traits>(rng, "int8 16x16", cases, failures);
  run_columns_config<AmxBf16Family<Tok, 2, 32>, Bf16Traits>(rng, "bf16 32x32", cases, failures);
  run_columns_config<AmxBf16Family<Tok, 2, 16>, Bf16Traits>(rng, "bf16 32x16", cases, failures);
  run_microkernel_config<AmxF16SplitFamily<Tok, 2, 32>, F16SplitTraits>(rng, "f16 32x32", cases,
                                                                        failures);
  run_into_config<AmxF16SplitFamily<Tok, 2, 32>, F16SplitTraits>(rng, "f16 32x32", cases,
                                                                 failures);
  cases += 5;
  failures += config_cases(rng);
  cases += 2;
  failures += thread_cases();
  printf("  amx tile families: %d cases, %d failed\n", cases, failures);
  return failures;
}

}  // namespace gemmkit::isa_amx
