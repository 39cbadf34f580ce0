// A private copy of the tuning registry (cpp/src/tuning/tuning.cpp, the
// very file, renamed into namespace gemmkit_knob_copy) so fuzz_knobs can
// call its file-local environment parser, read_env, once per input: the
// library reads each GEMMKIT_* variable only once per process.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define gemmkit gemmkit_knob_copy
#include "tuning/tuning.cpp"
#undef gemmkit

// max_threads() and the profile's CPU fingerprint in the copy need these;
// the parser does not (this copy never reads a profile).
namespace gemmkit_knob_copy::parallel {
int available_cores() { return 1; }
}  // namespace gemmkit_knob_copy::parallel
namespace gemmkit_knob_copy::dispatch {
const char* isa_name(Isa) { return "scalar"; }
bool isa_usable(Isa, char*, int) { return false; }
}  // namespace gemmkit_knob_copy::dispatch
namespace gemmkit_knob_copy::cache {
const CacheInfo& info() {
  static const CacheInfo none{0, 0, 0, "default"};
  return none;
}
}  // namespace gemmkit_knob_copy::cache

// The value the registry makes of getenv(knob's name) right now.
std::size_t fuzz_parse_knob_env(int knob) {
  using namespace gemmkit_knob_copy::tuning;
  return read_env(knob_info(static_cast<Knob>(knob)));
}
