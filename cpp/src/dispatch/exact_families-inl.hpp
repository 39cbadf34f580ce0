// L7 dispatch: the exact integer and complex descriptors of one ISA target,
// written once for every target that defines them (the registry's u8 u16
// i32 i64 bool c64 c128 words).  Included by targets/<isa>/integer.cpp and
// complex.cpp after their target.hpp, whose namespace constants give the
// tiles: kMrReg x kNr (the f32 tile) for the 32-bit rings and bool,
// kInt64MrReg x kInt64Nr, kComplexMrReg x kComplexNr.
//
// The rings are widening families that wrap: 8-bit (int8/uint8 -> same),
// 16-bit and 32-bit products accumulate in int32, 64-bit ones in int64
// (types.hpp says why one kernel serves both signs of a width); bool runs on
// bit planes (kernel/bool_bits.hpp), 32 depth steps to an int32 lane.

namespace gemmkit::GEMMKIT_ISA_NAMESPACE {

#if defined(GEMMKIT_EXACT_INTEGER_FAMILIES)
dispatch::Descriptor<std::uint8_t> u8_descriptor() {
  return family_descriptor<Widen<std::uint8_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

dispatch::Descriptor<std::uint16_t> u16_descriptor() {
  return family_descriptor<Widen<std::uint16_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

dispatch::Descriptor<std::int32_t> i32_descriptor() {
  return family_descriptor<Widen<std::int32_t, std::int32_t, kMrReg, kNr>::Family, kSkinnyNr>();
}

dispatch::Descriptor<bool8> bool_descriptor() {
  return family_descriptor<BoolBits<kMrReg, kNr>::Family, kSkinnyNr>();
}
#endif

#if defined(GEMMKIT_EXACT_INTEGER_FAMILIES) || defined(GEMMKIT_INT64_FAMILY)
dispatch::Descriptor<std::int64_t> i64_descriptor() {
  return family_descriptor<Widen<std::int64_t, std::int64_t, kInt64MrReg, kInt64Nr>::Family, 0>();
}
#endif

#if defined(GEMMKIT_COMPLEX_FAMILIES)
dispatch::Descriptor<complex64> c64_descriptor() {
  return family_descriptor<Complex<float, kComplexMrReg, kComplexNr>::Family, 0>();
}

dispatch::Descriptor<complex128> c128_descriptor() {
  return family_descriptor<Complex<double, kComplexMrReg, kComplexNr>::Family, 0>();
}
#endif

}  // namespace gemmkit::GEMMKIT_ISA_NAMESPACE
