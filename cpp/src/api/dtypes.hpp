// L8 api: the element-type table, the (input, output) pairs the core
// computes, and the conversions of alpha/beta; one place for each.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemmkit/gemmkit.h"

namespace gemmkit::api {

// X(code, name, itemsize): every gemmkit_dtype.  The names are numpy's.
#define GEMMKIT_FOR_EACH_DTYPE(X) \
  X(GEMMKIT_F32, "float32", 4)    \
  X(GEMMKIT_F64, "float64", 8)    \
  X(GEMMKIT_F16, "float16", 2)    \
  X(GEMMKIT_BF16, "bfloat16", 2)  \
  X(GEMMKIT_I8, "int8", 1)        \
  X(GEMMKIT_I32, "int32", 4)      \
  X(GEMMKIT_U8, "uint8", 1)       \
  X(GEMMKIT_BOOL, "bool", 1)      \
  X(GEMMKIT_I16, "int16", 2)      \
  X(GEMMKIT_I64, "int64", 8)      \
  X(GEMMKIT_U16, "uint16", 2)     \
  X(GEMMKIT_U32, "uint32", 4)     \
  X(GEMMKIT_U64, "uint64", 8)     \
  X(GEMMKIT_C64, "complex64", 8)  \
  X(GEMMKIT_C128, "complex128", 16)

// X(input, output): the products gemm computes, the default output first.
#define GEMMKIT_FOR_EACH_PAIR(X) \
  X(GEMMKIT_F32, GEMMKIT_F32)    \
  X(GEMMKIT_F64, GEMMKIT_F64)    \
  X(GEMMKIT_F16, GEMMKIT_F16)    \
  X(GEMMKIT_F16, GEMMKIT_F32)    \
  X(GEMMKIT_BF16, GEMMKIT_BF16)  \
  X(GEMMKIT_BF16, GEMMKIT_F32)   \
  X(GEMMKIT_I8, GEMMKIT_I32)    \
  X(GEMMKIT_I8, GEMMKIT_I8)     \
  X(GEMMKIT_U8, GEMMKIT_U8)     \
  X(GEMMKIT_I16, GEMMKIT_I16)   \
  X(GEMMKIT_U16, GEMMKIT_U16)   \
  X(GEMMKIT_I32, GEMMKIT_I32)   \
  X(GEMMKIT_U32, GEMMKIT_U32)   \
  X(GEMMKIT_I64, GEMMKIT_I64)   \
  X(GEMMKIT_U64, GEMMKIT_U64)   \
  X(GEMMKIT_BOOL, GEMMKIT_BOOL) \
  X(GEMMKIT_C64, GEMMKIT_C64)   \
  X(GEMMKIT_C128, GEMMKIT_C128)

// X(input, accumulator): what each input type computes in (acc_t<L>).
#define GEMMKIT_FOR_EACH_ACCUMULATOR(X) \
  X(GEMMKIT_F32, GEMMKIT_F32)           \
  X(GEMMKIT_F64, GEMMKIT_F64)           \
  X(GEMMKIT_F16, GEMMKIT_F32)           \
  X(GEMMKIT_BF16, GEMMKIT_F32)          \
  X(GEMMKIT_I8, GEMMKIT_I32)            \
  X(GEMMKIT_U8, GEMMKIT_I32)            \
  X(GEMMKIT_I16, GEMMKIT_I32)           \
  X(GEMMKIT_U16, GEMMKIT_I32)           \
  X(GEMMKIT_I32, GEMMKIT_I32)           \
  X(GEMMKIT_U32, GEMMKIT_I32)           \
  X(GEMMKIT_I64, GEMMKIT_I64)           \
  X(GEMMKIT_U64, GEMMKIT_I64)           \
  X(GEMMKIT_BOOL, GEMMKIT_I32)          \
  X(GEMMKIT_C64, GEMMKIT_C64)           \
  X(GEMMKIT_C128, GEMMKIT_C128)

// Outputs of the requantized int8 product.
#define GEMMKIT_FOR_EACH_REQUANT_OUTPUT(X) X(GEMMKIT_U8) X(GEMMKIT_I8)

// "float32", ..., or "an unknown type" for a code outside the table.
const char* dtype_name(int code);
std::size_t dtype_size(int code);  // 0 outside the table
int dtype_code(const char* name);  // GEMMKIT_DTYPE_UNKNOWN outside the table

// "float32, float64, ..." (the inputs) and "float32->float32, ..."
const char* supported_inputs_text();
const char* supported_pairs_text();

// Refusals with the one message each.
int unsupported_input(const char* operand, int code);
int unsupported_pair(int in, int out);

// alpha/beta in the accumulator type: int8 products take int32 values, and
// a double that is not an integer in that range is refused, never rounded.
int to_int32_scalar(double v, const char* name, int* out);
// The wrapping integer families: an integer of magnitude below 2^64, as the
// two's-complement bits the ring reduces (a double, so exact to 2^53).
int to_ring_scalar(double v, const char* name, std::uint64_t* out);

// gemmkit_codes_json()'s text.
const char* codes_json();

}  // namespace gemmkit::api
