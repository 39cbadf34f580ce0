// L0 conformance, scalar unit: SimdOps<Scalar, float/double> against scalar
// arithmetic.  Compiled with the scalar flags and -DGEMMKIT_ISA=scalar; run by
// conformance_main.cpp on every machine.
#include "../../src/simd/scalar.hpp"
#include "conformance-inl.hpp"

namespace gemmkit::isa_scalar {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Scalar, float>() +
         conformance::run_simd_ops_conformance<Scalar, double>();
}

}  // namespace gemmkit::isa_scalar
