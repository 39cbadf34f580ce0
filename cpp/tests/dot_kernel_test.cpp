// Kernel family test driver: packs and accumulates the int8 VNNI family
// (cpp/src/kernel/dot_vnni.hpp) and the bf16 family (dot_bf16.hpp) against
// exact references, and checks the avx512f tiles' hand-scheduled depth
// loops (pipelined_avx512.hpp) against the generic one, one ISA per run.
//
// Baseline translation unit: compiled without ISA flags, it only detects CPU
// features and calls into the per-ISA units (cpp/tests/dot/<isa>.cpp).
// Usage: gemmkit_dot_kernel_test avx512f|avx512vnni|avx512bf16
// Exit codes: 0 passed, 1 failed, 2 usage or crash, 77 skipped (this build
// did not compile the ISA, or this CPU cannot run it; the reason is printed).
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <initializer_list>

#if defined(GEMMKIT_HAVE_AVX512F)
namespace gemmkit::isa_avx512f {
int run_dot_kernel_tests();
}
#endif
#if defined(GEMMKIT_HAVE_AVX512VNNI)
namespace gemmkit::isa_avx512vnni {
int run_dot_kernel_tests();
}
#endif
#if defined(GEMMKIT_HAVE_AVX512BF16)
namespace gemmkit::isa_avx512bf16 {
int run_dot_kernel_tests();
}
#endif

namespace {

struct Unit {
  const char* isa;
  const char* needs;  // what the CPU must report
  int (*run)();       // nullptr: not compiled in this build
  bool (*cpu_has)();
};

#if defined(__x86_64__) || defined(__i386__)
// __builtin_cpu_supports also checks that the OS enabled the AVX-512
// register state (XGETBV), like gemmkit's own dispatch.
bool has_avx512f() { return __builtin_cpu_supports("avx512f"); }
bool has_avx512vnni() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}
bool has_avx512bf16() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512bf16");
}
#else
bool has_avx512f() { return false; }
bool has_avx512vnni() { return false; }
bool has_avx512bf16() { return false; }
#endif

const Unit kUnits[] = {
    {"avx512f", "avx512f",
#if defined(GEMMKIT_HAVE_AVX512F)
     gemmkit::isa_avx512f::run_dot_kernel_tests,
#else
     nullptr,
#endif
     has_avx512f},
    {"avx512vnni", "avx512f+avx512bw+avx512vnni",
#if defined(GEMMKIT_HAVE_AVX512VNNI)
     gemmkit::isa_avx512vnni::run_dot_kernel_tests,
#else
     nullptr,
#endif
     has_avx512vnni},
    {"avx512bf16", "avx512f+avx512bw+avx512bf16",
#if defined(GEMMKIT_HAVE_AVX512BF16)
     gemmkit::isa_avx512bf16::run_dot_kernel_tests,
#else
     nullptr,
#endif
     has_avx512bf16},
};

extern "C" void on_fatal_signal(int sig) {
  // Only async-signal-safe calls here.
  const char* what = sig == SIGSEGV || sig == SIGBUS
                         ? "dot_kernel_test: crashed on a memory access (a packer or "
                           "kernel reading past its source hits the guard page)\n"
                         : "dot_kernel_test: crashed (illegal instruction or other "
                           "fatal signal)\n";
  ssize_t ignored = write(2, what, strlen(what));
  (void)ignored;
  _exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s avx512f|avx512vnni|avx512bf16\n", argv[0]);
    return 2;
  }
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
#endif
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) signal(sig, on_fatal_signal);
  for (const Unit& unit : kUnits) {
    if (strcmp(argv[1], unit.isa) != 0) continue;
    if (unit.run == nullptr) {
      printf("%s: skipped (this build did not compile the %s kernels)\n", unit.isa, unit.isa);
      return 77;
    }
    if (!unit.cpu_has()) {
      printf("%s: skipped (this CPU lacks %s)\n", unit.isa, unit.needs);
      return 77;
    }
    fflush(stdout);
    const int failures = unit.run();
    printf("%s: %s\n", unit.isa, failures == 0 ? "passed" : "FAILED");
    return failures == 0 ? 0 : 1;
  }
  fprintf(stderr, "%s: unknown ISA '%s' (expected avx512f, avx512vnni or avx512bf16)\n", argv[0],
          argv[1]);
  return 2;
}
