// L7 target avx512bf16: bf16 -> bf16 / f32 through vdpbf16ps.
#include "dispatch/targets/avx512bf16/target.hpp"

namespace gemmkit::isa_avx512bf16 {

template <int NR>
using Bf16Dot = kernel::DotBf16Family<Avx512Bf16, 2, NR == 0 ? 12 : NR>;

dispatch::Descriptor<bfloat16> bf16_descriptor() {
  return family_descriptor<Bf16Dot, 8>();
}

}  // namespace gemmkit::isa_avx512bf16
