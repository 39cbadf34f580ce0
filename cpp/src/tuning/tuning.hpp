// Tuning: every knob in one registry.
//
// Resolution order: setter (set()) > GEMMKIT_<NAME> environment variable
// (read once) > the tuning profile (profile(), read once) > built-in
// default.  A malformed environment value prints one
// warning on stderr and counts as unset; a value above the knob's range is
// clamped to it with a warning (so no blocking arithmetic can overflow);
// nothing aborts.  The thread count alone has a step between the
// environment and the default: OMP_NUM_THREADS (thread_count()); it is
// never read from a profile (the best count depends on what else runs).
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
                          // (always with at most 8 row tiles: driver.hpp)
  kDeepKcBytes,           // narrow outputs: depth panel bytes above which
                          // slices accumulate in an A-typed scratch (0 = L2/2)
  kStreamBBytes,          // B in place: packed A bytes up to which each B
                          // panel streams through every slice (0 = L2/2)
  kCount
};

struct KnobInfo {
  const char* env_name;   // e.g. "GEMMKIT_NUM_THREADS"
  std::size_t default_value;
  std::size_t max_value;  // values above are clamped to it
  const char* doc;
};

// Which step of the resolution order a knob's value came from.
enum class Origin : int { kSetter, kEnvironment, kProfile, kDefault };
const char* origin_name(Origin origin);  // "setter", "environment", ...

const KnobInfo& knob_info(Knob knob);
// The knob whose environment variable is `env_name` ("GEMMKIT_KC"); false
// when there is none.
bool find_knob(const char* env_name, Knob* knob);
// `origin`, when given, receives where the value came from (read together
// with the value, so a concurrent set() cannot pair one with the other).
std::size_t get(Knob knob, Origin* origin = nullptr);
void set(Knob knob, std::size_t value);
void reset(Knob knob);  // back to environment / profile / default

// The tuning profile: `KEY=VALUE` lines written by `python -m gemmkit.tune`
// (blank lines and `#` comments skipped), one `cpu=<fingerprint>` line and
// GEMMKIT_<NAME>=<value> lines for any knob but the thread count.  Read
// once, on the first get() that reaches it, from the file GEMMKIT_PROFILE
// names (set but empty: no profile), else
// $XDG_CONFIG_HOME/gemmkit/profile.env, else ~/.config/gemmkit/profile.env.
// A missing file is no profile; a file whose cpu= is not cpu_fingerprint()
// is ignored with one warning on stderr; a malformed line, an unknown key
// or a bad value warns once and is skipped, values above a knob's range are
// clamped as the environment's are.  WebAssembly builds have no profile.
enum class ProfileStatus : int {
  kNone,        // GEMMKIT_PROFILE set empty, or no home folder to look in
  kMissing,     // no file at the path
  kLoaded,      // its values apply
  kOtherCpu,    // measured on another CPU (or says not where): ignored
  kUnreadable,  // exists but could not be read
  kUnsupported  // this build reads no files (WebAssembly)
};
const char* profile_status_name(ProfileStatus status);  // "loaded", ...

struct Profile {
  ProfileStatus status;
  char path[1024];  // the file looked for ("" when none)
  char cpu[256];    // its cpu= line ("" when none)
  // kUnsetValue: the profile does not set the knob (always so unless loaded);
  // the setter and environment layers mark "not given" with it too.
  std::size_t values[static_cast<int>(Knob::kCount)];
};
constexpr std::size_t kUnsetValue = ~std::size_t(0);
const Profile& profile();

// What identifies this machine in a profile: the CPU's model string, the
// best usable ISA and the cache sizes, e.g.
// "AMD EPYC 9R14 96-Core Processor|avx512f|l1d=32768,l2=1048576,l3=33554432".
const char* cpu_fingerprint();

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
