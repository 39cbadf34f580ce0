// L7 dispatch: the f32/f64 ladder.
//
// Auto: avx512f, then fma (avx2 + fma), then neon or simd128 where the
// architecture has them, then scalar.  A pin selects exactly its ISA or
// fails; avx512vnni and avx512bf16 pins run the avx512f kernels for these
// types, after checking the pinned ISA's own features.
#include "dispatch/select_float.hpp"

#include <cstdio>

#include "dispatch/isa.hpp"
#include "gemmkit/gemmkit.h"

// Entry points of each compiled target (targets/<isa>/float.cpp).
#define GEMMKIT_DECLARE_FLOAT_TARGET(isa)                        \
  namespace gemmkit::isa_##isa {                                 \
  dispatch::FloatDescriptor<float> f32_descriptor();             \
  dispatch::FloatDescriptor<double> f64_descriptor();            \
  }
#if defined(GEMMKIT_HAVE_SCALAR)
GEMMKIT_DECLARE_FLOAT_TARGET(scalar)
#endif
#if defined(GEMMKIT_HAVE_FMA)
GEMMKIT_DECLARE_FLOAT_TARGET(fma)
#endif
#if defined(GEMMKIT_HAVE_AVX512F)
GEMMKIT_DECLARE_FLOAT_TARGET(avx512f)
#endif
#if defined(GEMMKIT_HAVE_NEON)
GEMMKIT_DECLARE_FLOAT_TARGET(neon)
#endif
#if defined(GEMMKIT_HAVE_SIMD128)
GEMMKIT_DECLARE_FLOAT_TARGET(simd128)
#endif

namespace gemmkit::dispatch {

namespace {

template <class T>
struct Family;

template <>
struct Family<float> {
  static constexpr const char* kWord = "f32";
};

template <>
struct Family<double> {
  static constexpr const char* kWord = "f64";
};

// The descriptor of one compiled ISA, or false if none is compiled.
template <class T>
bool descriptor_for(Isa isa, FloatDescriptor<T>* out) {
  switch (isa) {
#define GEMMKIT_FLOAT_CASE(name)                             \
  case Isa::name:                                            \
    if constexpr (sizeof(T) == 4) {                          \
      *out = isa_##name::f32_descriptor();                   \
    } else {                                                 \
      *out = isa_##name::f64_descriptor();                   \
    }                                                        \
    return true;
#if defined(GEMMKIT_HAVE_SCALAR)
    GEMMKIT_FLOAT_CASE(scalar)
#endif
#if defined(GEMMKIT_HAVE_FMA)
    GEMMKIT_FLOAT_CASE(fma)
#endif
#if defined(GEMMKIT_HAVE_AVX512F)
    GEMMKIT_FLOAT_CASE(avx512f)
    // The dot ISAs accelerate bf16/int8 only; floats run plain AVX-512F.
    case Isa::avx512vnni:
    case Isa::avx512bf16:
      return descriptor_for<T>(Isa::avx512f, out);
#endif
#if defined(GEMMKIT_HAVE_NEON)
    GEMMKIT_FLOAT_CASE(neon)
#endif
#if defined(GEMMKIT_HAVE_SIMD128)
    GEMMKIT_FLOAT_CASE(simd128)
#endif
#undef GEMMKIT_FLOAT_CASE
    default:
      return false;
  }
}

template <class T>
Selection<T> select() {
  Selection<T> s{};
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
    found = descriptor_for<T>(p.isa, &s.desc);
  } else {
    const Isa ladder[] = {Isa::avx512f, Isa::fma, Isa::neon, Isa::simd128,
                          Isa::scalar};
    char why[200];
    for (Isa isa : ladder) {
      if (isa_usable(isa, why, sizeof why) && descriptor_for<T>(isa, &s.desc)) {
        found = true;
        break;
      }
    }
  }
  if (!found) {
    s.status = GEMMKIT_ERROR_ISA;
    s.error = "gemmkit: no kernel for this type in this build";
    return s;
  }
  std::snprintf(s.kernel, sizeof s.kernel, "%s_gemm_%dx%d__%s",
                Family<T>::kWord, s.desc.mr, s.desc.nr, s.desc.isa);
  return s;
}

}  // namespace

const Selection<float>& select_f32() {
  static const Selection<float> s = select<float>();
  return s;
}

const Selection<double>& select_f64() {
  static const Selection<double> s = select<double>();
  return s;
}

}  // namespace gemmkit::dispatch
