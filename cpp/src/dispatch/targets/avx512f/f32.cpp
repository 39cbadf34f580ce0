// L7 target avx512f: the f32 family (widening kernels, float accumulator).
#include "dispatch/targets/avx512f/target.hpp"

namespace gemmkit::isa_avx512f {

dispatch::Descriptor<float> f32_descriptor() {
  return family_descriptor<Tiles<float, float>::Family, kSkinnyNr, kShortNr,
                           SquareFamily<float>>();
}

}  // namespace gemmkit::isa_avx512f
