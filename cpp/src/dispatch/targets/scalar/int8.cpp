// L7 target scalar: the int8 family (widening kernels, int32 accumulator).
#include "dispatch/targets/scalar/target.hpp"

namespace gemmkit::isa_scalar {

dispatch::Descriptor<std::int8_t> int8_descriptor() {
  return family_descriptor<Widen<std::int8_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_scalar
