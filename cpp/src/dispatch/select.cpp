// L7 dispatch: the per-type ladders.
//
// Auto: bf16 and int8 try amx (tile matrix multiply) first; then bf16 tries
// avx512bf16 (the vdpbf16ps dot kernel; not on Intel cores, where widening to
// f32 FMAs is faster) and int8 avx512vnni (vpdpbusd); then every type tries
// avx512f, fma (avx2 + fma; f16c too, for f16), neon or simd128 where the
// architecture has them, then scalar.  A pin selects exactly its ISA or fails: avx512vnni pins the
// int8 dot kernel and avx512bf16 the bf16 one (after checking the pinned
// ISA's own features), amx both tile kernels; for the other types these
// pins run the avx512f kernels.
#include "dispatch/select.hpp"

#include <cstdio>
#include <type_traits>

#include "dispatch/isa.hpp"
#include "gemmkit/gemmkit.h"

// Entry points of each compiled target (targets/<isa>/<type>.cpp).
#define GEMMKIT_DECLARE_WIDEN_TARGET(isa)                   \
  namespace gemmkit::isa_##isa {                            \
  dispatch::Descriptor<float> f32_descriptor();             \
  dispatch::Descriptor<double> f64_descriptor();            \
  dispatch::Descriptor<float16> f16_descriptor();           \
  dispatch::Descriptor<bfloat16> bf16_descriptor();         \
  dispatch::Descriptor<std::int8_t> int8_descriptor();      \
  }
#if defined(GEMMKIT_HAVE_SCALAR)
GEMMKIT_DECLARE_WIDEN_TARGET(scalar)
#endif
#if defined(GEMMKIT_HAVE_FMA)
GEMMKIT_DECLARE_WIDEN_TARGET(fma)
#endif
#if defined(GEMMKIT_HAVE_AVX512F)
GEMMKIT_DECLARE_WIDEN_TARGET(avx512f)
#endif
#if defined(GEMMKIT_HAVE_NEON)
GEMMKIT_DECLARE_WIDEN_TARGET(neon)
#endif
#if defined(GEMMKIT_HAVE_SIMD128)
GEMMKIT_DECLARE_WIDEN_TARGET(simd128)
#endif
#if defined(GEMMKIT_HAVE_AVX512VNNI)
namespace gemmkit::isa_avx512vnni {
dispatch::Descriptor<std::int8_t> int8_descriptor();
}
#endif
#if defined(GEMMKIT_HAVE_AVX512BF16)
namespace gemmkit::isa_avx512bf16 {
dispatch::Descriptor<bfloat16> bf16_descriptor();
}
#endif
#if defined(GEMMKIT_HAVE_AMX)
namespace gemmkit::isa_amx {
dispatch::Descriptor<bfloat16> bf16_descriptor();
dispatch::Descriptor<std::int8_t> int8_descriptor();
}
#endif

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

// The descriptor one widening target compiles for L.
#define GEMMKIT_WIDEN_DESCRIPTOR(isa)                                              \
  if constexpr (std::is_same_v<L, float>) *out = isa_##isa::f32_descriptor();      \
  else if constexpr (std::is_same_v<L, double>) *out = isa_##isa::f64_descriptor(); \
  else if constexpr (std::is_same_v<L, float16>) *out = isa_##isa::f16_descriptor(); \
  else if constexpr (std::is_same_v<L, bfloat16>) *out = isa_##isa::bf16_descriptor(); \
  else *out = isa_##isa::int8_descriptor();                                        \
  return true;

// The descriptor of one compiled ISA for L, or false if none is compiled.
template <class L>
bool descriptor_for(Isa isa, Descriptor<L>* out) {
  switch (isa) {
#if defined(GEMMKIT_HAVE_SCALAR)
    case Isa::scalar:
      GEMMKIT_WIDEN_DESCRIPTOR(scalar)
#endif
#if defined(GEMMKIT_HAVE_FMA)
    case Isa::fma:
      GEMMKIT_WIDEN_DESCRIPTOR(fma)
#endif
#if defined(GEMMKIT_HAVE_AVX512F)
    case Isa::avx512f:
      GEMMKIT_WIDEN_DESCRIPTOR(avx512f)
    case Isa::avx512vnni:
#if defined(GEMMKIT_HAVE_AVX512VNNI)
      if constexpr (std::is_same_v<L, std::int8_t>) {
        *out = isa_avx512vnni::int8_descriptor();
        return true;
      }
#endif
      return descriptor_for<L>(Isa::avx512f, out);
    case Isa::avx512bf16:
#if defined(GEMMKIT_HAVE_AVX512BF16)
      if constexpr (std::is_same_v<L, bfloat16>) {
        *out = isa_avx512bf16::bf16_descriptor();
        return true;
      }
#endif
      return descriptor_for<L>(Isa::avx512f, out);
    case Isa::amx:
#if defined(GEMMKIT_HAVE_AMX)
      if constexpr (std::is_same_v<L, bfloat16>) {
        *out = isa_amx::bf16_descriptor();
        return true;
      } else if constexpr (std::is_same_v<L, std::int8_t>) {
        *out = isa_amx::int8_descriptor();
        return true;
      }
#endif
      return descriptor_for<L>(Isa::avx512f, out);
#endif
#if defined(GEMMKIT_HAVE_NEON)
    case Isa::neon:
      GEMMKIT_WIDEN_DESCRIPTOR(neon)
#endif
#if defined(GEMMKIT_HAVE_SIMD128)
    case Isa::simd128:
      GEMMKIT_WIDEN_DESCRIPTOR(simd128)
#endif
    default:
      return false;
  }
}
#undef GEMMKIT_WIDEN_DESCRIPTOR

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
    const Isa dot = std::is_same_v<L, bfloat16>      ? (bf16_dot ? Isa::avx512bf16 : Isa::count)
                    : std::is_same_v<L, std::int8_t> ? Isa::avx512vnni
                                                     : Isa::count;
    const bool tiles = std::is_same_v<L, bfloat16> || std::is_same_v<L, std::int8_t>;
    const Isa ladder[] = {tiles ? Isa::amx : Isa::count, dot, Isa::avx512f, Isa::fma,
                          Isa::neon, Isa::simd128, Isa::scalar};
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

}  // namespace gemmkit::dispatch
