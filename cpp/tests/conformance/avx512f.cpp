// L0 conformance, avx512f unit: SimdOps<Avx512F, float/double/int32_t> and the
// Avx512F KernelSimd seams (f16, bf16, int8, requant) against scalar code.
// Compiled with the avx512f flags and -DGEMMKIT_ISA=avx512f; run
// by conformance_main.cpp only when the CPU has avx512f.
#include "../../src/simd/avx512f.hpp"
#include "conformance-inl.hpp"
#include "kernel-simd-inl.hpp"

namespace gemmkit::isa_avx512f {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Avx512F, float>() +
         conformance::run_simd_ops_conformance<Avx512F, double>() +
         conformance::run_kernel_simd_conformance<Avx512F>(/*want_requant_vector=*/true);
}

}  // namespace gemmkit::isa_avx512f
