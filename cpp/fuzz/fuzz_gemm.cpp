// fuzz_gemm: gemmkit_gemm_batched_ex over every (input, output) pair the
// core computes, with random shapes, batches, strides (negative, padded,
// broadcast), scalars, c (none, separate, in place) and conj flags, checked
// against the naive reference of fuzz_common.hpp.  Some inputs build one
// deliberate mistake (out overlapping an input, out aliasing itself, a bad
// scalar, ...): those must fail with the documented status and a message
// and leave every buffer untouched.
#include "fuzz_common.hpp"

namespace {

using namespace fuzz;

struct Pair {
  int in, out;
};
// cpp/src/api/dtypes.hpp GEMMKIT_FOR_EACH_PAIR.
constexpr Pair kPairs[] = {
    {GEMMKIT_F32, GEMMKIT_F32},   {GEMMKIT_F64, GEMMKIT_F64},   {GEMMKIT_F16, GEMMKIT_F16},
    {GEMMKIT_F16, GEMMKIT_F32},   {GEMMKIT_BF16, GEMMKIT_BF16}, {GEMMKIT_BF16, GEMMKIT_F32},
    {GEMMKIT_I8, GEMMKIT_I32},    {GEMMKIT_I8, GEMMKIT_I8},     {GEMMKIT_U8, GEMMKIT_U8},
    {GEMMKIT_I16, GEMMKIT_I16},   {GEMMKIT_U16, GEMMKIT_U16},   {GEMMKIT_I32, GEMMKIT_I32},
    {GEMMKIT_U32, GEMMKIT_U32},   {GEMMKIT_I64, GEMMKIT_I64},   {GEMMKIT_U64, GEMMKIT_U64},
    {GEMMKIT_BOOL, GEMMKIT_BOOL}, {GEMMKIT_C64, GEMMKIT_C64},   {GEMMKIT_C128, GEMMKIT_C128},
};

// The one mistake an input may carry (kNone: a valid call).
enum Mistake {
  kNone,
  kBadScalar,      // VALUE: imaginary part for a real type, non-integer, ...
  kOutOverlapsA,   // OVERLAP
  kOutOverlapsB,   // OVERLAP
  kOutAliases,     // STRIDE: a zero stride over an extent > 1
  kCOverlapsOut,   // OVERLAP: c shares out's memory but is another view
  kReadOnlyOut,    // STRIDE
  kDtypeMismatch,  // DTYPE: b's dtype differs from a's
  kBadPair,        // DTYPE: an output type the input has no product for
  kShape,          // SHAPE: b.rows != k
  kBatch,          // SHAPE: a's batch is neither out's nor 1
  kMistakes
};

std::size_t dim(FuzzedDataProvider& in) {
  const std::uint8_t v = in.ConsumeIntegral<std::uint8_t>();
  // Mostly 0..40; one in 16 larger, past the kernels' register blocks.
  return (v & 15) == 15 ? 41 + (v >> 4) * 6 : v % 41;
}

double pick(FuzzedDataProvider& in, const double* values, std::size_t count) {
  return values[in.ConsumeIntegralInRange<std::size_t>(0, count - 1)];
}

// alpha, beta valid for the pair; small for floats so float16 cannot overflow.
Scalars scalars(FuzzedDataProvider& in, const Pair& p) {
  static const double kFloatA[] = {1, -1, 0, 0.5, 2, -4, 1.5, 0.25, 3, -0.0};
  static const double kFloatB[] = {0, 1, -1, 0.5, 2, -0.0, 4, -2.5};
  static const double kImag[] = {0, 1, -0.5, 2};
  static const double kInt32[] = {0, 1, -1, 2, -3, 7, 65537, 2147483647.0, -2147483648.0};
  static const double kRing[] = {0, 1, -1, 2, 3, -7, 4294967301.0, -1099511627776.0,
                                 9223372036854775808.0, 18446744073709549568.0};
  Scalars s;
  switch (family(p.in)) {
    case Family::kFloat:
      s.alpha[0] = pick(in, kFloatA, std::size(kFloatA));
      s.beta[0] = pick(in, kFloatB, std::size(kFloatB));
      break;
    case Family::kComplex:
      s.alpha[0] = pick(in, kFloatA, std::size(kFloatA));
      s.alpha[1] = pick(in, kImag, std::size(kImag));
      s.beta[0] = pick(in, kFloatB, std::size(kFloatB));
      s.beta[1] = pick(in, kImag, std::size(kImag));
      break;
    case Family::kBool:
      s.alpha[0] = 1;  // logical products: alpha 1, beta 0 only
      s.beta[0] = 0;
      break;
    case Family::kInt: {
      const bool i32 = p.in == GEMMKIT_I8 && p.out == GEMMKIT_I32;
      s.alpha[0] = i32 ? pick(in, kInt32, std::size(kInt32)) : pick(in, kRing, std::size(kRing));
      s.beta[0] = i32 ? pick(in, kInt32, std::size(kInt32)) : pick(in, kRing, std::size(kRing));
      break;
    }
  }
  return s;
}

// Makes the scalars invalid for the pair; returns the flags to pass.
int break_scalars(Scalars& s, const Pair& p, int flags) {
  switch (family(p.in)) {
    case Family::kFloat: s.beta[1] = 0.5; break;  // real products take no imaginary part
    case Family::kComplex: return flags | 8;      // no such flag
    case Family::kBool: s.alpha[0] = 2; break;
    case Family::kInt:
      s.alpha[0] = p.in == GEMMKIT_I8 && p.out == GEMMKIT_I32 ? 2147483648.0 : 0.5;
      break;
  }
  return flags;
}

int expected_status(Mistake w) {
  switch (w) {
    case kBadScalar: return GEMMKIT_ERROR_VALUE;
    case kOutOverlapsA: case kOutOverlapsB: case kCOverlapsOut: return GEMMKIT_ERROR_OVERLAP;
    case kOutAliases: case kReadOnlyOut: return GEMMKIT_ERROR_STRIDE;
    case kDtypeMismatch: case kBadPair: return GEMMKIT_ERROR_DTYPE;
    default: return GEMMKIT_ERROR_SHAPE;
  }
}

// Places `inner` at the start of `outer`'s allocation (which is made large
// enough for both), so their spans share bytes.
void share_memory(Mat& outer, Mat& inner) {
  inner.esz = dtype_size(inner.op.dtype);
  std::ptrdiff_t hi = 0;
  reach(inner.op, &inner.lo, &hi);
  const std::size_t inner_bytes = std::size_t(hi - inner.lo + 1) * inner.esz;
  if (inner_bytes > outer.bytes) {
    const std::size_t extra = (inner_bytes - outer.bytes + outer.esz - 1) / outer.esz;
    allocate(outer, extra);
  }
  inner.mem.reset();  // inner aliases outer's memory
  inner.bytes = 0;
  inner.op.data = outer.mem.get() - inner.lo * std::ptrdiff_t(inner.esz);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const Pair p = kPairs[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kPairs) - 1)];
  const std::uint8_t w8 = in.ConsumeIntegral<std::uint8_t>();
  // Half the inputs are valid calls; the rest spread over the mistakes.
  Mistake mistake = w8 < 128 ? kNone : Mistake(1 + (w8 - 128) % (kMistakes - 1));
  std::size_t nb = in.ConsumeIntegralInRange<std::size_t>(0, 3);
  std::size_t m = dim(in), n = dim(in), k = dim(in);
  if (mistake != kNone && nb == 0) nb = 1;  // an empty batch checks only shapes
  if (mistake == kCOverlapsOut && family(p.in) == Family::kBool) mistake = kNone;  // c never read
  if (mistake == kOutOverlapsA || mistake == kOutOverlapsB) {
    m = m ? m : 1, n = n ? n : 1, k = k ? k : 1;  // a product that reads a and b
  }
  if (mistake == kOutAliases || mistake == kCOverlapsOut) {
    m = m < 2 ? 2 : m, n = n ? n : 1;
  }
  Scalars s = scalars(in, p);
  if (mistake == kOutOverlapsA || mistake == kOutOverlapsB) s.alpha[0] = 1;
  if (mistake == kCOverlapsOut) s.beta[0] = 1;
  int flags = in.ConsumeIntegralInRange(0, 3);
  if (mistake == kBadScalar) flags = break_scalars(s, p, flags);
  const bool specials = (in.ConsumeIntegral<std::uint8_t>() & 7) == 0;

  // The operands; inputs may broadcast a batch of one.
  const std::size_t a_batch = mistake == kBatch ? nb + 1 : in.ConsumeBool() ? 1 : nb;
  Mat a = make_mat(in, p.in, a_batch, m, k, true);
  Mat b = make_mat(in, mistake == kDtypeMismatch ? (p.in + 1) % 15 : p.in, in.ConsumeBool() ? 1 : nb,
                   mistake == kShape ? k + 1 : k, n, true);
  Mat out;
  out.op.dtype = mistake == kBadPair ? 99 : p.out;
  out.op.batch = nb;
  out.op.rows = m;
  out.op.cols = n;
  random_strides(in, out.op, false);
  if (mistake == kOutAliases) {
    if (nb > 1 && in.ConsumeBool()) out.op.batch_stride = 0;
    else out.op.rs = 0;
  }
  if (mistake == kReadOnlyOut) out.op.flags = GEMMKIT_OPERAND_READONLY;
  allocate(out, mistake == kCOverlapsOut ? 1 : 0);
  fill(in, a, specials);
  fill(in, b, specials);

  // c: none, a separate operand, or out itself (in place).
  // (None when out shares an input's memory: that call must fail before c.)
  const int c_kind = mistake == kCOverlapsOut                               ? 3
                     : mistake == kOutOverlapsA || mistake == kOutOverlapsB ? 0
                                                                            : in.ConsumeIntegralInRange(0, 2);
  Mat c_sep;
  Mat* c = nullptr;
  gemmkit_operand c_op{};
  if (c_kind == 1) {
    c_sep = make_mat(in, out.op.dtype, in.ConsumeBool() ? 1 : nb, m, n, true);
    fill(in, c_sep, specials);
    c = &c_sep;
    c_op = c_sep.op;
  } else if (c_kind >= 2) {
    fill(in, out, specials);  // in place: out's view holds c's values
    c = &out;
    c_op = out.op;
    c_op.flags = 0;
    // Another view of the same memory: one element further on.
    if (c_kind == 3) c_op.data = static_cast<unsigned char*>(out.op.data) + out.esz;
  }
  if (mistake == kOutOverlapsA) share_memory(a, out);
  if (mistake == kOutOverlapsB) share_memory(b, out);

  const Mat a0 = clone(a), b0 = clone(b), out0 = clone(out);
  const Mat c0 = c ? clone(*c) : Mat{};
  const int st = gemmkit_gemm_batched_ex(s.alpha, &a.op, &b.op, nullptr, s.beta,
                                         c ? &c_op : nullptr, &out.op, nullptr, flags);
  char what[96];
  std::snprintf(what, sizeof what, "gemm %d->%d mistake %d batch %zu", p.in, p.out, int(mistake), nb);
  if (mistake != kNone) {
    check_refused(st, expected_status(mistake), what);
    check_unchanged(a0, a, what);
    check_unchanged(b0, b, what);
    check_unchanged(out0, out, what);
    return 0;
  }
  FUZZ_CHECK(st == GEMMKIT_OK, "%s: status %d (%s)", what, st, gemmkit_last_error());
  check_unchanged(a0, a, what);
  check_unchanged(b0, b, what);
  if (c == &c_sep) check_unchanged(c0, c_sep, what);
  check_padding(out0, out, nb, what);
  check_product(s, a, b, c ? &c0 : nullptr, out, flags, what);
  return 0;
}
