// Benchmark helper (not a test): the dot kernel families of
// cpp/src/kernel/dot_vnni.hpp (int8, vpdpbusd) and dot_bf16.hpp (bf16,
// vdpbf16ps) against this core's instruction peaks, and their packers'
// speed.  Single thread.
//
//   peak     24 independent accumulator chains of one instruction (inline
//            asm, so nothing is merged or dropped): vfmadd231ps, vpdpbusd,
//            vdpbf16ps, in GFLOP/s (GOP/s for int8; 2 per multiply-add)
//   kernel   the 32x12 microkernel as the driver runs it: one packed B
//            panel (L1) against the 8 packed A panels of a 256 x kc block
//            (L2), zeroed accumulators, tile stored to a column-major C
//   pack     pack_a of a 256 x kc block and pack_b of a kc x 240 block from
//            each source layout, in GB/s of source bytes, and the packing
//            time as a share of the kernel time for a 256 x 240 x kc tile
//            (one A block, one B block: the worst case, no reuse)
//
// Build (x86-64 with AVX-512 VNNI and BF16):
//   g++ -O3 -std=c++20 -mavx512f -mavx512bw -mavx512vnni -mavx512bf16
//       -Icpp/src -Icpp/include benchmarks/native/dot_kernel_peak.cpp
//       -o dot_kernel_peak        (one command line)
// Run:  ./dot_kernel_peak [SECONDS_PER_POINT]   (default 0.3)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_timing.hpp"
#include "kernel/dot_bf16.hpp"
#include "kernel/dot_vnni.hpp"

namespace {

using gemmkit::index_t;
using Vnni = gemmkit::kernel::DotVnniFamily<gemmkit::isa_avx512vnni::Avx512Vnni, 2, 12>;
using Bf16 = gemmkit::kernel::DotBf16Family<gemmkit::isa_avx512bf16::Avx512Bf16, 2, 12>;

using bench_timing::time_per_rep;

#define Z(op, i) op " %%zmm31, %%zmm30, %%zmm" #i "\n\t"
#define Z24(op)                                                                           \
  Z(op, 0) Z(op, 1) Z(op, 2) Z(op, 3) Z(op, 4) Z(op, 5) Z(op, 6) Z(op, 7) Z(op, 8) Z(op, 9) \
  Z(op, 10) Z(op, 11) Z(op, 12) Z(op, 13) Z(op, 14) Z(op, 15) Z(op, 16) Z(op, 17)          \
  Z(op, 18) Z(op, 19) Z(op, 20) Z(op, 21) Z(op, 22) Z(op, 23)
#define ZCLOB                                                                               \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",  \
      "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",      \
      "xmm20", "xmm21", "xmm22", "xmm23", "xmm30", "xmm31", "cc"
// Zeroed sources: every result stays zero, so no denormal or overflow
// slows a lane down.
#define PEAK_LOOP(name, op)                                                            \
  void name(long n) {                                                                  \
    __asm__ volatile("vpxord %%zmm30, %%zmm30, %%zmm30\n\t"                            \
                     "vpxord %%zmm31, %%zmm31, %%zmm31\n\t"                            \
                     "1:\n\t" Z24(op) "dec %0\n\tjnz 1b\n\t"                           \
                     : "+r"(n) : : ZCLOB);                                              \
  }
PEAK_LOOP(peak_fma, "vfmadd231ps")
PEAK_LOOP(peak_vnni, "vpdpbusd")
PEAK_LOOP(peak_bf16, "vdpbf16ps")

template <class F>
__attribute__((noinline)) void tile(index_t kc, const typename F::PA* a,
                                    const typename F::PB* b, typename F::A* c, index_t ldc) {
  typename F::Reg acc[F::kNr][F::kMrReg];
  for (int j = 0; j < F::kNr; ++j)
    for (int r = 0; r < F::kMrReg; ++r) acc[j][r] = F::Ops::zero();
  F::accumulate(kc, a, b, acc);
  for (int j = 0; j < F::kNr; ++j)
    for (int r = 0; r < F::kMrReg; ++r) F::Ops::storeu(c + j * ldc + r * 16, acc[j][r]);
}

// n elements of T, 64-byte aligned (aligned_alloc wants a multiple of 64).
template <class T>
T* alloc64(size_t n) {
  return static_cast<T*>(aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64));
}

template <class T>
T* filled(size_t n, uint32_t salt) {
  T* p = alloc64<T>(n);
  unsigned char* bytes = reinterpret_cast<unsigned char*>(p);
  uint32_t x = salt * 2654435761u + 1;
  for (size_t k = 0; k < n * sizeof(T); ++k) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    bytes[k] = static_cast<unsigned char>(x);
  }
  if constexpr (sizeof(T) == 2) {
    // bf16: keep values normal and moderate (exponent field 120..127).
    uint16_t* h = reinterpret_cast<uint16_t*>(p);
    for (size_t k = 0; k < n; ++k)
      h[k] = uint16_t((h[k] & 0x807F) | ((120 + (h[k] >> 7) % 8) << 7));
  }
  return p;
}

// Returns kernel seconds for one 256 x 12 x kc pass (8 tiles).
template <class F>
double kernel_point(const char* name, index_t kc, double seconds, double peak) {
  constexpr index_t kMc = 256;
  constexpr int kPanels = kMc / F::kMr;
  using PA = typename F::PA;
  using PB = typename F::PB;
  using L = typename F::L;
  L* asrc = filled<L>(size_t(kMc * kc), 1);
  L* bsrc = filled<L>(size_t(F::kNr * kc), 2);
  PA* a = alloc64<PA>(size_t(kPanels * F::a_panel_size(kc)));
  PB* b = alloc64<PB>(size_t(F::b_panel_size(kc)));
  for (int q = 0; q < kPanels; ++q)
    F::pack_a(kc, F::kMr, asrc + q * F::kMr, 1, kMc, a + q * F::a_panel_size(kc));
  F::pack_b(kc, F::kNr, bsrc, kc, 1, b);
  typename F::A* c = alloc64<typename F::A>(size_t(kMc * F::kNr));
  const double t = time_per_rep(seconds, [&](long reps) {
    for (long r = 0; r < reps; ++r)
      for (int q = 0; q < kPanels; ++q)
        tile<F>(kc, a + q * F::a_panel_size(kc), b, c + q * F::kMr, kMc);
  });
  const double ops = 2.0 * double(kMc) * F::kNr * double(kc);
  printf("kernel %-5s 32x12 kc=%-5ld %7.1f G%s/s  %5.1f%% of peak\n", name, long(kc),
         ops / t * 1e-9, sizeof(L) == 1 ? "OP" : "FLOP", 100.0 * ops / t * 1e-9 / peak);
  free(asrc);
  free(bsrc);
  free(a);
  free(b);
  free(c);
  return t;
}

// Packing speed for one kc; kernel_t is the kernel time for 256 x 12 x kc.
template <class F>
void pack_point(const char* name, index_t kc, double seconds, double kernel_t) {
  constexpr index_t kMc = 256, kNc = 240;
  using L = typename F::L;
  using PA = typename F::PA;
  using PB = typename F::PB;
  L* asrc = filled<L>(size_t(kMc * kc), 3);
  L* bsrc = filled<L>(size_t(kNc * kc), 4);
  const index_t pa = F::a_panel_size(kc), pb = F::b_panel_size(kc);
  PA* a = alloc64<PA>(size_t(kMc / F::kMr * pa));
  PB* b = alloc64<PB>(size_t(kNc / F::kNr * pb));
  // Kernel time for the whole 256 x 240 x kc tile: 20 B panels.
  const double kernel_tile = kernel_t * double(kNc / F::kNr);
  for (int orient = 0; orient < 2; ++orient) {
    // orient 0: A column-major (rs == 1), B row-major (rs == 1 along its
    // columns); orient 1: A row-major (cs == 1), B column-major (cs == 1).
    const double ta = time_per_rep(seconds, [&](long reps) {
      for (long r = 0; r < reps; ++r)
        for (index_t q = 0; q < kMc / F::kMr; ++q) {
          const L* s = orient == 0 ? asrc + q * F::kMr : asrc + q * F::kMr * kc;
          F::pack_a(kc, F::kMr, s, orient == 0 ? 1 : kc, orient == 0 ? kMc : 1, a + q * pa);
        }
    });
    const double tb = time_per_rep(seconds, [&](long reps) {
      for (long r = 0; r < reps; ++r)
        for (index_t q = 0; q < kNc / F::kNr; ++q) {
          const L* s = orient == 0 ? bsrc + q * F::kNr : bsrc + q * F::kNr * kc;
          F::pack_b(kc, F::kNr, s, orient == 0 ? 1 : kc, orient == 0 ? kNc : 1, b + q * pb);
        }
    });
    const double abytes = double(kMc * kc * index_t(sizeof(L)));
    const double bbytes = double(kNc * kc * index_t(sizeof(L)));
    printf("pack   %-5s kc=%-5ld %s  A %6.1f GB/s (%4.1f%% of tile)  "
           "B %6.1f GB/s (%4.1f%% of tile)\n",
           name, long(kc), orient == 0 ? "rs=1" : "cs=1", abytes / ta * 1e-9,
           100.0 * ta / kernel_tile, bbytes / tb * 1e-9, 100.0 * tb / kernel_tile);
  }
  free(asrc);
  free(bsrc);
  free(a);
  free(b);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 0.3;
  if (!__builtin_cpu_supports("avx512vnni") || !__builtin_cpu_supports("avx512bf16")) {
    printf("this CPU lacks avx512vnni or avx512bf16\n");
    return 77;
  }
  const double tf = time_per_rep(seconds, [](long reps) { peak_fma(reps * 1000); }) / 1000;
  const double tv = time_per_rep(seconds, [](long reps) { peak_vnni(reps * 1000); }) / 1000;
  const double tb = time_per_rep(seconds, [](long reps) { peak_bf16(reps * 1000); }) / 1000;
  const double fma = 24 * 32 / tf * 1e-9, vnni = 24 * 128 / tv * 1e-9, bf16 = 24 * 64 / tb * 1e-9;
  printf("peak   vfmadd231ps %7.1f GFLOP/s\n", fma);
  printf("peak   vpdpbusd    %7.1f GOP/s   (%.2fx the f32 FMA peak)\n", vnni, vnni / fma);
  printf("peak   vdpbf16ps   %7.1f GFLOP/s (%.2fx the f32 FMA peak)\n", bf16, bf16 / fma);
  static const index_t kDepths[] = {256, 512, 1024};
  for (index_t kc : kDepths) {
    const double t = kernel_point<Vnni>("int8", kc, seconds, vnni);
    pack_point<Vnni>("int8", kc, seconds, t);
  }
  for (index_t kc : kDepths) {
    const double t = kernel_point<Bf16>("bf16", kc, seconds, bf16);
    pack_point<Bf16>("bf16", kc, seconds, t);
  }
  return 0;
}
