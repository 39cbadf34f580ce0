// L0 conformance, avx512dq unit: SimdOps<Avx512Dq, float/double/int32_t/int64_t>
// (int64 multiplies by vpmullq here) and the KernelSimd seams instantiated
// under this token, against scalar code.  Compiled with the avx512dq flags
// and -DGEMMKIT_ISA=avx512dq; run by conformance_main.cpp only when the CPU
// has avx512f and avx512dq.
#include "../../src/simd/avx512dq.hpp"
#include "conformance-inl.hpp"
#include "kernel-simd-inl.hpp"

namespace gemmkit::isa_avx512dq {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Avx512Dq, float>() +
         conformance::run_simd_ops_conformance<Avx512Dq, double>() +
         conformance::run_kernel_simd_conformance<Avx512Dq>(/*want_requant_vector=*/true);
}

}  // namespace gemmkit::isa_avx512dq
