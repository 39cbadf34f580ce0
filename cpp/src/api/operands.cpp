// L8 api: the operand door, type-erased.  One switch over the dtype pair
// takes a call from gemmkit_operand descriptors to the typed entries of
// api.cpp, which check everything else.  Every product entry of the C ABI
// comes through here: the descriptor entries, and the older argument-list
// entries (gemmkit_sgemm, gemmkit_gemm, ...), which only describe their
// matrices as operands.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "api/batched.hpp"
#include "api/dtypes.hpp"
#include "api/error.hpp"
#include "api/packed_handle.hpp"
#include "gemmkit/gemmkit.h"
#include "gemmkit/gemmkit.hpp"

namespace gemmkit {

namespace {

int null_operand(const char* name) {
  return api::fail(GEMMKIT_ERROR_VALUE, "gemmkit: the %s operand is NULL", name);
}

int check_bias_kind(int kind) {
  if (kind >= GEMMKIT_BIAS_NONE && kind <= GEMMKIT_BIAS_PER_COL) return GEMMKIT_OK;
  return api::fail(GEMMKIT_ERROR_VALUE,
                   "gemmkit: bias_kind must be 0 (none), 1 (per row) or 2 (per column), "
                   "got %d",
                   kind);
}

// The C epilogue as the C++ one, for accumulator A.
template <class A>
int epilogue_of(const gemmkit_epilogue& e, int acc_code, FusedEpilogue<A>* out) {
  if (int st = check_bias_kind(e.bias_kind)) return st;
  if (e.activation < GEMMKIT_ACT_NONE || e.activation > GEMMKIT_ACT_LEAKY_RELU)
    return api::fail(GEMMKIT_ERROR_VALUE,
                     "gemmkit: unknown activation code %d (none 0, relu 1, clip 2, "
                     "leaky_relu 3)",
                     e.activation);
  FusedEpilogue<A> f{};
  f.bias_kind = static_cast<Bias>(e.bias_kind);
  if (e.bias_kind != GEMMKIT_BIAS_NONE) {
    if (e.bias.dtype != acc_code)
      return api::fail(GEMMKIT_ERROR_DTYPE,
                       "gemmkit: bias is %s but this product accumulates in %s "
                       "(the bias must have the accumulator's type)",
                       api::dtype_name(e.bias.dtype), api::dtype_name(acc_code));
    if (e.bias.cols != 1 || e.bias.batch > 1)
      return api::fail(GEMMKIT_ERROR_SHAPE, "gemmkit: bias must be one vector");
    f.bias = static_cast<const A*>(e.bias.data);
    f.bias_len = index_t(e.bias.rows);
    f.bias_stride = e.bias.rs;
  }
  f.act = static_cast<Act>(e.activation);
  f.slope = A(e.slope);
  f.lo = A(e.lo);
  f.hi = A(e.hi);
  *out = f;
  return GEMMKIT_OK;
}

// alpha or beta as the accumulator A: complex for the complex families; a
// real A refuses an imaginary part; int8 -> int32 takes int32 values; the
// wrapping integer families take any integer below 2^64 in magnitude,
// reduced modulo the ring (so uint32's 4e9 is the same ring element as
// int32's -294967296).
template <class L, class A>
int scalar_of(const double (&v)[2], const char* name, int in, A* out) {
  if constexpr (is_complex_v<A>) {
    *out = A(typename A::value_type(v[0]), typename A::value_type(v[1]));
    return GEMMKIT_OK;
  } else {
    if (v[1] != 0.0 || std::isnan(v[1]))
      return api::fail(GEMMKIT_ERROR_VALUE,
                       "gemmkit: %s has an imaginary part (%.17g) but %s products are "
                       "real",
                       name, v[1], api::dtype_name(in));
    if constexpr (std::is_same_v<L, std::int8_t>) {
      int i;
      if (int st = api::to_int32_scalar(v[0], name, &i)) return st;
      *out = i;
    } else if constexpr (std::is_integral_v<A>) {
      std::uint64_t bits;
      if (int st = api::to_ring_scalar(v[0], name, &bits)) return st;
      *out = A(bits);  // modulo 2^32 or 2^64: the ring's element
    } else {
      *out = A(v[0]);
    }
    return GEMMKIT_OK;
  }
}

// Exact integer (other than int8 -> int32), bool and complex products: what
// their epilogue and scalars may be.
template <class L>
int check_family_rules(const double (&alpha)[2], const double (&beta)[2],
                       const gemmkit_epilogue* e, int in) {
  constexpr bool kRing = std::is_integral_v<acc_t<L>> && !std::is_same_v<L, std::int8_t>;
  if constexpr (std::is_same_v<L, bool8>) {
    if (alpha[0] != 1.0 || beta[0] != 0.0)
      return api::fail(GEMMKIT_ERROR_VALUE,
                       "gemmkit: bool products are logical (or of ands): alpha must be 1 "
                       "and beta 0, got %.17g and %.17g",
                       alpha[0], beta[0]);
  }
  if (!e || (e->bias_kind == GEMMKIT_BIAS_NONE && e->activation == GEMMKIT_ACT_NONE))
    return GEMMKIT_OK;
  if constexpr (kRing)
    return api::fail(GEMMKIT_ERROR_DTYPE,
                     "gemmkit: %s products take no fused epilogue (bias and activations "
                     "are for floating-point, complex (bias) and int8 -> int32 products)",
                     api::dtype_name(in));
  if constexpr (is_complex_v<L>) {
    if (e->activation != GEMMKIT_ACT_NONE)
      return api::fail(GEMMKIT_ERROR_DTYPE,
                       "gemmkit: %s products take a bias but no activation (complex "
                       "numbers have no order)",
                       api::dtype_name(in));
  }
  return GEMMKIT_OK;
}

template <class L, class O>
int typed_gemm(const double (&alpha)[2], const gemmkit_operand& a, const gemmkit_operand* b,
               const PackedRhs* packed, const double (&beta)[2], const gemmkit_operand* c,
               const gemmkit_operand& out, const gemmkit_epilogue* e, int acc_code, int in,
               int flags) {
  using A = acc_t<L>;
  A al{}, be{};
  int st;
  if ((st = check_family_rules<L>(alpha, beta, e, in)) ||
      (st = scalar_of<L>(alpha, "alpha", in, &al)) ||
      (st = scalar_of<L>(beta, "beta", in, &be)))
    return st;
  FusedEpilogue<A> fe;
  if (e) {
    if ((st = epilogue_of<A>(*e, acc_code, &fe))) return st;
  }
  return api::gemm_operands<L, O>(al, a, b, packed, be, c, out, e ? &fe : nullptr, flags);
}

constexpr int pair(int in, int out) { return in * 256 + out; }

int packed_dtype(const PackedRhs& p) { return api::dtype_code(packed_rhs_info(p).dtype); }

}  // namespace

int gemm_batched(double alpha, const gemmkit_operand& a, const gemmkit_operand* b,
                 const PackedRhs* packed, double beta,
                 const gemmkit_operand* c, const gemmkit_operand& out,
                 const gemmkit_epilogue* epilogue) {
  const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};
  return gemm_batched_ex(al, a, b, packed, be, c, out, epilogue, 0);
}

int gemm_batched_ex(const double (&alpha)[2], const gemmkit_operand& a,
                    const gemmkit_operand* b, const PackedRhs* packed,
                    const double (&beta)[2], const gemmkit_operand* c,
                    const gemmkit_operand& out, const gemmkit_epilogue* epilogue, int flags) {
  api::clear_error();
  if (!b && !packed) return null_operand("b");
  if (flags & ~(GEMMKIT_CONJ_A | GEMMKIT_CONJ_B))
    return api::fail(GEMMKIT_ERROR_VALUE,
                     "gemmkit: unknown flags 0x%x (GEMMKIT_CONJ_A 1, GEMMKIT_CONJ_B 2)",
                     unsigned(flags));
  if (packed && (flags & GEMMKIT_CONJ_B))
    return api::fail(GEMMKIT_ERROR_VALUE,
                     "gemmkit: conj_b cannot apply to a packed b, which is used as "
                     "packed (prepack the conjugate instead)");
  const int in = a.dtype;
  const int b_dtype = packed ? packed_dtype(*packed) : b->dtype;
  if (b_dtype != in)
    return api::fail(GEMMKIT_ERROR_DTYPE,
                     "gemmkit: dtype mismatch: a is %s but %s is %s (gemmkit does "
                     "not convert; cast explicitly)",
                     api::dtype_name(in), packed ? "the packed b" : "b",
                     api::dtype_name(b_dtype));
  if (packed && in == GEMMKIT_I8 && out.dtype == GEMMKIT_I8)
    return api::fail(GEMMKIT_ERROR_DTYPE,
                     "gemmkit: a packed int8 b serves int8 -> int32 products and "
                     "gemm_requant; an int8 (wrapping) result takes b itself");
  if (c && c->dtype != out.dtype)
    return api::fail(GEMMKIT_ERROR_DTYPE,
                     "gemmkit: dtype mismatch: out is %s but c is %s (gemmkit does "
                     "not convert; cast explicitly)",
                     api::dtype_name(out.dtype), api::dtype_name(c->dtype));
  // The kernels by the width of the wrapped result (types.hpp): the signed
  // and unsigned types of one width share them, bits in and bits out.
#define GEMMKIT_CASE(IN, OUT, L, O, ACC)                                          \
  case pair(IN, OUT):                                                             \
    return typed_gemm<L, O>(alpha, a, b, packed, beta, c, out, epilogue, ACC, in, flags);
  switch (pair(in, out.dtype)) {
    GEMMKIT_CASE(GEMMKIT_F32, GEMMKIT_F32, float, float, GEMMKIT_F32)
    GEMMKIT_CASE(GEMMKIT_F64, GEMMKIT_F64, double, double, GEMMKIT_F64)
    GEMMKIT_CASE(GEMMKIT_F16, GEMMKIT_F16, float16, float16, GEMMKIT_F32)
    GEMMKIT_CASE(GEMMKIT_F16, GEMMKIT_F32, float16, float, GEMMKIT_F32)
    GEMMKIT_CASE(GEMMKIT_BF16, GEMMKIT_BF16, bfloat16, bfloat16, GEMMKIT_F32)
    GEMMKIT_CASE(GEMMKIT_BF16, GEMMKIT_F32, bfloat16, float, GEMMKIT_F32)
    GEMMKIT_CASE(GEMMKIT_I8, GEMMKIT_I32, std::int8_t, std::int32_t, GEMMKIT_I32)
    GEMMKIT_CASE(GEMMKIT_I8, GEMMKIT_I8, std::uint8_t, std::uint8_t, GEMMKIT_I32)
    GEMMKIT_CASE(GEMMKIT_U8, GEMMKIT_U8, std::uint8_t, std::uint8_t, GEMMKIT_I32)
    GEMMKIT_CASE(GEMMKIT_I16, GEMMKIT_I16, std::uint16_t, std::uint16_t, GEMMKIT_I32)
    GEMMKIT_CASE(GEMMKIT_U16, GEMMKIT_U16, std::uint16_t, std::uint16_t, GEMMKIT_I32)
    GEMMKIT_CASE(GEMMKIT_I32, GEMMKIT_I32, std::int32_t, std::int32_t, GEMMKIT_I32)
    GEMMKIT_CASE(GEMMKIT_U32, GEMMKIT_U32, std::int32_t, std::int32_t, GEMMKIT_I32)
    GEMMKIT_CASE(GEMMKIT_I64, GEMMKIT_I64, std::int64_t, std::int64_t, GEMMKIT_I64)
    GEMMKIT_CASE(GEMMKIT_U64, GEMMKIT_U64, std::int64_t, std::int64_t, GEMMKIT_I64)
    GEMMKIT_CASE(GEMMKIT_BOOL, GEMMKIT_BOOL, bool8, bool8, GEMMKIT_I32)
    GEMMKIT_CASE(GEMMKIT_C64, GEMMKIT_C64, complex64, complex64, GEMMKIT_C64)
    GEMMKIT_CASE(GEMMKIT_C128, GEMMKIT_C128, complex128, complex128, GEMMKIT_C128)
    default:
      break;
  }
#undef GEMMKIT_CASE
  bool known_input = false;
#define GEMMKIT_IS_INPUT(IN, OUT) known_input = known_input || (IN) == in;
  GEMMKIT_FOR_EACH_PAIR(GEMMKIT_IS_INPUT)
#undef GEMMKIT_IS_INPUT
  if (!known_input) return api::unsupported_input("a", in);
  return api::unsupported_pair(in, out.dtype);
}

int prepack_operand(const gemmkit_operand& b, PackedRhs** out) {
  api::clear_error();
  if (b.rows > std::size_t(PTRDIFF_MAX) || b.cols > std::size_t(PTRDIFF_MAX))
    return api::fail(GEMMKIT_ERROR_SHAPE, "gemmkit: b has a dimension too large to address");
  const MatrixRef<char> any{static_cast<const char*>(b.data), index_t(b.rows), index_t(b.cols),
                            b.rs, b.cs};
  auto as = [&](auto* tag) {
    using L = std::remove_pointer_t<decltype(tag)>;
    return prepack_rhs<L>(MatrixRef<L>{reinterpret_cast<const L*>(any.data), any.rows, any.cols,
                                       any.rs, any.cs},
                          out);
  };
  switch (b.dtype) {
    case GEMMKIT_F32: return as(static_cast<float*>(nullptr));
    case GEMMKIT_F64: return as(static_cast<double*>(nullptr));
    case GEMMKIT_F16: return as(static_cast<float16*>(nullptr));
    case GEMMKIT_BF16: return as(static_cast<bfloat16*>(nullptr));
    case GEMMKIT_I8: return as(static_cast<std::int8_t*>(nullptr));
    case GEMMKIT_C64: return as(static_cast<complex64*>(nullptr));
    case GEMMKIT_C128: return as(static_cast<complex128*>(nullptr));
    default:
      return api::fail(GEMMKIT_ERROR_DTYPE,
                       "gemmkit: prepack_rhs has no packed layout for dtype %s (it packs "
                       "float32, float64, float16, bfloat16, int8, complex64, complex128)",
                       api::dtype_name(b.dtype));
  }
}

int gemm_requant_batched(const gemmkit_operand& a, const gemmkit_operand* b,
                         const PackedRhs* packed, const gemmkit_requant& rq, const gemmkit_operand& out) {
  api::clear_error();
  if (!b && !packed) return null_operand("b");
  const int b_dtype = packed ? packed_dtype(*packed) : b->dtype;
  if (a.dtype != GEMMKIT_I8 || b_dtype != GEMMKIT_I8)
    return api::fail(GEMMKIT_ERROR_DTYPE,
                     "gemmkit: gemm_requant needs int8 operands, but a has dtype %s "
                     "and %s has dtype %s",
                     api::dtype_name(a.dtype), packed ? "the packed b" : "b",
                     api::dtype_name(b_dtype));
  if (out.dtype != GEMMKIT_I8 && out.dtype != GEMMKIT_U8)
    return api::fail(GEMMKIT_ERROR_DTYPE, "gemmkit: gemm_requant writes int8 or uint8, not %s",
                     api::dtype_name(out.dtype));
  if (rq.scale_kind < 0 || rq.scale_kind > 2)
    return api::fail(GEMMKIT_ERROR_VALUE,
                     "gemmkit: scale_kind must be 0 (per tensor), 1 (per row) or 2 "
                     "(per column), got %d",
                     rq.scale_kind);
  if (int st = check_bias_kind(rq.bias_kind)) return st;
  if (rq.scale.dtype != GEMMKIT_F32 || rq.scale.cols != 1)
    return api::fail(GEMMKIT_ERROR_DTYPE,
                     "gemmkit: requantize scales must be one float32 vector, got %s",
                     api::dtype_name(rq.scale.dtype));
  if (rq.bias_kind != GEMMKIT_BIAS_NONE && (rq.bias.dtype != GEMMKIT_I32 || rq.bias.cols != 1))
    return api::fail(GEMMKIT_ERROR_DTYPE,
                     "gemmkit: requantize bias must be one int32 vector, got %s",
                     api::dtype_name(rq.bias.dtype));
  Requantize r{};
  r.scale_kind = static_cast<Scale>(rq.scale_kind);
  r.scale = static_cast<const float*>(rq.scale.data);
  r.scale_len = index_t(rq.scale.rows);
  r.scale_stride = rq.scale.rs;
  r.zero_point = rq.zero_point;
  r.bias_kind = static_cast<Bias>(rq.bias_kind);
  if (rq.bias_kind != GEMMKIT_BIAS_NONE) {
    r.bias = static_cast<const std::int32_t*>(rq.bias.data);
    r.bias_len = index_t(rq.bias.rows);
    r.bias_stride = rq.bias.rs;
  }
  if (out.dtype == GEMMKIT_I8) return api::requant_operands<std::int8_t>(a, b, packed, r, out);
  return api::requant_operands<std::uint8_t>(a, b, packed, r, out);
}

namespace {

// One matrix of an argument-list entry as an operand (read-only inputs).
gemmkit_operand matrix(const void* data, int dtype, size_t rows, size_t cols, ptrdiff_t rs,
                       ptrdiff_t cs, bool input) {
  return {const_cast<void*>(data), dtype, input ? GEMMKIT_OPERAND_READONLY : 0, 1, rows, cols,
          0, rs, cs};
}

// A vector of the requantization: `kind` chooses 1, m or n values.
gemmkit_operand vector(const void* data, int dtype, int kind, size_t m, size_t n,
                       ptrdiff_t stride) {
  const size_t len = kind == 1 ? m : kind == 2 ? n : 1;
  return {const_cast<void*>(data), dtype, GEMMKIT_OPERAND_READONLY, 1, data ? len : 0, 1, 0,
          stride, 1};
}

int list_gemm(int in, int out, size_t m, size_t n, size_t k, double alpha, const void* a,
              ptrdiff_t rs_a, ptrdiff_t cs_a, const void* b, ptrdiff_t rs_b, ptrdiff_t cs_b,
              const gemmkit_packed_rhs* packed, double beta, const void* c_in, ptrdiff_t rs_ci,
              ptrdiff_t cs_ci, void* c_out, ptrdiff_t rs_co, ptrdiff_t cs_co) {
  const gemmkit_operand va = matrix(a, in, m, k, rs_a, cs_a, true);
  const gemmkit_operand vb = matrix(b, in, k, n, rs_b, cs_b, true);
  const gemmkit_operand vc = matrix(c_in, out, m, n, rs_ci, cs_ci, true);
  const gemmkit_operand vo = matrix(c_out, out, m, n, rs_co, cs_co, false);
  return gemm_batched(alpha, va, packed ? nullptr : &vb, packed ? packed->packed : nullptr, beta,
                      c_in ? &vc : nullptr, vo, nullptr);
}

int list_requant(int out, size_t m, size_t n, size_t k, const signed char* a, ptrdiff_t rs_a,
                 ptrdiff_t cs_a, const signed char* b, ptrdiff_t rs_b, ptrdiff_t cs_b,
                 const gemmkit_packed_rhs* packed, int scale_kind, const float* scale,
                 ptrdiff_t scale_stride, int zero_point, int bias_kind, const int* bias,
                 ptrdiff_t bias_stride, void* c_out, ptrdiff_t rs_co, ptrdiff_t cs_co) {
  const gemmkit_operand va = matrix(a, GEMMKIT_I8, m, k, rs_a, cs_a, true);
  const gemmkit_operand vb = matrix(b, GEMMKIT_I8, k, n, rs_b, cs_b, true);
  const gemmkit_operand vo = matrix(c_out, out, m, n, rs_co, cs_co, false);
  gemmkit_requant rq{};
  rq.scale_kind = scale_kind;
  rq.scale = vector(scale, GEMMKIT_F32, scale_kind, m, n, scale_stride);
  rq.zero_point = zero_point;
  rq.bias_kind = bias_kind;
  if (bias) rq.bias = vector(bias, GEMMKIT_I32, bias_kind, m, n, bias_stride);
  return gemm_requant_batched(va, packed ? nullptr : &vb, packed ? packed->packed : nullptr, rq,
                              vo);
}

}  // namespace

}  // namespace gemmkit

extern "C" {

GEMMKIT_API int gemmkit_sgemm(size_t m, size_t n, size_t k, float alpha, const float* a,
                              ptrdiff_t rs_a, ptrdiff_t cs_a, const float* b, ptrdiff_t rs_b,
                              ptrdiff_t cs_b, float beta, const float* c_in, ptrdiff_t rs_ci,
                              ptrdiff_t cs_ci, float* c_out, ptrdiff_t rs_co, ptrdiff_t cs_co) {
  return gemmkit::list_gemm(GEMMKIT_F32, GEMMKIT_F32, m, n, k, alpha, a, rs_a, cs_a, b, rs_b,
                            cs_b, nullptr, beta, c_in, rs_ci, cs_ci, c_out, rs_co, cs_co);
}

GEMMKIT_API int gemmkit_dgemm(size_t m, size_t n, size_t k, double alpha, const double* a,
                              ptrdiff_t rs_a, ptrdiff_t cs_a, const double* b, ptrdiff_t rs_b,
                              ptrdiff_t cs_b, double beta, const double* c_in, ptrdiff_t rs_ci,
                              ptrdiff_t cs_ci, double* c_out, ptrdiff_t rs_co, ptrdiff_t cs_co) {
  return gemmkit::list_gemm(GEMMKIT_F64, GEMMKIT_F64, m, n, k, alpha, a, rs_a, cs_a, b, rs_b,
                            cs_b, nullptr, beta, c_in, rs_ci, cs_ci, c_out, rs_co, cs_co);
}

GEMMKIT_API int gemmkit_gemm(gemmkit_dtype in, gemmkit_dtype out, size_t m, size_t n, size_t k,
                             double alpha, const void* a, ptrdiff_t rs_a, ptrdiff_t cs_a,
                             const void* b, ptrdiff_t rs_b, ptrdiff_t cs_b, double beta,
                             const void* c_in, ptrdiff_t rs_ci, ptrdiff_t cs_ci, void* c_out,
                             ptrdiff_t rs_co, ptrdiff_t cs_co) {
  return gemmkit::list_gemm(in, out, m, n, k, alpha, a, rs_a, cs_a, b, rs_b, cs_b, nullptr, beta,
                            c_in, rs_ci, cs_ci, c_out, rs_co, cs_co);
}

GEMMKIT_API int gemmkit_gemm_packed(gemmkit_dtype out, size_t m, double alpha, const void* a,
                                    ptrdiff_t rs_a, ptrdiff_t cs_a, const gemmkit_packed_rhs* b,
                                    double beta, const void* c_in, ptrdiff_t rs_ci,
                                    ptrdiff_t cs_ci, void* c_out, ptrdiff_t rs_co,
                                    ptrdiff_t cs_co) {
  if (!b) return gemmkit::null_operand("packed b");
  return gemmkit::list_gemm(b->dtype, out, m, b->n, b->k, alpha, a, rs_a, cs_a, nullptr, 0, 0, b,
                            beta, c_in, rs_ci, cs_ci, c_out, rs_co, cs_co);
}

GEMMKIT_API int gemmkit_gemm_requant(gemmkit_dtype out, size_t m, size_t n, size_t k,
                                     const signed char* a, ptrdiff_t rs_a, ptrdiff_t cs_a,
                                     const signed char* b, ptrdiff_t rs_b, ptrdiff_t cs_b,
                                     int scale_kind, const float* scale, ptrdiff_t scale_stride,
                                     int zero_point, int bias_kind, const int* bias,
                                     ptrdiff_t bias_stride, void* c_out, ptrdiff_t rs_co,
                                     ptrdiff_t cs_co) {
  return gemmkit::list_requant(out, m, n, k, a, rs_a, cs_a, b, rs_b, cs_b, nullptr, scale_kind,
                               scale, scale_stride, zero_point, bias_kind, bias, bias_stride,
                               c_out, rs_co, cs_co);
}

GEMMKIT_API int gemmkit_gemm_requant_packed(gemmkit_dtype out, size_t m, const signed char* a,
                                            ptrdiff_t rs_a, ptrdiff_t cs_a,
                                            const gemmkit_packed_rhs* b, int scale_kind,
                                            const float* scale, ptrdiff_t scale_stride,
                                            int zero_point, int bias_kind, const int* bias,
                                            ptrdiff_t bias_stride, void* c_out, ptrdiff_t rs_co,
                                            ptrdiff_t cs_co) {
  if (!b) return gemmkit::null_operand("packed b");
  return gemmkit::list_requant(out, m, b->n, b->k, a, rs_a, cs_a, nullptr, 0, 0, b, scale_kind,
                               scale, scale_stride, zero_point, bias_kind, bias, bias_stride,
                               c_out, rs_co, cs_co);
}

GEMMKIT_API int gemmkit_prepack_rhs(gemmkit_dtype in, size_t k, size_t n, const void* b,
                                    ptrdiff_t rs_b, ptrdiff_t cs_b, gemmkit_packed_rhs** out) {
  using namespace gemmkit;
  api::clear_error();
  if (!out) return null_operand("out handle");
  *out = nullptr;
  const gemmkit_operand vb = matrix(b, in, k, n, rs_b, cs_b, true);
  PackedRhs* packed = nullptr;
  if (int st = prepack_operand(vb, &packed)) return st;
  // malloc, not new: the wasm side module may import only C functions from
  // Pyodide's main module (no C++ runtime; see wasm/build.py).
  auto* handle = static_cast<gemmkit_packed_rhs*>(std::calloc(1, sizeof(gemmkit_packed_rhs)));
  if (!handle) {
    free_packed_rhs(packed);
    return api::fail(GEMMKIT_ERROR_ALLOC, "gemmkit: could not allocate the packed operand handle");
  }
  handle->packed = packed;
  handle->dtype = in;
  handle->k = k;
  handle->n = n;
  std::snprintf(handle->json, sizeof handle->json, "%s", packed_rhs_json(*packed));
  *out = handle;
  return GEMMKIT_OK;
}

GEMMKIT_API void gemmkit_packed_rhs_free(gemmkit_packed_rhs* packed) {
  if (!packed) return;
  gemmkit::free_packed_rhs(packed->packed);
  std::free(packed);
}

GEMMKIT_API const char* gemmkit_packed_rhs_describe(const gemmkit_packed_rhs* packed) {
  return packed ? packed->json : "{}";
}

GEMMKIT_API int gemmkit_gemm_batched(double alpha, const gemmkit_operand* a,
                                     const gemmkit_operand* b,
                                     const gemmkit_packed_rhs* packed_b, double beta,
                                     const gemmkit_operand* c, const gemmkit_operand* out,
                                     const gemmkit_epilogue* epilogue) {
  if (!a) return gemmkit::null_operand("a");
  if (!out) return gemmkit::null_operand("out");
  return gemmkit::gemm_batched(alpha, *a, b, packed_b ? packed_b->packed : nullptr,
                               beta, c, *out, epilogue);
}

GEMMKIT_API int gemmkit_gemm_batched_ex(const double alpha[2], const gemmkit_operand* a,
                                        const gemmkit_operand* b,
                                        const gemmkit_packed_rhs* packed_b,
                                        const double beta[2], const gemmkit_operand* c,
                                        const gemmkit_operand* out,
                                        const gemmkit_epilogue* epilogue, int flags) {
  if (!a) return gemmkit::null_operand("a");
  if (!out) return gemmkit::null_operand("out");
  if (!alpha) return gemmkit::null_operand("alpha");
  if (!beta) return gemmkit::null_operand("beta");
  const double al[2] = {alpha[0], alpha[1]}, be[2] = {beta[0], beta[1]};
  return gemmkit::gemm_batched_ex(al, *a, b, packed_b ? packed_b->packed : nullptr, be, c,
                                  *out, epilogue, flags);
}

GEMMKIT_API int gemmkit_gemm_requant_batched(const gemmkit_operand* a,
                                             const gemmkit_operand* b,
                                             const gemmkit_packed_rhs* packed_b,
                                             const gemmkit_requant* rq,
                                             const gemmkit_operand* out) {
  if (!a) return gemmkit::null_operand("a");
  if (!out) return gemmkit::null_operand("out");
  if (!rq) return gemmkit::null_operand("requant");
  return gemmkit::gemm_requant_batched(*a, b, packed_b ? packed_b->packed : nullptr, *rq,
                                       *out);
}

GEMMKIT_API const char* gemmkit_codes_json(void) { return gemmkit::api::codes_json(); }

}  // extern "C"
