// L7 target relaxed_simd: the float32 and float64 families with
// relaxed_madd; the other types come from the simd128 target (the
// registry's base).  Tiles 12x3 (f64 6x3): 9 accumulators + 3 A + the 3 B
// broadcasts of a depth step, which V8 loads before the FMAs that use them
// (node 20, 22 and 24 disassemblies) = 15 of the 15 xmm registers V8 gives
// wasm on x64.  Fused multiply-adds need no temporary, and 9 chains leave
// one to spare over the FMA latency x throughput of current x64 cores (8),
// which simd128's 8x4 (mul + add) cannot afford.  Measured against 8x4,
// float32 and float64 at 256-1024, each build in its own process or page
// in alternation: 2026-12-05 (Intel Xeon with AMX) node 22 +2-10%,
// Chromium 156 +3-10%, node 20 +0-7%, 64-128 within -3..+2%; 2026-12-03
// (AMD Zen 4, 128-1024) node 22 0.92-1.06x, Chromium 1.0-1.18x.  Wider
// tiles spill: 8x6 (20 registers) 0.96-1.26x in Chromium 156 and node 24
// but 0.54-0.73x in node 22 and 0.49-0.69x in node 20 (Zen 4); 8x5, 4x8 and
// 12x4 lost everywhere (2026-12-02).
//
// Without -mrelaxed-simd this target builds the scalar token and says so
// (compiled_with_relaxed_simd), so a relaxed_simd pin refuses to run rather
// than silently running other code under its name.
#pragma once
#if defined(__wasm_relaxed_simd__)
#include "simd/relaxed_simd.hpp"
#define GEMMKIT_TOKEN isa_relaxed_simd::RelaxedSimd
#else
#include "simd/scalar.hpp"
#define GEMMKIT_TOKEN isa_scalar::Scalar
#endif
#include "dispatch/gemm-inl.hpp"

namespace gemmkit::isa_relaxed_simd {
#if defined(__wasm_relaxed_simd__)
constexpr int kMrReg = 3;
constexpr int kNr = 3;
#else
constexpr int kMrReg = 4;
constexpr int kNr = 4;
#endif
constexpr int kSkinnyNr = 0;  // no narrower tile
}  // namespace gemmkit::isa_relaxed_simd
