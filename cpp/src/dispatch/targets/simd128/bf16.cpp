// L7 target simd128: the bf16 family (widening kernels, float accumulator).
#include "dispatch/targets/simd128/target.hpp"

namespace gemmkit::isa_simd128 {

dispatch::Descriptor<bfloat16> bf16_descriptor() {
  return family_descriptor<Widen<bfloat16, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_simd128
