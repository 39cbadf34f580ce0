// L7 target amx: f16 -> f16 / f32 through tdpbf16ps on operands split into
// bfloat16 high and low parts (kernel/amx.hpp, AmxF16SplitFamily).  Where
// an operand holds an infinity or NaN the call runs the widening family
// instead (the avx512f kernels, built for this token): the split's extra
// terms would turn inf * 0 into NaN.  A prepacked B is packed split, so
// gemm(a, prepack_rhs(b)) is gemm(a, b) bit for bit; where it or a holds
// such a value, its float16 values are read back (high + low is exact)
// into a scratch matrix for the widening family.
#include <cstdlib>

#include "dispatch/targets/amx/target.hpp"
#include "scalar/half.hpp"

namespace gemmkit::isa_amx {

template <int NR>
using F16SplitTiles = kernel::AmxF16SplitFamily<Amx, 2, NR == 0 ? 32 : NR>;
using F16Widen = Widen<float16, float, 2, 12>;

namespace {

// Whether no 16-bit word of the rows x cols matrix at w (strides rs, cs)
// has all the bits of `exponent` set: float16 (0x7C00) or bfloat16
// (0x7F80) infinities and NaN.
bool none_special(const std::uint16_t* w, index_t rows, index_t cols, index_t rs, index_t cs,
                  std::uint16_t exponent) {
  if (cs != 1 && rs == 1) return none_special(w, cols, rows, cs, rs, exponent);
  const __m512i e = _mm512_set1_epi16(short(exponent));
  __mmask32 special = 0;
  for (index_t i = 0; i < rows; ++i) {
    const std::uint16_t* row = w + i * rs;
    if (cs == 1) {
      index_t j = 0;
      for (; j + 32 <= cols; j += 32)
        special |= _mm512_cmpeq_epi16_mask(_mm512_and_si512(_mm512_loadu_si512(row + j), e), e);
      if (j < cols) {
        const __mmask32 tail = (__mmask32(1) << (cols - j)) - 1;
        const __m512i v = _mm512_maskz_loadu_epi16(tail, row + j);
        special |= _mm512_mask_cmpeq_epi16_mask(tail, _mm512_and_si512(v, e), e);
      }
    } else {
      for (index_t j = 0; j < cols; ++j)
        if ((row[j * cs] & exponent) == exponent) return false;
    }
    if (special) return false;
  }
  return true;
}

bool all_finite(const float16* p, index_t rows, index_t cols, index_t rs, index_t cs) {
  return none_special(reinterpret_cast<const std::uint16_t*>(p), rows, cols, rs, cs, 0x7C00);
}

using Split = F16SplitTiles<0>;
using SplitDriver = driver::BlockedGemm<Split, float>;

// Whether a prepacked split operand of `elems` parts holds no infinity or
// NaN: a high part would have bfloat16's exponent bits all ones (a low
// part never has them).
bool packed_all_finite(const bfloat16* p, index_t elems) {
  return none_special(reinterpret_cast<const std::uint16_t*>(p), 1, elems, elems, 1, 0x7F80);
}

// The float16 values of a prepacked split operand (SplitDriver::prepack:
// `rows` x depth k in slices of kc) into dst, row-major.
void unpack(const bfloat16* p, index_t rows, index_t k, index_t kc, float16* dst) {
  constexpr index_t kMr = Split::kMr, kChunk = 32 * kMr;
  const std::uint16_t* w = reinterpret_cast<const std::uint16_t*>(p);
  for (index_t pc = 0; pc < k; pc += kc) {
    const index_t kcs = kc < k - pc ? kc : k - pc;
    for (index_t i0 = 0; i0 < rows; i0 += kMr) {
      for (index_t r = 0; r < kMr && i0 + r < rows; ++r)
        for (index_t d = 0; d < kcs; ++d) {
          const index_t q = d / 32, off = ((d % 32) / 2 * kMr + r) * 2 + d % 2;
          const float high = scalar::float_from_bits(std::uint32_t(w[2 * q * kChunk + off]) << 16);
          const float low =
              scalar::float_from_bits(std::uint32_t(w[(2 * q + 1) * kChunk + off]) << 16);
          dst[(i0 + r) * k + pc + d] = scalar::to_float16(high + low);
        }
      w += Split::a_panel_size(kcs);
    }
  }
}

template <class O>
int f16_gemm(const GemmTask<float16, float, O>& t) {
  // Each distinct matrix of a batch once (a zero batch stride broadcasts one).
  bool split = true;
  const index_t batch = t.batch > 1 ? t.batch : 1;
  for (index_t i = 0; split && i < batch; ++i) {
    if (!t.packed_a && (i == 0 || t.batch_a != 0))
      split = all_finite(t.a + i * t.batch_a, t.m, t.k, t.rs_a, t.cs_a);
    if (split && (i == 0 || t.batch_b != 0))
      split = all_finite(t.b + i * t.batch_b, t.k, t.n, t.rs_b, t.cs_b);
  }
  if (split && t.packed_a) {
    split = packed_all_finite(static_cast<const bfloat16*>(t.packed_a),
                              SplitDriver::prepacked_elems(t.m, t.k, t.packed_kc));
  }
  if (split) return family_gemm<F16SplitTiles, 16, O>(t);
  if (!t.packed_a) return family_gemm<F16Widen::Family, 8, O>(t);
  // Rare: read the prepacked operand back for the widening family.
  float16* a = static_cast<float16*>(std::malloc(sizeof(float16) * std::size_t(t.m * t.k)));
  if (!a) return GEMMKIT_ERROR_ALLOC;
  unpack(static_cast<const bfloat16*>(t.packed_a), t.m, t.k, t.packed_kc, a);
  GemmTask<float16, float, O> w = t;
  w.packed_a = nullptr;
  w.a = a;
  w.rs_a = t.k;
  w.cs_a = 1;
  w.batch_a = 0;
  const int status = family_gemm<F16Widen::Family, 8, O>(w);
  std::free(a);
  return status;
}

}  // namespace

dispatch::Descriptor<float16> f16_descriptor() {
  dispatch::Descriptor<float16> d = family_descriptor<F16SplitTiles, 16>();
  d.run = &f16_gemm<float16>;
  d.run_f32 = &f16_gemm<float>;
  return d;
}

}  // namespace gemmkit::isa_amx
