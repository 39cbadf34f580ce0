// L7 target avx512vnni: compiled with this ISA's flags so the build proves the
// toolchain supports them; its kernels arrive with the mixed-precision and
// int8 families.  For f32/f64 the avx512vnni pin resolves to avx512f.
#include "dispatch/isa_namespace.hpp"

namespace gemmkit::GEMMKIT_ISA_NAMESPACE {

const char* target_name() { return "avx512vnni"; }

}  // namespace gemmkit::GEMMKIT_ISA_NAMESPACE
