// L0 conformance, simd128 unit: SimdOps<Simd128, float/double/int32_t> and the
// Simd128 KernelSimd seams (f16, bf16, int8, requant) against scalar code.
// Compiled with the simd128 flags and -DGEMMKIT_ISA=simd128; built
// for wasm32 with -msimd128 (the native build does not run it).
#include "../../src/simd/simd128.hpp"
#include "conformance-inl.hpp"
#include "kernel-simd-inl.hpp"

namespace gemmkit::isa_simd128 {

int run_conformance() {
  return conformance::run_simd_ops_conformance<Simd128, float>() +
         conformance::run_simd_ops_conformance<Simd128, double>() +
         conformance::run_kernel_simd_conformance<Simd128>(/*want_requant_vector=*/true);
}

}  // namespace gemmkit::isa_simd128
