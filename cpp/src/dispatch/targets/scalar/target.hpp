// L7 target scalar: 4x4 tiles of scalars for every type.
#pragma once
#include "simd/scalar.hpp"
#define GEMMKIT_TOKEN isa_scalar::Scalar
#include "dispatch/gemm-inl.hpp"

namespace gemmkit::isa_scalar {
constexpr int kMrReg = 4;
constexpr int kNr = 4;
constexpr int kSkinnyNr = 0;  // 0: no narrower tile
// Complex tiles (kernel/complex.hpp) hold two accumulators per register of
// rows; int64 tiles leave room for the multiply's temporaries.
constexpr int kComplexMrReg = 4;
constexpr int kComplexNr = 4;
constexpr int kInt64MrReg = 4;
constexpr int kInt64Nr = 4;
}  // namespace gemmkit::isa_scalar
