// L0 conformance, avx512vnni unit: SimdOps<Avx512Vnni, float/double> against
// scalar arithmetic.  Compiled with the avx512vnni flags and
// -DGEMMKIT_ISA=avx512vnni; run by conformance_main.cpp only when the CPU has
// avx512f, avx512bw and avx512vnni.
#include <stdio.h>

// The Avx512Vnni token arrives with the mixed-precision/int8 families; until
// its header exists this unit says so on every run instead of passing
// silently.
#if __has_include("../../src/simd/avx512vnni.hpp")
#include "../../src/simd/avx512vnni.hpp"
#include "conformance-inl.hpp"
#define GEMMKIT_CONFORMANCE_HAVE_TOKEN 1
#endif

namespace gemmkit::isa_avx512vnni {

int run_conformance() {
#if defined(GEMMKIT_CONFORMANCE_HAVE_TOKEN)
  return conformance::run_simd_ops_conformance<Avx512Vnni, float>() +
         conformance::run_simd_ops_conformance<Avx512Vnni, double>();
#else
  printf("  avx512vnni: no token header cpp/src/simd/avx512vnni.hpp yet "
         "(not tested)\n");
  return 0;
#endif
}

}  // namespace gemmkit::isa_avx512vnni
