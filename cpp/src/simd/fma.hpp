// L0 simd: the Fma token (AVX2 + FMA, +F16C for the half-precision
// conversions), 256-bit vectors.  Compiled only in targets/fma/ TUs, under
// -mavx2 -mfma -mf16c.
//
// Also here: SimdOps<Fma, int32_t>, SimdOps<Fma, int64_t> and the Fma
// KernelSimd seams: f16 by F16C (vcvtph2ps / vcvtps2ph, round to nearest even
// by immediate, so MXCSR's rounding mode does not matter), bf16 by integer
// shifts and the bias trick, int8 by sign extension, and the vector
// requant_store (f64 lanes, roundpd).
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include "x86_intrinsics.hpp"

#include <cstdint>

#include "../scalar/half.hpp"
#include "kernel_simd.hpp"
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
  // Optional vocabulary (see Avx512FloatOps::store_transposed4), p < 8.
  static GEMMKIT_INLINE void store_transposed4(const Reg (&r)[4], float* dst,
                                               std::ptrdiff_t ld) {
    const __m256d q0 = _mm256_castps_pd(_mm256_unpacklo_ps(r[0], r[1]));
    const __m256d q1 = _mm256_castps_pd(_mm256_unpackhi_ps(r[0], r[1]));
    const __m256d q2 = _mm256_castps_pd(_mm256_unpacklo_ps(r[2], r[3]));
    const __m256d q3 = _mm256_castps_pd(_mm256_unpackhi_ps(r[2], r[3]));
    const Reg v[4] = {_mm256_castpd_ps(_mm256_unpacklo_pd(q0, q2)),
                      _mm256_castpd_ps(_mm256_unpackhi_pd(q0, q2)),
                      _mm256_castpd_ps(_mm256_unpacklo_pd(q1, q3)),
                      _mm256_castpd_ps(_mm256_unpackhi_pd(q1, q3))};
    for (int d = 0; d < 4; ++d) {
      _mm_storeu_ps(dst + d * ld, _mm256_castps256_ps128(v[d]));
      _mm_storeu_ps(dst + (4 + d) * ld, _mm256_extractf128_ps(v[d], 1));
    }
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
  // Optional vocabulary (see Avx512FloatOps::store_transposed4), p < 4:
  // a 4x4 transpose.
  static GEMMKIT_INLINE void store_transposed4(const Reg (&r)[4], double* dst,
                                               std::ptrdiff_t ld) {
    const Reg w0 = _mm256_unpacklo_pd(r[0], r[1]), w1 = _mm256_unpackhi_pd(r[0], r[1]);
    const Reg w2 = _mm256_unpacklo_pd(r[2], r[3]), w3 = _mm256_unpackhi_pd(r[2], r[3]);
    _mm256_storeu_pd(dst, _mm256_permute2f128_pd(w0, w2, 0x20));
    _mm256_storeu_pd(dst + ld, _mm256_permute2f128_pd(w1, w3, 0x20));
    _mm256_storeu_pd(dst + 2 * ld, _mm256_permute2f128_pd(w0, w2, 0x31));
    _mm256_storeu_pd(dst + 3 * ld, _mm256_permute2f128_pd(w1, w3, 0x31));
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


// int32 lanes wrap modulo 2^32 (vpaddd / vpmulld keep the low 32 bits).
template <>
struct SimdOps<isa_fma::Fma, std::int32_t> {
  using Reg = __m256i;
  static constexpr int kLanes = 8;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE __m256i mask(int n) {
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx);
  }
  static GEMMKIT_INLINE Reg zero() { return _mm256_setzero_si256(); }
  static GEMMKIT_INLINE Reg splat(std::int32_t v) { return _mm256_set1_epi32(v); }
  static GEMMKIT_INLINE Reg loadu(const std::int32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static GEMMKIT_INLINE void storeu(std::int32_t* p, Reg v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  // vpmaskmovd: masked-off lanes neither fault nor write.
  static GEMMKIT_INLINE Reg load_partial(const std::int32_t* p, int n) {
    return _mm256_maskload_epi32(reinterpret_cast<const int*>(p), mask(n));
  }
  static GEMMKIT_INLINE void store_partial(std::int32_t* p, Reg v, int n) {
    _mm256_maskstore_epi32(reinterpret_cast<int*>(p), mask(n), v);
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return _mm256_mullo_epi32(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return _mm256_add_epi32(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return _mm256_add_epi32(_mm256_mullo_epi32(a, b), c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return _mm256_sub_epi32(c, _mm256_mullo_epi32(a, b));
  }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return _mm256_max_epi32(a, b); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return _mm256_min_epi32(a, b); }
  static GEMMKIT_INLINE Reg bit_and(Reg a, Reg b) { return _mm256_and_si256(a, b); }
  static GEMMKIT_INLINE Reg bit_or(Reg a, Reg b) { return _mm256_or_si256(a, b); }
  static GEMMKIT_INLINE std::int32_t reduce_sum(Reg v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
  }
};

// int64 lanes wrap modulo 2^64 (vpaddq keeps the low 64 bits).  AVX2 has no
// 64-bit low multiply, so mul builds it from three 32x32->64 vpmuludq.
template <>
struct SimdOps<isa_fma::Fma, std::int64_t> {
  using Reg = __m256i;
  static constexpr int kLanes = 4;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE __m256i mask(int n) {
    const __m256i idx = _mm256_setr_epi64x(0, 1, 2, 3);
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), idx);
  }
  static GEMMKIT_INLINE Reg zero() { return _mm256_setzero_si256(); }
  static GEMMKIT_INLINE Reg splat(std::int64_t v) { return _mm256_set1_epi64x(v); }
  static GEMMKIT_INLINE Reg loadu(const std::int64_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static GEMMKIT_INLINE void storeu(std::int64_t* p, Reg v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  // vpmaskmovq: masked-off lanes neither fault nor write.
  static GEMMKIT_INLINE Reg load_partial(const std::int64_t* p, int n) {
    return _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), mask(n));
  }
  static GEMMKIT_INLINE void store_partial(std::int64_t* p, Reg v, int n) {
    _mm256_maskstore_epi64(reinterpret_cast<long long*>(p), mask(n), v);
  }
  // Low 64 bits of a * b: lo*lo + ((lo*hi + hi*lo) << 32); the hi*hi term
  // lies entirely above bit 63.
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) {
    const __m256i lo = _mm256_mul_epu32(a, b);
    const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)),
                                           _mm256_mul_epu32(_mm256_srli_epi64(a, 32), b));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
  }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return _mm256_add_epi64(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) { return _mm256_add_epi64(mul(a, b), c); }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) { return _mm256_sub_epi64(c, mul(a, b)); }
  // No vpmaxsq before AVX-512: signed compare and select.
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) {
    return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(a, b));
  }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) {
    return _mm256_blendv_epi8(b, a, _mm256_cmpgt_epi64(b, a));
  }
  static GEMMKIT_INLINE std::int64_t reduce_sum(Reg v) {
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
#if defined(__x86_64__) || defined(_M_X64)
    return _mm_cvtsi128_si64(s);
#else
    // 32-bit x86 has no vmovq to a general register.
    std::int64_t r;
    _mm_storel_epi64(reinterpret_cast<__m128i*>(&r), s);
    return r;
#endif
  }
};

// f16 <-> f32 by F16C.  Bit-identical to scalar/half.hpp for every input,
// NaN included (both quiet a NaN and keep the top payload bits).
template <>
struct KernelSimd<isa_fma::Fma, float16, float16, float, float16>
    : detail::BufferedOutPartials<KernelSimd<isa_fma::Fma, float16, float16, float, float16>,
                                  float16, 8> {
  using Ops = SimdOps<isa_fma::Fma, float>;
  using Reg = __m256;
  static constexpr int kLanes = 8;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const float16* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static GEMMKIT_INLINE Reg splat_rhs(float16 v) {
    return _mm256_cvtph_ps(_mm_set1_epi16(static_cast<short>(v.bits)));
  }
  static GEMMKIT_INLINE Reg load_out(const float16* p) { return load_lhs(p); }
  static GEMMKIT_INLINE void store_out(float16* p, Reg v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                     _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
};

// bf16 <-> f32 by integer ops (no bf16 hardware needed): widening is a 16-bit
// left shift; narrowing adds 0x7fff plus the lowest kept bit and shifts right
// 16 (round to nearest even), with NaN forced to sign | 0x7fc0 as in
// scalar::to_bfloat16.
template <>
struct KernelSimd<isa_fma::Fma, bfloat16, bfloat16, float, bfloat16>
    : detail::BufferedOutPartials<KernelSimd<isa_fma::Fma, bfloat16, bfloat16, float, bfloat16>,
                                  bfloat16, 8> {
  using Ops = SimdOps<isa_fma::Fma, float>;
  using Reg = __m256;
  static constexpr int kLanes = 8;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const bfloat16* p) {
    const __m256i w =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
  }
  static GEMMKIT_INLINE Reg splat_rhs(bfloat16 v) {
    return _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(std::uint32_t(v.bits) << 16)));
  }
  static GEMMKIT_INLINE Reg load_out(const bfloat16* p) { return load_lhs(p); }
  static GEMMKIT_INLINE void store_out(bfloat16* p, Reg v) {
    const __m256i x = _mm256_castps_si256(v);
    const __m256i hi = _mm256_srli_epi32(x, 16);
    const __m256i lsb = _mm256_and_si256(hi, _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), lsb), 16);
    const __m256i is_nan = _mm256_cmpgt_epi32(
        _mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    const __m256i qnan = _mm256_or_si256(_mm256_and_si256(hi, _mm256_set1_epi32(0x8000)),
                                         _mm256_set1_epi32(0x7fc0));
    r = _mm256_blendv_epi8(r, qnan, is_nan);
    // Every lane is now in [0, 0xffff], so the saturating pack is exact.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p),
                     _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
  }
};

// int8 -> int32: sign-extend 8 LHS bytes; C is plain int32.
template <>
struct KernelSimd<isa_fma::Fma, std::int8_t, std::int8_t, std::int32_t, std::int32_t>
    : detail::BufferedRequantPartial<
          KernelSimd<isa_fma::Fma, std::int8_t, std::int8_t, std::int32_t, std::int32_t>, 8> {
  using Ops = SimdOps<isa_fma::Fma, std::int32_t>;
  using Reg = __m256i;
  static constexpr int kLanes = 8;
  static constexpr bool kRequantVector = true;

  static GEMMKIT_INLINE Reg load_lhs(const std::int8_t* p) {
    return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  static GEMMKIT_INLINE Reg splat_rhs(std::int8_t v) { return _mm256_set1_epi32(v); }
  static GEMMKIT_INLINE Reg load_out(const std::int32_t* p) { return Ops::loadu(p); }
  static GEMMKIT_INLINE void store_out(std::int32_t* p, Reg v) { Ops::storeu(p, v); }
  static GEMMKIT_INLINE Reg load_out_partial(const std::int32_t* p, int n) {
    return Ops::load_partial(p, n);
  }
  static GEMMKIT_INLINE void store_out_partial(std::int32_t* p, Reg v, int n) {
    Ops::store_partial(p, v, n);
  }

  // Steps 1-6 of the requant contract (scalar/requant.hpp) on 4 lanes.
  static GEMMKIT_INLINE __m128i requant4(__m128i q, __m256d scale, __m256d zp, __m256d lo,
                                         __m256d hi) {
    __m256d d = _mm256_mul_pd(_mm256_cvtepi32_pd(q), scale);
    d = _mm256_round_pd(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    d = _mm256_add_pd(d, zp);
    d = _mm256_min_pd(_mm256_max_pd(d, lo), hi);
    // Integral and inside [lo, hi]: truncation is exact (and MXCSR-free).
    return _mm256_cvttpd_epi32(d);
  }
  static GEMMKIT_INLINE void requant_store(std::uint8_t* dst, Reg v, float scale,
                                           std::int32_t zp, std::int32_t lo, std::int32_t hi) {
    const __m256d s = _mm256_set1_pd(double(scale)), z = _mm256_set1_pd(double(zp));
    const __m256d l = _mm256_set1_pd(double(lo)), h = _mm256_set1_pd(double(hi));
    const __m128i r0 = requant4(_mm256_castsi256_si128(v), s, z, l, h);
    const __m128i r1 = requant4(_mm256_extracti128_si256(v, 1), s, z, l, h);
    // Step 7: the low byte of each lane (truncation, not a saturating pack).
    const __m128i low_bytes = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                            -1, -1, -1);
    const __m128i b = _mm_unpacklo_epi32(_mm_shuffle_epi8(r0, low_bytes),
                                         _mm_shuffle_epi8(r1, low_bytes));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), b);
  }
};

}  // namespace gemmkit::simd

#endif  // x86
