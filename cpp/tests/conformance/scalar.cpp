// L0 conformance, scalar unit: SimdOps<Scalar, float/double/int32_t> and the
// Scalar KernelSimd seams (f16, bf16, int8, requant) against scalar code.
// Compiled with the scalar flags and -DGEMMKIT_ISA=scalar; run by
// conformance_main.cpp on every machine.
#include "../../src/simd/scalar.hpp"
#include "conformance-inl.hpp"
#include "kernel-simd-inl.hpp"

namespace gemmkit::isa_scalar {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Scalar, float>() +
         conformance::run_simd_ops_conformance<Scalar, double>() +
         conformance::run_kernel_simd_conformance<Scalar>(/*want_requant_vector=*/false) +
         conformance::run_requant_reference_conformance<Scalar>();
}

}  // namespace gemmkit::isa_scalar
