// L7 target simd128: the int8 family (int32 accumulator).  With -msimd128,
// the i16 pair dot family (kernel/dot_pair_i8.hpp: i32x4.dot_i16x8_s, two
// depth steps per instruction, bit-identical to widening); a build without
// -msimd128 runs the Scalar token (target.hpp), which keeps the widening
// family.
#include "dispatch/targets/simd128/target.hpp"
#if defined(__wasm_simd128__)
#include "kernel/dot_pair_i8.hpp"
#endif

namespace gemmkit::isa_simd128 {

#if defined(__wasm_simd128__)
template <int NR>
using PairI8 = kernel::PairI8Family<GEMMKIT_TOKEN, kMrReg, NR == 0 ? kNr : NR>;

dispatch::Descriptor<std::int8_t> int8_descriptor() {
  return family_descriptor<PairI8, kSkinnyNr>();
}
#else
dispatch::Descriptor<std::int8_t> int8_descriptor() {
  return family_descriptor<Widen<std::int8_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}
#endif

}  // namespace gemmkit::isa_simd128
