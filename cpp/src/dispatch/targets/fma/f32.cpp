// L7 target fma: the f32 family (widening kernels, float accumulator).
#include "dispatch/targets/fma/target.hpp"

namespace gemmkit::isa_fma {

dispatch::Descriptor<float> f32_descriptor() {
  return family_descriptor<Widen<float, float, kMrReg, kNr>::Family, kSkinnyNr, kShortNr>();
}

}  // namespace gemmkit::isa_fma
