// L7 dispatch: the per-type kernel descriptor.
//
// One descriptor per element type is selected once per process; every GEMM
// of that type enters the whole loop nest through it (never a per-tile
// dispatch).  Plain data only: it is filled in ISA translation units and read
// in baseline ones (see the ODR note in simd/simd_ops.hpp).
#pragma once

#include "kernel/task.hpp"

namespace gemmkit::dispatch {

template <class T>
using GemmFn = int (*)(const GemmTask<T>&);

template <class T>
struct FloatDescriptor {
  // Plain and fused GEMM: the fused epilogue travels in GemmTask::epi, so
  // one entry serves both (a fused call costs one branch per tile store).
  GemmFn<T> run;
  // Prepacked right-hand side: reserved for PackedRhs; null until then.
  const void* run_packed;
  const char* isa;  // the ISA whose kernels run, e.g. "avx512f"
  int mr, nr;       // microtile rows x columns
  int depth_multiple;  // depth granularity of the packed panels (dot kernels > 1)
};

}  // namespace gemmkit::dispatch
