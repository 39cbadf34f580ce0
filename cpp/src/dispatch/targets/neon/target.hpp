// L7 target neon: 16x4 tiles (f64 8x4): 16 accumulators, leaving about 11 registers free as rename headroom for wide out-of-order cores.
#pragma once
#include "simd/neon.hpp"
#define GEMMKIT_TOKEN isa_neon::Neon
#include "dispatch/gemm-inl.hpp"

namespace gemmkit::isa_neon {
constexpr int kMrReg = 4;
constexpr int kNr = 4;
constexpr int kSkinnyNr = 0;  // 0: no narrower tile
// Complex tiles (kernel/complex.hpp) hold two accumulators per register of
// rows; int64 tiles leave room for the multiply's temporaries.
constexpr int kComplexMrReg = 2;
constexpr int kComplexNr = 5;
constexpr int kInt64MrReg = 4;
constexpr int kInt64Nr = 4;
}  // namespace gemmkit::isa_neon
