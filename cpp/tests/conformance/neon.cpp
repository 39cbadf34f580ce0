// L0 conformance, neon unit: SimdOps<Neon, float/double> against scalar
// arithmetic.  Compiled with the neon flags and -DGEMMKIT_ISA=neon; run by
// conformance_main.cpp on aarch64, where NEON is baseline.
#include "../../src/simd/neon.hpp"
#include "conformance-inl.hpp"

namespace gemmkit::isa_neon {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Neon, float>() +
         conformance::run_simd_ops_conformance<Neon, double>();
}

}  // namespace gemmkit::isa_neon
