// L7 target relaxed_simd: the float32 and float64 families with
// relaxed_madd; the other types come from the simd128 target (the
// registry's base).  Tiles as simd128's (8x4, f64 4x4: 8 accumulators +
// 2 A + 1 B = 11 live v128 of V8's 15 xmm on x64).  The fused form frees
// the product's register, but the same sweep as simd128's (its target.hpp)
// found no better tile: 12x3 (13 values) matched 8x4 at 1024 and lost at 256
// (edge tiles), 8x5, 4x8 and 12x4 lost everywhere.
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
