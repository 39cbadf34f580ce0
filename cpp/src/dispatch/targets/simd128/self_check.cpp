// L7 target simd128: whether this target was really compiled with -msimd128
// (isa.cpp refuses the simd128 pin when it was not).
#include "dispatch/isa_namespace.hpp"

namespace gemmkit::isa_simd128 {

bool compiled_with_simd128() {
#if defined(__wasm_simd128__)
  return true;
#else
  return false;
#endif
}

}  // namespace gemmkit::isa_simd128
