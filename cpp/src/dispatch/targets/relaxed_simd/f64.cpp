// L7 target relaxed_simd: the f64 family (relaxed multiply-add).
#include "dispatch/targets/relaxed_simd/target.hpp"

namespace gemmkit::isa_relaxed_simd {

dispatch::Descriptor<double> f64_descriptor() {
  return family_descriptor<Widen<double, double, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_relaxed_simd
