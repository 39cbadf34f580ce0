// L7 dispatch: CPU feature detection and the GEMMKIT_REQUIRE_ISA pin.
//
// The pin never falls back: an unknown value, or an ISA this architecture,
// CPU, OS or build cannot run, is an error that names what is missing, so a
// CI job meant to test one kernel cannot silently test another.
#include "dispatch/isa.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
#include <sys/syscall.h>
#include <unistd.h>
#endif

#if defined(GEMMKIT_HAVE_SIMD128)
namespace gemmkit::isa_simd128 {
bool compiled_with_simd128();  // targets/simd128/self_check.cpp
}
#endif

namespace gemmkit::dispatch {

const char* isa_name(Isa isa) {
  switch (isa) {
#define GEMMKIT_ISA_CASE(name) \
  case Isa::name:              \
    return #name;
    GEMMKIT_FOR_EACH_ISA(GEMMKIT_ISA_CASE)
#undef GEMMKIT_ISA_CASE
    default:
      return "unknown";
  }
}

namespace {

#if defined(__x86_64__) || defined(__i386__)
unsigned long long xgetbv0() {
  unsigned eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}
#endif

CpuFeatures detect() {
  CpuFeatures f{};
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx)) {
    f.intel = ebx == 0x756e6547u && edx == 0x49656e69u && ecx == 0x6c65746eu;  // GenuineIntel
  }
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    const bool osxsave = ecx & (1u << 27);
    f.fma = ecx & (1u << 12);
    f.f16c = ecx & (1u << 29);
    if (osxsave) {
      const unsigned long long xcr0 = xgetbv0();
      f.os_avx = (xcr0 & 0x6) == 0x6;           // xmm + ymm
      f.os_avx512 = (xcr0 & 0xe6) == 0xe6;      // + opmask, zmm hi
      f.os_amx = (xcr0 & 0x60000) == 0x60000;   // XTILECFG + XTILEDATA
    }
  }
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    f.avx2 = ebx & (1u << 5);
    f.avx512f = ebx & (1u << 16);
    f.avx512dq = ebx & (1u << 17);
    f.avx512bw = ebx & (1u << 30);
    f.avx512vl = ebx & (1u << 31);
    f.avx512vnni = ecx & (1u << 11);
    f.avx512fp16 = edx & (1u << 23);
    f.amx_bf16 = edx & (1u << 22);
    f.amx_tile = edx & (1u << 24);
    f.amx_int8 = edx & (1u << 25);
    if (eax >= 1 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) {
      f.avx512bf16 = eax & (1u << 5);
    }
  }
#endif
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
  // Linux hands out the 8 KiB of tile data per process on request only.
  if (f.os_amx && f.amx_tile) {
    constexpr long kArchReqXcompPerm = 0x1023;
    constexpr long kXfeatureXtiledata = 18;
    f.os_amx = syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  } else {
    f.os_amx = false;
  }
#else
  f.os_amx = false;
#endif
#if defined(__aarch64__)
  f.neon = true;  // mandatory on aarch64
#endif
#if defined(GEMMKIT_HAVE_SIMD128)
  // Fixed at build time (the loaders probe the engine before instantiating):
  // asked of the simd128 TU itself, so a build whose flags lost -msimd128
  // reports false here and a simd128 pin refuses to run.
  f.simd128 = isa_simd128::compiled_with_simd128();
#endif
  return f;
}

const char* arch_name() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__i386__)
  return "x86";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__wasm32__)
  return "wasm32";
#else
  return "this architecture";
#endif
}

bool arch_has(Isa isa) {
  switch (isa) {
    case Isa::scalar:
      return true;
    case Isa::fma:
    case Isa::avx512f:
    case Isa::avx512vnni:
    case Isa::avx512bf16:
    case Isa::amx:
#if defined(__x86_64__) || defined(__i386__)
      return true;
#else
      return false;
#endif
    case Isa::neon:
#if defined(__aarch64__)
      return true;
#else
      return false;
#endif
    case Isa::simd128:
#if defined(__wasm32__)
      return true;
#else
      return false;
#endif
    default:
      return false;
  }
}

const char* arch_of(Isa isa) {
  switch (isa) {
    case Isa::neon:
      return "aarch64";
    case Isa::simd128:
      return "wasm32";
    default:
      return "x86_64";
  }
}

// Appends the names of the features `isa` needs that this CPU lacks.
void missing_features(Isa isa, char* buf, int size) {
  const CpuFeatures& f = cpu_features();
  buf[0] = 0;
  auto need = [&](bool have, const char* name) {
    if (have) return;
    const std::size_t len = std::strlen(buf);
    std::snprintf(buf + len, size - len, "%s%s", len ? "+" : "", name);
  };
  switch (isa) {
    case Isa::fma:
      // f16c is required only by the f16 family, which checks it itself.
      need(f.avx2, "avx2");
      need(f.fma, "fma");
      need(f.os_avx, "OS support for AVX state (XGETBV)");
      break;
    case Isa::avx512f:
      need(f.avx512f, "avx512f");
      need(f.os_avx512, "OS support for AVX-512 state (XGETBV)");
      break;
    case Isa::avx512vnni:
      need(f.avx512f, "avx512f");
      need(f.avx512bw, "avx512bw");
      need(f.avx512vnni, "avx512vnni");
      need(f.os_avx512, "OS support for AVX-512 state (XGETBV)");
      break;
    case Isa::avx512bf16:
      need(f.avx512f, "avx512f");
      need(f.avx512bw, "avx512bw");
      need(f.avx512bf16, "avx512bf16");
      need(f.os_avx512, "OS support for AVX-512 state (XGETBV)");
      break;
    case Isa::amx:
      need(f.avx512f, "avx512f");
      need(f.avx512bw, "avx512bw");
      need(f.amx_tile, "amx_tile");
      need(f.amx_bf16, "amx_bf16");
      need(f.amx_int8, "amx_int8");
      need(f.os_avx512, "OS support for AVX-512 state (XGETBV)");
      need(f.os_amx, "OS support for AMX tile state (XGETBV + arch_prctl)");
      break;
    case Isa::neon:
      need(f.neon, "neon");
      break;
    case Isa::simd128:
      need(f.simd128, "simd128");
      break;
    default:
      break;
  }
}

bool parse_isa(const char* s, Isa* out) {
  struct Alias {
    const char* name;
    Isa isa;
  };
  static const Alias kAliases[] = {
      {"scalar", Isa::scalar},         {"fma", Isa::fma},
      {"avx2", Isa::fma},              {"avx512f", Isa::avx512f},
      {"avx512vnni", Isa::avx512vnni}, {"vnni", Isa::avx512vnni},
      {"avx512bf16", Isa::avx512bf16}, {"bf16", Isa::avx512bf16},
      {"neon", Isa::neon},             {"simd128", Isa::simd128},
      {"wasm", Isa::simd128},          {"amx", Isa::amx},
  };
  for (const Alias& a : kAliases) {
    if (std::strcmp(s, a.name) == 0) {
      *out = a.isa;
      return true;
    }
  }
  return false;
}

#define GEMMKIT_STR2(x) #x
#define GEMMKIT_STR(x) GEMMKIT_STR2(x)

Pin parse_pin() {
  Pin p{};
  p.is_auto = true;
  const char* raw = std::getenv("GEMMKIT_REQUIRE_ISA");
  bool from_default = false;
  // Trim and lower-case into p.value.
  auto normalize = [&](const char* s) {
    while (*s && std::isspace(static_cast<unsigned char>(*s))) ++s;
    std::size_t n = 0;
    for (; s[n] && n + 1 < sizeof p.value; ++n)
      p.value[n] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[n])));
    while (n > 0 && std::isspace(static_cast<unsigned char>(p.value[n - 1]))) --n;
    p.value[n] = 0;
  };
  normalize(raw ? raw : "");
#if defined(GEMMKIT_DEFAULT_REQUIRE_ISA)
  if (p.value[0] == 0) {
    normalize(GEMMKIT_STR(GEMMKIT_DEFAULT_REQUIRE_ISA));
    from_default = true;
  }
#endif
  if (p.value[0] == 0 || std::strcmp(p.value, "auto") == 0) return p;
  p.is_auto = false;
  if (!parse_isa(p.value, &p.isa)) {
    std::snprintf(p.error, sizeof p.error,
                  "gemmkit: GEMMKIT_REQUIRE_ISA: unknown value '%s' (expected "
                  "one of scalar, fma, avx2, avx512f, avx512vnni, vnni, "
                  "avx512bf16, bf16, amx, neon, simd128, wasm, auto)",
                  raw ? raw : p.value);
    return p;
  }
  char why[200];
  if (!isa_usable(p.isa, why, sizeof why)) {
    std::snprintf(p.error, sizeof p.error,
                  "gemmkit: GEMMKIT_REQUIRE_ISA=%s%s, but %s", p.value,
                  from_default ? " (fixed when this module was built)" : "",
                  why);
  }
  return p;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = detect();
  return f;
}

void format_cpu_features(char* buf, int size) {
  const CpuFeatures& f = cpu_features();
  struct Flag {
    bool on;
    const char* name;
  };
  const Flag flags[] = {
      {f.avx2, "avx2"},         {f.fma, "fma"},
      {f.f16c, "f16c"},         {f.avx512f, "avx512f"},
      {f.avx512bw, "avx512bw"}, {f.avx512dq, "avx512dq"},
      {f.avx512vl, "avx512vl"}, {f.avx512vnni, "avx512vnni"},
      {f.avx512bf16, "avx512bf16"}, {f.avx512fp16, "avx512fp16"},
      {f.amx_tile, "amx_tile"}, {f.amx_bf16, "amx_bf16"},
      {f.amx_int8, "amx_int8"},
      {f.os_avx, "os_avx"},     {f.os_avx512, "os_avx512"},
      {f.os_amx, "os_amx"},
      {f.neon, "neon"},         {f.simd128, "simd128"},
  };
  buf[0] = 0;
  for (const Flag& fl : flags) {
    if (!fl.on) continue;
    const std::size_t len = std::strlen(buf);
    std::snprintf(buf + len, size - len, "%s%s", len ? "," : "", fl.name);
  }
}

bool isa_compiled(Isa isa) {
  switch (isa) {
    case Isa::scalar:
#if defined(GEMMKIT_HAVE_SCALAR)
      return true;
#else
      return false;
#endif
    case Isa::fma:
#if defined(GEMMKIT_HAVE_FMA)
      return true;
#else
      return false;
#endif
    case Isa::avx512f:
#if defined(GEMMKIT_HAVE_AVX512F)
      return true;
#else
      return false;
#endif
    case Isa::avx512vnni:
#if defined(GEMMKIT_HAVE_AVX512VNNI)
      return true;
#else
      return false;
#endif
    case Isa::avx512bf16:
#if defined(GEMMKIT_HAVE_AVX512BF16)
      return true;
#else
      return false;
#endif
    case Isa::amx:
#if defined(GEMMKIT_HAVE_AMX)
      return true;
#else
      return false;
#endif
    case Isa::neon:
#if defined(GEMMKIT_HAVE_NEON)
      return true;
#else
      return false;
#endif
    case Isa::simd128:
#if defined(GEMMKIT_HAVE_SIMD128)
      return cpu_features().simd128;
#else
      return false;
#endif
    default:
      return false;
  }
}

bool isa_usable(Isa isa, char* why, int why_size) {
  if (!arch_has(isa)) {
    std::snprintf(why, why_size, "%s exists only on %s (this build targets %s)",
                  isa_name(isa), arch_of(isa), arch_name());
    return false;
  }
  if (!isa_compiled(isa)) {
    if (isa == Isa::simd128) {
      std::snprintf(why, why_size,
                    "this module was compiled without -msimd128, so it has no "
                    "simd128 kernels");
    } else {
      std::snprintf(why, why_size,
                    "this build of gemmkit was compiled without the %s kernels",
                    isa_name(isa));
    }
    return false;
  }
  char missing[160];
  missing_features(isa, missing, sizeof missing);
  if (missing[0]) {
    std::snprintf(why, why_size, "this CPU does not report %s", missing);
    return false;
  }
  return true;
}

const Pin& pin() {
  static const Pin p = parse_pin();
  return p;
}

}  // namespace gemmkit::dispatch
