// L7 dispatch: instantiation of the kernel families for one ISA token.
//
// Included once per ISA by targets/<isa>/*.cpp, which first include their
// token header and define GEMMKIT_TOKEN; the helpers below then build the
// descriptors the target exports.  Everything defined here lives in that
// ISA's namespace (isa_namespace.hpp).
#include <type_traits>

#include "dispatch/descriptor.hpp"
#include "dispatch/isa_namespace.hpp"
#include "driver/driver.hpp"
#include "kernel/bool_bits.hpp"
#include "kernel/complex.hpp"
#include "kernel/widen.hpp"
#include "special/gemv.hpp"
#include "special/small.hpp"

namespace gemmkit::GEMMKIT_ISA_NAMESPACE {

// Family<NR> is the family template with its tile width still open, so a
// narrower tile (SKINNY_NR, 0 = none) can serve outputs with few columns,
// where padding n up to NR would waste arithmetic (16 columns in 12-wide
// tiles is 12 + 4).
// SQUARE (void = none): a family with the main tile's arithmetic and a taller
// tile, for products whose rows it fits (see family_one).

// Rows [0, whole) of the product on tile Head and the rest on tile Tail, as
// two products (row_block); every tile sums the same products in the same
// order (the depth sliced for nr), so the bits do not depend on the split.
template <class Head, class Tail, class L, class A, class O>
int run_split_rows(const GemmTask<L, A, O>& t, index_t whole, index_t nr) {
  if (int st = driver::BlockedGemm<Head, O>::run(row_block(t, 0, whole), nr)) return st;
  return driver::BlockedGemm<Tail, O>::run(row_block(t, whole, t.m - whole), nr);
}

// One oriented product: the special paths, else the driver.
template <template <int> class Family, int SKINNY_NR, class O, int SHORT_NR = 0,
          class SQUARE = void>
int family_one(const GemmTask<typename Family<0>::L, typename Family<0>::A, O>& t) {
  using Main = Family<0>;
  using L = typename Main::L;
  using A = typename Main::A;
  constexpr int NR = Main::kNr;
  if (!t.packed_a) {
    // Matrix-vector shapes are bandwidth-bound and small ones dominated by
    // fixed costs: skip packing altogether (homogeneous floats; the other
    // families always run the driver).
    if constexpr (std::is_same_v<L, A> && std::is_same_v<A, O> &&
                  std::is_floating_point_v<A>) {
      using Token = typename Main::Token;
      if (t.n == 1) return special::Gemv<Token, A>::run(t);
      if (t.m == 1) return special::Gemv<Token, A>::run(transposed(t));
      // Small products: packing would cost more than the arithmetic.
      using Small = special::Small<Token, A>;
      const auto driver_kc = [&t] {
        return driver::BlockedGemm<Main, O>::slice_depth(t.m, t.n, t.k, NR);
      };
      if (Small::fits(t)) return Small::run(t, driver_kc());
      if (Small::fits_one_slice(t, driver_kc)) return Small::run(t, t.k);
    }
  }
  // One short row tile (at most one register of rows, such as a 4096x16 C
  // seen transposed): a tile of one register of rows and SHORT_NR columns
  // keeps every accumulator busy where the main tile would leave half of
  // each column empty.  The depth is sliced for the main NR and every
  // element sums the same products in the same order: the same bits.  A
  // prepacked A is in the main tile's layout.
  if constexpr (SHORT_NR > 0) {
    using Short = typename Main::template Short<SHORT_NR>;
    if (!t.packed_a && t.m <= Short::kMr) return driver::BlockedGemm<Short, O>::run(t, NR);
  }
  // What an extent of C (t.m rows, t.n columns) gains padded to whole
  // tiles of size w.
  [[maybe_unused]] const auto padding = [](index_t extent, index_t w) {
    return (extent + w - 1) / w * w - extent;
  };
  // Whether the rows past a tile's last whole row tile may run as a product
  // of their own on a shorter tile instead of padding one: on one thread,
  // where B's columns lie along the depth, so that those rows read B in
  // place (a second packing of B costs them their gain; two threads lost 7%
  // at 256 and 512 to the second product and its team).
  [[maybe_unused]] const auto may_split_rows = [&t](index_t rest, index_t tail_rows) {
    return rest > 0 && rest <= tail_rows && !t.packed_a && t.rs_b == 1 && t.cs_b != 1 &&
           driver::BlockedGemm<Main, O>::team_size(t) == 1;
  };
  // The square tile (kernel/pipelined_avx512.hpp says why it is faster),
  // with at least two of its column tiles, unless its columns would pad C
  // more than the main tile's (few columns: 12 or 36 fill 12-wide tiles
  // exactly), and
  //  - wherever its rows pad C no more than the main tile's: float32 33-48
  //    kernel-frame rows (one square row tile, B streamed once, instead of
  //    two main ones) on a Xeon, 2026-12-05: 1024x40x1024 +23-27%, two
  //    threads +40-60%; float64 20-24 rows +26-33%, 70 +14-22%; float32
  //    96-144 +3-15%; 80 and float64 90 (as many padded rows) even;
  //  - for more than 8 row tiles of the main tile (float32 257-384 rows:
  //    +2-15% over the main tile);
  //  - where the rows may split (may_split_rows), from 4 square row tiles
  //    on: the rows past its last whole row tile that fit the main tile run
  //    there, or on the short tile where they fit one register (float32,
  //    one thread, 256 kernel-frame columns: 200-320 rows +2-10% over the
  //    main tile and over the padded square tile alike; 416 +8%; float64
  //    100-256 rows +1-10%).
  // Not for a prepacked A (in the main tile's layout); the depth is sliced
  // for the main NR, so the bits are the main tile's.
  if constexpr (!std::is_void_v<SQUARE>) {
    const index_t rest = t.m % SQUARE::kMr;
    const bool split = t.m > 4 * SQUARE::kMr && may_split_rows(rest, Main::kMr);
    const bool rows_fit =
        padding(t.m, SQUARE::kMr) <= padding(t.m, Main::kMr) || t.m > 8 * Main::kMr;
    if (!t.packed_a && (split || rows_fit) && t.n >= 2 * SQUARE::kNr &&
        (t.n >= 8 * NR || padding(t.n, SQUARE::kNr) <= padding(t.n, NR))) {
      if (!split) return driver::BlockedGemm<SQUARE, O>::run(t, NR);
      if constexpr (SHORT_NR > 0) {
        using Short = typename Main::template Short<SHORT_NR>;
        if (rest <= Short::kMr) return run_split_rows<SQUARE, Short>(t, t.m - rest, NR);
      }
      return run_split_rows<SQUARE, Main>(t, t.m - rest, NR);
    }
  }
  if constexpr (SKINNY_NR > 0) {
    if (t.n < 8 * NR && padding(t.n, SKINNY_NR) < padding(t.n, NR)) {
      return driver::BlockedGemm<Family<SKINNY_NR>, O>::run(t, NR);
    }
  }
  // The same for the main tile's last row tile, on a short tile of at least
  // 16 rows (float32 on a Xeon, 2026-12-05, one thread: 100 kernel-frame
  // rows, k = 1024-4096, +3-8%; 40 and 72, +10-17%, now take the square
  // tile).  A float64 short tile has 8: those rows then stream B again for
  // too little arithmetic (-5-10%).
  if constexpr (SHORT_NR > 0) {
    using Short = typename Main::template Short<SHORT_NR>;
    if constexpr (Short::kMr >= 16) {
      const index_t rest = t.m % Main::kMr;
      if (t.m > Main::kMr && may_split_rows(rest, Short::kMr))
        return run_split_rows<Main, Short>(t, t.m - rest, NR);
    }
  }
  return driver::BlockedGemm<Main, O>::run(t, NR);
}

// Whether a product (not prepacked) runs transposed, C^T = B^T A^T: where
// C's columns have unit stride, so the microkernel stores whole vectors
// (row-major C), unless the transposed product would leave most of each
// MR-row tile empty (few columns of C) while this one fills them: a 4096x16
// C computes as 16-row tiles of an MR = 32 kernel otherwise, twice the
// arithmetic, and strided stores of C cost less than that.
// But not when A's rows run along the depth (cs_a = 1): the transposed
// product is then one row tile that reads A in place, once (the driver's
// in-place B), which beats packing A here even with half the tile empty
// (4096x16x4096 float32 on a Xeon, 2026-12-04: 54 -> 69 GFLOP/s).
template <class Main, class L, class A, class O>
bool transposes(const GemmTask<L, A, O>& t) {
  const index_t rs = t.rs_co < 0 ? -t.rs_co : t.rs_co;
  const index_t cs = t.cs_co < 0 ? -t.cs_co : t.cs_co;
  constexpr index_t kMr = Main::kMr;
  const bool streams_a_transposed = Main::kInplace && t.n <= kMr && t.cs_a == 1;
  const bool fills_rows_only_here = t.n * 2 <= kMr && t.m >= 4 * kMr && !streams_a_transposed;
  return t.rs_co != 1 && (t.cs_co == 1 || rs > cs) && !fills_rows_only_here;
}

// A batch of oriented tasks (task.batch > 1), or one, run here, inside the
// ISA's code: a small product costs tens of nanoseconds, as much as a call
// through the descriptor.
template <template <int> class Family, int SKINNY_NR, class O, int SHORT_NR, class SQUARE>
int family_batch(GemmTask<typename Family<0>::L, typename Family<0>::A, O> t) {
  using L = typename Family<0>::L;
  if (t.batch <= 1) return family_one<Family, SKINNY_NR, O, SHORT_NR, SQUARE>(t);
  const L* a0 = t.a;
  const L* b0 = t.b;
  const O* c0 = t.c_in;
  O* o0 = t.c_out;
  for (index_t i = 0; i < t.batch; ++i) {
    if (a0) t.a = a0 + i * t.batch_a;
    t.b = b0 + i * t.batch_b;
    if (c0) t.c_in = c0 + i * t.batch_c;
    t.c_out = o0 + i * t.batch_o;
    if (int st = family_one<Family, SKINNY_NR, O, SHORT_NR, SQUARE>(t)) return st;
  }
  return GEMMKIT_OK;
}

// A task (or a batch of them), oriented once (transposes; a prepacked B is
// already the kernel-frame A of the transposed product) and run.
template <template <int> class Family, int SKINNY_NR, class O, int SHORT_NR = 0,
          class SQUARE = void>
int family_gemm(const GemmTask<typename Family<0>::L, typename Family<0>::A, O>& task) {
  GemmTask<typename Family<0>::L, typename Family<0>::A, O> t = task;
  if (!t.packed_a) {
    if (transposes<Family<0>>(t)) {
      transpose(t);
    } else if constexpr (requires { typename Family<0>::template UserFrame<0>; }) {
      // A family whose bits depend on which operand is the kernel's A
      // (kernel/complex.hpp) has a twin for products left in the user's
      // orientation, so that they equal the transposed (and prepacked) ones.
      return family_batch<Family<0>::template UserFrame, SKINNY_NR, O, SHORT_NR, SQUARE>(t);
    }
  }
  return family_batch<Family, SKINNY_NR, O, SHORT_NR, SQUARE>(t);
}

template <template <int> class Family>
index_t family_packed_kc(index_t k) {
  using D = driver::BlockedGemm<Family<0>, typename Family<0>::A>;
  // m and n do not enter the depth blocking.
  const index_t kc = D::slice_depth(1, 1, k, Family<0>::kNr);
  return kc < k ? kc : (k > 0 ? k : 1);
}

template <template <int> class Family>
index_t family_packed_bytes(index_t k, index_t n) {
  using D = driver::BlockedGemm<Family<0>, typename Family<0>::A>;
  return D::prepacked_elems(n, k, family_packed_kc<Family>(k)) *
         index_t(sizeof(typename Family<0>::PA));
}

// B (k x n) becomes the kernel-frame A of C^T = B^T A^T: n rows, depth k.
template <template <int> class Family>
void family_prepack(index_t k, index_t n, const typename Family<0>::L* b, index_t rs_b,
                    index_t cs_b, void* dst) {
  using D = driver::BlockedGemm<Family<0>, typename Family<0>::A>;
  D::prepack(n, k, family_packed_kc<Family>(k), b, cs_b, rs_b,
             static_cast<typename Family<0>::PA*>(dst));
}

// The descriptor of a family: run entries for the given outputs.
// SHORT_NR > 0: products of one short row tile run Family's Short tile
// (family_one).
template <template <int> class Family, int SKINNY_NR, int SHORT_NR = 0, class SQUARE = void>
dispatch::Descriptor<typename Family<0>::L> family_descriptor() {
  using Main = Family<0>;
  using L = typename Main::L;
  dispatch::Descriptor<L> d{};
  if constexpr (std::is_same_v<L, std::int8_t>) {
    d.run_i32 = &family_gemm<Family, SKINNY_NR, std::int32_t>;
    d.run_requant_i8 = &family_gemm<Family, SKINNY_NR, std::int8_t>;
    d.run_requant_u8 = &family_gemm<Family, SKINNY_NR, std::uint8_t>;
  } else {
    d.run = &family_gemm<Family, SKINNY_NR, L, SHORT_NR, SQUARE>;
    if constexpr (std::is_same_v<L, float16> || std::is_same_v<L, bfloat16>) {
      d.run_f32 = &family_gemm<Family, SKINNY_NR, float, 0, SQUARE>;
    }
  }
  d.packed_kc = &family_packed_kc<Family>;
  d.packed_bytes = &family_packed_bytes<Family>;
  d.prepack = &family_prepack<Family>;
  d.isa = GEMMKIT_TOKEN::kName;
  d.mr = Main::kMr;
  d.nr = Main::kNr;
  d.depth_multiple = Main::kDepthMultiple;
  return d;
}

// The widening family of this token for input L, accumulator A, and tile
// MR_REG x MAIN_NR (NR == 0 selects MAIN_NR).
template <class L, class A, int MR_REG, int MAIN_NR>
struct Widen {
  template <int NR>
  using Family = kernel::WidenFamily<GEMMKIT_TOKEN, L, A, MR_REG, NR == 0 ? MAIN_NR : NR>;
};

// The bool bit-plane family of this token (bool_bits.hpp).
template <int MR_REG, int MAIN_NR>
struct BoolBits {
  template <int NR>
  using Family = kernel::BoolBitsFamily<GEMMKIT_TOKEN, MR_REG, NR == 0 ? MAIN_NR : NR>;
};

// The complex split family of this token for component type T (complex.hpp).
template <class T, int MR_REG, int MAIN_NR>
struct Complex {
  template <int NR>
  using Family =
      kernel::ComplexFamily<GEMMKIT_TOKEN, T, MR_REG, NR == 0 ? MAIN_NR : NR>;
};

}  // namespace gemmkit::GEMMKIT_ISA_NAMESPACE
