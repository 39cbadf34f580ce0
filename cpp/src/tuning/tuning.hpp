// Tuning: every knob in one registry.
//
// Resolution order: setter (set()) > GEMMKIT_<NAME> environment variable
// (read once) > built-in default.  A malformed environment value prints one
// warning on stderr and falls back to the default; a value above the knob's
// range is clamped to it with a warning (so no blocking arithmetic can
// overflow); nothing aborts.
#pragma once

#include <cstddef>

namespace gemmkit::tuning {

enum class Knob : int {
  kNumThreads = 0,        // 0 = cores available to the process
  kParallelThreshold,     // m*n*k below which a call stays serial
  kMnkPerWorker,          // work (m*n*k) that justifies one more worker
  kMc,                    // 0 = analytic from the cache sizes
  kKc,                    // 0 = analytic
  kNc,                    // 0 = analytic
  kGemvParallelBytes,     // operand bytes above which GEMV uses threads
  kInplaceLhsMaxN,        // read A in place (no packing) when n <= this
  kInplaceRhsMaxN,        // read a k-contiguous B in place when n <= this
  kDeepKcBytes,           // narrow outputs: depth panel bytes above which
                          // slices accumulate in an A-typed scratch (0 = L2/2)
  kCount
};

struct KnobInfo {
  const char* env_name;   // e.g. "GEMMKIT_NUM_THREADS"
  std::size_t default_value;
  std::size_t max_value;  // values above are clamped to it
  const char* doc;
};

const KnobInfo& knob_info(Knob knob);
std::size_t get(Knob knob);
void set(Knob knob, std::size_t value);
void reset(Knob knob);  // back to environment / default

// Threads a call may use: kNumThreads resolved against the cores available.
int max_threads();

}  // namespace gemmkit::tuning
