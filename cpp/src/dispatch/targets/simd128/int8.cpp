// L7 target simd128: the int8 family (widening kernels, int32 accumulator).
#include "dispatch/targets/simd128/target.hpp"

namespace gemmkit::isa_simd128 {

dispatch::Descriptor<std::int8_t> int8_descriptor() {
  return family_descriptor<Widen<std::int8_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_simd128
