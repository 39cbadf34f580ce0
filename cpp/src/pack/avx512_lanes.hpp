// L1 pack: AVX-512 lane shuffles and byte masks shared by the dot-family
// packers (kernel/dot_bf16.hpp, dot_vnni.hpp).  Static inline: included only
// in translation units compiled with AVX-512F + BW (ODR: simd/simd_ops.hpp).
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include "simd/x86_intrinsics.hpp"

#include "simd/simd_ops.hpp"

namespace gemmkit::pack::avx512 {

// GCC 12 warns "may be used uninitialized" on the plain AVX-512 shuffle and
// 512->128 cast intrinsics (their unused pass-through operand is
// _mm512_undefined_epi32, GCC bug 105593).  These spell the same single
// instructions without it: a full write mask over an operand, and the low
// 128 bits read as vector elements (no instruction at all).
static GEMMKIT_INLINE __m128i low128(__m512i v) { return __m128i{v[0], v[1]}; }
static GEMMKIT_INLINE __m512i unpacklo32(__m512i a, __m512i b) {
  return _mm512_mask_unpacklo_epi32(a, __mmask16(0xFFFF), a, b);
}
static GEMMKIT_INLINE __m512i unpackhi32(__m512i a, __m512i b) {
  return _mm512_mask_unpackhi_epi32(a, __mmask16(0xFFFF), a, b);
}
static GEMMKIT_INLINE __m512i unpacklo64(__m512i a, __m512i b) {
  return _mm512_mask_unpacklo_epi64(a, __mmask8(0xFF), a, b);
}
static GEMMKIT_INLINE __m512i unpackhi64(__m512i a, __m512i b) {
  return _mm512_mask_unpackhi_epi64(a, __mmask8(0xFF), a, b);
}

// Masks for the masked loads/stores that keep partial panels from touching
// memory past the source or destination (AVX-512BW).
static GEMMKIT_INLINE __mmask64 byte_mask(int n) {
  return n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1;
}
static GEMMKIT_INLINE __mmask32 word_mask(int n) {
  return n >= 32 ? ~__mmask32(0) : (__mmask32(1) << n) - 1;
}

}  // namespace gemmkit::pack::avx512

#endif  // x86
