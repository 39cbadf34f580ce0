// L7 target avx512f: the f16 family (widening kernels, float accumulator).
#include "dispatch/targets/avx512f/target.hpp"

namespace gemmkit::isa_avx512f {

dispatch::Descriptor<float16> f16_descriptor() {
  return family_descriptor<Tiles<float16, float>::Family, kSkinnyNr, 0,
                           SquareFamily<float16, float>>();
}

}  // namespace gemmkit::isa_avx512f
