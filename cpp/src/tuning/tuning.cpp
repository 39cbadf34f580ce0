// Tuning: the knob registry (setter > environment > default), and the
// thread count's own order (setter > GEMMKIT_NUM_THREADS > OMP_NUM_THREADS >
// cores).
#include "tuning/tuning.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "parallel/thread_pool.hpp"

namespace gemmkit::tuning {

namespace {

// Defaults were measured on a 2-core Zen 4 / Sapphire Rapids class VM
// (2026-11); `python benchmarks/native/bench_gemm.py` re-derives them.
// The ranges keep every product of blocking sizes far from overflow: a
// block dimension of 2^20 is larger than any cache-blocked panel can be.
constexpr std::size_t kBlockMax = std::size_t(1) << 20;
// 2^50 with a 64-bit size_t, 2^30 on wasm32.
constexpr std::size_t kWorkMax = SIZE_MAX >> (sizeof(std::size_t) >= 8 ? 14 : 2);

const KnobInfo kKnobs[] = {
    {"GEMMKIT_NUM_THREADS", 0, 1024,
     "worker threads (0 = cores available; unset: OMP_NUM_THREADS, else the cores)"},
    {"GEMMKIT_PARALLEL_THRESHOLD", 48 * 48 * 256, kWorkMax,
     "m*n*k below which a call stays on one thread"},
    {"GEMMKIT_MNK_PER_WORKER", 2000000, kWorkMax,
     "m*n*k of work that justifies one more worker"},
    {"GEMMKIT_MC", 0, kBlockMax, "rows of A per packed block (0 = from cache sizes)"},
    {"GEMMKIT_KC", 0, kBlockMax, "depth per packed block (0 = from cache sizes)"},
    {"GEMMKIT_NC", 0, kBlockMax, "columns of B per packed block (0 = from cache sizes)"},
    {"GEMMKIT_GEMV_PARALLEL_BYTES", 4u << 20, kWorkMax,
     "matrix bytes above which a GEMV is split across threads"},
    // 0: in-place reads of A measured slower than packing on 16x4096x4096
    // (strided depth steps defeat the prefetchers), so off by default.
    {"GEMMKIT_INPLACE_LHS_MAX_N", 0, kBlockMax,
     "read a unit-stride A in place instead of packing it when n <= this"},
    {"GEMMKIT_INPLACE_RHS_MAX_N", 256, kBlockMax,
     "read a k-contiguous B in place instead of transposing it when n <= this"},
    {"GEMMKIT_DEEP_KC_BYTES", 0, kWorkMax,
     "narrow (f16/bf16/requantized) outputs: bytes of one depth panel of B "
     "above which depth slices accumulate in a scratch and round once "
     "(0 = half of L2)"},
};
static_assert(sizeof(kKnobs) / sizeof(kKnobs[0]) ==
              static_cast<std::size_t>(Knob::kCount));

constexpr std::size_t kUnset = ~std::size_t(0);

struct KnobState {
  std::atomic<std::size_t> setter{kUnset};
  std::atomic<std::size_t> env{kUnset};  // kUnset: not set, or malformed
  std::atomic<bool> env_read{false};
};

KnobState g_state[static_cast<int>(Knob::kCount)];

// The knob's value from its environment variable: the default when the
// variable is not set, empty or malformed (warned about), and then *given
// is false.
std::size_t read_env(const KnobInfo& k, bool* given = nullptr) {
  if (given) *given = false;
  const char* v = std::getenv(k.env_name);
  if (!v || !*v) return k.default_value;
  // Parsed by hand: strtoull reports overflow through errno, which Pyodide's
  // libc does not export to side modules.
  std::size_t parsed = 0;
  bool ok = true;
  for (const char* p = v; *p && ok; ++p) {
    if (*p < '0' || *p > '9') ok = false;
    else if (parsed > (SIZE_MAX - 9) / 10) parsed = SIZE_MAX;  // clamped below
    else parsed = parsed * 10 + std::size_t(*p - '0');
  }
  if (!ok) {
    std::fprintf(stderr,
                 "gemmkit: ignoring %s=%s (expected a non-negative integer)\n",
                 k.env_name, v);
    return k.default_value;
  }
  if (given) *given = true;
  if (parsed > k.max_value) {
    std::fprintf(stderr, "gemmkit: %s=%s is above its range; using %zu\n", k.env_name, v,
                 k.max_value);
    return k.max_value;
  }
  return parsed;
}

// OMP_NUM_THREADS as libgomp and libomp read it: entries separated by
// commas, blanks around each, every entry a positive decimal integer, the
// first entry applying (the outermost parallel level); values above
// `max_value` are clamped to it.  0 when the text is not such a list:
// OpenMP runtimes warn and ignore it; it is their variable, so gemmkit
// ignores it silently.
std::size_t parse_omp_num_threads(const char* text, std::size_t max_value) {
  if (!text) return 0;
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' ||
                                   c == '\f' || c == '\r'; };
  std::size_t first = 0;
  const char* p = text;
  for (bool is_first = true;; is_first = false) {
    while (blank(*p)) ++p;
    if (*p < '0' || *p > '9') return 0;  // empty entry, sign, or other text
    std::size_t value = 0;
    for (; *p >= '0' && *p <= '9'; ++p)
      value = value > (SIZE_MAX - 9) / 10 ? SIZE_MAX : value * 10 + std::size_t(*p - '0');
    if (value == 0) return 0;
    if (is_first) first = value > max_value ? max_value : value;
    while (blank(*p)) ++p;
    if (*p == '\0') return first;
    if (*p != ',') return 0;
    ++p;
  }
}

// Read once, like the knobs; 0 = not set or not a list of positive integers.
std::atomic<std::size_t> g_omp_threads{0};
std::atomic<bool> g_omp_read{false};

std::size_t omp_num_threads() {
  if (!g_omp_read.load(std::memory_order_acquire)) {
    const std::size_t top = knob_info(Knob::kNumThreads).max_value;
    g_omp_threads.store(parse_omp_num_threads(std::getenv("OMP_NUM_THREADS"), top),
                        std::memory_order_relaxed);
    g_omp_read.store(true, std::memory_order_release);
  }
  return g_omp_threads.load(std::memory_order_relaxed);
}

}  // namespace

const KnobInfo& knob_info(Knob knob) { return kKnobs[static_cast<int>(knob)]; }

std::size_t get(Knob knob, Origin* origin) {
  KnobState& s = g_state[static_cast<int>(knob)];
  const std::size_t set_value = s.setter.load(std::memory_order_relaxed);
  if (set_value != kUnset) {
    if (origin) *origin = Origin::kSetter;
    return set_value;
  }
  if (!s.env_read.load(std::memory_order_acquire)) {
    bool given;
    const std::size_t value = read_env(knob_info(knob), &given);
    s.env.store(given ? value : kUnset, std::memory_order_relaxed);
    s.env_read.store(true, std::memory_order_release);
  }
  const std::size_t env_value = s.env.load(std::memory_order_relaxed);
  if (origin) *origin = env_value != kUnset ? Origin::kEnvironment : Origin::kDefault;
  return env_value != kUnset ? env_value : knob_info(knob).default_value;
}

void set(Knob knob, std::size_t value) {
  const std::size_t top = knob_info(knob).max_value;
  g_state[static_cast<int>(knob)].setter.store(value > top ? top : value,
                                               std::memory_order_relaxed);
}

void reset(Knob knob) {
  g_state[static_cast<int>(knob)].setter.store(kUnset, std::memory_order_relaxed);
}

const char* thread_source_name(ThreadSource source) {
  switch (source) {
    case ThreadSource::kSetter: return "set_num_threads";
    case ThreadSource::kGemmkitEnv: return "GEMMKIT_NUM_THREADS";
    case ThreadSource::kOpenMpEnv: return "OMP_NUM_THREADS";
    case ThreadSource::kCores: break;
  }
  return "cores";
}

ThreadCount thread_count() {
  Origin origin;
  const std::size_t n = get(Knob::kNumThreads, &origin);
  // n is at most the knob's range (1024), so the casts are exact.
  switch (origin) {
    case Origin::kSetter:
      if (n != 0) return {static_cast<int>(n), ThreadSource::kSetter};
      break;  // set(kNumThreads, 0) means the cores, as the knob's doc says
    case Origin::kEnvironment:
      // GEMMKIT_NUM_THREADS=0 asks for the cores, whatever OMP_NUM_THREADS says.
      return {n != 0 ? static_cast<int>(n) : parallel::available_cores(),
              ThreadSource::kGemmkitEnv};
    case Origin::kDefault:
      if (const std::size_t omp = omp_num_threads())
        return {static_cast<int>(omp), ThreadSource::kOpenMpEnv};
      break;
  }
  return {parallel::available_cores(), ThreadSource::kCores};
}

int max_threads() { return thread_count().threads; }

}  // namespace gemmkit::tuning
