// L7 target avx512f: 32x12 tiles (f64 16x12) with a hand-scheduled depth loop: 24 zmm accumulators + 2 x 2 A + 2 B = 30 of 32 zmm registers; 32x8 for skinny outputs; square tiles 48x8 (f64 24x8, float16/bfloat16 widened to the float32 one) with the same kind of loop.
#pragma once
#include "simd/avx512f.hpp"
#define GEMMKIT_TOKEN isa_avx512f::Avx512F
#include "dispatch/gemm-inl.hpp"
#include "kernel/pipelined_avx512.hpp"

#include <type_traits>

namespace gemmkit::isa_avx512f {
constexpr int kMrReg = 2;
constexpr int kNr = 12;
constexpr int kSkinnyNr = 8;  // 0: no narrower tile
// Products of at most one register of rows (float32, float64): a
// 1-register x 12 tile, 12 accumulators; no wider, because a B read in
// place needs one general register per column and 24 would spill them.
constexpr int kShortNr = 12;
// Products large in both dimensions: 3 registers x 8 columns with a
// hand-scheduled depth loop (kernel/pipelined_avx512.hpp), for input L and
// accumulator A.
template <class L, class A = L>
using SquareFamily = kernel::PipelinedFamily<Avx512F, L, A, 3, 8>;
// The float tiles for input L and accumulator A (Family<NR>, see Widen):
// the main 2 x 12 tile with its hand-scheduled depth loop, the narrower
// ones with the generic loop.
template <class L, class A>
struct Tiles {
  template <int NR>
  using Family = std::conditional_t<NR == 0 || NR == kNr,
                                    kernel::PipelinedFamily<Avx512F, L, A, kMrReg, kNr>,
                                    kernel::WidenFamily<Avx512F, L, A, kMrReg, NR>>;
};
// Complex tiles (kernel/complex.hpp) hold two accumulators per register of
// rows; int64 tiles leave room for the multiply's temporaries.
constexpr int kComplexMrReg = 2;
constexpr int kComplexNr = 6;
constexpr int kInt64MrReg = 2;
constexpr int kInt64Nr = 8;
}  // namespace gemmkit::isa_avx512f
