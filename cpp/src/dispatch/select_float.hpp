// L7 dispatch: the memoized f32/f64 descriptor selection.
#pragma once

#include "dispatch/descriptor.hpp"

namespace gemmkit::dispatch {

template <class T>
struct Selection {
  FloatDescriptor<T> desc;
  int status;         // GEMMKIT_OK, or GEMMKIT_ERROR_ISA after a bad pin
  const char* error;  // message when status != GEMMKIT_OK
  char kernel[64];    // e.g. "f32_gemm_32x12__avx512f"
};

// Selected once per process on first use (thread-safe).
const Selection<float>& select_f32();
const Selection<double>& select_f64();

}  // namespace gemmkit::dispatch
