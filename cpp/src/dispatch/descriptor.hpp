// L7 dispatch: the per-type kernel descriptor.
//
// One descriptor per input element type is selected once per process; every
// GEMM of that type enters the whole loop nest through it (never a per-tile
// dispatch).  Plain data only: it is filled in ISA translation units and read
// in baseline ones (see the ODR note in simd/simd_ops.hpp).
#pragma once

#include <cstdint>

#include "gemmkit/types.hpp"
#include "kernel/task.hpp"

namespace gemmkit::dispatch {

template <class L, class O>
using GemmFn = int (*)(const GemmTask<L, acc_t<L>, O>&);

template <class L>
struct Descriptor {
  // One entry per output type the family offers; null where it has none.
  // Plain, fused and prepacked calls share an entry: the fused epilogue and
  // the prepacked operand travel in the GemmTask.
  GemmFn<L, L> run;                          // f32, f64, f16, bf16
  GemmFn<L, float> run_f32;                  // f16, bf16: the f32-output twin
  GemmFn<L, std::int32_t> run_i32;           // int8
  GemmFn<L, std::int8_t> run_requant_i8;     // int8, requantized
  GemmFn<L, std::uint8_t> run_requant_u8;    // int8, requantized
  // Prepacked right-hand side: B (k x n) is packed as the kernel's A
  // operand of C^T = B^T A^T, in depth slices of packed_kc(k).
  index_t (*packed_kc)(index_t k);
  index_t (*packed_bytes)(index_t k, index_t n);
  void (*prepack)(index_t k, index_t n, const L* b, index_t rs_b, index_t cs_b,
                  void* dst);
  const char* isa;     // the ISA whose kernels run, e.g. "avx512f"
  int mr, nr;          // microtile rows x columns
  int depth_multiple;  // depth granularity of the packed panels (dot kernels > 1)
};

}  // namespace gemmkit::dispatch
