// L7 dispatch: CPU feature detection and the GEMMKIT_REQUIRE_ISA pin.
//
// The pin never falls back: an unknown value, or an ISA this architecture,
// CPU, OS or build cannot run, is an error that names what is missing, so a
// CI job meant to test one kernel cannot silently test another.  What each
// ISA needs and the values that name it are rows of isa_registry.def; this
// file knows how to detect each feature and how to word what is missing.
#include "dispatch/isa.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dispatch/cpuid.hpp"

#if defined(__linux__) && GEMMKIT_X86
#include <sys/syscall.h>
#include <unistd.h>
#endif

#if defined(GEMMKIT_HAVE_SIMD128)
namespace gemmkit::isa_simd128 {
bool compiled_with_simd128();  // targets/simd128/self_check.cpp
}
#endif
#if defined(GEMMKIT_HAVE_RELAXED_SIMD)
namespace gemmkit::isa_relaxed_simd {
bool compiled_with_relaxed_simd();  // targets/relaxed_simd/self_check.cpp
}
#endif

namespace gemmkit::dispatch {

const char* isa_name(Isa isa) {
  return isa >= Isa{} && isa < Isa::count ? isa_row(isa).name : "unknown";
}

namespace {

// Every CpuFeatures member a registry row may need, with the words a refusal
// uses for it; in the order format_cpu_features() lists those present.
struct Feature {
  bool CpuFeatures::*have;
  const char* name;     // the member's name, as rows and dispatch_info() spell it
  const char* missing;  // how a refused pin names it
};
constexpr Feature kFeatures[] = {
    {&CpuFeatures::avx2, "avx2", "avx2"},
    {&CpuFeatures::fma, "fma", "fma"},
    {&CpuFeatures::f16c, "f16c", "f16c"},
    {&CpuFeatures::avx512f, "avx512f", "avx512f"},
    {&CpuFeatures::avx512bw, "avx512bw", "avx512bw"},
    {&CpuFeatures::avx512dq, "avx512dq", "avx512dq"},
    {&CpuFeatures::avx512vl, "avx512vl", "avx512vl"},
    {&CpuFeatures::avx512vnni, "avx512vnni", "avx512vnni"},
    {&CpuFeatures::avx512bf16, "avx512bf16", "avx512bf16"},
    {&CpuFeatures::avx512fp16, "avx512fp16", "avx512fp16"},
    {&CpuFeatures::amx_tile, "amx_tile", "amx_tile"},
    {&CpuFeatures::amx_bf16, "amx_bf16", "amx_bf16"},
    {&CpuFeatures::amx_int8, "amx_int8", "amx_int8"},
    {&CpuFeatures::os_avx, "os_avx", "OS support for AVX state (XGETBV)"},
    {&CpuFeatures::os_avx512, "os_avx512",
     "OS support for AVX-512 state (XGETBV)"},
#if defined(__linux__)
    {&CpuFeatures::os_amx, "os_amx",
     "OS support for AMX tile state (XGETBV + arch_prctl)"},
#else
    {&CpuFeatures::os_amx, "os_amx", "OS support for AMX tile state (XGETBV)"},
#endif
    {&CpuFeatures::neon, "neon", "neon"},
    {&CpuFeatures::simd128, "simd128", "simd128"},
    {&CpuFeatures::relaxed_simd, "relaxed_simd", "relaxed_simd"},
};

constexpr bool same(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

constexpr const char* end_of(const char* s) {
  while (*s) ++s;
  return s;
}

// [b, e) and [c, d) are the same word.
constexpr bool same_word(const char* b, const char* e, const char* c, const char* d) {
  if (e - b != d - c) return false;
  for (; b < e; ++b, ++c) {
    if (*b != *c) return false;
  }
  return true;
}

// The feature a row's word [b, e) names, or nullptr.
constexpr const Feature* feature_named(const char* b, const char* e) {
  for (const Feature& f : kFeatures) {
    if (same_word(b, e, f.name, end_of(f.name))) return &f;
  }
  return nullptr;
}

constexpr const char kAuto[] = "auto";

// Calls fn(begin, end) for every value GEMMKIT_REQUIRE_ISA accepts besides
// the empty one: in row order, each name followed by its aliases, then auto.
template <class Fn>
constexpr void for_each_pin_value(Fn fn) {
  for (const IsaRow& row : kIsaRows) {
    fn(row.name, end_of(row.name));
    for_each_word(row.aliases, fn);
  }
  fn(kAuto, end_of(kAuto));
}

// The registry checked where the compiler sees it: every feature is a
// CpuFeatures member, every base another row, and no pin value means two
// ISAs.  (select.cpp checks the families.)
constexpr bool registry_is_consistent() {
  bool ok = true;
  for (const IsaRow& row : kIsaRows) {
    for_each_word(row.features, [&](const char* b, const char* e) {
      ok = ok && feature_named(b, e) != nullptr;
    });
    ok = ok && (row.base[0] == 0 ||
                (isa_named(row.base) != Isa::count && !same(row.base, row.name)));
  }
  int i = 0;
  for_each_pin_value([&](const char* b, const char* e) {
    int j = 0;
    for_each_pin_value([&](const char* c, const char* d) {
      if (j++ < i && same_word(b, e, c, d)) ok = false;
    });
    ++i;
  });
  return ok;
}
static_assert(registry_is_consistent(),
              "isa_registry.def: an unknown feature or base, or a pin value "
              "shared by two ISAs");

// GEMMKIT_TEST_HIDE_CPU_FEATURES=avx512f,fma: the named features (as
// dispatch_info()'s "cpu_features" spells them) count as absent, so the
// refusals and the ladders of a machine that has them can be tested on it.
// For tests only, and it says so on stderr whenever it is set.
void hide_for_tests(CpuFeatures& f) {
  const char* v = std::getenv("GEMMKIT_TEST_HIDE_CPU_FEATURES");
  if (!v || !*v) return;
  std::fprintf(stderr,
               "gemmkit: GEMMKIT_TEST_HIDE_CPU_FEATURES=%s: these CPU features count as "
               "absent (for tests only)\n",
               v);
  for (const char* p = v; *p;) {
    while (*p == ',' || *p == ' ') ++p;
    const char* e = p;
    while (*e && *e != ',' && *e != ' ') ++e;
    for (const Feature& feature : kFeatures) {
      if (std::strlen(feature.name) == std::size_t(e - p) &&
          std::strncmp(feature.name, p, std::size_t(e - p)) == 0)
        f.*feature.have = false;
    }
    p = e;
  }
}

CpuFeatures detect() {
  CpuFeatures f{};
#if GEMMKIT_X86
  cpu::CpuidRegs r;
  if (cpu::cpuid(0, 0, &r)) {
    f.intel = r.ebx == 0x756e6547u && r.edx == 0x49656e69u && r.ecx == 0x6c65746eu;  // GenuineIntel
  }
  if (cpu::cpuid(1, 0, &r)) {
    const bool osxsave = r.ecx & (1u << 27);
    f.fma = r.ecx & (1u << 12);
    f.f16c = r.ecx & (1u << 29);
    if (osxsave) {
      const unsigned long long xcr0 = cpu::xgetbv0();
      f.os_avx = (xcr0 & 0x6) == 0x6;           // xmm + ymm
      f.os_avx512 = (xcr0 & 0xe6) == 0xe6;      // + opmask, zmm hi
      f.os_amx = (xcr0 & 0x60000) == 0x60000;   // XTILECFG + XTILEDATA
    }
  }
  if (cpu::cpuid(7, 0, &r)) {
    f.avx2 = r.ebx & (1u << 5);
    f.avx512f = r.ebx & (1u << 16);
    f.avx512dq = r.ebx & (1u << 17);
    f.avx512bw = r.ebx & (1u << 30);
    f.avx512vl = r.ebx & (1u << 31);
    f.avx512vnni = r.ecx & (1u << 11);
    f.avx512fp16 = r.edx & (1u << 23);
    f.amx_bf16 = r.edx & (1u << 22);
    f.amx_tile = r.edx & (1u << 24);
    f.amx_int8 = r.edx & (1u << 25);
    if (r.eax >= 1 && cpu::cpuid(7, 1, &r)) {
      f.avx512bf16 = r.eax & (1u << 5);
    }
  }
#endif
#if defined(__linux__) && GEMMKIT_X86
  // Linux hands out the 8 KiB of tile data per process on request only.
  if (f.os_amx && f.amx_tile) {
    constexpr long kArchReqXcompPerm = 0x1023;
    constexpr long kXfeatureXtiledata = 18;
    f.os_amx = syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  } else {
    f.os_amx = false;
  }
#elif defined(_WIN32) && GEMMKIT_X86
  // Windows has no per-process request: a Windows that supports AMX sets
  // the tile bits in XCR0 and gives every process the tile state, so XCR0
  // and CPUID decide.
  f.os_amx = f.os_amx && f.amx_tile;
#else
  f.os_amx = false;
#endif
#if defined(__aarch64__) || defined(_M_ARM64)
  f.neon = true;  // mandatory on aarch64
#endif
#if defined(GEMMKIT_HAVE_SIMD128)
  // Fixed at build time (the loaders probe the engine before instantiating):
  // asked of the simd128 TU itself, so a build whose flags lost -msimd128
  // reports false here and a simd128 pin refuses to run.
  f.simd128 = isa_simd128::compiled_with_simd128();
#endif
#if defined(GEMMKIT_HAVE_RELAXED_SIMD)
  f.relaxed_simd = isa_relaxed_simd::compiled_with_relaxed_simd();
#endif
  hide_for_tests(f);
  return f;
}

const char* arch_name() {
#if defined(__x86_64__) || defined(_M_X64)
  return "x86_64";
#elif defined(__i386__) || defined(_M_IX86)
  return "x86";
#elif defined(__aarch64__) || defined(_M_ARM64)
  return "aarch64";
#elif defined(__wasm32__)
  return "wasm32";
#else
  return "this architecture";
#endif
}

// The registry arch whose rows this build can run.
constexpr const char* kBuildArch =
#if GEMMKIT_X86
    "x86_64";
#elif defined(__aarch64__) || defined(_M_ARM64)
    "aarch64";
#elif defined(__wasm32__)
    "wasm32";
#else
    "";
#endif

bool arch_has(Isa isa) {
  const char* arch = isa_row(isa).arch;
  return same(arch, "any") || same(arch, kBuildArch);
}

// Appends the names of the features `isa` needs that this CPU lacks.
void missing_features(Isa isa, char* buf, int size) {
  const CpuFeatures& f = cpu_features();
  buf[0] = 0;
  for_each_word(isa_row(isa).features, [&](const char* b, const char* e) {
    const Feature* need = feature_named(b, e);
    if (f.*need->have) return;
    const std::size_t len = std::strlen(buf);
    std::snprintf(buf + len, size - len, "%s%s", len ? "+" : "", need->missing);
  });
}

// A lower-case pin value: a row's name or one of its aliases.
bool parse_isa(const char* s, Isa* out) {
  for (const IsaRow& row : kIsaRows) {
    if (same(s, row.name) || list_has(row.aliases, s)) {
      *out = row.isa;
      return true;
    }
  }
  return false;
}

// "scalar, fma, avx2, ..., auto": the values a bad pin is told about.
void format_pin_values(char* buf, std::size_t size) {
  buf[0] = 0;
  for_each_pin_value([&](const char* b, const char* e) {
    const std::size_t len = std::strlen(buf);
    std::snprintf(buf + len, size - len, "%s%.*s", len ? ", " : "", int(e - b), b);
  });
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
    char values[200];
    format_pin_values(values, sizeof values);
    std::snprintf(p.error, sizeof p.error,
                  "gemmkit: GEMMKIT_REQUIRE_ISA: unknown value '%s' (expected "
                  "one of %s)",
                  raw ? raw : p.value, values);
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
  buf[0] = 0;
  for (const Feature& fl : kFeatures) {
    if (!(f.*fl.have)) continue;
    const std::size_t len = std::strlen(buf);
    std::snprintf(buf + len, size - len, "%s%s", len ? "," : "", fl.name);
  }
}

namespace {

// The wasm ISAs are fixed at build time: their units say whether they
// really got their flag (detect()).  The flag each one needs:
const char* wasm_build_flag(Isa isa) {
  return isa == Isa::simd128        ? "-msimd128"
         : isa == Isa::relaxed_simd ? "-mrelaxed-simd"
                                    : nullptr;
}

}  // namespace

bool isa_compiled(Isa isa) {
  if (isa == Isa::simd128) return isa_row(isa).built && cpu_features().simd128;
  if (isa == Isa::relaxed_simd) return isa_row(isa).built && cpu_features().relaxed_simd;
  return isa_row(isa).built;
}

bool isa_usable(Isa isa, char* why, int why_size) {
  if (!arch_has(isa)) {
    std::snprintf(why, why_size, "%s exists only on %s (this build targets %s)",
                  isa_name(isa), isa_row(isa).arch, arch_name());
    return false;
  }
  if (!isa_compiled(isa)) {
    if (isa_row(isa).built && wasm_build_flag(isa)) {
      std::snprintf(why, why_size,
                    "this module was compiled without %s, so it has no "
                    "%s kernels",
                    wasm_build_flag(isa), isa_name(isa));
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
