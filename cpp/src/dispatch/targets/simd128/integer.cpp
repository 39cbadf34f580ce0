// L7 target simd128: the exact integer families (widening kernels that wrap):
// 8-bit (int8/uint8 -> same), 16-bit, 32-bit and bool products accumulate
// in int32, 64-bit ones in int64.
#include "dispatch/targets/simd128/target.hpp"

namespace gemmkit::isa_simd128 {

dispatch::Descriptor<std::uint8_t> u8_descriptor() {
  return family_descriptor<Widen<std::uint8_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

dispatch::Descriptor<std::uint16_t> u16_descriptor() {
  return family_descriptor<Widen<std::uint16_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

dispatch::Descriptor<std::int32_t> i32_descriptor() {
  return family_descriptor<Widen<std::int32_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

dispatch::Descriptor<std::int64_t> i64_descriptor() {
  return family_descriptor<Widen<std::int64_t, std::int64_t, kInt64MrReg, kInt64Nr>::Family, 0>();
}

dispatch::Descriptor<bool8> bool_descriptor() {
  return family_descriptor<Widen<bool8, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

}  // namespace gemmkit::isa_simd128
