// L7 target fma: 16x6 tiles (f64 8x6): 12 ymm accumulators + 2 A + 1 B = 15 of 16 ymm registers; 16x4 for skinny outputs.
#pragma once
#include "simd/fma.hpp"
#define GEMMKIT_TOKEN isa_fma::Fma
#include "dispatch/gemm-inl.hpp"

namespace gemmkit::isa_fma {
constexpr int kMrReg = 2;
constexpr int kNr = 6;
constexpr int kSkinnyNr = 4;  // 0: no narrower tile
// Products of at most one register of rows (float32, float64): a
// 1-register x 12 tile, 12 accumulators (8 FMA chains keep both ports
// busy); no wider, because a B read in place needs one general register
// per column.
constexpr int kShortNr = 12;
// Complex tiles (kernel/complex.hpp) hold two accumulators per register of
// rows; int64 tiles leave room for the multiply's temporaries.
constexpr int kComplexMrReg = 1;
constexpr int kComplexNr = 5;
constexpr int kInt64MrReg = 2;
constexpr int kInt64Nr = 4;
}  // namespace gemmkit::isa_fma
