// L7 target simd128: the f64 family (widening kernels, double accumulator).
#include "dispatch/targets/simd128/target.hpp"

namespace gemmkit::isa_simd128 {

dispatch::Descriptor<double> f64_descriptor() {
  return family_descriptor<Widen<double, double, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_simd128
