// L7 target relaxed_simd: the float32 and float64 families with
// relaxed_madd; the other types come from the simd128 target (the
// registry's base).  Tiles as simd128's, 8x4 (f64 4x4): 8 accumulators +
// 2 A + the 4 B broadcasts of a depth step, which V8 loads before the FMAs
// that use them (node 20, 22 and 24 disassemblies) = 14 of the 15 xmm
// registers V8 gives wasm on x64.  Eight accumulators are exactly the FMA
// latency x throughput of current x64 cores, so a wider tile would have FMA
// chains to spare, but every wider one spills or loses somewhere.  Measured
// 2026-12-03 (AMD Zen 4, float32 at 128-1024 against 8x4 in the same page or
// process, interleaved): 8x6 (20 registers: V8 spills accumulators) 0.96-1.26x
// in Chromium 156 and 0.96-1.20x in node 24, but 0.54-0.73x in node 22 (the
// LTS whose relaxed SIMD is on by default) and 0.49-0.69x in node 20; 12x3
// (15 registers) 0.92-1.06x in node 22, 1.0-1.18x in Chromium.  2026-12-02:
// 8x5, 4x8 and 12x4 lost everywhere.
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
constexpr int kMrReg = 2;
#else
constexpr int kMrReg = 4;
#endif
constexpr int kNr = 4;
constexpr int kSkinnyNr = 0;  // no narrower tile
}  // namespace gemmkit::isa_relaxed_simd
