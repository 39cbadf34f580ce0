// fuzz_requant: gemmkit_gemm_requant_batched over random int8 operands
// (strided, batched, b sometimes prepacked), the three scale kinds, zero
// points, optional int32 bias, int8 or uint8 out.  The reference is the
// library's own scalar map (scalar/requant.hpp) applied to the exact int32
// sums.  Some inputs carry one mistake (a bad scale, zero point, scale kind
// or vector length) that must be refused with nothing written.
#include "fuzz_common.hpp"
#include "scalar/requant.hpp"

namespace {

using namespace fuzz;

enum Mistake { kNone, kBadScale, kBadZeroPoint, kBadScaleKind, kScaleLength, kBiasLength, kMistakes };

// A positive finite scale: mantissa and exponent from one byte, so ties
// (x.5 products) and saturation both come up.
float scale_value(FuzzedDataProvider& in) {
  const std::uint8_t b = in.ConsumeIntegral<std::uint8_t>();
  return std::ldexp(1.0f + float(b & 7) / 8.0f, int(b >> 3) - 20);
}

// A vector operand (rows values, cols 1) at a random stride.
Mat make_vector(FuzzedDataProvider& in, int dtype, std::size_t len) {
  Mat v;
  v.op.dtype = dtype;
  v.op.flags = GEMMKIT_OPERAND_READONLY;
  v.op.batch = 1;
  v.op.rows = len;
  v.op.cols = 1;
  v.op.rs = in.ConsumeIntegralInRange(-3, 3);
  if (v.op.rs == 0 && len > 1 && in.ConsumeBool()) v.op.rs = 1;
  v.op.cs = 1;
  allocate(v);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::uint8_t w8 = in.ConsumeIntegral<std::uint8_t>();
  const Mistake mistake = w8 < 160 ? kNone : Mistake(1 + (w8 - 160) % (kMistakes - 1));
  const int od = in.ConsumeBool() ? GEMMKIT_I8 : GEMMKIT_U8;
  const std::int32_t lo = od == GEMMKIT_I8 ? -128 : 0, hi = od == GEMMKIT_I8 ? 127 : 255;
  std::size_t nb = in.ConsumeIntegralInRange<std::size_t>(mistake ? 1 : 0, 3);
  const std::size_t m = in.ConsumeIntegralInRange<std::size_t>(0, 40);
  const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, 40);
  const std::size_t k = in.ConsumeIntegralInRange<std::size_t>(0, in.ConsumeBool() ? 40 : 300);
  const bool packed = (in.ConsumeIntegral<std::uint8_t>() & 3) == 0;

  Mat a = make_mat(in, GEMMKIT_I8, in.ConsumeBool() ? 1 : nb, m, k, true);
  Mat b = make_mat(in, GEMMKIT_I8, packed ? 1 : in.ConsumeBool() ? 1 : nb, k, n, true);
  Mat out = make_mat(in, od, nb, m, n, false);
  fill(in, a, false);
  fill(in, b, false);

  gemmkit_requant rq{};
  rq.scale_kind = in.ConsumeIntegralInRange(0, 2);
  std::size_t scale_len = rq.scale_kind == 0 ? 1 : rq.scale_kind == 1 ? m : n;
  if (mistake == kScaleLength) ++scale_len;
  Mat scale = make_vector(in, GEMMKIT_F32, scale_len);
  for (std::size_t i = 0; i < scale_len; ++i) {
    const float v = scale_value(in);
    std::memcpy(scale.at(0, i, 0), &v, 4);
  }
  if (mistake == kBadScale) {
    if (scale_len == 0) return 0;  // nothing to spoil
    static const float kBad[] = {0.0f, -1.0f, NAN, INFINITY, -0.0f};
    const float v = kBad[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kBad) - 1)];
    std::memcpy(scale.at(0, in.ConsumeIntegralInRange<std::size_t>(0, scale_len - 1), 0), &v, 4);
  }
  if (mistake == kBadScaleKind) rq.scale_kind = in.ConsumeBool() ? 3 : -1;
  rq.scale = scale.op;
  rq.zero_point = in.ConsumeIntegralInRange(lo, hi);
  if (mistake == kBadZeroPoint) rq.zero_point = in.ConsumeBool() ? hi + 1 : lo - 1;
  rq.bias_kind = in.ConsumeIntegralInRange(0, 2);
  if (mistake == kBiasLength && rq.bias_kind == 0) rq.bias_kind = 1;
  Mat bias;
  if (rq.bias_kind) {
    const std::size_t len = (rq.bias_kind == 1 ? m : n) + (mistake == kBiasLength ? 1 : 0);
    bias = make_vector(in, GEMMKIT_I32, len);
    for (std::size_t i = 0; i < len; ++i) {
      // Mostly small, sometimes any int32 (the add wraps).
      std::int32_t v = in.ConsumeIntegral<std::int32_t>();
      if (v & 1) v >>= 16;
      std::memcpy(bias.at(0, i, 0), &v, 4);
    }
    rq.bias = bias.op;
  }

  gemmkit_packed_rhs* handle = nullptr;
  if (packed) {
    const int st = gemmkit_prepack_rhs(GEMMKIT_I8, k, n, b.op.data, b.op.rs, b.op.cs, &handle);
    FUZZ_CHECK(st == GEMMKIT_OK, "prepack int8 %zux%zu: status %d (%s)", k, n, st, gemmkit_last_error());
  }
  const Mat a0 = clone(a), b0 = clone(b), out0 = clone(out);
  const int st = gemmkit_gemm_requant_batched(&a.op, packed ? nullptr : &b.op, handle, &rq, &out.op);
  gemmkit_packed_rhs_free(handle);
  char what[96];
  std::snprintf(what, sizeof what, "requant ->%d mistake %d batch %zu packed %d", od, int(mistake), nb,
                int(packed));
  check_unchanged(a0, a, what);
  check_unchanged(b0, b, what);
  if (mistake != kNone) {
    static const int kWant[kMistakes] = {GEMMKIT_OK, GEMMKIT_ERROR_VALUE, GEMMKIT_ERROR_VALUE,
                                         GEMMKIT_ERROR_VALUE, GEMMKIT_ERROR_SHAPE, GEMMKIT_ERROR_SHAPE};
    check_refused(st, kWant[mistake], what);
    check_unchanged(out0, out, what);
    return 0;
  }
  FUZZ_CHECK(st == GEMMKIT_OK, "%s: status %d (%s)", what, st, gemmkit_last_error());
  check_padding(out0, out, nb, what);
  for (std::size_t bi = 0; bi < nb; ++bi)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        std::int32_t v = 0;  // exact: |sum| <= 300 * 128 * 128
        for (std::size_t p = 0; p < k; ++p)
          v += std::int32_t(std::int8_t(*a.at(bi, i, p))) * std::int32_t(std::int8_t(*b.at(bi, p, j)));
        if (rq.bias_kind) {
          std::int32_t bv;
          std::memcpy(&bv, bias.at(0, rq.bias_kind == 1 ? i : j, 0), 4);
          v = gemmkit::scalar::wrapping_add(v, bv);
        }
        float sc;
        std::memcpy(&sc, scale.at(0, rq.scale_kind == 0 ? 0 : rq.scale_kind == 1 ? i : j, 0), 4);
        const std::int32_t want = gemmkit::scalar::requantize(v, sc, rq.zero_point, lo, hi);
        const std::int32_t got = od == GEMMKIT_I8 ? std::int32_t(std::int8_t(*out.at(bi, i, j)))
                                                  : std::int32_t(*out.at(bi, i, j));
        FUZZ_CHECK(got == want,
                   "%s: [%zu](%zu,%zu) = %d, expected %d (sum+bias %d, scale %a, zp %d, m %zu n %zu k %zu)",
                   what, bi, i, j, got, want, v, double(sc), rq.zero_point, m, n, k);
      }
  return 0;
}
