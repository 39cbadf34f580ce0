// L7 target scalar: the bf16 family (widening kernels, float accumulator).
#include "dispatch/targets/scalar/target.hpp"

namespace gemmkit::isa_scalar {

dispatch::Descriptor<bfloat16> bf16_descriptor() {
  return family_descriptor<Widen<bfloat16, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_scalar
