// L3 cache: cache sizes of this machine and the analytic MC/KC/NC blocking.
#pragma once

#include <cstddef>

namespace gemmkit::cache {

struct CacheInfo {
  std::size_t l1d;  // bytes, per core
  std::size_t l2;   // bytes, per core
  std::size_t l3;   // bytes, total of the last level (0 if none)
  const char* source;  // "cpuid", "sysfs" or "default"
};

// Detected once (CPUID, then Linux sysfs, then defaults) and memoized.
const CacheInfo& info();

struct Blocking {
  std::ptrdiff_t mc, kc, nc;
};

// Block sizes for a kernel of mr x nr tiles over elements of `elem_size`
// bytes, for an m x n x k problem.  Depends only on the problem and the
// machine, never on the thread count, so results are reproducible across
// thread counts.
Blocking blocking(int mr, int nr, int elem_size, std::ptrdiff_t m,
                  std::ptrdiff_t n, std::ptrdiff_t k);

}  // namespace gemmkit::cache
