// L0 conformance, neon unit: SimdOps<Neon, float/double/int32_t> and the
// Neon KernelSimd seams (f16, bf16, int8, requant) against scalar code.
// Compiled with the neon flags and -DGEMMKIT_ISA=neon; run by
// conformance_main.cpp on aarch64, where NEON is baseline.
#include "../../src/simd/neon.hpp"
#include "conformance-inl.hpp"
#include "kernel-simd-inl.hpp"

namespace gemmkit::isa_neon {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Neon, float>() +
         conformance::run_simd_ops_conformance<Neon, double>() +
         conformance::run_kernel_simd_conformance<Neon>(/*want_requant_vector=*/true);
}

}  // namespace gemmkit::isa_neon
