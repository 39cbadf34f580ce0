// L7 dispatch: CPU features, the ISA registry's rows and the
// GEMMKIT_REQUIRE_ISA pin.  Baseline code: compiled without ISA flags.
#pragma once

// GEMMKIT_BUILT(GEMMKIT_HAVE_X) is 1 when the build defines GEMMKIT_HAVE_X
// to 1 and 0 otherwise, as an expression: unlike #if defined(...) it works
// inside a registry row's expansion (the IS_ENABLED idiom of Linux's
// kconfig.h).  GEMMKIT_BUILT_ONE_1 turns "1" into "0," so the second
// argument picked is 1; any other spelling leaves junk, and 0 is picked.
#define GEMMKIT_BUILT_ONE_1 0,
#define GEMMKIT_BUILT_SECOND(ignored, value, ...) value
#define GEMMKIT_BUILT_PICK(one_or_junk) GEMMKIT_BUILT_SECOND(one_or_junk 1, 0)
#define GEMMKIT_BUILT_PASTE(value) GEMMKIT_BUILT_PICK(GEMMKIT_BUILT_ONE_##value)
#define GEMMKIT_BUILT(macro) GEMMKIT_BUILT_PASTE(macro)

namespace gemmkit::dispatch {

// Every ISA gemmkit knows, from the registry (isa_registry.def), in its row
// order.
enum class Isa : int {
#define GEMMKIT_ISA_ROW(name, ...) name,
#include "dispatch/isa_registry.def"
#undef GEMMKIT_ISA_ROW
  count
};

// One registry row, as C++ reads it (see isa_registry.def for the fields;
// the flags are the build's business).  The lists are strings of words
// separated by single spaces.
struct IsaRow {
  Isa isa;
  const char* name;
  const char* arch;      // x86_64, aarch64, wasm32 or any
  const char* features;  // CpuFeatures members it needs
  const char* aliases;   // further GEMMKIT_REQUIRE_ISA values
  const char* families;  // descriptor words targets/<name>/ defines
  const char* base;      // serves the other families ("" = none)
  bool built;            // GEMMKIT_HAVE_<NAME>: targets/<name>/ is linked in
};

inline constexpr IsaRow kIsaRows[] = {
#define GEMMKIT_ISA_ROW(name, NAME, Token, arch, flags, features, aliases, \
                        families, base)                                     \
  {Isa::name, #name, arch, features, aliases, families, base,               \
   GEMMKIT_BUILT(GEMMKIT_HAVE_##NAME) == 1},
#include "dispatch/isa_registry.def"
#undef GEMMKIT_ISA_ROW
};

constexpr const IsaRow& isa_row(Isa isa) { return kIsaRows[int(isa)]; }

// Calls fn(begin, end) for each word of a space-separated list.
template <class Fn>
constexpr void for_each_word(const char* list, Fn fn) {
  for (const char* p = list; *p;) {
    while (*p == ' ') ++p;
    const char* begin = p;
    while (*p && *p != ' ') ++p;
    if (p > begin) fn(begin, p);
  }
}

// True when the space-separated `list` holds `word`.
constexpr bool list_has(const char* list, const char* word) {
  bool found = false;
  for_each_word(list, [&](const char* b, const char* e) {
    const char* w = word;
    while (b < e && *w && *b == *w) ++b, ++w;
    found = found || (b == e && *w == 0);
  });
  return found;
}

// The ISA called `name` (exact, lower case); Isa::count if none is.
constexpr Isa isa_named(const char* name) {
  for (const IsaRow& row : kIsaRows) {
    const char *a = row.name, *b = name;
    while (*a && *a == *b) ++a, ++b;
    if (*a == 0 && *b == 0) return row.isa;
  }
  return Isa::count;
}

const char* isa_name(Isa isa);

struct CpuFeatures {
  bool avx2, fma, f16c;
  bool avx512f, avx512bw, avx512dq, avx512vl, avx512vnni, avx512bf16, avx512fp16;
  bool amx_tile, amx_bf16, amx_int8;
  bool os_avx;     // XGETBV: the OS saves ymm state
  bool os_avx512;  // XGETBV: the OS saves opmask and zmm state
  bool os_amx;     // XGETBV: tile state enabled, and Linux granted this
                   // process the tile data (arch_prctl XCOMP_PERM);
                   // Windows grants it to every process (XCR0 alone)
  // vdpbf16ps issues at half the FMA rate on Intel cores (measured on
  // this project's Xeon: ~82 GFLOP/s against ~167 for f32 FMA), but at twice
  // the f32 rate on AMD Zen 4: the bf16 ladder needs to know.
  bool intel;
  bool neon;
  bool simd128;    // compiled with -msimd128 (wasm decides at build time)
  bool relaxed_simd;  // compiled with -mrelaxed-simd (likewise)
};

// Detected once (CPUID + XGETBV on x86).
const CpuFeatures& cpu_features();

// Comma-separated feature names, for dispatch_info().
void format_cpu_features(char* buf, int size);

// True when this build contains kernels for `isa` (a targets/<isa>/ TU).
bool isa_compiled(Isa isa);

// True when the ISA is compiled and this machine can run it.  On false,
// `why` receives a message naming what is missing.
bool isa_usable(Isa isa, char* why, int why_size);

// The GEMMKIT_REQUIRE_ISA pin, parsed once.
struct Pin {
  bool is_auto;
  Isa isa;           // valid when !is_auto and error[0] == 0
  char error[320];   // non-empty: every GEMM call fails with this message
  char value[64];    // the value as given, for messages
};
const Pin& pin();

}  // namespace gemmkit::dispatch
