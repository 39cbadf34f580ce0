// L7 target fma: the f64 family (widening kernels, double accumulator).
#include "dispatch/targets/fma/target.hpp"

namespace gemmkit::isa_fma {

dispatch::Descriptor<double> f64_descriptor() {
  return family_descriptor<Widen<double, double, kMrReg, kNr>::Family, kSkinnyNr, kShortNr>();
}

}  // namespace gemmkit::isa_fma
