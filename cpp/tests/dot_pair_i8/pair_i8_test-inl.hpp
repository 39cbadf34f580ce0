// Test body of the int8 "i16 pair" dot family (cpp/src/kernel/dot_pair_i8.hpp),
// shared by the per-ISA units beside this file (fma.cpp natively, simd128.cpp
// in a wasm32 module).  Included by ISA translation units, so everything here
// lives in that ISA's namespace and uses no standard-library templates
// (CONVENTIONS 3 and 4).
//
// For every configuration the unit lists and many shapes (every panel width,
// depths around the pair and the 16-byte block, odd depths, all three source
// layouts, negative strides) each case checks:
//   1. the packed int16 panels against the documented layout, zero padding
//      included, and that nothing outside the panel is written; sources end
//      where the next byte is unreadable (a PROT_NONE page natively, the end
//      of the linear memory in wasm), so a packer reading past its source
//      faults instead of passing;
//   2. acc after accumulate, from seeded accumulators, against the exact
//      int64 sum reduced modulo 2^32 and against the widening family of the
//      same token and tile run on the same operands (kernel/widen.hpp: int8
//      widened to int32, multiply, wrapping add): equality with both is the
//      bit identity the family promises;
//   3. -128 and 127 everywhere, seeds near INT32_MIN / INT32_MAX, and a depth
//      (2^17 + 5) whose true sums pass 2^31, so the wrapping is exercised.
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__wasm__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "dispatch/isa_namespace.hpp"
#include "kernel/dot_pair_i8.hpp"
#include "kernel/task.hpp"
#include "kernel/widen.hpp"

namespace gemmkit::GEMMKIT_ISA_NAMESPACE::pair_i8_test {

// splitmix64: deterministic, so a failure report can be reproduced.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }
};

#if defined(__wasm__)
// n bytes ending exactly at the end of the linear memory, where a load past
// them traps; only one such block can exist at a time (`top`), any other is
// plain heap memory.  The top region is reused while nothing grew the memory
// since (and it is large enough); otherwise the memory grows for it.
struct Guarded {
  unsigned char* data = nullptr;
  unsigned char* heap = nullptr;
  bool on_top = false;
  static inline size_t top_pages = 0, region_pages = 0;
  static inline bool top_in_use = false;

  bool alloc(size_t n, bool top) {
    if (!top || top_in_use) {
      heap = static_cast<unsigned char*>(malloc(n));
      data = heap;
      return heap != nullptr;
    }
    const size_t page = 65536;
    const size_t need = (n + page - 1) / page;
    const size_t cur = __builtin_wasm_memory_size(0);
    if (cur != top_pages || region_pages < need) {
      if (__builtin_wasm_memory_grow(0, need) == size_t(-1)) return false;
      top_pages = cur + need;
      region_pages = need;
    }
    data = reinterpret_cast<unsigned char*>(top_pages * page - n);
    on_top = top_in_use = true;
    return true;
  }
  void release() {
    free(heap);
    if (on_top) top_in_use = false;
    heap = data = nullptr;
    on_top = false;
  }
};
#else
// n bytes whose last byte is followed by a PROT_NONE page (and preceded by
// one): a load past the end of the source faults instead of passing.
struct Guarded {
  unsigned char* map = nullptr;
  size_t map_len = 0;
  unsigned char* data = nullptr;

  bool alloc(size_t n, bool /*top: every block is guarded here*/) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t body = (n + page - 1) / page * page;
    map_len = body + 2 * page;
    void* p = mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      map = nullptr;
      return false;
    }
    map = static_cast<unsigned char*>(p);
    if (mprotect(map, page, PROT_NONE) != 0 || mprotect(map + page + body, page, PROT_NONE) != 0) {
      release();
      return false;
    }
    data = map + page + body - n;
    return true;
  }
  void release() {
    if (map != nullptr) munmap(map, map_len);
    map = nullptr;
    data = nullptr;
  }
};
#endif

// The source layouts, named after the packer path each one takes:
//   kLines   rs == 1 (contiguous along the panel), cs = +-(width + pad)
//   kDepth   cs == 1 (contiguous along the depth), rs = +-(kc + pad)
//   kStrided neither: rs = +-2, cs = +-(2 * width + 1 + pad)
// `neg` flips the sign of the non-unit stride(s) (kStrided: both).
enum Orient { kLines = 0, kDepth = 1, kStrided = 2 };

inline const char* orient_name(int o) {
  return o == kLines ? "rs=1" : o == kDepth ? "cs=1" : "strided";
}

// Element (i, p) of a width x kc int8 operand at base[i * rs + p * cs]; the
// element with the highest address is the last readable byte (in wasm: when
// `top`).  Every other byte of the span holds random garbage.
struct Source {
  Guarded mem;
  int8_t* base = nullptr;
  index_t rs = 0, cs = 0;

  bool place(Rng& rng, const int8_t* vals, index_t width, index_t kc, int orient, bool neg,
             bool top) {
    const index_t pad = index_t(rng.range(0, 7));
    if (orient == kLines) {
      rs = 1;
      cs = (width + pad) * (neg ? -1 : 1);
    } else if (orient == kDepth) {
      cs = 1;
      rs = (kc + pad) * (neg ? -1 : 1);
    } else {
      rs = neg ? -2 : 2;
      cs = (2 * width + 1 + pad) * (neg ? -1 : 1);
    }
    index_t lo = 0, hi = 0;
    const index_t corner_i[2] = {0, width - 1}, corner_p[2] = {0, kc - 1};
    for (index_t i : corner_i) {
      for (index_t p : corner_p) {
        const index_t off = i * rs + p * cs;
        lo = off < lo ? off : lo;
        hi = off > hi ? off : hi;
      }
    }
    const size_t n = size_t(hi - lo + 1);
    if (!mem.alloc(n, top)) return false;
    for (size_t k = 0; k < n; ++k) mem.data[k] = static_cast<unsigned char>(rng.next());
    base = reinterpret_cast<int8_t*>(mem.data) - lo;
    for (index_t i = 0; i < width; ++i)
      for (index_t p = 0; p < kc; ++p) base[i * rs + p * cs] = vals[i * kc + p];
    return true;
  }
  ~Source() { mem.release(); }
};

// A destination panel of `n` bytes with 68 canary bytes on each side (so the
// panel is 4- but not 64-byte aligned), pre-filled with 0xCD so unwritten
// bytes show up.
struct Panel {
  unsigned char* raw = nullptr;
  size_t n = 0;
  static constexpr size_t kPad = 68;
  static constexpr unsigned char kCanary = 0xA5;

  bool alloc(size_t bytes) {
    n = bytes;
    raw = static_cast<unsigned char*>(malloc(n + 2 * kPad));
    if (raw == nullptr) return false;
    memset(raw, kCanary, kPad);
    memset(raw + kPad, 0xCD, n);
    memset(raw + kPad + n, kCanary, kPad);
    return true;
  }
  unsigned char* data() const { return raw + kPad; }
  bool canaries_intact() const {
    for (size_t k = 0; k < kPad; ++k)
      if (raw[k] != kCanary || raw[kPad + n + k] != kCanary) return false;
    return true;
  }
  ~Panel() { free(raw); }
};

inline int g_reported = 0;
constexpr int kMaxReports = 12;

// One microtile of family F, accumulators loaded from and stored to
// io[j * kMr + i].
template <class F>
__attribute__((noinline)) void run_tile(index_t kc, const typename F::PA* a,
                                        const typename F::PB* b, int32_t* io) {
  typename F::Reg acc[F::kNr][F::kMrReg];
  for (int j = 0; j < F::kNr; ++j)
    for (int r = 0; r < F::kMrReg; ++r)
      acc[j][r] = F::Ops::loadu(io + j * F::kMr + r * F::kLanes);
  F::accumulate(kc, a, b, acc);
  for (int j = 0; j < F::kNr; ++j)
    for (int r = 0; r < F::kMrReg; ++r) F::Ops::storeu(io + j * F::kMr + r * F::kLanes, acc[j][r]);
}

// Value modes: 0 uniform, 1 all -128, 2 all 127, 3 extremes and small.
inline int8_t value(Rng& rng, int mode) {
  static const int8_t kEdge[6] = {-128, 127, -127, -1, 0, 1};
  switch (mode) {
    case 1: return -128;
    case 2: return 127;
    case 3: return kEdge[rng.range(0, 5)];
    default: return static_cast<int8_t>(rng.range(-128, 127));
  }
}

// Seed modes: 0 random, 1 just below INT32_MAX, 2 just above INT32_MIN, 3 zero.
inline int32_t seed(Rng& rng, int mode) {
  switch (mode) {
    case 1: return INT32_MAX - int32_t(rng.range(0, 1000));
    case 2: return INT32_MIN + int32_t(rng.range(0, 1000));
    case 3: return 0;
    default: return static_cast<int32_t>(static_cast<uint32_t>(rng.next()));
  }
}

struct Case {
  const char* cfg;
  index_t wa, wb, kc;
  int oa, ob;
  bool nega, negb;
  int mode_a, mode_b, mode_seed;
};

inline void report(const Case& c, const char* what) {
  if (++g_reported > kMaxReports) return;
  printf("  FAIL %s: %s (wa=%ld wb=%ld kc=%ld A %s%s B %s%s values %d/%d seed %d)\n", c.cfg,
         what, long(c.wa), long(c.wb), long(c.kc), orient_name(c.oa), c.nega ? " neg" : "",
         orient_name(c.ob), c.negb ? " neg" : "", c.mode_a, c.mode_b, c.mode_seed);
}

// Packs both operands with family F into fresh panels, runs one tile from
// the seeds in io.  Returns false (and reports) on a packing fault.
template <class F>
bool pack_and_run(const Case& c, const Source& sa, const Source& sb, int32_t* io, Panel& pa,
                  Panel& pb, const char* who) {
  const index_t kc = c.kc;
  if (!pa.alloc(size_t(F::a_panel_size(kc)) * sizeof(typename F::PA)) ||
      !pb.alloc(size_t(F::b_panel_size(kc)) * sizeof(typename F::PB))) {
    report(c, "out of memory");
    return false;
  }
  auto* a = reinterpret_cast<typename F::PA*>(pa.data());
  auto* b = reinterpret_cast<typename F::PB*>(pb.data());
  F::pack_a(kc, c.wa, sa.base, sa.rs, sa.cs, a);
  F::pack_b(kc, c.wb, sb.base, sb.rs, sb.cs, b);
  if (!pa.canaries_intact() || !pb.canaries_intact()) {
    char msg[96];
    snprintf(msg, sizeof msg, "%s pack wrote outside its panel", who);
    report(c, msg);
    return false;
  }
  run_tile<F>(kc, a, b, io);
  return true;
}

// Returns 1 on failure, 0 on success.
template <class F>
int check_case(Rng& rng, const Case& c) {
  using Widen = kernel::WidenFamily<typename F::Token, int8_t, int32_t, F::kMrReg, F::kNr>;
  static_assert(Widen::kMr == F::kMr && Widen::kNr == F::kNr);
  constexpr int kMr = F::kMr, kNr = F::kNr;
  const index_t kc = c.kc;
  int8_t* av = static_cast<int8_t*>(malloc(size_t(c.wa * kc)));
  int8_t* bv = static_cast<int8_t*>(malloc(size_t(c.wb * kc)));
  int32_t* io = static_cast<int32_t*>(malloc(sizeof(int32_t) * kMr * kNr));
  int32_t* io_w = static_cast<int32_t*>(malloc(sizeof(int32_t) * kMr * kNr));
  int32_t* seeds = static_cast<int32_t*>(malloc(sizeof(int32_t) * kMr * kNr));
  int failed = 0;
  for (index_t k = 0; k < c.wa * kc; ++k) av[k] = value(rng, c.mode_a);
  for (index_t k = 0; k < c.wb * kc; ++k) bv[k] = value(rng, c.mode_b);
  for (int k = 0; k < kMr * kNr; ++k) seeds[k] = io[k] = io_w[k] = seed(rng, c.mode_seed);

  Source sa, sb;
  Panel pa, pb, wa_panel, wb_panel;
  // In wasm only one source can end at the end of the memory: A and B take
  // turns (natively both end at a guard page).
  static bool a_on_top = false;
  a_on_top = !a_on_top;
  if (!sa.place(rng, av, c.wa, kc, c.oa, c.nega, a_on_top) ||
      !sb.place(rng, bv, c.wb, kc, c.ob, c.negb, !a_on_top)) {
    report(c, "out of memory");
    failed = 1;
  } else if (!pack_and_run<F>(c, sa, sb, io, pa, pb, "pair") ||
             !pack_and_run<Widen>(c, sa, sb, io_w, wa_panel, wb_panel, "widen")) {
    failed = 1;
  } else {
    // 1. The packed layout, element by element.
    const int16_t* a = reinterpret_cast<const int16_t*>(pa.data());
    const int16_t* b = reinterpret_cast<const int16_t*>(pb.data());
    const index_t groups = (kc + 1) / 2;
    for (index_t g = 0; g < groups && !failed; ++g) {
      for (index_t t = 0; t < 2 && !failed; ++t) {
        const index_t p = 2 * g + t;
        for (index_t i = 0; i < kMr; ++i) {
          const int16_t x = i < c.wa && p < kc ? av[i * kc + p] : 0;
          if (a[(g * kMr + i) * 2 + t] != x) {
            char msg[128];
            snprintf(msg, sizeof msg, "packed A (g=%ld, i=%ld, t=%ld) = %d, want %d", long(g),
                     long(i), long(t), a[(g * kMr + i) * 2 + t], x);
            report(c, msg);
            failed = 1;
            break;
          }
        }
        for (index_t j = 0; j < kNr && !failed; ++j) {
          const int16_t y = j < c.wb && p < kc ? bv[j * kc + p] : 0;
          if (b[(g * kNr + j) * 2 + t] != y) {
            char msg[128];
            snprintf(msg, sizeof msg, "packed B (g=%ld, j=%ld, t=%ld) = %d, want %d", long(g),
                     long(j), long(t), b[(g * kNr + j) * 2 + t], y);
            report(c, msg);
            failed = 1;
          }
        }
      }
    }
    // 2. The tile against the exact sum and the widening kernel's result.
    for (index_t j = 0; j < kNr && !failed; ++j) {
      for (index_t i = 0; i < kMr; ++i) {
        int64_t exact = seeds[j * kMr + i];
        if (i < c.wa && j < c.wb) {
          for (index_t p = 0; p < kc; ++p)
            exact += int64_t(av[i * kc + p]) * int64_t(bv[j * kc + p]);
        }
        const int32_t want = int32_t(uint32_t(uint64_t(exact)));
        char msg[160];
        if (io_w[j * kMr + i] != want) {
          snprintf(msg, sizeof msg, "widening acc(%ld,%ld) = %d, want %d (reference broken)",
                   long(i), long(j), io_w[j * kMr + i], want);
          report(c, msg);
          failed = 1;
          break;
        }
        if (io[j * kMr + i] != want) {
          snprintf(msg, sizeof msg, "acc(%ld,%ld) = %d, want %d (widening and exact)", long(i),
                   long(j), io[j * kMr + i], want);
          report(c, msg);
          failed = 1;
          break;
        }
      }
    }
  }
  free(av);
  free(bv);
  free(io);
  free(io_w);
  free(seeds);
  return failed;
}

template <class F>
void run_config(Rng& rng, const char* cfg, int& cases, int& failures) {
  constexpr int kMr = F::kMr, kNr = F::kNr;
  static const index_t kDepths[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  15,  16,
                                    17, 18, 31, 32, 33, 47, 63, 64, 65, 257, 258};
  auto one = [&](const Case& c) {
    ++cases;
    failures += check_case<F>(rng, c);
  };
  auto width = [&](int full) {
    return rng.range(0, 2) == 0 ? index_t(full) : index_t(rng.range(1, full));
  };
  // Every depth x every pair of layouts x both stride signs, random widths
  // (full panels a third of the time: the fast paths) and value modes.
  for (index_t kc : kDepths)
    for (int oa = 0; oa < 3; ++oa)
      for (int ob = 0; ob < 3; ++ob)
        for (int neg = 0; neg < 2; ++neg)
          one({cfg, width(kMr), width(kNr), kc, oa, ob, neg != 0, neg != 0,
               int(rng.range(0, 3)), int(rng.range(0, 3)), int(rng.range(0, 3))});
  // Full panels on both fast layouts at every depth up to 40 (every tail
  // length of the 16-byte blocks, odd and even).
  for (index_t kc = 1; kc <= 40; ++kc)
    for (int o = 0; o < 2; ++o)
      one({cfg, kMr, kNr, kc, o, 1 - o, kc % 3 == 0, kc % 2 == 0, 0, 0, 0});
  // Every panel width, each layout.
  for (int o = 0; o < 3; ++o) {
    for (index_t w = 1; w <= kMr; ++w)
      one({cfg, w, kNr, rng.range(0, 1) ? 33 : 6, o, int(rng.range(0, 2)), o == 1, false, 0, 0,
           0});
    for (index_t w = 1; w <= kNr; ++w)
      one({cfg, kMr, w, rng.range(0, 1) ? 33 : 6, int(rng.range(0, 2)), o, false, o == 1, 0, 0,
           0});
  }
  // The extremes everywhere: every product 16384, -16256 or 16129.
  for (int ma = 1; ma <= 2; ++ma)
    for (int mb = 1; mb <= 2; ++mb)
      for (int ms = 0; ms < 4; ++ms)
        one({cfg, kMr, kNr, 257, int(rng.range(0, 2)), int(rng.range(0, 2)), false, false, ma,
             mb, ms});
}

// 3. Sums past 2^31: (2^17 + 5) * 16384 wraps even from a zero seed.
template <class F>
void run_deep(Rng& rng, const char* cfg, int& cases, int& failures) {
  const index_t kDeep = (index_t(1) << 17) + 5;
  for (int o = 0; o < 2; ++o) {
    const int modes[3][2] = {{1, 1}, {2, 2}, {1, 2}};
    for (const auto& m : modes) {
      for (int ms = 0; ms < 4; ++ms) {
        ++cases;
        failures += check_case<F>(
            rng, {cfg, F::kMr, F::kNr - 1 > 0 ? F::kNr - 1 : 1, kDeep, o, 1 - o, false, o == 1,
                  m[0], m[1], ms});
      }
    }
  }
}

}  // namespace gemmkit::GEMMKIT_ISA_NAMESPACE::pair_i8_test
