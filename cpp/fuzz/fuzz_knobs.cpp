// fuzz_knobs: the GEMMKIT_* environment knobs (cpp/src/tuning/tuning.cpp).
// The library reads each variable once per process, so its parser is
// fuzzed through a private copy of that file (knob_parse_copy.cpp): every
// knob gets a fuzzed value string, which must parse to exactly what a
// reference parser says (digits only, else the default; above the range,
// the maximum), with one warning on stderr exactly when the value is
// malformed or clamped.  The parsed values are then set on the real
// registry (tuning::set, which must clamp the same way) and one small
// float32, float64 or int8 product must still be right under them.
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "fuzz_common.hpp"
#include "tuning/tuning.hpp"

std::size_t fuzz_parse_knob_env(int knob);  // knob_parse_copy.cpp

namespace {

using namespace fuzz;
namespace tuning = gemmkit::tuning;

constexpr int kKnobs = static_cast<int>(tuning::Knob::kCount);

// What the registry must make of a value (non-empty: empty means unset).
struct Parsed {
  std::size_t value;
  bool warns;
};
Parsed reference_parse(const std::string& v, const tuning::KnobInfo& info) {
  if (v.empty()) return {info.default_value, false};
  unsigned __int128 x = 0;
  for (char ch : v) {
    if (ch < '0' || ch > '9') return {info.default_value, true};
    x = x * 10 + unsigned(ch - '0');
    if (x > SIZE_MAX) x = SIZE_MAX;  // saturate: only "above the range" matters
  }
  if (x > info.max_value) return {info.max_value, true};
  return {std::size_t(x), false};
}

// stderr goes to a scratch file while the parser runs, to see its warning.
int g_scratch = -1;

std::string parse_capturing(int knob, std::size_t* value) {
  std::fflush(stderr);
  const int saved = dup(2);
  // Truncate and rewind (the descriptor's offset is shared with the dup).
  FUZZ_CHECK(saved >= 0 && ftruncate(g_scratch, 0) == 0 && lseek(g_scratch, 0, SEEK_SET) == 0 &&
                 dup2(g_scratch, 2) == 2,
             "knobs: cannot redirect stderr");
  *value = fuzz_parse_knob_env(knob);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text(4096, '\0');
  const ssize_t got = pread(g_scratch, text.data(), text.size(), 0);
  text.resize(got > 0 ? std::size_t(got) : 0);
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char path[] = "/tmp/gemmkit-fuzz-knobs-XXXXXX";
  g_scratch = mkstemp(path);
  FUZZ_CHECK(g_scratch >= 0, "knobs: cannot create a scratch file");
  unlink(path);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  std::size_t parsed[kKnobs];
  for (int i = 0; i < kKnobs; ++i) {
    const tuning::KnobInfo& info = tuning::knob_info(static_cast<tuning::Knob>(i));
    // Environment values are C strings: they end at the first NUL.
    const std::string value = in.ConsumeRandomLengthString(32).c_str();
    FUZZ_CHECK(setenv(info.env_name, value.c_str(), 1) == 0, "knobs: setenv %s failed", info.env_name);
    const std::string warning = parse_capturing(i, &parsed[i]);
    const Parsed want = reference_parse(value, info);
    FUZZ_CHECK(parsed[i] == want.value && parsed[i] <= info.max_value,
               "knobs: %s=\"%s\" parsed as %zu, expected %zu (range 0..%zu)", info.env_name,
               value.c_str(), parsed[i], want.value, info.max_value);
    FUZZ_CHECK(want.warns == !warning.empty(), "knobs: %s=\"%s\": %s warning (stderr: \"%s\")",
               info.env_name, value.c_str(), want.warns ? "missing" : "unexpected", warning.c_str());
    FUZZ_CHECK(warning.empty() || warning.find(info.env_name) != std::string::npos,
               "knobs: %s warning does not name it: %s", info.env_name, warning.c_str());
  }

  // The real registry under those values: set() clamps to the range.
  for (int i = 0; i < kKnobs; ++i) {
    const auto knob = static_cast<tuning::Knob>(i);
    std::size_t v = parsed[i];
    // At most 4 workers: more only slows the fuzzer (the range is 1024).
    if (knob == tuning::Knob::kNumThreads && v > 4) v = 4;
    tuning::set(knob, v);
    FUZZ_CHECK(tuning::get(knob) == v, "knobs: set(%d, %zu) reads back %zu", i, v, tuning::get(knob));
  }
  const std::size_t over = in.ConsumeIntegral<std::size_t>();
  tuning::set(tuning::Knob::kMc, over);
  const std::size_t mc_max = tuning::knob_info(tuning::Knob::kMc).max_value;
  FUZZ_CHECK(tuning::get(tuning::Knob::kMc) == (over > mc_max ? mc_max : over),
             "knobs: set(kMc, %zu) not clamped to %zu", over, mc_max);
  tuning::set(tuning::Knob::kMc, parsed[static_cast<int>(tuning::Knob::kMc)]);

  // One small product under the knobs, plainly strided.
  static const int kTypes[3][2] = {{GEMMKIT_F32, GEMMKIT_F32}, {GEMMKIT_F64, GEMMKIT_F64},
                                   {GEMMKIT_I8, GEMMKIT_I32}};
  const int* t = kTypes[in.ConsumeIntegralInRange(0, 2)];
  const std::size_t m = in.ConsumeIntegralInRange<std::size_t>(0, 48);
  const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, 48);
  const std::size_t k = in.ConsumeIntegralInRange<std::size_t>(0, 64);
  const std::size_t nb = in.ConsumeIntegralInRange<std::size_t>(1, 2);
  Mat a = make_mat(in, t[0], nb, m, k, true);
  Mat b = make_mat(in, t[0], nb, k, n, true);
  Mat out = make_mat(in, t[1], nb, m, n, false);
  fill(in, a, false);
  fill(in, b, false);
  fill(in, out, false);  // c in place
  Scalars s;
  s.alpha[0] = in.ConsumeIntegralInRange(-2, 2);
  s.beta[0] = in.ConsumeIntegralInRange(-1, 1);
  const Mat out0 = clone(out);
  gemmkit_operand c_op = out.op;
  const int st = gemmkit_gemm_batched_ex(s.alpha, &a.op, &b.op, nullptr, s.beta, &c_op, &out.op,
                                         nullptr, 0);
  FUZZ_CHECK(st == GEMMKIT_OK, "knobs: product %d: status %d (%s)", t[0], st, gemmkit_last_error());
  check_padding(out0, out, nb, "knobs");
  check_product(s, a, b, &out0, out, 0, "knobs");

  for (int i = 0; i < kKnobs; ++i) tuning::reset(static_cast<tuning::Knob>(i));
  return 0;
}
