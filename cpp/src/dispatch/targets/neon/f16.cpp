// L7 target neon: the f16 family (widening kernels, float accumulator).
#include "dispatch/targets/neon/target.hpp"

namespace gemmkit::isa_neon {

dispatch::Descriptor<float16> f16_descriptor() {
  return family_descriptor<Widen<float16, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_neon
