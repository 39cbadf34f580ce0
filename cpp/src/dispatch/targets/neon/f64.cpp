// L7 target neon: the f64 family (widening kernels, double accumulator).
#include "dispatch/targets/neon/target.hpp"

namespace gemmkit::isa_neon {

dispatch::Descriptor<double> f64_descriptor() {
  return family_descriptor<Widen<double, double, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_neon
