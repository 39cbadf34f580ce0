// L8 api: the C++ API of gemmkit.
//
//   C_out <- act(alpha * A * B + beta * C_in + bias)
//
// Views carry their shape and signed element strides (BLIS style: a
// transpose is a stride swap, a reversed view a negative stride).  Every
// function validates its arguments once, here, and returns a gemmkit_status
// code; last_error() then holds a message for the calling thread.  No
// function throws or aborts on bad input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "gemmkit/gemmkit.h"
#include "gemmkit/types.hpp"

namespace gemmkit {

using index_t = std::ptrdiff_t;

template <class T>
struct MatrixRef {
  const T* data;
  index_t rows, cols;
  index_t rs, cs;  // element strides between rows and between columns
};

template <class T>
struct MatrixMut {
  T* data;
  index_t rows, cols;
  index_t rs, cs;
};

enum class Bias : int { kNone = 0, kPerRow = 1, kPerCol = 2 };
enum class Act : int { kNone = 0, kRelu = 1, kClip = 2, kLeakyRelu = 3 };

/// Optional fused epilogue, applied to v = alpha * AB + beta * C + bias
/// (bias: m values for kPerRow, n values for kPerCol, at bias_stride):
///  - kRelu:      max(v, 0); NaN -> +0 and -0 -> +0.
///  - kLeakyRelu: max(v, 0) + slope * min(v, 0); NaN -> +0, -0 -> +0.
///                slope must be finite (else GEMMKIT_ERROR_VALUE); the
///                formula is taken literally, so v = -inf with slope 0 gives
///                0 * -inf = NaN.  Floating-point types only (an int8 product
///                is refused with GEMMKIT_ERROR_DTYPE).
///  - kClip:      min(max(v, lo), hi), lo <= hi required: v <= lo (or NaN)
///                gives lo, then v >= hi gives hi; so NaN -> lo.
/// Here max(a, b) is `a > b ? a : b` and min(a, b) `a < b ? a : b`, on every
/// ISA, so results are bit-identical across GEMMKIT_REQUIRE_ISA pins (up to
/// the rounding of the product itself).  slope is read for kLeakyRelu only,
/// lo and hi for kClip only.
template <class T>
struct FusedEpilogue {
  Bias bias_kind;
  const T* bias;
  index_t bias_len, bias_stride;
  Act act;
  T lo, hi;
  T slope;
};

// The element-type families (accumulator in parentheses):
//   L = float (float) or double (double):           O = L
//   L = float16 or bfloat16 (float):                O = L, or float (the
//       f32-output twin); one rounding, at the store
//   L = int8_t (int32_t, wrapping; alpha and beta are int32_t): O = int32_t
//   L = int32_t or int64_t (itself, wrapping):       O = L
//   L = complex64 or complex128 (itself):           O = L (no activation)
// (The other integer and bool products are reached through the operand
// door, gemm_batched_ex, which maps each dtype to its kernel width.)
// c_in may be null (beta is then ignored) or the very same view as c_out;
// O is deduced from c_out alone, so a literal nullptr works.
// epilogue may be null; for float16/bfloat16 it runs in float before the
// one narrowing step.
template <class L, class O>
int gemm(acc_t<L> alpha, const MatrixRef<L>& a, const MatrixRef<L>& b,
         acc_t<L> beta, const MatrixRef<std::type_identity_t<O>>* c_in,
         const MatrixMut<O>& c_out,
         const FusedEpilogue<acc_t<L>>* epilogue = nullptr);

// A right-hand side packed once, in the layout of the kernel dispatch
// selected for its type, for any number of later products (from any thread:
// it is immutable).  Made by prepack_rhs, released by free_packed_rhs.
struct PackedRhs;

template <class L>
int prepack_rhs(const MatrixRef<L>& b, PackedRhs** out);
void free_packed_rhs(PackedRhs* packed);

struct PackedRhsInfo {
  const char* dtype;   // "float32", "float64", "float16", "bfloat16", "int8"
  index_t k, n;        // shape of the B it was made from
  const char* isa;     // the ISA whose kernel layout it holds
  const char* kernel;  // e.g. "int8_gemm_32x12__avx512vnni"
  std::size_t bytes;   // memory held
};
PackedRhsInfo packed_rhs_info(const PackedRhs& packed);
// The same as a JSON object ("dtype", "k", "n", "isa", "kernel",
// "bytes"), owned by the packed operand.
const char* packed_rhs_json(const PackedRhs& packed);

// gemm with B prepacked: equal to gemm(a, b) bit for bit, except on the
// shapes plain gemm routes to a special path (m == 1: matrix-vector).
// Refused (GEMMKIT_ERROR_DTYPE / _SHAPE / _ISA) when the packed operand was
// made for another type, another depth, or under another dispatch choice.
template <class L, class O>
int gemm_packed(acc_t<L> alpha, const MatrixRef<L>& a, const PackedRhs& b,
                acc_t<L> beta, const MatrixRef<std::type_identity_t<O>>* c_in,
                const MatrixMut<O>& c_out,
                const FusedEpilogue<acc_t<L>>* epilogue = nullptr);

// Requantized int8 product, O = int8_t ([-128, 127]) or uint8_t ([0, 255]):
//   C[i, j] = clamp(zero_point + round_half_even(scale * (acc + bias)), lo, hi)
// with acc = sum_p A[i, p] * B[p, j] in wrapping int32 and acc + bias also
// wrapping.  scale: one value (kPerTensor), m values (kPerRow) or n values
// (kPerCol), each finite and > 0; bias: none, m or n int32 values;
// zero_point inside the output range.
enum class Scale : int { kPerTensor = 0, kPerRow = 1, kPerCol = 2 };

struct Requantize {
  Scale scale_kind;
  const float* scale;
  index_t scale_len, scale_stride;
  std::int32_t zero_point;
  Bias bias_kind;
  const std::int32_t* bias;
  index_t bias_len, bias_stride;
};

template <class O>
int gemm_requant(const MatrixRef<std::int8_t>& a,
                 const MatrixRef<std::int8_t>& b, const Requantize& rq,
                 const MatrixMut<O>& c_out);
template <class O>
int gemm_requant_packed(const MatrixRef<std::int8_t>& a, const PackedRhs& b,
                        const Requantize& rq, const MatrixMut<O>& c_out);

// The operand door (gemmkit.h's descriptors), type-erased: every operand
// of every call of the batch, the dtype pair included, is checked here.
// out[i] = act(alpha * a[i] b[i] + beta * c[i] + bias) for each matrix i
// of out's batch; b is null when packed_b is given; c and epilogue may be.
int gemm_batched(double alpha, const gemmkit_operand& a, const gemmkit_operand* b,
                 const PackedRhs* packed_b, double beta, const gemmkit_operand* c,
                 const gemmkit_operand& out, const gemmkit_epilogue* epilogue = nullptr);
// The same with complex alpha and beta ({real, imaginary}; imaginary 0 for
// real products) and GEMMKIT_CONJ_A / GEMMKIT_CONJ_B flags.
int gemm_batched_ex(const double (&alpha)[2], const gemmkit_operand& a,
                    const gemmkit_operand* b, const PackedRhs* packed_b,
                    const double (&beta)[2], const gemmkit_operand* c,
                    const gemmkit_operand& out, const gemmkit_epilogue* epilogue, int flags);
int gemm_requant_batched(const gemmkit_operand& a, const gemmkit_operand* b,
                         const PackedRhs* packed_b, const gemmkit_requant& rq,
                         const gemmkit_operand& out);
// prepack_rhs of a descriptor (one matrix of any supported input type).
int prepack_operand(const gemmkit_operand& b, PackedRhs** out);

// Message of the last failed call on this thread ("" after success).
const char* last_error();

// Dispatch decision as JSON (see gemmkit_dispatch_info_json), or nullptr
// after a bad GEMMKIT_REQUIRE_ISA pin (last_error() says why).
const char* dispatch_info_json();

void set_num_threads(std::size_t n);  // 0 = default
std::size_t get_num_threads();

const char* version();

}  // namespace gemmkit
