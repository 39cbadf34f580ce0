// L7 target fma: the f16 family (widening kernels, float accumulator).
#include "dispatch/targets/fma/target.hpp"

namespace gemmkit::isa_fma {

dispatch::Descriptor<float16> f16_descriptor() {
  return family_descriptor<Widen<float16, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_fma
