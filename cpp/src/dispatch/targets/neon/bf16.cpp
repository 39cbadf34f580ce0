// L7 target neon: the bf16 family (widening kernels, float accumulator).
#include "dispatch/targets/neon/target.hpp"

namespace gemmkit::isa_neon {

dispatch::Descriptor<bfloat16> bf16_descriptor() {
  return family_descriptor<Widen<bfloat16, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_neon
