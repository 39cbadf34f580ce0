// L7 target simd128: 8x4 tiles (f64 4x4): 8 accumulators + 2 A + the 4 B
// broadcasts of a depth step (V8 loads them all before the FMAs that use
// them, whatever the wasm order: node 20 and node 24 disassemblies) + the
// unfused product = 15 live v128 values, all of the 15 xmm registers V8
// gives wasm on x64; past that it spills accumulators.  Measured 2026-12-02
// (AMD Zen 4; float32 at 256 and 1024 against XNNPACK in the same run, node
// 20, node 24 and Chromium 156): 8x4 led in all three; 12x3 ran at
// 0.5-0.65x of it in node 20 and at 256 elsewhere, 8x5 at 0.5x, 4x8 at
// 0.4-0.8x, 8x3 at 0.9x and 12x4 at 0.5-0.6x; 2026-12-03: 8x6 (XNNPACK's
// 6x8 turned around) 0.65-0.82x in all three, and B as one vector per depth
// step with lane shuffles for the broadcasts (XNNPACK's "splat" kernels)
// no faster than 8x4's loaded broadcasts.  Unrolling the depth loop by 2
// lost too.
//
// Selected at compile time: without -msimd128 this target builds the scalar
// token instead and says so (compiled_with_simd128), so a simd128-pinned
// module whose flags lost -msimd128 refuses to run rather than silently
// running scalar code.
#pragma once
#if defined(__wasm_simd128__)
#include "simd/simd128.hpp"
#define GEMMKIT_TOKEN isa_simd128::Simd128
#else
#include "simd/scalar.hpp"
#define GEMMKIT_TOKEN isa_scalar::Scalar
#endif
#include "dispatch/gemm-inl.hpp"

namespace gemmkit::isa_simd128 {
#if defined(__wasm_simd128__)
constexpr int kMrReg = 2;
#else
constexpr int kMrReg = 4;
#endif
constexpr int kNr = 4;
constexpr int kSkinnyNr = 0;  // no narrower tile
// Complex tiles (kernel/complex.hpp): 4 x 3 complex64 is 6 accumulators +
// 2 A + 2 B; measured in node 20 at 512, 4 x 4 (8 accumulators, the f32
// budget) runs at 0.71x the f32 kernel's real flop rate (the products'
// temporaries push V8 past its 15 registers), 4 x 3 at 1.1x, 4 x 2 at
// 0.9x, 8 x 2 at 0.8x.  int64 as f64.
#if defined(__wasm_simd128__)
constexpr int kComplexMrReg = 1;
#else
constexpr int kComplexMrReg = 4;
#endif
constexpr int kComplexNr = 3;
constexpr int kInt64MrReg = kMrReg;
constexpr int kInt64Nr = 4;
}  // namespace gemmkit::isa_simd128
