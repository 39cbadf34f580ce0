// int8 pair dot family test, simd128 unit: PairI8Family<Simd128>
// (i32x4.dot_i16x8_s + i32x4.add) packs and accumulates bit-exactly, for the
// dispatched tile (8x4) and geometries that reach the other packer paths.
// Compiled with -msimd128 into a wasm32 module with
// cpp/tests/dot_pair_i8_test.cpp (see its header for the command).  The
// checks: cpp/tests/dot_pair_i8/pair_i8_test-inl.hpp.
#if !defined(__wasm_simd128__)
#error "build this unit with -msimd128 (wasm32)"
#endif
#include "simd/simd128.hpp"
#include "pair_i8_test-inl.hpp"

namespace gemmkit::isa_simd128 {

int run_pair_i8_tests() {
  using namespace pair_i8_test;
  using kernel::PairI8Family;
  Rng rng{0x5eed0128u};
  int cases = 0, failures = 0;
  run_config<PairI8Family<Simd128, 2, 4>>(rng, "simd128 8x4", cases, failures);
  run_config<PairI8Family<Simd128, 1, 4>>(rng, "simd128 4x4", cases, failures);
  run_config<PairI8Family<Simd128, 3, 3>>(rng, "simd128 12x3", cases, failures);
  run_config<PairI8Family<Simd128, 4, 6>>(rng, "simd128 16x6", cases, failures);
  run_config<PairI8Family<Simd128, 6, 2>>(rng, "simd128 24x2", cases, failures);
  run_deep<PairI8Family<Simd128, 2, 4>>(rng, "simd128 8x4 deep", cases, failures);
  printf("  simd128 pair int8 family: %d cases, %d failed\n", cases, failures);
  return failures;
}

}  // namespace gemmkit::isa_simd128
