// L0 simd: the Avx512F token, 512-bit vectors with mask registers.
// Compiled only in targets/avx512f/ TUs (-mavx512f and friends).  The dot
// tokens Avx512Vnni and Avx512Bf16 reuse these operations for the types they
// do not accelerate.
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>

#include "simd_ops.hpp"

namespace gemmkit::isa_avx512f {

struct Avx512F {
  static constexpr const char* kName = "avx512f";
};

}  // namespace gemmkit::isa_avx512f

namespace gemmkit::simd {

// Shared by every token that has AVX-512F: parametrized on the token so each
// ISA namespace gets its own instantiation (see simd_ops.hpp).
template <class Token>
struct Avx512FloatOps {
  using Reg = __m512;
  static constexpr int kLanes = 16;
  static constexpr bool kFusedMulAdd = true;

  static GEMMKIT_INLINE __mmask16 mask(int n) {
    return static_cast<__mmask16>((1u << n) - 1u);
  }
  static GEMMKIT_INLINE Reg zero() { return _mm512_setzero_ps(); }
  static GEMMKIT_INLINE Reg splat(float v) { return _mm512_set1_ps(v); }
  static GEMMKIT_INLINE Reg loadu(const float* p) { return _mm512_loadu_ps(p); }
  static GEMMKIT_INLINE void storeu(float* p, Reg v) { _mm512_storeu_ps(p, v); }
  // Masked-off lanes are suppressed: no fault past the end of a row.
  static GEMMKIT_INLINE Reg load_partial(const float* p, int n) {
    return _mm512_maskz_loadu_ps(mask(n), p);
  }
  static GEMMKIT_INLINE void store_partial(float* p, Reg v, int n) {
    _mm512_mask_storeu_ps(p, mask(n), v);
  }
  // Optional vocabulary: lanes i < n read p[i * stride] (one gather); the
  // packing transposes use it.  |stride| * 15 must fit in 32 bits.
  static GEMMKIT_INLINE Reg load_strided(const float* p, std::ptrdiff_t stride, int n) {
    const __m512i idx = _mm512_mullo_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(static_cast<int>(stride)));
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask(n), idx, p, 4);
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return _mm512_fmadd_ps(a, b, c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return _mm512_fnmadd_ps(a, b, c);
  }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ), b, a);
  }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), b, a);
  }
  static GEMMKIT_INLINE float reduce_sum(Reg v) {
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(
                                 _mm512_castps_pd(v), 1)));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};

template <class Token>
struct Avx512DoubleOps {
  using Reg = __m512d;
  static constexpr int kLanes = 8;
  static constexpr bool kFusedMulAdd = true;

  static GEMMKIT_INLINE __mmask8 mask(int n) {
    return static_cast<__mmask8>((1u << n) - 1u);
  }
  static GEMMKIT_INLINE Reg zero() { return _mm512_setzero_pd(); }
  static GEMMKIT_INLINE Reg splat(double v) { return _mm512_set1_pd(v); }
  static GEMMKIT_INLINE Reg loadu(const double* p) { return _mm512_loadu_pd(p); }
  static GEMMKIT_INLINE void storeu(double* p, Reg v) { _mm512_storeu_pd(p, v); }
  static GEMMKIT_INLINE Reg load_partial(const double* p, int n) {
    return _mm512_maskz_loadu_pd(mask(n), p);
  }
  static GEMMKIT_INLINE void store_partial(double* p, Reg v, int n) {
    _mm512_mask_storeu_pd(p, mask(n), v);
  }
  static GEMMKIT_INLINE Reg load_strided(const double* p, std::ptrdiff_t stride, int n) {
    const __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                           _mm256_set1_epi32(static_cast<int>(stride)));
    return _mm512_mask_i32gather_pd(_mm512_setzero_pd(), mask(n), idx, p, 8);
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return _mm512_mul_pd(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return _mm512_add_pd(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return _mm512_fmadd_pd(a, b, c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return _mm512_fnmadd_pd(a, b, c);
  }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) {
    return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, b, _CMP_GT_OQ), b, a);
  }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) {
    return _mm512_mask_blend_pd(_mm512_cmp_pd_mask(a, b, _CMP_LT_OQ), b, a);
  }
  static GEMMKIT_INLINE double reduce_sum(Reg v) {
    __m256d h = _mm256_add_pd(_mm512_castpd512_pd256(v), _mm512_extractf64x4_pd(v, 1));
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));
    s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
    return _mm_cvtsd_f64(s);
  }
};

template <>
struct SimdOps<isa_avx512f::Avx512F, float>
    : Avx512FloatOps<isa_avx512f::Avx512F> {};
template <>
struct SimdOps<isa_avx512f::Avx512F, double>
    : Avx512DoubleOps<isa_avx512f::Avx512F> {};

}  // namespace gemmkit::simd

#endif  // x86
