// L7 target simd128: f32 8x4, f64 4x4 (8 accumulators + 2 A + 1 B = 11 live
// v128 values; V8 gives wasm 15 xmm registers on x64 and spills past that).
//
// Selected at compile time: without -msimd128 this TU builds the scalar
// token instead and says so, so a simd128-pinned module whose flags lost
// -msimd128 refuses to run rather than silently running scalar code.
#if defined(__wasm_simd128__)
#include "simd/simd128.hpp"
#define GEMMKIT_TOKEN isa_simd128::Simd128
#define GEMMKIT_F32_TILE 2, 4
#define GEMMKIT_F64_TILE 2, 4
#else
#include "simd/scalar.hpp"
#define GEMMKIT_TOKEN isa_scalar::Scalar
#define GEMMKIT_F32_TILE 4, 4
#define GEMMKIT_F64_TILE 4, 4
#endif
#include "dispatch/float-inl.hpp"

namespace gemmkit::isa_simd128 {

bool compiled_with_simd128() {
#if defined(__wasm_simd128__)
  return true;
#else
  return false;
#endif
}

}  // namespace gemmkit::isa_simd128
