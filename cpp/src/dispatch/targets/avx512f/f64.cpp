// L7 target avx512f: the f64 family (widening kernels, double accumulator).
#include "dispatch/targets/avx512f/target.hpp"

namespace gemmkit::isa_avx512f {

dispatch::Descriptor<double> f64_descriptor() {
  return family_descriptor<Tiles<double, double>::Family, kSkinnyNr, kShortNr,
                           SquareFamily<double>>();
}

}  // namespace gemmkit::isa_avx512f
