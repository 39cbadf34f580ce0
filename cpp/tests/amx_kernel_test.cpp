// AMX kernel family test driver: packs and accumulates the AMX tile families
// (cpp/src/kernel/amx.hpp: bf16 tdpbf16ps, int8 tdpbssd) against exact
// references.
//
// Baseline translation unit: compiled without ISA flags, it only detects the
// CPU features, asks Linux for the AMX tile state (arch_prctl, as dispatch
// does before it selects amx) and calls into the amx unit
// (cpp/tests/amx/amx.cpp).
// Usage: gemmkit_amx_kernel_test
// Exit codes: 0 passed, 1 failed, 2 usage or crash, 77 skipped (this build
// did not compile the amx kernels, this CPU lacks AMX, or the kernel refused
// the tile state; the reason is printed).
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <initializer_list>

#if defined(__linux__)
#include <sys/syscall.h>
#endif

#if defined(GEMMKIT_HAVE_AMX)
namespace gemmkit::isa_amx {
int run_amx_kernel_tests();
}
#endif

namespace {

// (Unused, hence [[maybe_unused]], in a build without the amx kernels.)
#if defined(__x86_64__)
// CPUID features, and XCR0 bits 17 (XTILECFG) and 18 (XTILEDATA): the OS
// must manage the tile state for the instructions to be usable.
// __builtin_cpu_supports checks the AVX-512 register state the same way.
[[maybe_unused]] const char* missing_feature() {
  if (!__builtin_cpu_supports("avx512f")) return "avx512f";
  if (!__builtin_cpu_supports("avx512bw")) return "avx512bw";
  if (!__builtin_cpu_supports("amx-tile")) return "amx-tile";
  if (!__builtin_cpu_supports("amx-bf16")) return "amx-bf16";
  if (!__builtin_cpu_supports("amx-int8")) return "amx-int8";
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & (3u << 17)) != (3u << 17)) return "OS support for the AMX tile state (XCR0)";
  return nullptr;
}
#else
[[maybe_unused]] const char* missing_feature() { return "x86-64"; }
#endif

// Linux keeps the 8 KiB tile data out of a process's signal frames and
// context switches until the process asks for it (ARCH_REQ_XCOMP_PERM with
// XFEATURE_XTILEDATA); without that, the first tile instruction raises
// SIGILL.  Returns a reason when the request fails.
[[maybe_unused]] const char* request_tile_state() {
#if defined(__linux__) && defined(__x86_64__)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0)
    return "the kernel refused arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA) (Linux < 5.16?)";
  return nullptr;
#else
  return "AMX tile state is requested through Linux arch_prctl only";
#endif
}

extern "C" [[maybe_unused]] void on_fatal_signal(int sig) {
  // Only async-signal-safe calls here.
  const char* what = sig == SIGSEGV || sig == SIGBUS
                         ? "amx_kernel_test: crashed on a memory access (a packer "
                           "reading past its source hits the guard page)\n"
                         : "amx_kernel_test: crashed (illegal instruction, e.g. a tile "
                           "used unconfigured, or other fatal signal)\n";
  ssize_t ignored = write(2, what, strlen(what));
  (void)ignored;
  _exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 1) {
    fprintf(stderr, "usage: %s\n", argv[0]);
    return 2;
  }
#if !defined(GEMMKIT_HAVE_AMX)
  printf("amx: skipped (this build did not compile the amx kernels)\n");
  return 77;
#else
#if defined(__x86_64__)
  __builtin_cpu_init();
#endif
  if (const char* missing = missing_feature()) {
    printf("amx: skipped (this CPU lacks %s)\n", missing);
    return 77;
  }
  if (const char* why = request_tile_state()) {
    printf("amx: skipped (%s)\n", why);
    return 77;
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) signal(sig, on_fatal_signal);
  fflush(stdout);
  const int failures = gemmkit::isa_amx::run_amx_kernel_tests();
  printf("amx: %s\n", failures == 0 ? "passed" : "FAILED");
  return failures == 0 ? 0 : 1;
#endif
}
