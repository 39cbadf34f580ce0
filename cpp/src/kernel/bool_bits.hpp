// L4 kernel: the bool family (family.hpp), one template for every token:
// numpy's bool product, C(i, j) = any over p of (A(i, p) and B(p, j)), on
// bit planes.
//
// Packing turns each operand into bits, 32 depth steps to an int32 word (bit
// t of word w is depth step 32 w + t; a byte is true when nonzero, as
// numpy's loops test it), so one lane's bit_and + bit_or does 32 products
// where the widening ring kernel (an int32 multiply-add per depth step) did
// one.  512^3 on one Zen 4 core, 2026-12-07 (bench_dtypes.py): 3.1 -> 0.21
// ms; numpy 2.1 ms on random inputs, where its loop stops at the first true
// product of each element, 42 ms at 1% true, where it runs the whole depth.
//
// Packed layouts (kMr rows, NR columns, W = ceil(kc / 32) words), int32:
//   A panel: [W][kMr]   element (w, i) = bits of A(i, 32 w .. 32 w + 31)
//   B panel: [W][NR]    element (w, j) = bits of B(32 w .. 32 w + 31, j)
// Rows or columns past width and depth steps past kc hold 0 bits.
//
// The accumulator is int32: the depth loop ORs the bits of a AND b into each
// lane, so a lane is nonzero exactly where some product is true, and the
// ring's TileStore stores v != 0 for a bool output.  A seed carried to the
// next depth slice is such a lane, ORed into again.  The door allows bool
// only alpha = 1 and beta = 0 (api/operands.cpp), so the store never adds
// to a lane or scales it.
//
// Contract with the driver: cpp/src/kernel/family.hpp.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernel/family.hpp"
#include "kernel/microkernel.hpp"
#include "kernel/task.hpp"

namespace gemmkit::kernel {

template <class Token_, int MR_REG, int NR>
struct BoolBitsFamily {
  using Token = Token_;
  using L = bool8;
  using R = bool8;
  using A = std::int32_t;
  using PA = std::int32_t;
  using PB = std::int32_t;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMrReg = MR_REG;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;
  static constexpr int kBits = 32;
  static constexpr int kDepthMultiple = kBits;
  static constexpr bool kInplace = false;
  // A depth step costs a thirty-second of a word: the whole depth is one
  // slice up to kOneSliceUpTo, deeper ones in equal slices near it (their B
  // panels, kc / 8 bytes a column, stay a few KiB).
  static constexpr index_t kOneSliceUpTo = 8192;
  static constexpr index_t kDeepSliceDepth = kOneSliceUpTo;

  static constexpr index_t words(index_t kc) { return (kc + kBits - 1) / kBits; }
  static constexpr index_t a_panel_size(index_t kc) { return kMr * words(kc); }
  static constexpr index_t b_panel_size(index_t kc) { return kNr * words(kc); }

  // Bit t set where byte t of p[0..n) is nonzero (n <= 32): eight bytes at
  // a time, each byte's "nonzero" moved to its top bit without carries
  // between bytes, then the eight top bits gathered by one multiply.
  static std::uint32_t byte_bits(const std::uint8_t* p, index_t n) {
    std::uint32_t bits = 0;
    index_t t = 0;
    for (; t + 8 <= n; t += 8) {
      std::uint64_t x;
      std::memcpy(&x, p + t, 8);
      const std::uint64_t top = ((x & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | x;
      const std::uint64_t ones = (top & 0x8080808080808080ull) >> 7;
      bits |= std::uint32_t((ones * 0x0102040810204080ull) >> 56) << t;
    }
    for (; t < n; ++t) bits |= std::uint32_t(p[t] != 0) << t;
    return bits;
  }

  // Element (i, p), i < width <= W, p < kc, is src[i * rs + p * cs].
  template <int W>
  static void pack(index_t kc, index_t width, const bool8* src, index_t rs, index_t cs,
                   std::int32_t* GEMMKIT_RESTRICT dst) {
    const std::uint8_t* s = &src->bits;
    for (index_t w = 0; w < words(kc); ++w) {
      const index_t p0 = w * kBits;
      const index_t steps = kc - p0 < kBits ? kc - p0 : kBits;
      std::uint32_t d[W] = {};
      if (cs == 1) {
        // A row's steps are contiguous bytes.
        for (index_t i = 0; i < width; ++i) d[i] = byte_bits(s + i * rs + p0, steps);
      } else if (rs == 1) {
        // A step's rows are contiguous bytes: a loop the compiler vectorizes.
        for (index_t t = 0; t < steps; ++t) {
          const std::uint8_t* row = s + (p0 + t) * cs;
          for (index_t i = 0; i < width; ++i) d[i] |= std::uint32_t(row[i] != 0) << t;
        }
      } else {
        for (index_t t = 0; t < steps; ++t)
          for (index_t i = 0; i < width; ++i)
            d[i] |= std::uint32_t(s[i * rs + (p0 + t) * cs] != 0) << t;
      }
      std::memcpy(dst + w * W, d, sizeof d);
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

  static GEMMKIT_INLINE void accumulate(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                        const PB* GEMMKIT_RESTRICT b,
                                        Reg (&acc)[NR][MR_REG]) {
    const index_t n = words(kc);
    GEMMKIT_UNROLL_DEPTH
    for (index_t w = 0; w < n; ++w) {
      Reg av[MR_REG];
      GEMMKIT_UNROLL(8)
      for (int r = 0; r < MR_REG; ++r) av[r] = Ops::loadu(a + r * kLanes);
      GEMMKIT_UNROLL(16)
      for (int j = 0; j < NR; ++j) {
        const Reg bj = Ops::splat(b[j]);
        GEMMKIT_UNROLL(8)
        for (int r = 0; r < MR_REG; ++r) acc[j][r] = Ops::bit_or(acc[j][r], Ops::bit_and(av[r], bj));
      }
      a += kMr;
      b += NR;
    }
  }
};

}  // namespace gemmkit::kernel
