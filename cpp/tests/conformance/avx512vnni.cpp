// L0 conformance, avx512vnni unit: SimdOps<Avx512Vnni, float/double/int32_t> and the
// Avx512Vnni KernelSimd seams (f16, bf16, int8, requant; shared with Avx512F, here
// instantiated under this token) against scalar code.  Compiled with the
// avx512vnni flags and -DGEMMKIT_ISA=avx512vnni; run by conformance_main.cpp only when
// the CPU has avx512f, avx512bw and avx512vnni.
#include "../../src/simd/avx512vnni.hpp"
#include "conformance-inl.hpp"
#include "kernel-simd-inl.hpp"

namespace gemmkit::isa_avx512vnni {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Avx512Vnni, float>() +
         conformance::run_simd_ops_conformance<Avx512Vnni, double>() +
         conformance::run_kernel_simd_conformance<Avx512Vnni>(/*want_requant_vector=*/true);
}

}  // namespace gemmkit::isa_avx512vnni
