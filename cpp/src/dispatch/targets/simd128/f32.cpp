// L7 target simd128: the f32 family (widening kernels, float accumulator).
#include "dispatch/targets/simd128/target.hpp"

namespace gemmkit::isa_simd128 {

dispatch::Descriptor<float> f32_descriptor() {
  return family_descriptor<Widen<float, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_simd128
