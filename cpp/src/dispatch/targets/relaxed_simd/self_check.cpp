// L7 target relaxed_simd: whether this target was really compiled with
// -mrelaxed-simd (isa.cpp refuses the relaxed_simd pin when it was not).
#include "dispatch/isa_namespace.hpp"

namespace gemmkit::isa_relaxed_simd {

bool compiled_with_relaxed_simd() {
#if defined(__wasm_relaxed_simd__)
  return true;
#else
  return false;
#endif
}

}  // namespace gemmkit::isa_relaxed_simd
