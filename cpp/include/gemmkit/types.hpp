// L8 api: element types gemmkit stores but C++ has no standard name for.
//
// float16 (IEEE binary16) and bfloat16 (the top half of a binary32) are bare
// 16-bit storage: gemmkit never does arithmetic in them.  Kernels widen them
// to float on load, accumulate in float, and round to nearest even once, at
// the store.  Layout-compatible with numpy.float16 and ml_dtypes.bfloat16.
#pragma once

#include <cstdint>

namespace gemmkit {

struct float16 {
  std::uint16_t bits;
};

struct bfloat16 {
  std::uint16_t bits;
};

// The accumulator each input type computes in.
template <class T>
struct accumulator {
  using type = T;  // float, double
};
template <>
struct accumulator<float16> {
  using type = float;
};
template <>
struct accumulator<bfloat16> {
  using type = float;
};
template <>
struct accumulator<std::int8_t> {
  using type = std::int32_t;
};

template <class T>
using acc_t = typename accumulator<T>::type;

}  // namespace gemmkit
