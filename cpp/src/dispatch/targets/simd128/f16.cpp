// L7 target simd128: the f16 family (widening kernels, float accumulator).
#include "dispatch/targets/simd128/target.hpp"

namespace gemmkit::isa_simd128 {

dispatch::Descriptor<float16> f16_descriptor() {
  return family_descriptor<Widen<float16, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_simd128
