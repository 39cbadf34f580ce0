// L7 target scalar: 4x4 tiles of scalars for every type.
#pragma once
#include "simd/scalar.hpp"
#define GEMMKIT_TOKEN isa_scalar::Scalar
#include "dispatch/gemm-inl.hpp"

namespace gemmkit::isa_scalar {
constexpr int kMrReg = 4;
constexpr int kNr = 4;
constexpr int kSkinnyNr = 0;  // 0: no narrower tile
}  // namespace gemmkit::isa_scalar
