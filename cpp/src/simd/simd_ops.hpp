// L0 simd: the SimdOps vocabulary every ISA token implements.
//
// A token is an empty struct that names one instruction-set choice.  Each
// token lives in its own namespace gemmkit::isa_<name> so that every template
// instantiated with it carries that namespace in its mangled name: code
// compiled for AVX-512 can then never be merged by the linker with the same
// template compiled for a baseline caller (the ODR hazard of multi-ISA
// builds).  Tokens are only ever instantiated in their own translation unit,
// under their own compiler flags (cpp/cmake/gemmkit_isa.cmake).
//
// SimdOps<Token, T> is the thick per-type vocabulary the one generic
// microkernel is written in.  Every specialization provides:
//
//   using Reg;                         one vector register of T
//   static constexpr int kLanes;       elements of T per Reg
//   static constexpr bool kFusedMulAdd true if mul_add rounds once
//   zero()                             all lanes 0
//   splat(T v)                         all lanes v
//   loadu(const T* p)                  kLanes elements, any alignment
//   storeu(T* p, Reg v)
//   load_partial(const T* p, int n)    first n lanes (0 <= n <= kLanes), rest 0;
//                                      never touches p[n..kLanes)
//   store_partial(T* p, Reg v, int n)  first n lanes only
//   mul(a, b), add(a, b)
//   mul_add(a, b, c)                   a * b + c (fused where kFusedMulAdd)
//   fnma(a, b, c)                      c - a * b (fused where kFusedMulAdd)
//   max(a, b), min(a, b)               exactly a > b ? a : b and a < b ? a : b
//                                      lane-wise: NaN in either operand, or
//                                      two zeros, give b.  The fused epilogues
//                                      rely on it (max(NaN, 0) = max(-0, 0)
//                                      = +0); x86 maxps(a, b) matches it, but
//                                      NEON vmaxq/vmaxnmq and wasm f32x4.max
//                                      do not
//   reduce_sum(Reg v)                  sum of all lanes (GEMV, dot epilogues)
//
// int32 lanes also have bit_and(a, b) and bit_or(a, b) (the bool family's
// bit planes, kernel/bool_bits.hpp).
//
// All functions are static and force-inlined; a token's SimdOps must compile
// without any project header above L0.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../compiler.hpp"  // GEMMKIT_INLINE, GEMMKIT_RESTRICT, GEMMKIT_UNROLL

namespace gemmkit::simd {

// Primary template: deliberately undefined, so a (token, type) pair without an
// implementation fails at compile time instead of silently running scalar.
template <class Token, class T>
struct SimdOps;

}  // namespace gemmkit::simd
