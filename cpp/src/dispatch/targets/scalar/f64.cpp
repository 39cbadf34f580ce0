// L7 target scalar: the f64 family (widening kernels, double accumulator).
#include "dispatch/targets/scalar/target.hpp"

namespace gemmkit::isa_scalar {

dispatch::Descriptor<double> f64_descriptor() {
  return family_descriptor<Widen<double, double, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_scalar
