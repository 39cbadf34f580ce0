// L7 target avx512f: the bf16 family (widening kernels, float accumulator).
#include "dispatch/targets/avx512f/target.hpp"

namespace gemmkit::isa_avx512f {

dispatch::Descriptor<bfloat16> bf16_descriptor() {
  return family_descriptor<Tiles<bfloat16, float>::Family, kSkinnyNr, 0,
                           SquareFamily<bfloat16, float>>();
}

}  // namespace gemmkit::isa_avx512f
