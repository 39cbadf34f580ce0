// L0 conformance, avx512f unit: SimdOps<Avx512F, float/double> against scalar
// arithmetic.  Compiled with the avx512f flags and -DGEMMKIT_ISA=avx512f; run
// by conformance_main.cpp only when the CPU has avx512f.
#include "../../src/simd/avx512f.hpp"
#include "conformance-inl.hpp"

namespace gemmkit::isa_avx512f {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Avx512F, float>() +
         conformance::run_simd_ops_conformance<Avx512F, double>();
}

}  // namespace gemmkit::isa_avx512f
