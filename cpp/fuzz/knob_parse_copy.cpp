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

// max_threads() in the copy needs this; the parser does not.
namespace gemmkit_knob_copy::parallel {
int available_cores() { return 1; }
}  // namespace gemmkit_knob_copy::parallel

// The value the registry makes of getenv(knob's name) right now.
std::size_t fuzz_parse_knob_env(int knob) {
  using namespace gemmkit_knob_copy::tuning;
  return read_env(knob_info(static_cast<Knob>(knob)));
}
