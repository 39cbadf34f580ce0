// L4 kernel: the widening families (family.hpp), one template for every
// token: f32 and f64 (homogeneous), f16 and bf16 (float accumulator), int8
// (int32 accumulator, wrapping).
//
// Narrow inputs are widened exactly while packing, so the depth loop is the
// homogeneous A-typed loop of FloatKernel: one instruction stream for every
// type, and results bit-identical to converting the inputs to A first.  The
// output side (narrowing, requantizing) is TileStore's.
#pragma once

#include <type_traits>

#include "kernel/family.hpp"
#include "kernel/microkernel.hpp"
#include "pack/pack.hpp"

namespace gemmkit::kernel {

template <class Token_, class L_, class A_, int MR_REG, int NR>
struct WidenFamily {
  using Token = Token_;
  using L = L_;
  using R = L_;
  using A = A_;
  using PA = A_;
  using PB = A_;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMrReg = MR_REG;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;
  static constexpr int kDepthMultiple = 1;
  static constexpr bool kInplace = std::is_same_v<L, A>;
  // The same family with one register of rows and NR2 columns (the short
  // tile of dispatch/gemm-inl.hpp's family_one).
  template <int NR2>
  using Short = WidenFamily<Token_, L_, A_, 1, NR2>;

  static constexpr index_t a_panel_size(index_t kc) { return kMr * kc; }
  static constexpr index_t b_panel_size(index_t kc) { return kNr * kc; }

  template <int W>
  static void pack(index_t kc, index_t width, const L* src, index_t rs, index_t cs,
                   A* dst) {
    if constexpr (kInplace) {
      pack::pack_panel<Token, A, W>(kc, width, src, rs, cs, dst);
    } else {
      pack::pack_panel_widen<Token, L, A, W>(kc, width, src, rs, cs, dst);
    }
  }
  static void pack_a(index_t kc, index_t width, const L* src, index_t rs, index_t cs,
                     PA* dst) {
    pack<kMr>(kc, width, src, rs, cs, dst);
  }
  static void pack_b(index_t kc, index_t width, const R* src, index_t rs, index_t cs,
                     PB* dst) {
    pack<kNr>(kc, width, src, rs, cs, dst);
  }

  static GEMMKIT_INLINE void accumulate(index_t kc, const PA* a, const PB* b,
                                        Reg (&acc)[NR][MR_REG]) {
    FloatKernel<Token, A, MR_REG, NR>::accumulate(
        kc, a, kMr, [b](index_t p, int j) { return b[p * NR + j]; }, acc);
  }
};

}  // namespace gemmkit::kernel
