// L0 simd: the Avx512F token, 512-bit vectors with mask registers.
// Compiled only in targets/avx512f/ TUs (-mavx512f and friends).  The dot
// tokens Avx512Vnni and Avx512Bf16 reuse these operations for the types they
// do not accelerate.
//
// Also here, as templates over the token so the dot tokens instantiate their
// own copies: Avx512Int32Ops and Avx512Int64Ops (the int32 and int64
// vocabularies) and the KernelSimd seams Avx512F16Seam (vcvtph2ps /
// vcvtps2ph), Avx512Bf16Seam (integer shifts and the round-to-nearest-even
// bias trick: AVX-512F only, no bf16 hardware) and Avx512Int8Seam (sign
// extension, vector requant_store).  Only AVX-512F instructions: the Avx512F
// token's TUs have no -mavx512bw/-mavx512vl/-mavx512dq.
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include "x86_intrinsics.hpp"

#include <cstdint>

#include "../scalar/half.hpp"
#include "kernel_simd.hpp"
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
  // Optional vocabulary: dst[p * ld + i] = lane p of r[i], i < 4, p < 16:
  // four row segments of a source contiguous along the depth become 16
  // depth steps of four values (the packing transposes use it).  Row pairs,
  // then quads, interleave within each 128-bit lane; lane c of v[d] is then
  // depth step 4c + d.  The full write masks spell the plain shuffles
  // without GCC 12's spurious uninitialized warning (pack/avx512_lanes.hpp).
  static GEMMKIT_INLINE void store_transposed4(const Reg (&r)[4], float* dst,
                                               std::ptrdiff_t ld) {
    constexpr __mmask16 kAll = 0xFFFF;
    constexpr __mmask8 kAll8 = 0xFF;
    const __m512d q0 = _mm512_castps_pd(_mm512_mask_unpacklo_ps(r[0], kAll, r[0], r[1]));
    const __m512d q1 = _mm512_castps_pd(_mm512_mask_unpackhi_ps(r[0], kAll, r[0], r[1]));
    const __m512d q2 = _mm512_castps_pd(_mm512_mask_unpacklo_ps(r[2], kAll, r[2], r[3]));
    const __m512d q3 = _mm512_castps_pd(_mm512_mask_unpackhi_ps(r[2], kAll, r[2], r[3]));
    const Reg v[4] = {_mm512_castpd_ps(_mm512_mask_unpacklo_pd(q0, kAll8, q0, q2)),
                      _mm512_castpd_ps(_mm512_mask_unpackhi_pd(q0, kAll8, q0, q2)),
                      _mm512_castpd_ps(_mm512_mask_unpacklo_pd(q1, kAll8, q1, q3)),
                      _mm512_castpd_ps(_mm512_mask_unpackhi_pd(q1, kAll8, q1, q3))};
    for (int d = 0; d < 4; ++d) {
      _mm_storeu_ps(dst + d * ld, _mm512_castps512_ps128(v[d]));
      _mm_storeu_ps(dst + (4 + d) * ld, _mm512_extractf32x4_ps(v[d], 1));
      _mm_storeu_ps(dst + (8 + d) * ld, _mm512_extractf32x4_ps(v[d], 2));
      _mm_storeu_ps(dst + (12 + d) * ld, _mm512_extractf32x4_ps(v[d], 3));
    }
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return _mm512_fmadd_ps(a, b, c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return _mm512_fnmadd_ps(a, b, c);
  }
  // a > b ? a : b, the SimdOps rule: the ordered compare is false for NaN
  // and for two zeros, so b wins (the epilogue's NaN and -0 rules).
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
  // Optional vocabulary (see Avx512FloatOps::store_transposed4), p < 8:
  // lane c of w[d] holds depth step 2c + d of two rows.
  // 128-bit lane c of v (extractf64x2 is AVX-512DQ: the same bits as 32-bit
  // lanes).
  template <int C>
  static GEMMKIT_INLINE __m128d lane128(Reg v) {
    return _mm_castps_pd(_mm512_extractf32x4_ps(_mm512_castpd_ps(v), C));
  }
  static GEMMKIT_INLINE void store_transposed4(const Reg (&r)[4], double* dst,
                                               std::ptrdiff_t ld) {
    constexpr __mmask8 kAll = 0xFF;
    const Reg w01[2] = {_mm512_mask_unpacklo_pd(r[0], kAll, r[0], r[1]),
                        _mm512_mask_unpackhi_pd(r[0], kAll, r[0], r[1])};
    const Reg w23[2] = {_mm512_mask_unpacklo_pd(r[2], kAll, r[2], r[3]),
                        _mm512_mask_unpackhi_pd(r[2], kAll, r[2], r[3])};
    for (int d = 0; d < 2; ++d) {
      _mm_storeu_pd(dst + d * ld, _mm512_castpd512_pd128(w01[d]));
      _mm_storeu_pd(dst + d * ld + 2, _mm512_castpd512_pd128(w23[d]));
      _mm_storeu_pd(dst + (2 + d) * ld, lane128<1>(w01[d]));
      _mm_storeu_pd(dst + (2 + d) * ld + 2, lane128<1>(w23[d]));
      _mm_storeu_pd(dst + (4 + d) * ld, lane128<2>(w01[d]));
      _mm_storeu_pd(dst + (4 + d) * ld + 2, lane128<2>(w23[d]));
      _mm_storeu_pd(dst + (6 + d) * ld, lane128<3>(w01[d]));
      _mm_storeu_pd(dst + (6 + d) * ld + 2, lane128<3>(w23[d]));
    }
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

// int32 lanes: the i8 -> i32 accumulator.  All arithmetic wraps modulo 2^32
// (vpaddd / vpmulld keep the low 32 bits), which is the contract of the int8
// families: the same bits on every ISA, overflow included.
template <class Token>
struct Avx512Int32Ops {
  using Reg = __m512i;
  static constexpr int kLanes = 16;
  static constexpr bool kFusedMulAdd = false;

  static GEMMKIT_INLINE __mmask16 mask(int n) {
    return static_cast<__mmask16>((1u << n) - 1u);
  }
  static GEMMKIT_INLINE Reg zero() { return _mm512_setzero_si512(); }
  static GEMMKIT_INLINE Reg splat(std::int32_t v) { return _mm512_set1_epi32(v); }
  static GEMMKIT_INLINE Reg loadu(const std::int32_t* p) {
    return _mm512_loadu_si512(static_cast<const void*>(p));
  }
  static GEMMKIT_INLINE void storeu(std::int32_t* p, Reg v) {
    _mm512_storeu_si512(static_cast<void*>(p), v);
  }
  static GEMMKIT_INLINE Reg load_partial(const std::int32_t* p, int n) {
    return _mm512_maskz_loadu_epi32(mask(n), p);
  }
  static GEMMKIT_INLINE void store_partial(std::int32_t* p, Reg v, int n) {
    _mm512_mask_storeu_epi32(p, mask(n), v);
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return _mm512_mullo_epi32(a, b); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return _mm512_add_epi32(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return _mm512_add_epi32(_mm512_mullo_epi32(a, b), c);
  }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return _mm512_sub_epi32(c, _mm512_mullo_epi32(a, b));
  }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return _mm512_max_epi32(a, b); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return _mm512_min_epi32(a, b); }
  static GEMMKIT_INLINE Reg bit_and(Reg a, Reg b) { return _mm512_and_si512(a, b); }
  static GEMMKIT_INLINE Reg bit_or(Reg a, Reg b) { return _mm512_or_si512(a, b); }
  static GEMMKIT_INLINE std::int32_t reduce_sum(Reg v) {
    const __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v),
                                       _mm512_extracti64x4_epi64(v, 1));
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
  }
};

// int64 lanes: all arithmetic wraps modulo 2^64, as for int32.  vpmullq is
// AVX-512DQ, which the Avx512F token's TUs do not get: without it the low
// 64 bits of the product come from three vpmuludq (AVX-512F).
//
// GCC 12's unmasked forms (_mm512_mul_epu32, _mm512_srli_epi64,
// _mm512_max_epi64, _mm512_reduce_add_epi64, ...) pass an undefined register
// through their mask argument and draw -Wmaybe-uninitialized wherever they
// are inlined; the maskz forms under an all-ones mask are the same
// instructions (the zero pass-through is never selected and folds away).
template <class Token>
struct Avx512Int64Ops {
  using Reg = __m512i;
  static constexpr int kLanes = 8;
  static constexpr bool kFusedMulAdd = false;
  static constexpr __mmask8 kAll = 0xFF;

  static GEMMKIT_INLINE __mmask8 mask(int n) {
    return static_cast<__mmask8>((1u << n) - 1u);
  }
  static GEMMKIT_INLINE Reg zero() { return _mm512_setzero_si512(); }
  static GEMMKIT_INLINE Reg splat(std::int64_t v) { return _mm512_set1_epi64(v); }
  static GEMMKIT_INLINE Reg loadu(const std::int64_t* p) {
    return _mm512_loadu_si512(static_cast<const void*>(p));
  }
  static GEMMKIT_INLINE void storeu(std::int64_t* p, Reg v) {
    _mm512_storeu_si512(static_cast<void*>(p), v);
  }
  static GEMMKIT_INLINE Reg load_partial(const std::int64_t* p, int n) {
    return _mm512_maskz_loadu_epi64(mask(n), p);
  }
  static GEMMKIT_INLINE void store_partial(std::int64_t* p, Reg v, int n) {
    _mm512_mask_storeu_epi64(p, mask(n), v);
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) {
#if defined(__AVX512DQ__)
    return _mm512_mullo_epi64(a, b);
#else
    // lo*lo + ((lo*hi + hi*lo) << 32); hi*hi lies entirely above bit 63.
    const __m512i lo = _mm512_maskz_mul_epu32(kAll, a, b);
    const __m512i cross =
        _mm512_add_epi64(_mm512_maskz_mul_epu32(kAll, a, _mm512_maskz_srli_epi64(kAll, b, 32)),
                         _mm512_maskz_mul_epu32(kAll, _mm512_maskz_srli_epi64(kAll, a, 32), b));
    return _mm512_add_epi64(lo, _mm512_maskz_slli_epi64(kAll, cross, 32));
#endif
  }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) { return _mm512_add_epi64(a, b); }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) { return _mm512_add_epi64(mul(a, b), c); }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) { return _mm512_sub_epi64(c, mul(a, b)); }
  static GEMMKIT_INLINE Reg max(Reg a, Reg b) { return _mm512_maskz_max_epi64(kAll, a, b); }
  static GEMMKIT_INLINE Reg min(Reg a, Reg b) { return _mm512_maskz_min_epi64(kAll, a, b); }
  // _mm512_reduce_add_epi64 written out: two 256-bit halves (GCC 12's
  // _mm512_castsi512_si256 is an unmasked extract too), two 128-bit halves,
  // then the two lanes in unsigned arithmetic (the sum wraps).
  static GEMMKIT_INLINE std::int64_t reduce_sum(Reg v) {
    const __m256i h = _mm256_add_epi64(_mm512_maskz_extracti64x4_epi64(kAll, v, 0),
                                       _mm512_maskz_extracti64x4_epi64(kAll, v, 1));
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    return std::int64_t(std::uint64_t(_mm_cvtsi128_si64(s)) +
                        std::uint64_t(_mm_extract_epi64(s, 1)));
  }
};

template <>
struct SimdOps<isa_avx512f::Avx512F, float>
    : Avx512FloatOps<isa_avx512f::Avx512F> {};
template <>
struct SimdOps<isa_avx512f::Avx512F, double>
    : Avx512DoubleOps<isa_avx512f::Avx512F> {};
template <>
struct SimdOps<isa_avx512f::Avx512F, std::int32_t>
    : Avx512Int32Ops<isa_avx512f::Avx512F> {};
template <>
struct SimdOps<isa_avx512f::Avx512F, std::int64_t>
    : Avx512Int64Ops<isa_avx512f::Avx512F> {};


// f16 <-> f32: bit-identical to scalar/half.hpp for every input, NaN
// included; rounding by immediate, independent of MXCSR.
template <class Token>
struct Avx512F16Seam
    : detail::BufferedOutPartials<Avx512F16Seam<Token>, float16, 16> {
  using Ops = SimdOps<Token, float>;
  using Reg = __m512;
  static constexpr int kLanes = 16;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const float16* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static GEMMKIT_INLINE Reg splat_rhs(float16 v) {
    return _mm512_cvtph_ps(_mm256_set1_epi16(static_cast<short>(v.bits)));
  }
  static GEMMKIT_INLINE Reg load_out(const float16* p) { return load_lhs(p); }
  static GEMMKIT_INLINE void store_out(float16* p, Reg v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                        _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
};

// bf16 <-> f32 by integer ops: widening is a 16-bit left shift; narrowing
// adds 0x7fff plus the lowest kept bit and keeps the top half (round to
// nearest even), NaN forced to sign | 0x7fc0 as in scalar::to_bfloat16.
template <class Token>
struct Avx512Bf16Seam
    : detail::BufferedOutPartials<Avx512Bf16Seam<Token>, bfloat16, 16> {
  using Ops = SimdOps<Token, float>;
  using Reg = __m512;
  static constexpr int kLanes = 16;
  static constexpr bool kRequantVector = false;

  static GEMMKIT_INLINE Reg load_lhs(const bfloat16* p) {
    const __m512i w =
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
  }
  static GEMMKIT_INLINE Reg splat_rhs(bfloat16 v) {
    return _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(std::uint32_t(v.bits) << 16)));
  }
  static GEMMKIT_INLINE Reg load_out(const bfloat16* p) { return load_lhs(p); }
  static GEMMKIT_INLINE void store_out(bfloat16* p, Reg v) {
    const __m512i x = _mm512_castps_si512(v);
    const __m512i hi = _mm512_srli_epi32(x, 16);
    const __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)), lsb), 16);
    const __mmask16 is_nan = _mm512_cmpgt_epi32_mask(
        _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
    const __m512i qnan = _mm512_or_si512(_mm512_and_si512(hi, _mm512_set1_epi32(0x8000)),
                                         _mm512_set1_epi32(0x7fc0));
    r = _mm512_mask_mov_epi32(r, is_nan, qnan);
    // vpmovdw truncates each lane to its low 16 bits (all lanes <= 0xffff).
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(r));
  }
};

// int8 -> int32: sign-extend 16 LHS bytes; C is plain int32; requant_store
// is the seven-step contract of scalar/requant.hpp on two halves of 8 f64
// lanes, then vpmovdb (truncation) for the low bytes.
template <class Token>
struct Avx512Int8Seam {
  using Ops = SimdOps<Token, std::int32_t>;
  using Reg = __m512i;
  static constexpr int kLanes = 16;
  static constexpr bool kRequantVector = true;

  static GEMMKIT_INLINE Reg load_lhs(const std::int8_t* p) {
    return _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static GEMMKIT_INLINE Reg splat_rhs(std::int8_t v) { return _mm512_set1_epi32(v); }
  static GEMMKIT_INLINE Reg load_out(const std::int32_t* p) { return Ops::loadu(p); }
  static GEMMKIT_INLINE void store_out(std::int32_t* p, Reg v) { Ops::storeu(p, v); }
  static GEMMKIT_INLINE Reg load_out_partial(const std::int32_t* p, int n) {
    return Ops::load_partial(p, n);
  }
  static GEMMKIT_INLINE void store_out_partial(std::int32_t* p, Reg v, int n) {
    Ops::store_partial(p, v, n);
  }

  static GEMMKIT_INLINE __m256i requant8(__m256i q, __m512d scale, __m512d zp, __m512d lo,
                                         __m512d hi) {
    __m512d d = _mm512_mul_pd(_mm512_cvtepi32_pd(q), scale);
    d = _mm512_roundscale_pd(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    d = _mm512_add_pd(d, zp);
    d = _mm512_min_pd(_mm512_max_pd(d, lo), hi);
    // Integral and inside [lo, hi]: truncation is exact (and MXCSR-free).
    return _mm512_cvttpd_epi32(d);
  }
  static GEMMKIT_INLINE __m512i requant16(Reg v, float scale, std::int32_t zp, std::int32_t lo,
                                          std::int32_t hi) {
    const __m512d s = _mm512_set1_pd(double(scale)), z = _mm512_set1_pd(double(zp));
    const __m512d l = _mm512_set1_pd(double(lo)), h = _mm512_set1_pd(double(hi));
    const __m256i r0 = requant8(_mm512_castsi512_si256(v), s, z, l, h);
    const __m256i r1 = requant8(_mm512_extracti64x4_epi64(v, 1), s, z, l, h);
    return _mm512_inserti64x4(_mm512_castsi256_si512(r0), r1, 1);
  }
  static GEMMKIT_INLINE void requant_store(std::uint8_t* dst, Reg v, float scale,
                                           std::int32_t zp, std::int32_t lo, std::int32_t hi) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst),
                     _mm512_cvtepi32_epi8(requant16(v, scale, zp, lo, hi)));
  }
  // Masked vpmovdb store: bytes past n are neither written nor faulted on.
  static GEMMKIT_INLINE void requant_store_partial(std::uint8_t* dst, Reg v, float scale,
                                                   std::int32_t zp, std::int32_t lo,
                                                   std::int32_t hi, int n) {
    _mm512_mask_cvtepi32_storeu_epi8(dst, static_cast<__mmask16>((1u << n) - 1u),
                                     requant16(v, scale, zp, lo, hi));
  }
};

template <>
struct KernelSimd<isa_avx512f::Avx512F, float16, float16, float, float16>
    : Avx512F16Seam<isa_avx512f::Avx512F> {};
template <>
struct KernelSimd<isa_avx512f::Avx512F, bfloat16, bfloat16, float, bfloat16>
    : Avx512Bf16Seam<isa_avx512f::Avx512F> {};
template <>
struct KernelSimd<isa_avx512f::Avx512F, std::int8_t, std::int8_t, std::int32_t, std::int32_t>
    : Avx512Int8Seam<isa_avx512f::Avx512F> {};

}  // namespace gemmkit::simd

#endif  // x86
