// L0 conformance, avx512bf16 unit: SimdOps<Avx512Bf16, float/double/int32_t> and the
// Avx512Bf16 KernelSimd seams (f16, bf16, int8, requant; shared with Avx512F, here
// instantiated under this token) against scalar code.  Compiled with the
// avx512bf16 flags and -DGEMMKIT_ISA=avx512bf16; run by conformance_main.cpp only when
// the CPU has avx512f, avx512bw and avx512bf16.
#include "../../src/simd/avx512bf16.hpp"
#include "conformance-inl.hpp"
#include "kernel-simd-inl.hpp"

namespace gemmkit::isa_avx512bf16 {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Avx512Bf16, float>() +
         conformance::run_simd_ops_conformance<Avx512Bf16, double>() +
         conformance::run_kernel_simd_conformance<Avx512Bf16>(/*want_requant_vector=*/true);
}

}  // namespace gemmkit::isa_avx512bf16
