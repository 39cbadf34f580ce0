// int8 pair dot family test, fma unit: PairI8Family<Fma> (vpmaddwd +
// vpaddd) packs and accumulates bit-exactly, for the dispatched tiles (16x6,
// skinny 16x4) and geometries that reach the other packer paths.  Compiled
// with the fma flags; run by cpp/tests/dot_pair_i8_test.cpp only on CPUs
// with AVX2 + FMA.  The checks: cpp/tests/dot_pair_i8/pair_i8_test-inl.hpp.
#include "simd/fma.hpp"
#include "pair_i8_test-inl.hpp"

namespace gemmkit::isa_fma {

int run_pair_i8_tests() {
  using namespace pair_i8_test;
  using kernel::PairI8Family;
  Rng rng{0x5eed0008u};
  int cases = 0, failures = 0;
  run_config<PairI8Family<Fma, 2, 6>>(rng, "fma 16x6", cases, failures);
  run_config<PairI8Family<Fma, 2, 4>>(rng, "fma 16x4", cases, failures);
  run_config<PairI8Family<Fma, 1, 6>>(rng, "fma 8x6", cases, failures);
  run_config<PairI8Family<Fma, 3, 3>>(rng, "fma 24x3", cases, failures);
  run_config<PairI8Family<Fma, 1, 12>>(rng, "fma 8x12", cases, failures);
  run_deep<PairI8Family<Fma, 2, 6>>(rng, "fma 16x6 deep", cases, failures);
  printf("  fma pair int8 family: %d cases, %d failed\n", cases, failures);
  return failures;
}

}  // namespace gemmkit::isa_fma
