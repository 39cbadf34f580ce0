// L0 simd: KernelSimd<Token, L, R, A, O>, the widen-on-load / narrow-on-store
// seam between a kernel family's element types and a token's registers.
//
// A family reads LHS values of type L and RHS values of type R, accumulates
// in A (SimdOps<Token, A>) and writes O.  Every specialization provides:
//
//   using Ops = SimdOps<Token, A>;  using Reg = typename Ops::Reg;
//   static constexpr int kLanes = Ops::kLanes;
//   static constexpr bool kRequantVector;  true only where requant_store is a
//                                  genuine vector path (see requant below)
//   load_lhs(const L* p)           kLanes L values widened to one A register
//   splat_rhs(R v)                 one R value widened and broadcast
//   load_out(const O* p)           kLanes O values widened (the beta read of C)
//   store_out(O* p, Reg v)         narrowed to O, round to nearest even, once
//   requant_store(uint8_t* dst, Reg v, float scale, int32_t zp,
//                 int32_t lo, int32_t hi)      (A == int32_t only)
//                                  kLanes bytes: the requant map of
//                                  scalar/requant.hpp, bit for bit
//
// Edge vocabulary (every specialization in this file and in simd/<token>.hpp
// has it; like SimdOps' partials, nothing past n is read or written):
//   load_out_partial(const O* p, int n)     first n lanes, the rest 0
//   store_out_partial(O* p, Reg v, int n)   first n lanes only
//   requant_store_partial(uint8_t* dst, Reg v, float scale, int32_t zp,
//                         int32_t lo, int32_t hi, int n)   (A == int32_t)
// load_lhs and splat_rhs have no partial form: they read packed panels,
// which the packers zero-fill to full tiles.
//
// The homogeneous case (L == R == A == O) is the plain SimdOps load, splat
// and store, for every token, below.  Mixed specializations live beside
// each token (simd/<token>.hpp) and must agree bit for bit with the scalar
// conversions of scalar/half.hpp (NaN rules included), so a full tile and an
// edge tile of the same matrix round the same way.  Those per token:
//
//   <Tok, float16, float16, float, float16>     widen f16, narrow RNE
//   <Tok, bfloat16, bfloat16, float, bfloat16>  widen bf16, narrow RNE
//   <Tok, int8_t, int8_t, int32_t, int32_t>     sign-extend; plain i32 out
//
// and generic over the token, here: the f32-output twins
// <Tok, float16|bfloat16, same, float, float>, the requantized outputs
// <Tok, int8_t, int8_t, int32_t, int8_t|uint8_t>, and the wrapping rings'
// narrow types <Tok, N, N, int32_t, int32_t|N> for N = uint8_t, uint16_t,
// bool8 (RingSeam).  Complex lanes are SimdOps<Tok, complex<T>>
// (complex_ops.hpp), so their seam is the homogeneous case.
//
// requant_store (the seven-step contract is written out in
// scalar/requant.hpp): each lane is clamp(zp + round_half_even(double(v) *
// double(scale)), lo, hi) and its low byte is stored, so a uint8 output casts
// its pointer and passes (0, 255).  kRequantVector is true on Fma, the
// AVX-512 tokens, Neon and Simd128.  The Scalar token (kRequantVector ==
// false) still has requant_store, as the one-lane scalar map itself, so
// generic code compiles; callers gate their vector epilogue on the flag.
#pragma once

#include <cstdint>

#include "../scalar/half.hpp"
#include "gemmkit/types.hpp"
#include "simd_ops.hpp"

namespace gemmkit::simd {

template <class Token, class L, class R, class A, class O>
struct KernelSimd;

template <class Token, class T>
struct KernelSimd<Token, T, T, T, T> {
  using Ops = SimdOps<Token, T>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const T* p) { return Ops::loadu(p); }
  static GEMMKIT_INLINE Reg splat_rhs(T v) { return Ops::splat(v); }
  static GEMMKIT_INLINE Reg load_out(const T* p) { return Ops::loadu(p); }
  static GEMMKIT_INLINE void store_out(T* p, Reg v) { Ops::storeu(p, v); }
  static GEMMKIT_INLINE Reg load_out_partial(const T* p, int n) {
    return Ops::load_partial(p, n);
  }
  static GEMMKIT_INLINE void store_out_partial(T* p, Reg v, int n) {
    Ops::store_partial(p, v, n);
  }
};

namespace detail {

// Edge loads/stores of a narrow O through a kLanes buffer on the stack: the
// full-width conversion runs on the buffer, only p[0, n) is touched.  Self
// is the deriving seam (CRTP); its load_out/store_out and Reg are looked up
// when a partial is first used, by which time Self is complete (hence the
// deduced return type and the Reg template parameter: a vector type as a
// template argument of the base would also lose its alignment attribute).
template <class Self, class O, int kLanes>
struct BufferedOutPartials {
  static GEMMKIT_INLINE auto load_out_partial(const O* p, int n) {
    O tmp[kLanes] = {};
    for (int i = 0; i < n; ++i) tmp[i] = p[i];
    return Self::load_out(tmp);
  }
  template <class Reg>
  static GEMMKIT_INLINE void store_out_partial(O* p, Reg v, int n) {
    O tmp[kLanes];
    Self::store_out(tmp, v);
    for (int i = 0; i < n; ++i) p[i] = tmp[i];
  }
};

// requant_store_partial through a kLanes byte buffer.
template <class Self, int kLanes>
struct BufferedRequantPartial {
  template <class Reg>
  static GEMMKIT_INLINE void requant_store_partial(std::uint8_t* dst, Reg v, float scale,
                                                   std::int32_t zp, std::int32_t lo,
                                                   std::int32_t hi, int n) {
    std::uint8_t tmp[kLanes];
    Self::requant_store(tmp, v, scale, zp, lo, hi);
    for (int i = 0; i < n; ++i) dst[i] = tmp[i];
  }
};

// The f32-output twin of a narrow seam: the accumulate side (load_lhs,
// splat_rhs) is the narrow seam's, verbatim, so a twin accumulates bit for
// bit like the narrow family; C is an f32 scratch, loaded and stored plain.
template <class Token, class N>
struct NarrowF32Twin {
  using Narrow = KernelSimd<Token, N, N, float, N>;
  using Ops = SimdOps<Token, float>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const N* p) { return Narrow::load_lhs(p); }
  static GEMMKIT_INLINE Reg splat_rhs(N v) { return Narrow::splat_rhs(v); }
  static GEMMKIT_INLINE Reg load_out(const float* p) { return Ops::loadu(p); }
  static GEMMKIT_INLINE void store_out(float* p, Reg v) { Ops::storeu(p, v); }
  static GEMMKIT_INLINE Reg load_out_partial(const float* p, int n) {
    return Ops::load_partial(p, n);
  }
  static GEMMKIT_INLINE void store_out_partial(float* p, Reg v, int n) {
    Ops::store_partial(p, v, n);
  }
};

// A requantized int8/uint8 output: everything forwards to the i32 seam.  No
// load_out/store_out: a requantized C is written only through requant_store
// (or scalar::requantize), never read back.
template <class Token>
struct RequantOut {
  using Wide = KernelSimd<Token, std::int8_t, std::int8_t, std::int32_t, std::int32_t>;
  using Ops = SimdOps<Token, std::int32_t>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr bool kRequantVector = Wide::kRequantVector;

  static GEMMKIT_INLINE Reg load_lhs(const std::int8_t* p) { return Wide::load_lhs(p); }
  static GEMMKIT_INLINE Reg splat_rhs(std::int8_t v) { return Wide::splat_rhs(v); }
  static GEMMKIT_INLINE void requant_store(std::uint8_t* dst, Reg v, float scale,
                                           std::int32_t zp, std::int32_t lo, std::int32_t hi) {
    Wide::requant_store(dst, v, scale, zp, lo, hi);
  }
  static GEMMKIT_INLINE void requant_store_partial(std::uint8_t* dst, Reg v, float scale,
                                                   std::int32_t zp, std::int32_t lo,
                                                   std::int32_t hi, int n) {
    Wide::requant_store_partial(dst, v, scale, zp, lo, hi, n);
  }
};

// The exact integer families' narrow types (uint8_t, uint16_t, bool8, int32
// accumulator, kernel/widen.hpp): N -> int32 for the packers (O = int32_t)
// and int32 -> N at the store (O = N), through scalar::widen/narrow one lane
// at a time on a kLanes buffer.  The loops are simple enough for the compiler
// to vectorize, and neither side is in the depth loop.
template <class Token, class N, class O>
struct RingSeam {
  using Ops = SimdOps<Token, std::int32_t>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const N* p) {
    std::int32_t tmp[kLanes];
    for (int i = 0; i < kLanes; ++i) tmp[i] = scalar::widen<std::int32_t>(p[i]);
    return Ops::loadu(tmp);
  }
  static GEMMKIT_INLINE Reg splat_rhs(N v) { return Ops::splat(scalar::widen<std::int32_t>(v)); }
  static GEMMKIT_INLINE Reg load_out_partial(const O* p, int n) {
    std::int32_t tmp[kLanes] = {};
    for (int i = 0; i < n; ++i) tmp[i] = scalar::widen<std::int32_t>(p[i]);
    return Ops::loadu(tmp);
  }
  static GEMMKIT_INLINE void store_out_partial(O* p, Reg v, int n) {
    std::int32_t tmp[kLanes];
    Ops::storeu(tmp, v);
    for (int i = 0; i < n; ++i) p[i] = scalar::narrow<O>(tmp[i]);
  }
  static GEMMKIT_INLINE Reg load_out(const O* p) { return load_out_partial(p, kLanes); }
  static GEMMKIT_INLINE void store_out(O* p, Reg v) { store_out_partial(p, v, kLanes); }
};

}  // namespace detail

// Two explicit heads (not one generic over N): KernelSimd<Token, N, N, float,
// float> would be ambiguous with the homogeneous case at N == float.
template <class Token>
struct KernelSimd<Token, float16, float16, float, float>
    : detail::NarrowF32Twin<Token, float16> {};
template <class Token>
struct KernelSimd<Token, bfloat16, bfloat16, float, float>
    : detail::NarrowF32Twin<Token, bfloat16> {};

template <class Token>
struct KernelSimd<Token, std::int8_t, std::int8_t, std::int32_t, std::int8_t>
    : detail::RequantOut<Token> {};
template <class Token>
struct KernelSimd<Token, std::int8_t, std::int8_t, std::int32_t, std::uint8_t>
    : detail::RequantOut<Token> {};

#define GEMMKIT_RING_SEAMS(N)                                                   \
  template <class Token>                                                        \
  struct KernelSimd<Token, N, N, std::int32_t, std::int32_t>                    \
      : detail::RingSeam<Token, N, std::int32_t> {};                            \
  template <class Token>                                                        \
  struct KernelSimd<Token, N, N, std::int32_t, N> : detail::RingSeam<Token, N, N> {};
GEMMKIT_RING_SEAMS(std::uint8_t)
GEMMKIT_RING_SEAMS(std::uint16_t)
GEMMKIT_RING_SEAMS(bool8)
#undef GEMMKIT_RING_SEAMS

}  // namespace gemmkit::simd
