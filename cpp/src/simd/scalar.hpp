// L0 simd: the Scalar token, the portable floor on every architecture.
//
// Multiply and add are separate roundings (like simd128, and unlike the FMA
// tokens): the scalar TU is compiled with -ffp-contract=off so the compiler
// cannot fuse them behind our back.
//
// Also here: SimdOps<Scalar, int32_t> and SimdOps<Scalar, int64_t> (wrapping,
// like the vector tokens) and the Scalar token's KernelSimd seams (f16, bf16,
// int8), which are the scalar conversions of scalar/half.hpp applied to one
// lane.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../scalar/half.hpp"
#include "../scalar/requant.hpp"
#include "kernel_simd.hpp"
#include "simd_ops.hpp"

namespace gemmkit::isa_scalar {

struct Scalar {
  static constexpr const char* kName = "scalar";
};

}  // namespace gemmkit::isa_scalar

namespace gemmkit::simd {

// float and double (complex lanes: complex_ops.hpp, over this one).
template <class T>
  requires std::is_floating_point_v<T>
struct SimdOps<isa_scalar::Scalar, T> {
  using Reg = T;
  static constexpr int kLanes = 1;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE Reg zero() { return T(0); }
  static GEMMKIT_INLINE Reg splat(T v) { return v; }
  static GEMMKIT_INLINE Reg loadu(const T* p) { return *p; }
  static GEMMKIT_INLINE void storeu(T* p, Reg v) { *p = v; }
  static GEMMKIT_INLINE Reg load_partial(const T* p, int n) {
    return n > 0 ? *p : T(0);
  }
  static GEMMKIT_INLINE void store_partial(T* p, Reg v, int n) {
    if (n > 0) *p = v;
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return a * b; }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return a + b; }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) { return a * b + c; }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) { return c - a * b; }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return a > b ? a : b; }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return a < b ? a : b; }
  static GEMMKIT_INLINE T reduce_sum(Reg v) { return v; }
};

// int32 and int64 lanes wrap modulo 2^32 / 2^64 like the vector tokens'
// paddd/pmulld (paddq/vpmullq): the arithmetic runs in the unsigned twin,
// since signed overflow is undefined in C++.
template <class T>
  requires std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>
struct SimdOps<isa_scalar::Scalar, T> {
  using Reg = T;
  using U = std::make_unsigned_t<T>;
  static constexpr int kLanes = 1;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE Reg zero() { return 0; }
  static GEMMKIT_INLINE Reg splat(T v) { return v; }
  static GEMMKIT_INLINE Reg loadu(const T* p) { return *p; }
  static GEMMKIT_INLINE void storeu(T* p, Reg v) { *p = v; }
  static GEMMKIT_INLINE Reg load_partial(const T* p, int n) { return n > 0 ? *p : 0; }
  static GEMMKIT_INLINE void store_partial(T* p, Reg v, int n) {
    if (n > 0) *p = v;
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return T(U(a) * U(b)); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return T(U(a) + U(b)); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) { return T(U(a) * U(b) + U(c)); }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) { return T(U(c) - U(a) * U(b)); }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return a > b ? a : b; }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return a < b ? a : b; }
  static GEMMKIT_INLINE Reg bit_and(Reg a, Reg b) { return a & b; }
  static GEMMKIT_INLINE Reg bit_or(Reg a, Reg b) { return a | b; }
  static GEMMKIT_INLINE T reduce_sum(Reg v) { return v; }
};

// f16 / bf16 with an f32 accumulator: one lane through scalar/half.hpp.
// Parametrized on the token like every shared seam (see simd_ops.hpp).
template <class Token, class N>
struct ScalarNarrowSeam {
  using Ops = SimdOps<Token, float>;
  using Reg = float;
  static constexpr int kLanes = 1;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const N* p) { return scalar::to_float(*p); }
  static GEMMKIT_INLINE Reg splat_rhs(N v) { return scalar::to_float(v); }
  static GEMMKIT_INLINE Reg load_out(const N* p) { return scalar::to_float(*p); }
  static GEMMKIT_INLINE void store_out(N* p, Reg v) { *p = scalar::narrow<N>(v); }
  static GEMMKIT_INLINE Reg load_out_partial(const N* p, int n) {
    return n > 0 ? scalar::to_float(*p) : 0.0f;
  }
  static GEMMKIT_INLINE void store_out_partial(N* p, Reg v, int n) {
    if (n > 0) *p = scalar::narrow<N>(v);
  }
};

template <>
struct KernelSimd<isa_scalar::Scalar, float16, float16, float, float16>
    : ScalarNarrowSeam<isa_scalar::Scalar, float16> {};
template <>
struct KernelSimd<isa_scalar::Scalar, bfloat16, bfloat16, float, bfloat16>
    : ScalarNarrowSeam<isa_scalar::Scalar, bfloat16> {};

// int8 -> int32.  kRequantVector is false: the requantizing epilogue routes
// every element through scalar::requantize.  requant_store is that same map
// on the one lane, so code generic over the token still compiles.
template <>
struct KernelSimd<isa_scalar::Scalar, std::int8_t, std::int8_t, std::int32_t, std::int32_t> {
  using Ops = SimdOps<isa_scalar::Scalar, std::int32_t>;
  using Reg = std::int32_t;
  static constexpr int kLanes = 1;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const std::int8_t* p) { return *p; }
  static GEMMKIT_INLINE Reg splat_rhs(std::int8_t v) { return v; }
  static GEMMKIT_INLINE Reg load_out(const std::int32_t* p) { return *p; }
  static GEMMKIT_INLINE void store_out(std::int32_t* p, Reg v) { *p = v; }
  static GEMMKIT_INLINE Reg load_out_partial(const std::int32_t* p, int n) {
    return n > 0 ? *p : 0;
  }
  static GEMMKIT_INLINE void store_out_partial(std::int32_t* p, Reg v, int n) {
    if (n > 0) *p = v;
  }
  static GEMMKIT_INLINE void requant_store(std::uint8_t* dst, Reg v, float scale,
                                           std::int32_t zp, std::int32_t lo, std::int32_t hi) {
    *dst = std::uint8_t(std::uint32_t(scalar::requantize(v, scale, zp, lo, hi)) & 0xffu);
  }
  static GEMMKIT_INLINE void requant_store_partial(std::uint8_t* dst, Reg v, float scale,
                                                   std::int32_t zp, std::int32_t lo,
                                                   std::int32_t hi, int n) {
    if (n > 0) requant_store(dst, v, scale, zp, lo, hi);
  }
};

}  // namespace gemmkit::simd
