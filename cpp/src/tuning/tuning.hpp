// Tuning: every knob in one registry.
//
// Resolution order: setter (set()) > GEMMKIT_<NAME> environment variable
// (read once) > built-in default.  A malformed environment value prints one
// warning on stderr and counts as unset; a value above the knob's range is
// clamped to it with a warning (so no blocking arithmetic can overflow);
// nothing aborts.  The thread count alone has a step between the
// environment and the default: OMP_NUM_THREADS (thread_count()).
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

// Which step of the resolution order a knob's value came from.
enum class Origin : int { kSetter, kEnvironment, kDefault };

const KnobInfo& knob_info(Knob knob);
// `origin`, when given, receives where the value came from (read together
// with the value, so a concurrent set() cannot pair one with the other).
std::size_t get(Knob knob, Origin* origin = nullptr);
void set(Knob knob, std::size_t value);
void reset(Knob knob);  // back to environment / default

// Where the thread count came from, first match wins: set_num_threads(),
// GEMMKIT_NUM_THREADS (0 there means the cores available), OMP_NUM_THREADS
// (the first entry of its list; a malformed list is ignored), the cores
// available to the process.
enum class ThreadSource : int { kSetter, kGemmkitEnv, kOpenMpEnv, kCores };
const char* thread_source_name(ThreadSource source);  // e.g. "OMP_NUM_THREADS"

struct ThreadCount {
  int threads;  // >= 1
  ThreadSource source;
};
ThreadCount thread_count();

// Threads a call may use: thread_count().threads.
int max_threads();

}  // namespace gemmkit::tuning
