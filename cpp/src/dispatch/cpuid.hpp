// L7 dispatch: CPUID and XGETBV, the one wrapper over each compiler's way to
// ask an x86 CPU (<cpuid.h> for GCC and Clang, <intrin.h> for MSVC and
// clang-cl); isa.cpp (features) and cache/cache_info.cpp (cache sizes) read
// the CPU through it alone.  Baseline code: no ISA flags needed.
#pragma once

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#define GEMMKIT_X86 1
#else
#define GEMMKIT_X86 0
#endif

#if GEMMKIT_X86
#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#endif

namespace gemmkit::cpu {

struct CpuidRegs {
  unsigned eax, ebx, ecx, edx;
};

// CPUID leaf `leaf`, subleaf `sub`.  False (and *out untouched) when the CPU
// has no such leaf: `leaf` is above the highest leaf of its range (basic, or
// extended from 0x80000000), as __get_cpuid_count decides.
inline bool cpuid(unsigned leaf, unsigned sub, CpuidRegs* out) {
#if defined(_MSC_VER)
  int r[4];
  __cpuid(r, static_cast<int>(leaf & 0x80000000u));
  if (static_cast<unsigned>(r[0]) < leaf) return false;
  __cpuidex(r, static_cast<int>(leaf), static_cast<int>(sub));
  *out = {static_cast<unsigned>(r[0]), static_cast<unsigned>(r[1]),
          static_cast<unsigned>(r[2]), static_cast<unsigned>(r[3])};
  return true;
#else
  CpuidRegs r;
  if (!__get_cpuid_count(leaf, sub, &r.eax, &r.ebx, &r.ecx, &r.edx)) return false;
  *out = r;
  return true;
#endif
}

// XCR0, the register state the OS saves: call only when CPUID.1:ECX.OSXSAVE
// is set (XGETBV faults otherwise).
inline unsigned long long xgetbv0() {
#if defined(_MSC_VER)
  return _xgetbv(0);
#else
  unsigned eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
#endif
}

}  // namespace gemmkit::cpu
#endif  // GEMMKIT_X86
