// Benchmark helper (not a test): the AMX bfloat16 tile loop of
// cpp/src/kernel/amx.hpp (AmxBf16Family<Amx, 2, 32>::accumulate_into, the
// entry the driver's direct mode calls) fed from each level of the memory
// hierarchy and under two loop nests, against this core's tdpbf16ps peak.
// Single thread; operands are already in the packed layouts (no packing is
// timed), so every row is an upper bound for the whole product.
//
//   peak    4 independent C tiles, operand tiles never reloaded
//   l1      one A panel and one B panel of depth 256 (16 KiB each), again
//           and again: the tile loop's own ceiling
//   l2      one B panel (L1) against the A panels of an mc x kc block (L2)
//   square  an n^3 product, C (float32) in memory, operands prepacked:
//             driver order  jc -> pc -> ic -> jr -> ir, C tiles resumed
//                           from C after the first slice (today's driver);
//                           then the same with every tile summed in one
//                           32x32 tile kept in L1 (what C's traffic
//                           costs), and with C laid out tile by tile, each
//                           4 KiB contiguous (what C's strided rows cost)
//             C-block order jc -> ic -> pc -> jr -> ir, the mc x nc block of
//                           C summed in a contiguous scratch kept in L2
//                           across the slices, copied to C at the end
//
// Built with the C++ tests (cmake --preset cpp-tests; cmake --build
// build/cpp-tests), as build/cpp-tests/cpp/tests/gemmkit_amx_loop_probe
// (linked with the library, whose cache sizes the tile loop reads).
// Run (a CPU with AMX):  ./gemmkit_amx_loop_probe [SECONDS_PER_POINT]   (default 0.3)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_timing.hpp"
#include "kernel/amx.hpp"

namespace {

using gemmkit::index_t;
using Family = gemmkit::kernel::AmxBf16Family<gemmkit::isa_amx::Amx, 2, 32>;
constexpr index_t kTile = 32;  // kMr = NR = 32

using bench_timing::time_per_call;

// n bfloat16 values of moderate size (exponents 120..127), 64-byte aligned.
uint16_t* bf16_values(size_t n, uint32_t salt) {
  uint16_t* p = static_cast<uint16_t*>(aligned_alloc(64, (n * 2 + 63) / 64 * 64));
  uint32_t x = salt * 2654435761u + 1;
  for (size_t k = 0; k < n; ++k) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[k] = uint16_t((x & 0x807F) | ((120 + (x >> 8) % 8) << 7));
  }
  return p;
}

float* floats(size_t n) {
  float* p = static_cast<float*>(aligned_alloc(64, (n * 4 + 63) / 64 * 64));
  memset(p, 0, n * 4);
  return p;
}

const gemmkit::bfloat16* as_bf16(const uint16_t* p) {
  return reinterpret_cast<const gemmkit::bfloat16*>(p);
}

void peak_loop(long n) {
  gemmkit::kernel::amx_detail::ensure_tile_config();
  _tile_zero(4);
  _tile_zero(6);
  __asm__ volatile(
      "1:\n\t"
      "tdpbf16ps %%tmm6, %%tmm4, %%tmm0\n\t"
      "tdpbf16ps %%tmm6, %%tmm4, %%tmm1\n\t"
      "tdpbf16ps %%tmm6, %%tmm4, %%tmm2\n\t"
      "tdpbf16ps %%tmm6, %%tmm4, %%tmm3\n\t"
      "dec %0\n\tjnz 1b\n\t"
      : "+r"(n)
      :
      : "cc");
}

void report(const char* what, double flops, double seconds, double peak) {
  const double rate = flops / seconds * 1e-9;
  printf("%-44s %7.0f GFLOP/s  %5.1f%% of peak\n", what, rate, 100 * rate / peak);
}

// An n^3 product over prepacked operands (slices of kc, panels end to end,
// as prepack() lays out an A), C float32 column-major in the kernel frame.
struct Square {
  index_t n, kc;
  uint16_t *a, *b;
  float *c, *scratch;

  const gemmkit::bfloat16* a_panel(index_t pc, index_t i) const {
    return as_bf16(a + pc * n + i * kc);
  }
  const gemmkit::bfloat16* b_panel(index_t pc, index_t j) const {
    return as_bf16(b + pc * n + j * kc);
  }

  // Where tile (i, j) of C lies, and its leading dimension.
  enum class CLayout { kColumnMajor, kOneTile, kTileByTile };

  void driver_order(index_t mc, index_t nc, CLayout layout = CLayout::kColumnMajor) const {
    for (index_t jc = 0; jc < n; jc += nc)
      for (index_t pc = 0; pc < n; pc += kc)
        for (index_t ic = 0; ic < n; ic += mc)
          for (index_t j = jc; j < jc + nc; j += kTile)
            for (index_t i = ic; i < ic + mc; i += kTile) {
              float* tile = layout == CLayout::kColumnMajor ? c + i + j * n
                            : layout == CLayout::kOneTile
                                ? scratch
                                : c + (j / kTile * (n / kTile) + i / kTile) * kTile * kTile;
              const index_t ld = layout == CLayout::kColumnMajor ? n : kTile;
              Family::accumulate_into(kc, a_panel(pc, i), b_panel(pc, j), tile, ld, pc > 0);
            }
  }

  void c_block_order(index_t mc, index_t nc) const {
    for (index_t jc = 0; jc < n; jc += nc)
      for (index_t ic = 0; ic < n; ic += mc) {
        for (index_t pc = 0; pc < n; pc += kc)
          for (index_t j = 0; j < nc; j += kTile)
            for (index_t i = 0; i < mc; i += kTile)
              Family::accumulate_into(kc, a_panel(pc, ic + i), b_panel(pc, jc + j),
                                      scratch + (j / kTile * (mc / kTile) + i / kTile) * 1024,
                                      kTile, pc > 0);
        for (index_t j = 0; j < nc; ++j)
          for (index_t i = 0; i < mc; i += kTile)
            memcpy(c + ic + i + (jc + j) * n,
                   scratch + (j / kTile * (mc / kTile) + i / kTile) * 1024 + j % kTile * kTile,
                   kTile * 4);
      }
  }
};

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 0.3;
  // ARCH_REQ_XCOMP_PERM (0x1023) for XFEATURE_XTILEDATA (18).
  if (syscall(SYS_arch_prctl, 0x1023, 18) != 0) {
    printf("the kernel refused AMX tile data to this process\n");
    return 1;
  }
  const double peak_t = time_per_call(seconds, [] { peak_loop(1 << 16); });
  const double peak = 4.0 * 16 * 16 * 32 * 2 * (1 << 16) / peak_t * 1e-9;
  printf("%-44s %7.0f GFLOP/s\n", "peak tdpbf16ps", peak);

  const double tile_flops = 2.0 * kTile * kTile;
  {
    const index_t kc = 256;
    uint16_t* a = bf16_values(size_t(Family::a_panel_size(kc)), 1);
    uint16_t* b = bf16_values(size_t(Family::b_panel_size(kc)), 2);
    float* c = floats(kTile * kTile);
    const double t = time_per_call(seconds, [&] {
      for (int r = 0; r < 64; ++r) Family::accumulate_into(kc, as_bf16(a), as_bf16(b), c, kTile, false);
    });
    report("l1: kc 256, both panels in L1", 64 * tile_flops * double(kc), t, peak);
    free(a);
    free(b);
    free(c);
  }
  for (index_t kc : {256, 512, 1024})
    for (index_t mc : {256, 512, 1024}) {
      uint16_t* a = bf16_values(size_t(mc / kTile * Family::a_panel_size(kc)), 3);
      uint16_t* b = bf16_values(size_t(Family::b_panel_size(kc)), 4);
      float* c = floats(kTile * kTile);
      const double t = time_per_call(seconds, [&] {
        for (index_t i = 0; i < mc; i += kTile)
          Family::accumulate_into(kc, as_bf16(a + i * kc), as_bf16(b), c, kTile, false);
      });
      char what[128];
      snprintf(what, sizeof what, "l2: kc %ld, A block %ld x kc (%ld KiB)", long(kc), long(mc),
               long(mc * kc * 2 / 1024));
      report(what, tile_flops * double(mc) / kTile * double(kc), t, peak);
      free(a);
      free(b);
      free(c);
    }
  for (index_t n : {256, 512, 1024, 2048}) {
    Square s{n, 0, bf16_values(size_t(n * n), 5), bf16_values(size_t(n * n), 6),
             floats(size_t(n * n)), nullptr};
    const double flops = 2.0 * double(n) * double(n) * double(n);
    struct Point {
      bool c_block;
      index_t kc, mc, nc;
    };
    for (const Point& p : {Point{false, 1024, 512, 2048}, Point{false, 512, 512, 2048},
                           Point{false, 1024, 256, 1024}, Point{true, 256, 512, 256},
                           Point{true, 256, 512, 512}, Point{true, 512, 512, 256}}) {
      s.kc = p.kc < n ? p.kc : n;
      const index_t mc = p.mc < n ? p.mc : n, nc = p.nc < n ? p.nc : n;
      s.scratch = floats(size_t(mc * nc));
      const double t = time_per_call(seconds, [&] {
        if (p.c_block) s.c_block_order(mc, nc);
        else s.driver_order(mc, nc);
      });
      char what[128];
      snprintf(what, sizeof what, "square %ld, %s kc %ld mc %ld nc %ld", long(n),
               p.c_block ? "C-block" : "driver ", long(s.kc), long(mc), long(nc));
      report(what, flops, t, peak);
      if (!p.c_block) {
        using L = Square::CLayout;
        report("  same, C one tile in L1", flops,
               time_per_call(seconds, [&] { s.driver_order(mc, nc, L::kOneTile); }), peak);
        report("  same, C tile by tile", flops,
               time_per_call(seconds, [&] { s.driver_order(mc, nc, L::kTileByTile); }), peak);
      }
      free(s.scratch);
    }
    free(s.a);
    free(s.b);
    free(s.c);
  }
  return 0;
}
