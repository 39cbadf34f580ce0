// L8 api: element types gemmkit stores but C++ has no standard name for.
//
// float16 (IEEE binary16) and bfloat16 (the top half of a binary32) are bare
// 16-bit storage: gemmkit never does arithmetic in them.  Kernels widen them
// to float on load, accumulate in float, and round to nearest even once, at
// the store.  Layout-compatible with numpy.float16 and ml_dtypes.bfloat16.
#pragma once

#include <complex>
#include <cstdint>

namespace gemmkit {

struct float16 {
  std::uint16_t bits;
};

struct bfloat16 {
  std::uint16_t bits;
};

// numpy's bool: one byte, any nonzero byte is true (numpy's own loops test
// `!= 0`), so kernels read the byte, never a C++ bool that might hold 2.
struct bool8 {
  std::uint8_t bits;
};

// numpy's complex64/complex128: interleaved (real, imaginary) pairs.
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// The accumulator each input type computes in.
template <class T>
struct accumulator {
  using type = T;  // float, double, int32, int64, complex64, complex128
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

// The exact integer families accumulate in a ring at least as wide as the
// result and wrap: the low w bits of a sum of products depend only on the
// low w bits of the inputs, so int8/uint8 share the 8-bit kernels (uint8_t),
// int16/uint16 the 16-bit ones (uint16_t), int32/uint32 and int64/uint64
// the 32- and 64-bit ones.
template <>
struct accumulator<std::uint8_t> {
  using type = std::int32_t;
};
template <>
struct accumulator<std::uint16_t> {
  using type = std::int32_t;
};
// bool: the count of true products (the store writes count != 0).
template <>
struct accumulator<bool8> {
  using type = std::int32_t;
};
template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

template <class T>
using acc_t = typename accumulator<T>::type;

}  // namespace gemmkit
