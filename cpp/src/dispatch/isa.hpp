// L7 dispatch: CPU features, the ISA list and the GEMMKIT_REQUIRE_ISA pin.
// Baseline code: compiled without ISA flags.
#pragma once

namespace gemmkit::dispatch {

// Every ISA gemmkit knows, in one list (the only manual edit when adding an
// ISA besides its token and its targets/<isa>/ folder).
#define GEMMKIT_FOR_EACH_ISA(X) \
  X(scalar)                     \
  X(fma)                        \
  X(avx512f)                    \
  X(avx512vnni)                 \
  X(avx512bf16)                 \
  X(amx)                        \
  X(neon)                       \
  X(simd128)

enum class Isa : int {
#define GEMMKIT_ISA_ENUM(name) name,
  GEMMKIT_FOR_EACH_ISA(GEMMKIT_ISA_ENUM)
#undef GEMMKIT_ISA_ENUM
  count
};

const char* isa_name(Isa isa);

struct CpuFeatures {
  bool avx2, fma, f16c;
  bool avx512f, avx512bw, avx512dq, avx512vl, avx512vnni, avx512bf16, avx512fp16;
  bool amx_tile, amx_bf16, amx_int8;
  bool os_avx;     // XGETBV: the OS saves ymm state
  bool os_avx512;  // XGETBV: the OS saves opmask and zmm state
  bool os_amx;     // XGETBV: tile state enabled, and Linux granted this
                   // process the tile data (arch_prctl XCOMP_PERM)
  // vdpbf16ps issues at half the FMA rate on Intel cores (measured on
  // this project's Xeon: ~82 GFLOP/s against ~167 for f32 FMA), but at twice
  // the f32 rate on AMD Zen 4: the bf16 ladder needs to know.
  bool intel;
  bool neon;
  bool simd128;    // compiled with -msimd128 (wasm decides at build time)
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
