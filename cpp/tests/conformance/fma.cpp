// L0 conformance, fma unit: SimdOps<Fma, float/double/int32_t> and the
// Fma KernelSimd seams (f16, bf16, int8, requant) against scalar code.
// Compiled with the fma flags and -DGEMMKIT_ISA=fma; run by
// conformance_main.cpp only when the CPU has avx2 and fma.
#include "../../src/simd/fma.hpp"
#include "conformance-inl.hpp"
#include "kernel-simd-inl.hpp"

namespace gemmkit::isa_fma {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Fma, float>() +
         conformance::run_simd_ops_conformance<Fma, double>() +
         conformance::run_kernel_simd_conformance<Fma>(/*want_requant_vector=*/true);
}

}  // namespace gemmkit::isa_fma
