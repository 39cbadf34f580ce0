// L7 target avx512bf16: compiled with this ISA's flags so the build proves the
// toolchain supports them; its kernels arrive with the mixed-precision and
// int8 families.  For f32/f64 the avx512bf16 pin resolves to avx512f.
#include "dispatch/isa_namespace.hpp"

namespace gemmkit::GEMMKIT_ISA_NAMESPACE {

const char* target_name() { return "avx512bf16"; }

}  // namespace gemmkit::GEMMKIT_ISA_NAMESPACE
