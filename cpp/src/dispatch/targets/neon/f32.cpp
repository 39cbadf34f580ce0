// L7 target neon: the f32 family (widening kernels, float accumulator).
#include "dispatch/targets/neon/target.hpp"

namespace gemmkit::isa_neon {

dispatch::Descriptor<float> f32_descriptor() {
  return family_descriptor<Widen<float, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_neon
