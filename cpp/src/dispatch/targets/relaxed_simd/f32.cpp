// L7 target relaxed_simd: the f32 family (relaxed multiply-add).
#include "dispatch/targets/relaxed_simd/target.hpp"

namespace gemmkit::isa_relaxed_simd {

dispatch::Descriptor<float> f32_descriptor() {
  return family_descriptor<Widen<float, float, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_relaxed_simd
