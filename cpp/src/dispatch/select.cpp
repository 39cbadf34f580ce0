// L7 dispatch: the per-type ladders.
//
// Auto: f16, bf16 and int8 try amx (tile matrix multiply) first; then bf16 tries
// avx512bf16 (the vdpbf16ps dot kernel; not on Intel cores, where widening to
// f32 FMAs is faster), int8 avx512vnni (vpdpbusd) and int64 avx512dq
// (vpmullq); then every type tries
// avx512f, fma (avx2 + fma; f16c too, for f16), neon, relaxed_simd (f32, f64)
// or simd128 where the
// architecture has them, then scalar.  A pin selects exactly its ISA or fails: avx512vnni pins the
// int8 dot kernel and avx512bf16 the bf16 one (after checking the pinned
// ISA's own features), amx the tile kernels (f16 on split bf16 parts); for the other types these
// pins run the avx512f kernels.
//
// The ladders are written out below, in order; which targets exist, what
// each defines and which ISA serves the families a dot-only target lacks
// (its base) are rows of isa_registry.def.
#include "dispatch/select.hpp"

#include <cstdio>
#include <type_traits>

#include "dispatch/isa.hpp"
#include "gemmkit/gemmkit.h"

// Entry points of every target (targets/<isa>/<family>.cpp), declared for
// each registry row and family: a target defines those of its row's
// families, and descriptor_for() calls no other.
#define GEMMKIT_ISA_ROW(name, ...)                          \
  namespace gemmkit::isa_##name {                           \
  dispatch::Descriptor<float> f32_descriptor();             \
  dispatch::Descriptor<double> f64_descriptor();            \
  dispatch::Descriptor<float16> f16_descriptor();           \
  dispatch::Descriptor<bfloat16> bf16_descriptor();         \
  dispatch::Descriptor<std::int8_t> int8_descriptor();      \
  dispatch::Descriptor<std::uint8_t> u8_descriptor();       \
  dispatch::Descriptor<std::uint16_t> u16_descriptor();     \
  dispatch::Descriptor<std::int32_t> i32_descriptor();      \
  dispatch::Descriptor<std::int64_t> i64_descriptor();      \
  dispatch::Descriptor<bool8> bool_descriptor();            \
  dispatch::Descriptor<complex64> c64_descriptor();         \
  dispatch::Descriptor<complex128> c128_descriptor();       \
  }
#include "dispatch/isa_registry.def"
#undef GEMMKIT_ISA_ROW

namespace gemmkit::dispatch {

namespace {

template <class L>
struct Family;

template <>
struct Family<float> {
  static constexpr const char* kWord = "f32";
};
template <>
struct Family<double> {
  static constexpr const char* kWord = "f64";
};
template <>
struct Family<float16> {
  static constexpr const char* kWord = "f16";
};
template <>
struct Family<bfloat16> {
  static constexpr const char* kWord = "bf16";
};
template <>
struct Family<std::int8_t> {
  static constexpr const char* kWord = "int8";
};
template <>
struct Family<std::uint8_t> {
  static constexpr const char* kWord = "u8";
};
template <>
struct Family<std::uint16_t> {
  static constexpr const char* kWord = "u16";
};
template <>
struct Family<std::int32_t> {
  static constexpr const char* kWord = "i32";
};
template <>
struct Family<std::int64_t> {
  static constexpr const char* kWord = "i64";
};
template <>
struct Family<bool8> {
  static constexpr const char* kWord = "bool";
};
template <>
struct Family<complex64> {
  static constexpr const char* kWord = "c64";
};
template <>
struct Family<complex128> {
  static constexpr const char* kWord = "c128";
};

// Every family a registry row names is one of the words above.
constexpr bool families_are_known() {
  const char* words[] = {Family<float>::kWord,        Family<double>::kWord,
                         Family<float16>::kWord,      Family<bfloat16>::kWord,
                         Family<std::int8_t>::kWord,  Family<std::uint8_t>::kWord,
                         Family<std::uint16_t>::kWord, Family<std::int32_t>::kWord,
                         Family<std::int64_t>::kWord, Family<bool8>::kWord,
                         Family<complex64>::kWord,    Family<complex128>::kWord};
  for (const IsaRow& row : kIsaRows) {
    int listed = 0, known = 0;
    for_each_word(row.families, [&](const char*, const char*) { ++listed; });
    for (const char* w : words) known += list_has(row.families, w);
    if (known != listed) return false;
  }
  return true;
}
static_assert(families_are_known(), "isa_registry.def: unknown family word");

// True when targets/<isa>/ is built and defines L's descriptor.  A target
// with a base adds to it and serves nothing in a build without it.
template <class L>
constexpr bool defines(Isa isa) {
  const IsaRow& row = isa_row(isa);
  return row.built && (row.base[0] == 0 || isa_row(isa_named(row.base)).built) &&
         list_has(row.families, Family<L>::kWord);
}

// isa_<name>'s entry point for L.
#define GEMMKIT_ENTRY_POINT(name)                         \
  if constexpr (std::is_same_v<L, float>)                 \
    *out = isa_##name::f32_descriptor();                  \
  else if constexpr (std::is_same_v<L, double>)           \
    *out = isa_##name::f64_descriptor();                  \
  else if constexpr (std::is_same_v<L, float16>)          \
    *out = isa_##name::f16_descriptor();                  \
  else if constexpr (std::is_same_v<L, bfloat16>)         \
    *out = isa_##name::bf16_descriptor();                 \
  else if constexpr (std::is_same_v<L, std::int8_t>)      \
    *out = isa_##name::int8_descriptor();                 \
  else if constexpr (std::is_same_v<L, std::uint8_t>)     \
    *out = isa_##name::u8_descriptor();                   \
  else if constexpr (std::is_same_v<L, std::uint16_t>)    \
    *out = isa_##name::u16_descriptor();                  \
  else if constexpr (std::is_same_v<L, std::int32_t>)     \
    *out = isa_##name::i32_descriptor();                  \
  else if constexpr (std::is_same_v<L, std::int64_t>)     \
    *out = isa_##name::i64_descriptor();                  \
  else if constexpr (std::is_same_v<L, bool8>)            \
    *out = isa_##name::bool_descriptor();                 \
  else if constexpr (std::is_same_v<L, complex64>)        \
    *out = isa_##name::c64_descriptor();                  \
  else                                                    \
    *out = isa_##name::c128_descriptor();

// The descriptor of one compiled ISA for L, or false if none is compiled:
// the ISA's own for the families its row names, else its base's.
template <class L>
bool descriptor_for(Isa isa, Descriptor<L>* out) {
  switch (isa) {
#define GEMMKIT_ISA_ROW(name, ...)                                    \
  case Isa::name:                                                     \
    if constexpr (defines<L>(Isa::name)) {                            \
      GEMMKIT_ENTRY_POINT(name)                                       \
      return true;                                                    \
    } else {                                                          \
      const IsaRow& row = isa_row(Isa::name);                         \
      return row.built && row.base[0] &&                              \
             descriptor_for<L>(isa_named(row.base), out);             \
    }
#include "dispatch/isa_registry.def"
#undef GEMMKIT_ISA_ROW
    default:
      return false;
  }
}
#undef GEMMKIT_ENTRY_POINT

template <class L>
Selection<L> select_now() {
  Selection<L> s{};
  s.status = GEMMKIT_OK;
  s.error = "";
  const Pin& p = pin();
  bool found = false;
  if (!p.is_auto || p.error[0]) {
    if (p.error[0]) {
      s.status = GEMMKIT_ERROR_ISA;
      s.error = p.error;
      return s;
    }
    found = descriptor_for<L>(p.isa, &s.desc);
  } else {
    // The dot ISAs lead only the ladder of the type they accelerate, and
    // vdpbf16ps only where it outruns widening to f32 FMAs (not on Intel
    // cores, where it issues at half the FMA rate; the pin still selects it).
    const bool bf16_dot = !cpu_features().intel;
    const Isa dot = std::is_same_v<L, bfloat16>       ? (bf16_dot ? Isa::avx512bf16 : Isa::count)
                    : std::is_same_v<L, std::int8_t>  ? Isa::avx512vnni
                    : std::is_same_v<L, std::int64_t> ? Isa::avx512dq
                                                      : Isa::count;
    const bool tiles = std::is_same_v<L, float16> || std::is_same_v<L, bfloat16> ||
                       std::is_same_v<L, std::int8_t>;
    const Isa ladder[] = {tiles ? Isa::amx : Isa::count, dot, Isa::avx512f, Isa::fma,
                          Isa::neon, Isa::relaxed_simd, Isa::simd128, Isa::scalar};
    char why[200];
    for (Isa isa : ladder) {
      if (isa == Isa::count) continue;
      // f16 on the fma target needs F16C beyond what the fma pin checks.
      if (std::is_same_v<L, float16> && isa == Isa::fma && !cpu_features().f16c) continue;
      if (isa_usable(isa, why, sizeof why) && descriptor_for<L>(isa, &s.desc)) {
        found = true;
        break;
      }
    }
  }
  if (found && std::is_same_v<L, float16> && p.isa == Isa::fma && !p.is_auto &&
      !cpu_features().f16c) {
    s.status = GEMMKIT_ERROR_ISA;
    s.error = "gemmkit: GEMMKIT_REQUIRE_ISA=fma, but float16 on fma needs f16c, "
              "which this CPU lacks";
    return s;
  }
  if (!found) {
    s.status = GEMMKIT_ERROR_ISA;
    s.error = "gemmkit: no kernel for this type in this build";
    return s;
  }
  std::snprintf(s.kernel, sizeof s.kernel, "%s_gemm_%dx%d__%s", Family<L>::kWord,
                s.desc.mr, s.desc.nr, s.desc.isa);
  return s;
}

}  // namespace

template <class L>
const Selection<L>& select() {
  static const Selection<L> s = select_now<L>();
  return s;
}

template const Selection<float>& select<float>();
template const Selection<double>& select<double>();
template const Selection<float16>& select<float16>();
template const Selection<bfloat16>& select<bfloat16>();
template const Selection<std::int8_t>& select<std::int8_t>();
template const Selection<std::uint8_t>& select<std::uint8_t>();
template const Selection<std::uint16_t>& select<std::uint16_t>();
template const Selection<std::int32_t>& select<std::int32_t>();
template const Selection<std::int64_t>& select<std::int64_t>();
template const Selection<bool8>& select<bool8>();
template const Selection<complex64>& select<complex64>();
template const Selection<complex128>& select<complex128>();

}  // namespace gemmkit::dispatch
