// L0 conformance, avx512bf16 unit: SimdOps<Avx512Bf16, float/double> against
// scalar arithmetic.  Compiled with the avx512bf16 flags and
// -DGEMMKIT_ISA=avx512bf16; run by conformance_main.cpp only when the CPU has
// avx512f, avx512bw and avx512bf16.
#include <stdio.h>

// The Avx512Bf16 token arrives with the mixed-precision/int8 families; until
// its header exists this unit says so on every run instead of passing
// silently.
#if __has_include("../../src/simd/avx512bf16.hpp")
#include "../../src/simd/avx512bf16.hpp"
#include "conformance-inl.hpp"
#define GEMMKIT_CONFORMANCE_HAVE_TOKEN 1
#endif

namespace gemmkit::isa_avx512bf16 {

int run_conformance() {
#if defined(GEMMKIT_CONFORMANCE_HAVE_TOKEN)
  return conformance::run_simd_ops_conformance<Avx512Bf16, float>() +
         conformance::run_simd_ops_conformance<Avx512Bf16, double>();
#else
  printf("  avx512bf16: no token header cpp/src/simd/avx512bf16.hpp yet "
         "(not tested)\n");
  return 0;
#endif
}

}  // namespace gemmkit::isa_avx512bf16
