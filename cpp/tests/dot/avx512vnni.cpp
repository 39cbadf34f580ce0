// Dot-kernel test, avx512vnni unit: DotVnniFamily (vpdpbusd, +128 bias on
// A) packs and accumulates bit-exactly.  Compiled with the avx512vnni flags;
// run by cpp/tests/dot_kernel_test.cpp only on CPUs with AVX-512 VNNI.
//
// For random shapes (every panel width, depths around the group and
// block sizes, all three source layouts, negative strides) it checks:
//   1. the packed bytes against the documented layout (dot_vnni.hpp), the
//      column-sum trailer included, and that nothing outside the panel is
//      written; sources end at a guard page, so over-reads fault;
//   2. acc after accumulate against two references that agree by
//      construction: the exact int64 sum reduced modulo 2^32, and the
//      widening kernel's own arithmetic (sign-extend to int32, multiply,
//      wrapping add, one depth step at a time).  Equality with both is the
//      bit identity between the VNNI and widening kernels;
//   3. values -128 and 127 everywhere, seeds near INT32_MIN / INT32_MAX, and
//      a depth (2^17 + 5) whose true sums pass 2^31, so wrapping is exercised.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/dot_vnni.hpp"
#include "dot_test-inl.hpp"

namespace gemmkit::isa_avx512vnni {

namespace {

using dot_test::Panel;
using dot_test::Rng;
using dot_test::Source;
using Tok = Avx512Vnni;

int g_reported = 0;
constexpr int kMaxReports = 12;

// One microtile, accumulators loaded from and stored to io[j * kMr + i].
template <class F>
__attribute__((noinline)) void run_tile(index_t kc, const uint8_t* a, const int8_t* b,
                                        int32_t* io) {
  typename F::Reg acc[F::kNr][F::kMrReg];
  for (int j = 0; j < F::kNr; ++j)
    for (int r = 0; r < F::kMrReg; ++r) acc[j][r] = F::Ops::loadu(io + j * F::kMr + r * 16);
  F::accumulate(kc, a, b, acc);
  for (int j = 0; j < F::kNr; ++j)
    for (int r = 0; r < F::kMrReg; ++r) F::Ops::storeu(io + j * F::kMr + r * 16, acc[j][r]);
}

// Value modes: 0 uniform, 1 all -128, 2 all 127, 3 extremes and small.
int8_t value(Rng& rng, int mode) {
  static const int8_t kEdge[6] = {-128, 127, -127, -1, 0, 1};
  switch (mode) {
    case 1: return -128;
    case 2: return 127;
    case 3: return kEdge[rng.range(0, 5)];
    default: return static_cast<int8_t>(rng.range(-128, 127));
  }
}

// Seed modes: 0 random, 1 just below INT32_MAX, 2 just above INT32_MIN, 3 zero.
int32_t seed(Rng& rng, int mode) {
  switch (mode) {
    case 1: return INT32_MAX - int32_t(rng.range(0, 1000));
    case 2: return INT32_MIN + int32_t(rng.range(0, 1000));
    case 3: return 0;
    default: return static_cast<int32_t>(static_cast<uint32_t>(rng.next()));
  }
}

struct Case {
  const char* cfg;
  index_t wa, wb, kc;
  int oa, ob;
  bool nega, negb;
  int mode_a, mode_b, mode_seed;
};

void report(const Case& c, const char* what) {
  if (++g_reported > kMaxReports) return;
  printf("  FAIL %s: %s (wa=%ld wb=%ld kc=%ld A %s%s B %s%s values %d/%d seed %d)\n",
         c.cfg, what, long(c.wa), long(c.wb), long(c.kc), dot_test::orient_name(c.oa),
         c.nega ? " neg" : "", dot_test::orient_name(c.ob), c.negb ? " neg" : "",
         c.mode_a, c.mode_b, c.mode_seed);
}

// Returns 1 on failure, 0 on success.
template <class F>
int check_case(Rng& rng, const Case& c) {
  constexpr int kMr = F::kMr, kNr = F::kNr;
  const index_t kc = c.kc;
  int8_t* av = static_cast<int8_t*>(malloc(size_t(c.wa * kc)));
  int8_t* bv = static_cast<int8_t*>(malloc(size_t(c.wb * kc)));
  int32_t* io = static_cast<int32_t*>(malloc(sizeof(int32_t) * kMr * kNr));
  int32_t* seeds = static_cast<int32_t*>(malloc(sizeof(int32_t) * kMr * kNr));
  int failed = 0;
  for (index_t k = 0; k < c.wa * kc; ++k) av[k] = value(rng, c.mode_a);
  for (index_t k = 0; k < c.wb * kc; ++k) bv[k] = value(rng, c.mode_b);
  for (int k = 0; k < kMr * kNr; ++k) seeds[k] = io[k] = seed(rng, c.mode_seed);

  Source<int8_t> sa, sb;
  Panel pa, pb;
  if (!sa.place(rng, av, c.wa, kc, c.oa, c.nega) || !sb.place(rng, bv, c.wb, kc, c.ob, c.negb) ||
      !pa.alloc(size_t(F::a_panel_size(kc))) || !pb.alloc(size_t(F::b_panel_size(kc)))) {
    report(c, "out of memory");
    failed = 1;
  } else {
    uint8_t* a = pa.data();
    int8_t* b = reinterpret_cast<int8_t*>(pb.data());
    F::pack_a(kc, c.wa, sa.base, sa.rs, sa.cs, a);
    F::pack_b(kc, c.wb, sb.base, sb.rs, sb.cs, b);
    if (!pa.canaries_intact() || !pb.canaries_intact()) {
      report(c, "pack wrote outside its panel");
      failed = 1;
    }
    // 1. The layout, byte by byte.
    const index_t groups = (kc + 3) / 4;
    for (index_t g = 0; g < groups && !failed; ++g) {
      for (index_t t = 0; t < 4 && !failed; ++t) {
        const index_t p = 4 * g + t;
        for (index_t i = 0; i < kMr; ++i) {
          const int8_t x = i < c.wa && p < kc ? av[i * kc + p] : 0;
          if (a[(g * kMr + i) * 4 + t] != uint8_t(uint8_t(x) ^ 0x80u)) {
            report(c, "packed A byte differs from the layout");
            failed = 1;
            break;
          }
        }
        for (index_t j = 0; j < kNr && !failed; ++j) {
          const int8_t y = j < c.wb && p < kc ? bv[j * kc + p] : 0;
          if (b[(g * kNr + j) * 4 + t] != y) {
            report(c, "packed B byte differs from the layout");
            failed = 1;
          }
        }
      }
    }
    for (index_t j = 0; j < kNr && !failed; ++j) {
      int32_t want = 0;
      for (index_t p = 0; j < c.wb && p < kc; ++p) want += bv[j * kc + p];
      int32_t got;
      memcpy(&got, b + F::b_colsum_offset(kc) + 4 * j, 4);
      if (got != want) {
        report(c, "column-sum trailer differs");
        failed = 1;
      }
    }
    // 2. The tile against both references.
    if (!failed) {
      run_tile<F>(kc, a, b, io);
      for (index_t j = 0; j < kNr && !failed; ++j) {
        for (index_t i = 0; i < kMr; ++i) {
          int64_t exact = seeds[j * kMr + i];
          uint32_t widen = uint32_t(seeds[j * kMr + i]);
          if (i < c.wa && j < c.wb) {
            for (index_t p = 0; p < kc; ++p) {
              const int32_t prod = int32_t(av[i * kc + p]) * int32_t(bv[j * kc + p]);
              exact += prod;
              widen += uint32_t(prod);
            }
          }
          const int32_t want = int32_t(uint32_t(uint64_t(exact)));
          if (want != int32_t(widen)) {
            report(c, "reference error: int64 sum mod 2^32 != widening sum");
            failed = 1;
            break;
          }
          if (io[j * kMr + i] != want) {
            char msg[160];
            snprintf(msg, sizeof msg, "acc(%ld,%ld) = %d, want %d", long(i), long(j),
                     io[j * kMr + i], want);
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

template <class F>
void run_config(Rng& rng, const char* cfg, int& cases, int& failures) {
  constexpr int kMr = F::kMr, kNr = F::kNr;
  static const index_t kDepths[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 257};
  auto one = [&](const Case& c) {
    ++cases;
    failures += check_case<F>(rng, c);
  };
  auto width = [&](int full) {
    return rng.range(0, 2) == 0 ? index_t(full) : index_t(rng.range(1, full));
  };
  // Every depth x every pair of layouts x both stride signs, random widths
  // (full panels a third of the time: the fast paths) and value modes.
  for (index_t kc : kDepths)
    for (int oa = 0; oa < 3; ++oa)
      for (int ob = 0; ob < 3; ++ob)
        for (int neg = 0; neg < 2; ++neg)
          one({cfg, width(kMr), width(kNr), kc, oa, ob, neg != 0, neg != 0,
               int(rng.range(0, 3)), int(rng.range(0, 3)), int(rng.range(0, 3))});
  // Every panel width, each layout.
  for (int o = 0; o < 3; ++o) {
    for (index_t w = 1; w <= kMr; ++w)
      one({cfg, w, kNr, rng.range(0, 1) ? 33 : 6, o, int(rng.range(0, 2)), o == 1, false, 0, 0,
           0});
    for (index_t w = 1; w <= kNr; ++w)
      one({cfg, kMr, w, rng.range(0, 1) ? 33 : 6, int(rng.range(0, 2)), o, false, o == 1, 0, 0,
           0});
  }
  // The extremes everywhere: every product +-16384 or +-16256.
  for (int ma = 1; ma <= 2; ++ma)
    for (int mb = 1; mb <= 2; ++mb)
      for (int ms = 0; ms < 4; ++ms)
        one({cfg, kMr, kNr, 257, int(rng.range(0, 2)), int(rng.range(0, 2)), false, false, ma,
             mb, ms});
}

}  // namespace

int run_dot_kernel_tests() {
  Rng rng{0x5eed0001u};
  int cases = 0, failures = 0;
  using kernel::DotVnniFamily;
  run_config<DotVnniFamily<Tok, 2, 12>>(rng, "vnni 32x12", cases, failures);
  run_config<DotVnniFamily<Tok, 2, 8>>(rng, "vnni 32x8", cases, failures);
  run_config<DotVnniFamily<Tok, 1, 8>>(rng, "vnni 16x8", cases, failures);
  run_config<DotVnniFamily<Tok, 1, 16>>(rng, "vnni 16x16", cases, failures);
  // 3. Sums past 2^31: (2^17 + 5) * 16384 wraps even from a zero seed.
  using F = DotVnniFamily<Tok, 2, 12>;
  const index_t kDeep = (index_t(1) << 17) + 5;
  for (int o = 0; o < 2; ++o) {
    const int modes[3][2] = {{1, 1}, {2, 2}, {1, 2}};
    for (const auto& m : modes) {
      for (int ms = 0; ms < 4; ++ms) {
        ++cases;
        failures += check_case<F>(
            rng, {"vnni 32x12 deep", F::kMr, 7, kDeep, o, 1 - o, false, o == 1, m[0], m[1], ms});
      }
    }
  }
  printf("  avx512vnni dot family: %d cases, %d failed\n", cases, failures);
  return failures;
}

}  // namespace gemmkit::isa_avx512vnni
