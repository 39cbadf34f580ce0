// Test support for the dot-kernel units (cpp/tests/dot/<isa>.cpp): a seeded
// random generator and source operands placed against PROT_NONE guard pages
// in any of the layouts the packers distinguish.
//
// Included by ISA translation units, so everything here lives in that ISA's
// namespace (dispatch/isa_namespace.hpp) and uses no standard-library
// templates (CONVENTIONS 3 and 4): memory comes from mmap and the C library.
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dispatch/isa_namespace.hpp"
#include "kernel/task.hpp"

namespace gemmkit::GEMMKIT_ISA_NAMESPACE::dot_test {

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
  int64_t range(int64_t lo, int64_t hi) {
    return lo + int64_t(next() % uint64_t(hi - lo + 1));
  }
};

// n bytes whose last byte is followed by a PROT_NONE page (and preceded by
// one): a load past the end of the source faults instead of passing.
struct Guarded {
  unsigned char* map = nullptr;
  size_t map_len = 0;
  unsigned char* data = nullptr;

  bool alloc(size_t n) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t body = (n + page - 1) / page * page;
    map_len = body + 2 * page;
    void* p = mmap(nullptr, map_len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      map = nullptr;
      return false;
    }
    map = static_cast<unsigned char*>(p);
    if (mprotect(map, page, PROT_NONE) != 0 ||
        mprotect(map + page + body, page, PROT_NONE) != 0) {
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

// The source layouts, named after the packer path each one takes:
//   kLines   rs == 1 (contiguous along the panel), cs = +-(width + pad)
//   kDepth   cs == 1 (contiguous along the depth), rs = +-(kc + pad)
//   kStrided neither: rs = +-2, cs = +-(2 * width + 1 + pad)
// `neg` flips the sign of the non-unit stride(s) (kStrided: both).
enum Orient { kLines = 0, kDepth = 1, kStrided = 2 };

inline const char* orient_name(int o) {
  return o == kLines ? "rs=1" : o == kDepth ? "cs=1" : "strided";
}

// Element (i, p) of a width x kc operand at base[i * rs + p * cs]; the
// element with the highest address is the last one before the guard page.
// Every other byte of the span holds random garbage.
template <class T>
struct Source {
  Guarded mem;
  T* base = nullptr;
  index_t rs = 0, cs = 0;

  bool place(Rng& rng, const T* vals, index_t width, index_t kc, int orient,
             bool neg) {
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
    const size_t n = size_t(hi - lo + 1) * sizeof(T);
    if (!mem.alloc(n)) return false;
    for (size_t k = 0; k < n; ++k) mem.data[k] = static_cast<unsigned char>(rng.next());
    base = reinterpret_cast<T*>(mem.data) - lo;
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

}  // namespace gemmkit::GEMMKIT_ISA_NAMESPACE::dot_test
