// L7 target scalar: the f16 family (widening kernels, float accumulator).
#include "dispatch/targets/scalar/target.hpp"

namespace gemmkit::isa_scalar {

dispatch::Descriptor<float16> f16_descriptor() {
  return family_descriptor<Widen<float16, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_scalar
