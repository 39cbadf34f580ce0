// fuzz_packed: gemmkit_prepack_rhs of a random strided b, then
// gemmkit_gemm_batched_ex with the packed operand (a batched, c optional or
// in place, conj_a), against the naive product with b itself and against
// the same call with b unpacked.  b's memory is freed right after packing,
// so a packed operand that still points into it is a use-after-free.
// A few inputs ask what the packed path must refuse (conj_b; int8 -> int8).
#include "fuzz_common.hpp"

namespace {

using namespace fuzz;

struct Pair {
  int in, out;
};
// Every dtype prepack_rhs packs, with its outputs.
constexpr Pair kPairs[] = {
    {GEMMKIT_F32, GEMMKIT_F32},  {GEMMKIT_F64, GEMMKIT_F64}, {GEMMKIT_I8, GEMMKIT_I32},
    {GEMMKIT_C64, GEMMKIT_C64},  {GEMMKIT_F16, GEMMKIT_F16}, {GEMMKIT_F16, GEMMKIT_F32},
    {GEMMKIT_BF16, GEMMKIT_BF16}, {GEMMKIT_BF16, GEMMKIT_F32}, {GEMMKIT_C128, GEMMKIT_C128},
};

enum Mistake { kNone, kConjB, kInt8Out, kMistakes };

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  // The first four pairs (float32, float64, int8, complex64) are the main
  // subject: pick them three times as often.
  const std::uint8_t p8 = in.ConsumeIntegral<std::uint8_t>();
  const Pair p = kPairs[p8 % 4 == 3 ? 4 + p8 / 4 % 5 : p8 % 4];
  const std::uint8_t w8 = in.ConsumeIntegral<std::uint8_t>();
  Mistake mistake = w8 < 224 ? kNone : Mistake(1 + w8 % (kMistakes - 1));
  if (mistake == kInt8Out && p.in != GEMMKIT_I8) mistake = kConjB;
  const std::size_t nb = in.ConsumeIntegralInRange<std::size_t>(mistake ? 1 : 0, 3);
  const std::size_t m = in.ConsumeIntegralInRange<std::size_t>(0, 40);
  const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, in.ConsumeBool() ? 40 : 130);
  const std::size_t k = in.ConsumeIntegralInRange<std::size_t>(0, in.ConsumeBool() ? 40 : 130);
  Scalars s;
  static const double kAlpha[] = {1, -1, 0, 2, 0.5, -3};
  static const double kBeta[] = {0, 1, -1, 0.5, 2};
  s.alpha[0] = kAlpha[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kAlpha) - 1)];
  s.beta[0] = kBeta[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kBeta) - 1)];
  if (p.in == GEMMKIT_I8) {  // int8 -> int32 takes integer scalars
    s.alpha[0] = in.ConsumeIntegralInRange(-3, 3);
    s.beta[0] = in.ConsumeIntegralInRange(-2, 2);
  }
  if (family(p.in) == Family::kComplex) {
    s.alpha[1] = in.ConsumeIntegralInRange(-2, 2) / 2.0;
    s.beta[1] = in.ConsumeIntegralInRange(-2, 2) / 2.0;
  }
  int flags = in.ConsumeBool() ? GEMMKIT_CONJ_A : 0;
  if (mistake == kConjB) flags |= GEMMKIT_CONJ_B;
  const int od = mistake == kInt8Out ? GEMMKIT_I8 : p.out;
  const bool specials = (in.ConsumeIntegral<std::uint8_t>() & 7) == 0 && family(p.in) == Family::kFloat;

  // Pack b, keep a copy for the reference, and free the original.
  Mat b = make_mat(in, p.in, 1, k, n, true);
  fill(in, b, specials);
  gemmkit_packed_rhs* handle = nullptr;
  int st = gemmkit_prepack_rhs(gemmkit_dtype(p.in), k, n, b.op.data, b.op.rs, b.op.cs, &handle);
  FUZZ_CHECK(st == GEMMKIT_OK && handle, "prepack %d %zux%zu (strides %td, %td): status %d (%s)", p.in,
             k, n, b.op.rs, b.op.cs, st, gemmkit_last_error());
  const char* json = gemmkit_packed_rhs_describe(handle);
  FUZZ_CHECK(json && std::strstr(json, "\"dtype\""), "prepack: describe gave %s", json ? json : "NULL");
  const Mat b_ref = clone(b);
  b.mem.reset();
  b.op.data = nullptr;

  Mat a = make_mat(in, p.in, in.ConsumeBool() ? 1 : nb, m, k, true);
  fill(in, a, specials);
  Mat out = make_mat(in, od, nb, m, n, false);
  const int c_kind = in.ConsumeIntegralInRange(0, 2);  // none, separate, in place
  Mat c_sep;
  const Mat* c = nullptr;
  if (c_kind == 1) {
    c_sep = make_mat(in, od, in.ConsumeBool() ? 1 : nb, m, n, true);
    fill(in, c_sep, specials);
    c = &c_sep;
  } else if (c_kind == 2) {
    fill(in, out, specials);
    c = &out;
  }
  gemmkit_operand c_op{};
  if (c) c_op = c->op, c_op.flags = 0;
  Mat plain = clone(out);  // the unpacked call writes here (its own c if in place)
  gemmkit_operand plain_c = c_op;
  if (c == &out) plain_c = plain.op;

  const Mat a0 = clone(a), out0 = clone(out);
  const Mat c0 = c ? clone(*c) : Mat{};
  st = gemmkit_gemm_batched_ex(s.alpha, &a.op, nullptr, handle, s.beta, c ? &c_op : nullptr, &out.op,
                               nullptr, flags);
  char what[96];
  std::snprintf(what, sizeof what, "packed %d->%d mistake %d batch %zu", p.in, od, int(mistake), nb);
  check_unchanged(a0, a, what);
  if (mistake != kNone) {
    check_refused(st, mistake == kConjB ? GEMMKIT_ERROR_VALUE : GEMMKIT_ERROR_DTYPE, what);
    check_unchanged(out0, out, what);
    gemmkit_packed_rhs_free(handle);
    return 0;
  }
  FUZZ_CHECK(st == GEMMKIT_OK, "%s: status %d (%s)", what, st, gemmkit_last_error());
  check_padding(out0, out, nb, what);
  check_product(s, a, b_ref, c ? &c0 : nullptr, out, flags, what);

  // The same product from b itself: exact families must agree bit for bit.
  st = gemmkit_gemm_batched_ex(s.alpha, &a.op, &b_ref.op, nullptr, s.beta, c ? &plain_c : nullptr,
                               &plain.op, nullptr, flags);
  FUZZ_CHECK(st == GEMMKIT_OK, "%s (unpacked): status %d (%s)", what, st, gemmkit_last_error());
  if (family(p.in) == Family::kInt)
    FUZZ_CHECK(plain.bytes == out.bytes && std::memcmp(plain.mem.get(), out.mem.get(), out.bytes) == 0,
               "%s: packed and unpacked int8 results differ", what);
  gemmkit_packed_rhs_free(handle);
  return 0;
}
