// int8 "i16 pair" dot family test driver (cpp/src/kernel/dot_pair_i8.hpp):
// packs and accumulates against exact references and the widening kernel,
// one ISA per run.  The checks live in cpp/tests/dot_pair_i8/.
//
// Natively (ctest dot_pair_i8_fma): a baseline translation unit, compiled
// without ISA flags, that detects AVX2 + FMA and calls the fma unit.
// Exit codes: 0 passed, 1 failed, 2 crash, 77 skipped (this build did not
// compile the fma kernels, or this CPU cannot run them; the reason is
// printed).
//
// In wasm32 (the simd128 unit), this file and dot_pair_i8/simd128.cpp form
// one WASI command module, built with the flags of the simd128 target units
// and run in node:
//   python cpp/tests/dot_pair_i8/run_wasm.py
// (it prints the clang and node commands it runs).
#include <stdio.h>
#include <string.h>

#if defined(__wasm__)

namespace gemmkit::isa_simd128 {
int run_pair_i8_tests();
}

int main() {
  const int failures = gemmkit::isa_simd128::run_pair_i8_tests();
  printf("simd128: %s\n", failures == 0 ? "passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}

#else  // native

#include <signal.h>
#include <unistd.h>

#include <initializer_list>

#if defined(GEMMKIT_HAVE_FMA)
namespace gemmkit::isa_fma {
int run_pair_i8_tests();
}
#endif

namespace {

extern "C" void on_fatal_signal(int sig) {
  // Only async-signal-safe calls here.
  const char* what = sig == SIGSEGV || sig == SIGBUS
                         ? "dot_pair_i8_test: crashed on a memory access (a packer "
                           "reading past its source hits the guard page)\n"
                         : "dot_pair_i8_test: crashed (illegal instruction or other "
                           "fatal signal)\n";
  ssize_t ignored = write(2, what, strlen(what));
  (void)ignored;
  _exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || strcmp(argv[1], "fma") != 0) {
    fprintf(stderr, "usage: %s fma\n", argv[0]);
    return 2;
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) signal(sig, on_fatal_signal);
#if defined(GEMMKIT_HAVE_FMA)
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  // __builtin_cpu_supports also checks that the OS enabled the AVX register
  // state (XGETBV), like gemmkit's own dispatch.
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
      !__builtin_cpu_supports("f16c")) {
    printf("fma: skipped (this CPU lacks avx2+fma+f16c)\n");
    return 77;
  }
#endif
  fflush(stdout);
  const int failures = gemmkit::isa_fma::run_pair_i8_tests();
  printf("fma: %s\n", failures == 0 ? "passed" : "FAILED");
  return failures == 0 ? 0 : 1;
#else
  printf("fma: skipped (this build did not compile the fma kernels)\n");
  return 77;
#endif
}

#endif  // native
