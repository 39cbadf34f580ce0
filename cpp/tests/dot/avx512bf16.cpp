// Dot-kernel test, avx512bf16 unit: DotBf16Family (vdpbf16ps) packs exactly
// and accumulates within its rounding bound.  Compiled with the avx512bf16
// flags; run by cpp/tests/dot_kernel_test.cpp only on CPUs with AVX-512 BF16.
//
// For random shapes (every panel width, depths around the pair and block
// sizes, odd depths, all three source layouts, negative strides) it checks:
//   1. the packed elements against the documented layout (dot_bf16.hpp) and
//      that nothing outside the panel is written; sources end at a guard
//      page, so over-reads fault;
//   2. acc after accumulate against a float64 reference of the same bf16
//      inputs.  Each bf16 x bf16 product is exact in f32 and vdpbf16ps adds
//      two per lane per instruction, so acc has seen at most kc + 1 rounded
//      f32 additions, each off by at most 2^-24 of a partial sum no larger
//      than S = |seed| + sum |a b|: |acc - ref| <= (kc + 2) 2^-24 S;
//   3. small integers (and seeds) exactly: every partial sum is an integer
//      below 2^24, so no addition rounds.
// Padding rows and columns must leave the seed untouched, bit for bit.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/dot_bf16.hpp"
#include "dot_test-inl.hpp"

namespace gemmkit::isa_avx512bf16 {

namespace {

using dot_test::Panel;
using dot_test::Rng;
using dot_test::Source;
using Tok = Avx512Bf16;

int g_reported = 0;
constexpr int kMaxReports = 12;

template <class F>
__attribute__((noinline)) void run_tile(index_t kc, const bfloat16* a, const bfloat16* b,
                                        float* io) {
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

// Value modes: 0 random normal bf16 with magnitude in [2^-4, 2^3), 1 small
// integers in [-8, 8] (exactly representable), 2 like 0 with zeros mixed in.
uint16_t value(Rng& rng, int mode) {
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

struct Case {
  const char* cfg;
  index_t wa, wb, kc;
  int oa, ob;
  bool nega, negb;
  int mode;  // value mode of both operands; mode 1 also uses integer seeds
};

void report(const Case& c, const char* what) {
  if (++g_reported > kMaxReports) return;
  printf("  FAIL %s: %s (wa=%ld wb=%ld kc=%ld A %s%s B %s%s values %d)\n", c.cfg, what,
         long(c.wa), long(c.wb), long(c.kc), dot_test::orient_name(c.oa), c.nega ? " neg" : "",
         dot_test::orient_name(c.ob), c.negb ? " neg" : "", c.mode);
}

bool same_bits(float x, float y) { return memcmp(&x, &y, 4) == 0; }

template <class F>
int check_case(Rng& rng, const Case& c) {
  constexpr int kMr = F::kMr, kNr = F::kNr;
  const index_t kc = c.kc;
  uint16_t* av = static_cast<uint16_t*>(malloc(sizeof(uint16_t) * size_t(c.wa * kc)));
  uint16_t* bv = static_cast<uint16_t*>(malloc(sizeof(uint16_t) * size_t(c.wb * kc)));
  float* io = static_cast<float*>(malloc(sizeof(float) * kMr * kNr));
  float* seeds = static_cast<float*>(malloc(sizeof(float) * kMr * kNr));
  int failed = 0;
  for (index_t k = 0; k < c.wa * kc; ++k) av[k] = value(rng, c.mode);
  for (index_t k = 0; k < c.wb * kc; ++k) bv[k] = value(rng, c.mode);
  for (int k = 0; k < kMr * kNr; ++k) {
    // Integer seeds in [-1024, 1024] (never -0) or random ones in +-[1, 64).
    seeds[k] = io[k] = c.mode == 1 ? float(rng.range(-1024, 1024))
                                   : float(rng.range(-63, 63)) + float(rng.range(1, 255)) / 256.0f;
  }

  Source<bfloat16> sa, sb;
  Panel pa, pb;
  // bfloat16 is {uint16_t bits}: place the bit patterns.
  if (!sa.place(rng, reinterpret_cast<const bfloat16*>(av), c.wa, kc, c.oa, c.nega) ||
      !sb.place(rng, reinterpret_cast<const bfloat16*>(bv), c.wb, kc, c.ob, c.negb) ||
      !pa.alloc(2 * size_t(F::a_panel_size(kc))) || !pb.alloc(2 * size_t(F::b_panel_size(kc)))) {
    report(c, "out of memory");
    failed = 1;
  } else {
    bfloat16* a = reinterpret_cast<bfloat16*>(pa.data());
    bfloat16* b = reinterpret_cast<bfloat16*>(pb.data());
    F::pack_a(kc, c.wa, sa.base, sa.rs, sa.cs, a);
    F::pack_b(kc, c.wb, sb.base, sb.rs, sb.cs, b);
    if (!pa.canaries_intact() || !pb.canaries_intact()) {
      report(c, "pack wrote outside its panel");
      failed = 1;
    }
    // 1. The layout, element by element.
    const index_t groups = (kc + 1) / 2;
    for (index_t g = 0; g < groups && !failed; ++g) {
      for (index_t t = 0; t < 2 && !failed; ++t) {
        const index_t p = 2 * g + t;
        for (index_t i = 0; i < kMr; ++i) {
          const uint16_t x = i < c.wa && p < kc ? av[i * kc + p] : 0;
          if (a[(g * kMr + i) * 2 + t].bits != x) {
            report(c, "packed A element differs from the layout");
            failed = 1;
            break;
          }
        }
        for (index_t j = 0; j < kNr && !failed; ++j) {
          const uint16_t y = j < c.wb && p < kc ? bv[j * kc + p] : 0;
          if (b[(g * kNr + j) * 2 + t].bits != y) {
            report(c, "packed B element differs from the layout");
            failed = 1;
          }
        }
      }
    }
    // 2./3. The tile.
    if (!failed) {
      run_tile<F>(kc, a, b, io);
      for (index_t j = 0; j < kNr && !failed; ++j) {
        for (index_t i = 0; i < kMr; ++i) {
          const float s = seeds[j * kMr + i];
          const float got = io[j * kMr + i];
          char msg[200];
          if (i >= c.wa || j >= c.wb) {
            if (!same_bits(got, s)) {
              snprintf(msg, sizeof msg, "padding acc(%ld,%ld) = %a, want the seed %a", long(i),
                       long(j), double(got), double(s));
              report(c, msg);
              failed = 1;
              break;
            }
            continue;
          }
          double ref = s, mag = s < 0 ? -double(s) : double(s);
          for (index_t p = 0; p < kc; ++p) {
            const double prod =
                double(bf16_to_float(av[i * kc + p])) * double(bf16_to_float(bv[j * kc + p]));
            ref += prod;
            mag += prod < 0 ? -prod : prod;
          }
          const double tol = c.mode == 1 ? 0.0 : double(kc + 2) * 0x1p-24 * mag;
          const double err = double(got) - ref;
          if (!(err <= tol && -err <= tol)) {
            snprintf(msg, sizeof msg, "acc(%ld,%ld) = %.9g, want %.9g (error %.3g > tol %.3g)",
                     long(i), long(j), double(got), ref, err < 0 ? -err : err, tol);
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
  for (index_t kc : kDepths)
    for (int oa = 0; oa < 3; ++oa)
      for (int ob = 0; ob < 3; ++ob)
        for (int neg = 0; neg < 2; ++neg)
          one({cfg, width(kMr), width(kNr), kc, oa, ob, neg != 0, neg != 0,
               int(rng.range(0, 2))});
  for (int o = 0; o < 3; ++o) {
    for (index_t w = 1; w <= kMr; ++w)
      one({cfg, w, kNr, rng.range(0, 1) ? 17 : 5, o, int(rng.range(0, 2)), o == 1, false,
           int(rng.range(0, 2))});
    for (index_t w = 1; w <= kNr; ++w)
      one({cfg, kMr, w, rng.range(0, 1) ? 17 : 5, int(rng.range(0, 2)), o, false, o == 1,
           int(rng.range(0, 2))});
  }
  // Long depths, exact on integers.
  static const index_t kLong[] = {1023, 1024};
  for (index_t kc : kLong)
    one({cfg, kMr, kNr, kc, int(rng.range(0, 2)), int(rng.range(0, 2)), false, false, 1});
}

}  // namespace

int run_dot_kernel_tests() {
  Rng rng{0x5eed0002u};
  int cases = 0, failures = 0;
  using kernel::DotBf16Family;
  run_config<DotBf16Family<Tok, 2, 12>>(rng, "bf16 32x12", cases, failures);
  run_config<DotBf16Family<Tok, 2, 8>>(rng, "bf16 32x8", cases, failures);
  run_config<DotBf16Family<Tok, 1, 8>>(rng, "bf16 16x8", cases, failures);
  run_config<DotBf16Family<Tok, 1, 16>>(rng, "bf16 16x16", cases, failures);
  printf("  avx512bf16 dot family: %d cases, %d failed\n", cases, failures);
  return failures;
}

}  // namespace gemmkit::isa_avx512bf16
