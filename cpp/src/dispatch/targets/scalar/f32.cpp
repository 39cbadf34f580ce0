// L7 target scalar: the f32 family (widening kernels, float accumulator).
#include "dispatch/targets/scalar/target.hpp"

namespace gemmkit::isa_scalar {

dispatch::Descriptor<float> f32_descriptor() {
  return family_descriptor<Widen<float, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_scalar
