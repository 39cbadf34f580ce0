// L0 conformance test driver: runs the SimdOps conformance of every ISA unit
// this build compiled (GEMMKIT_HAVE_<ISA>) that this CPU can run.
//
// Baseline translation unit: compiled without ISA flags, it only detects CPU
// features and calls into the per-ISA units (cpp/tests/conformance/<isa>.cpp).
// Prints one line per ISA and a last line "N passed, N failed"; exits
// non-zero on any failure.  A partial load/store that touches memory past n
// faults on a guard page; the handler below names the ISA that crashed.
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <initializer_list>

namespace gemmkit::isa_scalar {
int run_conformance();
}
#if defined(GEMMKIT_HAVE_FMA)
namespace gemmkit::isa_fma {
int run_conformance();
}
#endif
#if defined(GEMMKIT_HAVE_AVX512F)
namespace gemmkit::isa_avx512f {
int run_conformance();
}
#endif
#if defined(GEMMKIT_HAVE_AVX512DQ)
namespace gemmkit::isa_avx512dq {
int run_conformance();
}
#endif
#if defined(GEMMKIT_HAVE_AVX512VNNI)
namespace gemmkit::isa_avx512vnni {
int run_conformance();
}
#endif
#if defined(GEMMKIT_HAVE_AVX512BF16)
namespace gemmkit::isa_avx512bf16 {
int run_conformance();
}
#endif
#if defined(GEMMKIT_HAVE_NEON)
namespace gemmkit::isa_neon {
int run_conformance();
}
#endif

namespace {

struct IsaUnit {
  const char* name;
  int (*run)();
  bool (*cpu_has)();
  const char* needs;  // what the CPU must report, for the "skipped" line
};

bool always() { return true; }

#if defined(__x86_64__) || defined(__i386__)
// __builtin_cpu_supports also checks that the OS enabled the AVX/AVX-512
// register state (XGETBV), like gemmkit's own dispatch.  A build with some
// ISAs switched off leaves their probes unused.
[[maybe_unused]] bool has_fma() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
[[maybe_unused]] bool has_avx512f() { return __builtin_cpu_supports("avx512f"); }
[[maybe_unused]] bool has_avx512dq() {
  return has_avx512f() && __builtin_cpu_supports("avx512dq");
}
[[maybe_unused]] bool has_avx512vnni() {
  return has_avx512f() && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}
[[maybe_unused]] bool has_avx512bf16() {
  return has_avx512f() && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512bf16");
}
#endif

const IsaUnit kUnits[] = {
    {"scalar", gemmkit::isa_scalar::run_conformance, always, ""},
#if defined(GEMMKIT_HAVE_FMA)
    {"fma", gemmkit::isa_fma::run_conformance, has_fma, "avx2+fma"},
#endif
#if defined(GEMMKIT_HAVE_AVX512F)
    {"avx512f", gemmkit::isa_avx512f::run_conformance, has_avx512f, "avx512f"},
#endif
#if defined(GEMMKIT_HAVE_AVX512DQ)
    {"avx512dq", gemmkit::isa_avx512dq::run_conformance, has_avx512dq, "avx512f+avx512dq"},
#endif
#if defined(GEMMKIT_HAVE_AVX512VNNI)
    {"avx512vnni", gemmkit::isa_avx512vnni::run_conformance, has_avx512vnni,
     "avx512f+avx512bw+avx512vnni"},
#endif
#if defined(GEMMKIT_HAVE_AVX512BF16)
    {"avx512bf16", gemmkit::isa_avx512bf16::run_conformance, has_avx512bf16,
     "avx512f+avx512bw+avx512bf16"},
#endif
#if defined(GEMMKIT_HAVE_NEON)
    {"neon", gemmkit::isa_neon::run_conformance, always, ""},
#endif
};

const char* volatile g_running = "(none)";

extern "C" void on_fatal_signal(int sig) {
  // Only async-signal-safe calls here.
  const char* what = sig == SIGSEGV || sig == SIGBUS
                         ? ": crashed on a memory access (a partial load/store "
                           "touching elements past n hits the guard page)\n"
                         : ": crashed (illegal instruction or other fatal signal)\n";
  const char* isa = g_running;
  ssize_t ignored = write(2, isa, strlen(isa));
  ignored = write(2, what, strlen(what));
  (void)ignored;
  _exit(2);
}

}  // namespace

int main() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
#endif
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE}) signal(sig, on_fatal_signal);

  int passed = 0, failed = 0;
  for (const IsaUnit& unit : kUnits) {
    if (!unit.cpu_has()) {
      printf("%s: skipped (this CPU lacks %s)\n", unit.name, unit.needs);
      continue;
    }
    g_running = unit.name;
    fflush(stdout);
    int failures = unit.run();
    if (failures == 0) {
      ++passed;
      printf("%s: passed\n", unit.name);
    } else {
      ++failed;
      printf("%s: FAILED (%d failures)\n", unit.name, failures);
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
