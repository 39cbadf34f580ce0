// Tuning: the knob registry (setter > environment > profile > default),
// the profile file, and the thread count's own order (setter >
// GEMMKIT_NUM_THREADS > OMP_NUM_THREADS > cores).
#include "tuning/tuning.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if !defined(__EMSCRIPTEN__) && !defined(__wasm__)
#define GEMMKIT_TUNING_FILES 1  // WebAssembly builds read no profile
#endif

#include "cache/cache_info.hpp"
#include "dispatch/cpuid.hpp"
#include "dispatch/isa.hpp"
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
    // (strided depth steps defeat the prefetchers; with the microkernel's
    // software prefetch still 0.9x), so off by default.
    {"GEMMKIT_INPLACE_LHS_MAX_N", 0, kBlockMax,
     "read a unit-stride A in place instead of packing it when n <= this"},
    {"GEMMKIT_INPLACE_RHS_MAX_N", 256, kBlockMax,
     "read a k-contiguous B in place instead of transposing it when n <= this "
     "(and always in products of at most 8 row tiles)"},
    {"GEMMKIT_DEEP_KC_BYTES", 0, kWorkMax,
     "narrow (f16/bf16/requantized) outputs: bytes of one depth panel of B "
     "above which depth slices accumulate in a scratch and round once "
     "(0 = half of L2)"},
    {"GEMMKIT_STREAM_B_BYTES", 0, kWorkMax,
     "B read in place: bytes of the whole packed A up to which each panel of B "
     "runs through every depth slice before the next (0 = half of L2, 1 = never)"},
};
static_assert(sizeof(kKnobs) / sizeof(kKnobs[0]) ==
              static_cast<std::size_t>(Knob::kCount));

struct KnobState {
  std::atomic<std::size_t> setter{kUnsetValue};
  std::atomic<std::size_t> env{kUnsetValue};  // kUnsetValue: not set, or malformed
  std::atomic<bool> env_read{false};
};

KnobState g_state[static_cast<int>(Knob::kCount)];

// `text` as a knob value: false (and a warning naming `where`, e.g.
// "GEMMKIT_KC=abc") when it is not a non-negative decimal integer; values
// above the knob's range are clamped to it with a warning.
bool parse_value(const KnobInfo& k, const char* text, const char* where,
                 std::size_t* out) {
  // Parsed by hand: strtoull reports overflow through errno, which Pyodide's
  // libc does not export to side modules.
  std::size_t parsed = 0;
  bool ok = *text != '\0';
  for (const char* p = text; *p && ok; ++p) {
    if (*p < '0' || *p > '9') ok = false;
    else if (parsed > (SIZE_MAX - 9) / 10) parsed = SIZE_MAX;  // clamped below
    else parsed = parsed * 10 + std::size_t(*p - '0');
  }
  if (!ok) {
    std::fprintf(stderr, "gemmkit: ignoring %s (expected a non-negative integer)\n", where);
    return false;
  }
  if (parsed > k.max_value) {
    std::fprintf(stderr, "gemmkit: %s is above its range; using %zu\n", where, k.max_value);
    parsed = k.max_value;
  }
  *out = parsed;
  return true;
}

// The knob's value from its environment variable: the default when the
// variable is not set, empty or malformed (warned about), and then *given
// is false.
std::size_t read_env(const KnobInfo& k, bool* given = nullptr) {
  if (given) *given = false;
  const char* v = std::getenv(k.env_name);
  if (!v || !*v) return k.default_value;
  char where[256];
  std::snprintf(where, sizeof where, "%s=%s", k.env_name, v);
  std::size_t value;
  if (!parse_value(k, v, where, &value)) return k.default_value;
  if (given) *given = true;
  return value;
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


// ---- The profile -----------------------------------------------------

#if defined(GEMMKIT_TUNING_FILES)
// `text` without blanks at either end, in place.
char* trim(char* text) {
  while (*text == ' ' || *text == '\t') ++text;
  char* end = text + std::strlen(text);
  while (end > text && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
                        end[-1] == '\r'))
    --end;
  *end = '\0';
  return text;
}
#endif  // GEMMKIT_TUNING_FILES

// The CPU's model string: CPUID's brand string on x86 (dispatch/cpuid.hpp), /proc/cpuinfo's
// "model name" elsewhere on Linux, else "unknown"; '|' and control
// characters become blanks, runs of blanks one.
void cpu_model(char* out, std::size_t size) {
  char raw[256] = "";
#if GEMMKIT_X86
  cpu::CpuidRegs regs[3];
  bool ok = true;
  for (unsigned i = 0; i < 3 && ok; ++i) ok = cpu::cpuid(0x80000002u + i, 0, &regs[i]);
  if (ok) {
    for (unsigned i = 0; i < 3; ++i) {
      const unsigned words[4] = {regs[i].eax, regs[i].ebx, regs[i].ecx, regs[i].edx};
      std::memcpy(raw + 16 * i, words, sizeof words);
    }
    raw[48] = '\0';
  }
#elif defined(__linux__) && defined(GEMMKIT_TUNING_FILES)
  if (std::FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
      char* colon = std::strchr(line, ':');
      if (!colon) continue;
      *colon = '\0';
      const char* key = trim(line);
      if (std::strcmp(key, "model name") == 0 || std::strcmp(key, "Model") == 0) {
        std::snprintf(raw, sizeof raw, "%s", trim(colon + 1));
        break;
      }
    }
    std::fclose(f);
  }
#endif
  std::size_t n = 0;
  for (const char* p = raw; *p && n + 1 < size; ++p) {
    const char c = (*p == '|' || static_cast<unsigned char>(*p) < 0x20) ? ' ' : *p;
    if (c == ' ' && (n == 0 || out[n - 1] == ' ')) continue;
    out[n++] = c;
  }
  while (n > 0 && out[n - 1] == ' ') --n;
  out[n] = '\0';
  if (n == 0) std::snprintf(out, size, "unknown");
}

#if defined(GEMMKIT_TUNING_FILES)
// The profile's path (see tuning.hpp); false when there is none to read.
bool profile_path(char* out, std::size_t size) {
  if (const char* given = std::getenv("GEMMKIT_PROFILE")) {
    if (!*given) return false;
    return std::snprintf(out, size, "%s", given) < static_cast<int>(size);
  }
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && xdg[0] == '/')
    return std::snprintf(out, size, "%s/gemmkit/profile.env", xdg) < static_cast<int>(size);
#if defined(_WIN32)
  const char* home = std::getenv("APPDATA");
  const char* sub = "";
#else
  const char* home = std::getenv("HOME");
  const char* sub = "/.config";
#endif
  if (!home || !*home) return false;
  return std::snprintf(out, size, "%s%s/gemmkit/profile.env", home, sub) <
         static_cast<int>(size);
}

#endif  // GEMMKIT_TUNING_FILES

Profile load_profile() {
  Profile p{};
  for (std::size_t& v : p.values) v = kUnsetValue;
#if !defined(GEMMKIT_TUNING_FILES)
  p.status = ProfileStatus::kUnsupported;
  return p;
#else
  if (!profile_path(p.path, sizeof p.path)) {
    p.path[0] = '\0';
    p.status = ProfileStatus::kNone;
    return p;
  }
  std::FILE* f = std::fopen(p.path, "r");
  if (!f) {
    p.status = ProfileStatus::kMissing;
    return p;
  }
  // Two passes: the cpu= line first, so a profile of another CPU is one
  // warning, not one per line it holds.
  char line[1024];
  bool cpu_seen = false;
  for (int pass = 0; pass < 2; ++pass) {
    int number = 0;
    while (std::fgets(line, sizeof line, f)) {
      ++number;
      const std::size_t len = std::strlen(line);
      if (len + 1 == sizeof line && line[len - 1] != '\n') {
        if (pass == 1)
          std::fprintf(stderr,
                       "gemmkit: profile %s line %d: ignoring a line over %zu characters\n",
                       p.path, number, sizeof line - 2);
        int c;
        while ((c = std::fgetc(f)) != EOF && c != '\n') {
        }
        continue;
      }
      char* text = trim(line);
      if (*text == '\0' || *text == '#') continue;
      char* eq = std::strchr(text, '=');
      if (!eq) {
        if (pass == 1)
          std::fprintf(stderr,
                       "gemmkit: profile %s line %d: ignoring \"%s\" (expected KEY=VALUE)\n",
                       p.path, number, text);
        continue;
      }
      *eq = '\0';
      const char* key = trim(text);
      char* value = trim(eq + 1);
      if (std::strcmp(key, "cpu") == 0) {
        if (pass == 0) {
          std::snprintf(p.cpu, sizeof p.cpu, "%s", value);
          cpu_seen = true;
        }
        continue;
      }
      if (pass == 0) continue;
      Knob knob = Knob::kCount;
      const bool known = find_knob(key, &knob);
      if (!known || knob == Knob::kNumThreads) {
        std::fprintf(stderr, "gemmkit: profile %s line %d: ignoring %s (%s)\n", p.path,
                     number, key,
                     known ? "the thread count is not read from a profile" : "not a knob");
        continue;
      }
      char where[1200];
      std::snprintf(where, sizeof where, "%s=%s in profile %s line %d", key, value, p.path,
                    number);
      std::size_t parsed;
      if (parse_value(knob_info(knob), value, where, &parsed))
        p.values[static_cast<int>(knob)] = parsed;
    }
    if (std::ferror(f) != 0) {
      std::fclose(f);
      std::fprintf(stderr, "gemmkit: could not read profile %s; ignoring it\n", p.path);
      for (std::size_t& v : p.values) v = kUnsetValue;
      p.status = ProfileStatus::kUnreadable;
      return p;
    }
    if (pass == 0) {
      const char* here = cpu_fingerprint();
      if (!cpu_seen || std::strcmp(p.cpu, here) != 0) {
        std::fclose(f);
        if (cpu_seen)
          std::fprintf(stderr,
                       "gemmkit: ignoring profile %s: measured on cpu=%s, this is cpu=%s "
                       "(python -m gemmkit.tune measures this one)\n",
                       p.path, p.cpu, here);
        else
          std::fprintf(stderr, "gemmkit: ignoring profile %s: it has no cpu= line\n", p.path);
        p.status = ProfileStatus::kOtherCpu;
        return p;
      }
      std::rewind(f);
    }
  }
  std::fclose(f);
  p.status = ProfileStatus::kLoaded;
  return p;
#endif
}

}  // namespace

const KnobInfo& knob_info(Knob knob) { return kKnobs[static_cast<int>(knob)]; }

bool find_knob(const char* env_name, Knob* knob) {
  for (int i = 0; i < static_cast<int>(Knob::kCount); ++i) {
    if (std::strcmp(kKnobs[i].env_name, env_name) == 0) {
      *knob = static_cast<Knob>(i);
      return true;
    }
  }
  return false;
}

const char* origin_name(Origin origin) {
  switch (origin) {
    case Origin::kSetter: return "setter";
    case Origin::kEnvironment: return "environment";
    case Origin::kProfile: return "profile";
    case Origin::kDefault: break;
  }
  return "default";
}

const char* profile_status_name(ProfileStatus status) {
  switch (status) {
    case ProfileStatus::kNone: return "none";
    case ProfileStatus::kMissing: return "missing";
    case ProfileStatus::kLoaded: return "loaded";
    case ProfileStatus::kOtherCpu: return "other_cpu";
    case ProfileStatus::kUnreadable: return "unreadable";
    case ProfileStatus::kUnsupported: break;
  }
  return "unsupported";
}

const Profile& profile() {
  // A function-local static: read once, the first caller's thread reading
  // it while any other waits.
  static const Profile loaded = load_profile();
  return loaded;
}

const char* cpu_fingerprint() {
  struct Text {
    char text[256];
  };
  static const Text fingerprint = [] {
    Text t{};
    char model[160];
    cpu_model(model, sizeof model);
    const char* best = "scalar";
    char why[200];
    for (int i = int(dispatch::Isa::count) - 1; i >= 0; --i) {
      if (dispatch::isa_usable(dispatch::kIsaRows[i].isa, why, sizeof why)) {
        best = dispatch::isa_name(dispatch::kIsaRows[i].isa);
        break;
      }
    }
    const cache::CacheInfo& c = cache::info();
    std::snprintf(t.text, sizeof t.text, "%s|%s|l1d=%zu,l2=%zu,l3=%zu", model, best, c.l1d,
                  c.l2, c.l3);
    return t;
  }();
  return fingerprint.text;
}

std::size_t get(Knob knob, Origin* origin) {
  KnobState& s = g_state[static_cast<int>(knob)];
  const std::size_t set_value = s.setter.load(std::memory_order_relaxed);
  if (set_value != kUnsetValue) {
    if (origin) *origin = Origin::kSetter;
    return set_value;
  }
  if (!s.env_read.load(std::memory_order_acquire)) {
    bool given;
    const std::size_t value = read_env(knob_info(knob), &given);
    s.env.store(given ? value : kUnsetValue, std::memory_order_relaxed);
    s.env_read.store(true, std::memory_order_release);
  }
  const std::size_t env_value = s.env.load(std::memory_order_relaxed);
  if (env_value != kUnsetValue) {
    if (origin) *origin = Origin::kEnvironment;
    return env_value;
  }
  const std::size_t profile_value = profile().values[static_cast<int>(knob)];
  if (profile_value != kUnsetValue) {
    if (origin) *origin = Origin::kProfile;
    return profile_value;
  }
  if (origin) *origin = Origin::kDefault;
  return knob_info(knob).default_value;
}

void set(Knob knob, std::size_t value) {
  const std::size_t top = knob_info(knob).max_value;
  g_state[static_cast<int>(knob)].setter.store(value > top ? top : value,
                                               std::memory_order_relaxed);
}

void reset(Knob knob) {
  g_state[static_cast<int>(knob)].setter.store(kUnsetValue, std::memory_order_relaxed);
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
    case Origin::kProfile:  // never: profiles hold no thread count
    case Origin::kDefault:
      if (const std::size_t omp = omp_num_threads())
        return {static_cast<int>(omp), ThreadSource::kOpenMpEnv};
      break;
  }
  return {parallel::available_cores(), ThreadSource::kCores};
}

int max_threads() { return thread_count().threads; }

}  // namespace gemmkit::tuning
