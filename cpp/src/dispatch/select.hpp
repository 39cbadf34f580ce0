// L7 dispatch: the memoized per-type descriptor selection.
#pragma once

#include <cstdint>

#include "dispatch/descriptor.hpp"

namespace gemmkit::dispatch {

template <class L>
struct Selection {
  Descriptor<L> desc;
  int status;         // GEMMKIT_OK, or GEMMKIT_ERROR_ISA after a bad pin
  const char* error;  // message when status != GEMMKIT_OK
  char kernel[64];    // e.g. "f32_gemm_32x12__avx512f"
};

// Selected once per process on first use (thread-safe).  Instantiated for
// float, double, float16, bfloat16, std::int8_t, and the exact integer
// (uint8_t, uint16_t, int32_t, int64_t, bool8) and complex kernels.
template <class L>
const Selection<L>& select();

inline const Selection<float>& select_f32() { return select<float>(); }
inline const Selection<double>& select_f64() { return select<double>(); }

}  // namespace gemmkit::dispatch
