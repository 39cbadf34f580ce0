// L7 target avx512f: the int8 family (widening kernels, int32 accumulator).
#include "dispatch/targets/avx512f/target.hpp"

namespace gemmkit::isa_avx512f {

dispatch::Descriptor<std::int8_t> int8_descriptor() {
  return family_descriptor<Widen<std::int8_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_avx512f
