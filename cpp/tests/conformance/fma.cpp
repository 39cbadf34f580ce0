// L0 conformance, fma unit: SimdOps<Fma, float/double> against scalar
// arithmetic.  Compiled with the fma flags and -DGEMMKIT_ISA=fma; run by
// conformance_main.cpp only when the CPU has avx2 and fma.
#include "../../src/simd/fma.hpp"
#include "conformance-inl.hpp"

namespace gemmkit::isa_fma {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Fma, float>() +
         conformance::run_simd_ops_conformance<Fma, double>();
}

}  // namespace gemmkit::isa_fma
