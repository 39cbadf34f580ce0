// L7 target amx: bf16 -> bf16 / f32 through tdpbf16ps.
#include "dispatch/targets/amx/target.hpp"

namespace gemmkit::isa_amx {

template <int NR>
using Bf16Tiles = kernel::AmxBf16Family<Amx, 2, NR == 0 ? 32 : NR>;

dispatch::Descriptor<bfloat16> bf16_descriptor() {
  return family_descriptor<Bf16Tiles, 16>();
}

}  // namespace gemmkit::isa_amx
