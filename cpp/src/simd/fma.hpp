// L0 simd: the Fma token (AVX2 + FMA, +F16C for the half-precision
// conversions), 256-bit vectors.  Compiled only in targets/fma/ TUs, under
// -mavx2 -mfma -mf16c.
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>

#include "simd_ops.hpp"

namespace gemmkit::isa_fma {

struct Fma {
  static constexpr const char* kName = "fma";
};

}  // namespace gemmkit::isa_fma

namespace gemmkit::simd {

template <>
struct SimdOps<isa_fma::Fma, float> {
  using Reg = __m256;
  static constexpr int kLanes = 8;
  static constexpr bool kFusedMulAdd = true;

  // Lane i of the mask is all-ones when i < n: drives the masked edge loads,
  // which (unlike a full load) cannot fault past the end of a row.
  static GEMMKIT_INLINE __m256i mask(int n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx);
  }
  static GEMMKIT_INLINE Reg zero() { return _mm256_setzero_ps(); }
  static GEMMKIT_INLINE Reg splat(float v) { return _mm256_set1_ps(v); }
  static GEMMKIT_INLINE Reg loadu(const float* p) { return _mm256_loadu_ps(p); }
  static GEMMKIT_INLINE void storeu(float* p, Reg v) { _mm256_storeu_ps(p, v); }
  static GEMMKIT_INLINE Reg load_partial(const float* p, int n) {
    return _mm256_maskload_ps(p, mask(n));
  }
  static GEMMKIT_INLINE void store_partial(float* p, Reg v, int n) {
    _mm256_maskstore_ps(p, mask(n), v);
  }
  // Optional vocabulary (see Avx512FloatOps::load_strided).
  static GEMMKIT_INLINE Reg load_strided(const float* p, std::ptrdiff_t stride, int n) {
    const __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                           _mm256_set1_epi32(static_cast<int>(stride)));
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), p, idx,
                                    _mm256_castsi256_ps(mask(n)), 4);
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return _mm256_mul_ps(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return _mm256_fmadd_ps(a, b, c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return _mm256_fnmadd_ps(a, b, c);
  }
  // a > b ? a : b, lane-wise (matches the scalar token exactly).
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, _CMP_GT_OQ));
  }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) {
    return _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, _CMP_LT_OQ));
  }
  static GEMMKIT_INLINE float reduce_sum(Reg v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
  }
};

template <>
struct SimdOps<isa_fma::Fma, double> {
  using Reg = __m256d;
  static constexpr int kLanes = 4;
  static constexpr bool kFusedMulAdd = true;

  static GEMMKIT_INLINE __m256i mask(int n) {
    const __m256i idx = _mm256_setr_epi64x(0, 1, 2, 3);
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), idx);
  }
  static GEMMKIT_INLINE Reg zero() { return _mm256_setzero_pd(); }
  static GEMMKIT_INLINE Reg splat(double v) { return _mm256_set1_pd(v); }
  static GEMMKIT_INLINE Reg loadu(const double* p) { return _mm256_loadu_pd(p); }
  static GEMMKIT_INLINE void storeu(double* p, Reg v) { _mm256_storeu_pd(p, v); }
  static GEMMKIT_INLINE Reg load_partial(const double* p, int n) {
    return _mm256_maskload_pd(p, mask(n));
  }
  static GEMMKIT_INLINE void store_partial(double* p, Reg v, int n) {
    _mm256_maskstore_pd(p, mask(n), v);
  }
  static GEMMKIT_INLINE Reg load_strided(const double* p, std::ptrdiff_t stride, int n) {
    const __m128i idx = _mm_mullo_epi32(_mm_setr_epi32(0, 1, 2, 3),
                                        _mm_set1_epi32(static_cast<int>(stride)));
    return _mm256_mask_i32gather_pd(_mm256_setzero_pd(), p, idx,
                                    _mm256_castsi256_pd(mask(n)), 8);
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return _mm256_mul_pd(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return _mm256_add_pd(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return _mm256_fmadd_pd(a, b, c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return _mm256_fnmadd_pd(a, b, c);
  }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) {
    return _mm256_blendv_pd(b, a, _mm256_cmp_pd(a, b, _CMP_GT_OQ));
  }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) {
    return _mm256_blendv_pd(b, a, _mm256_cmp_pd(a, b, _CMP_LT_OQ));
  }
  static GEMMKIT_INLINE double reduce_sum(Reg v) {
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
    return _mm_cvtsd_f64(s);
  }
};

}  // namespace gemmkit::simd

#endif  // x86
