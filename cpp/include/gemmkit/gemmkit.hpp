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

#include "gemmkit/gemmkit.h"

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
enum class Act : int { kNone = 0, kRelu = 1, kClip = 2 };

// Optional fused epilogue.  bias: m values (kPerRow) or n values (kPerCol)
// at bias_stride; kClip clamps to [lo, hi].
template <class T>
struct FusedEpilogue {
  Bias bias_kind;
  const T* bias;
  index_t bias_len, bias_stride;
  Act act;
  T lo, hi;
};

// c_in may be null (beta is then ignored) or the very same view as c_out.
// epilogue may be null.
template <class T>
int gemm(T alpha, const MatrixRef<T>& a, const MatrixRef<T>& b, T beta,
         const MatrixRef<T>* c_in, const MatrixMut<T>& c_out,
         const FusedEpilogue<T>* epilogue = nullptr);

extern template int gemm<float>(float, const MatrixRef<float>&,
                                const MatrixRef<float>&, float,
                                const MatrixRef<float>*,
                                const MatrixMut<float>&,
                                const FusedEpilogue<float>*);
extern template int gemm<double>(double, const MatrixRef<double>&,
                                 const MatrixRef<double>&, double,
                                 const MatrixRef<double>*,
                                 const MatrixMut<double>&,
                                 const FusedEpilogue<double>*);

// Message of the last failed call on this thread ("" after success).
const char* last_error();

// Dispatch decision as JSON (see gemmkit_dispatch_info_json), or nullptr
// after a bad GEMMKIT_REQUIRE_ISA pin (last_error() says why).
const char* dispatch_info_json();

void set_num_threads(std::size_t n);  // 0 = default
std::size_t get_num_threads();

const char* version();

}  // namespace gemmkit
