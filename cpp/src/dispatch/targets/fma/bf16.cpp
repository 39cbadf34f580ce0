// L7 target fma: the bf16 family (widening kernels, float accumulator).
#include "dispatch/targets/fma/target.hpp"

namespace gemmkit::isa_fma {

dispatch::Descriptor<bfloat16> bf16_descriptor() {
  return family_descriptor<Widen<bfloat16, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_fma
