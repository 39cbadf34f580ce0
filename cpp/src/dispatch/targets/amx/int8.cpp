// L7 target amx: int8 -> int32 (and requantized) through tdpbssd.
#include "dispatch/targets/amx/target.hpp"

namespace gemmkit::isa_amx {

template <int NR>
using Int8Tiles = kernel::AmxInt8Family<Amx, 2, NR == 0 ? 32 : NR>;

dispatch::Descriptor<std::int8_t> int8_descriptor() {
  return family_descriptor<Int8Tiles, 16>();
}

}  // namespace gemmkit::isa_amx
