// avx512f unit of the kernel-family test: the hand-scheduled float32/float64
// depth loops of the 3 x 8 square tile and the 2 x 12 main tile
// (cpp/src/kernel/pipelined_avx512.hpp), over a packed B panel and over B's
// columns read in place, give the bits of the generic loop of the same
// tile they replace, for every depth 1..64 and a few long
// ones (the loops run steps in pairs and load one step ahead, so the tails
// differ by depth parity), with the A panel and B ending at a PROT_NONE
// page: a load past either faults.  Seeds of every sign and
// inputs with mixed magnitudes make any reordering of the sums visible.
#include "simd/avx512f.hpp"
#define GEMMKIT_TOKEN isa_avx512f::Avx512F
#include "dot_test-inl.hpp"
#include "kernel/pipelined_avx512.hpp"

namespace gemmkit::isa_avx512f {

namespace {

using dot_test::Guarded;
using dot_test::Rng;

template <class T>
T sample(Rng& rng) {
  // Mantissa-rich values from 2^-12 to 2^12, either sign.
  const double unit = double(rng.next() >> 11) * (1.0 / 9007199254740992.0);
  const int exp = int(rng.range(-12, 12));
  const double v = (0.5 + unit) * double(1u << (exp + 12)) / 4096.0;
  return T(rng.next() & 1 ? -v : v);
}

template <class T, int R, int NR>
int run_depth(Rng& rng, index_t kc, int& cases) {
  using Fast = kernel::PipelinedFamily<Avx512F, T, T, R, NR>;
  using Generic = kernel::WidenFamily<Avx512F, T, T, R, NR>;
  using Reg = typename Fast::Reg;
  // A and B packed, and B's columns in place: a stride of kc + 3 elements,
  // the last column ending at the guard page.
  const index_t b_cs = kc + 3;
  const size_t a_len = size_t(Fast::a_panel_size(kc)), b_len = size_t(Fast::b_panel_size(kc));
  const size_t cols_len = size_t((NR - 1) * b_cs + kc);
  Guarded ga, gb, gc;
  const bool mapped = ga.alloc(a_len * sizeof(T)) && gb.alloc(b_len * sizeof(T)) &&
                      gc.alloc(cols_len * sizeof(T));
  int failures = 0;
  if (!mapped) {
    printf("  FAIL: cannot map guarded operands (kc %ld)\n", long(kc));
    failures = 1;
  }
  T* a = reinterpret_cast<T*>(ga.data);
  T* b = reinterpret_cast<T*>(gb.data);
  T* cols = reinterpret_cast<T*>(gc.data);
  if (mapped) {
    for (size_t i = 0; i < a_len; ++i) a[i] = sample<T>(rng);
    for (size_t i = 0; i < b_len; ++i) b[i] = sample<T>(rng);
    for (size_t i = 0; i < cols_len; ++i) cols[i] = sample<T>(rng);
  }
  for (int in_place = 0; mapped && in_place < 2; ++in_place) {
    Reg fast[NR][R], generic[NR][R];
    T seed[NR][R][Fast::kLanes];
    for (auto& col : seed)
      for (auto& reg : col)
        for (T& x : reg) x = sample<T>(rng);
    for (int j = 0; j < NR; ++j)
      for (int r = 0; r < R; ++r) fast[j][r] = generic[j][r] = Fast::Ops::loadu(seed[j][r]);
    if (in_place) {
      Fast::accumulate_columns(kc, a, cols, b_cs, fast);
      kernel::FloatKernel<Avx512F, T, R, NR>::accumulate(
          kc, a, Fast::kMr, [cols, b_cs](index_t p, int j) { return cols[j * b_cs + p]; },
          generic);
    } else {
      Fast::accumulate(kc, a, b, fast);
      Generic::accumulate(kc, a, b, generic);
    }
    ++cases;
    for (int j = 0; j < NR; ++j)
      for (int r = 0; r < R; ++r) {
        T x[Fast::kLanes], y[Fast::kLanes];
        Fast::Ops::storeu(x, fast[j][r]);
        Fast::Ops::storeu(y, generic[j][r]);
        if (memcmp(x, y, sizeof x) != 0 && failures++ == 0)
          printf("  FAIL: %s %d x %d, kc %ld, B %s: column %d rows %d.. differ from the generic "
                 "loop\n",
                 sizeof(T) == 4 ? "float32" : "float64", R, NR, long(kc),
                 in_place ? "in place" : "packed", j, r * Fast::kLanes);
      }
  }
  ga.release();
  gb.release();
  gc.release();
  return failures;
}

}  // namespace

int run_dot_kernel_tests() {
  Rng rng{0x5eed0512u};
  int cases = 0, failures = 0;
  const auto both_types_and_tiles = [&](index_t kc) {
    failures += run_depth<float, 3, 8>(rng, kc, cases);
    failures += run_depth<double, 3, 8>(rng, kc, cases);
    failures += run_depth<float, 2, 12>(rng, kc, cases);
    failures += run_depth<double, 2, 12>(rng, kc, cases);
  };
  for (index_t kc = 1; kc <= 64; ++kc) both_types_and_tiles(kc);
  for (index_t kc : {255, 256, 767, 768}) both_types_and_tiles(kc);
  printf("  avx512f pipelined depth loops (3 x 8, 2 x 12): %d cases, %d failed\n", cases,
         failures);
  return failures;
}

}  // namespace gemmkit::isa_avx512f
