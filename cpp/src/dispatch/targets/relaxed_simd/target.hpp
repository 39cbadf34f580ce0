// L7 target relaxed_simd: the float32 and float64 families with
// relaxed_madd; the other types come from the simd128 target (the
// registry's base).  Tiles 8x6 (f64 4x6): 12 accumulators, so 12
// independent FMA chains where 8 (the FMA latency x throughput of x64 cores)
// left no slack.  V8's code for the depth loop loads every B broadcast of a
// depth step before the FMAs that use them (its instruction selection, not
// the wasm order: node 20 and node 24 disassemblies), so a tile holds
// accumulators + A vectors + NR broadcasts: 8x6 needs 20 of the 15 xmm
// registers and V8 spills some accumulators.  Measured 2026-12-03 (AMD Zen 4,
// float32 against 8x4 in the same page or process, interleaved): Chromium
// 156 1.03-1.10x at 128-1024 (float64 1.01-1.10x), node 24 1.0-1.2x; node
// 20 (V8 11.3, relaxed SIMD only behind a flag) 0.5x, from the same spills.
// 12x3 (15 registers, no spill) ran 0.92-1.0x of 8x6 in Chromium.  The
// relaxed module is for the engines that ship relaxed SIMD, so it takes
// their tile; simd128's own tile stays 8x4 (its target.hpp).
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
constexpr int kNr = 6;
constexpr int kSkinnyNr = 0;  // no narrower tile
}  // namespace gemmkit::isa_relaxed_simd
