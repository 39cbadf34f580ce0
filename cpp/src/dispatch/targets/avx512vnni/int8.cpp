// L7 target avx512vnni: int8 -> int32 (and requantized) through vpdpbusd.
#include "dispatch/targets/avx512vnni/target.hpp"

namespace gemmkit::isa_avx512vnni {

template <int NR>
using Vnni = kernel::DotVnniFamily<Avx512Vnni, 2, NR == 0 ? 12 : NR>;

dispatch::Descriptor<std::int8_t> int8_descriptor() {
  return family_descriptor<Vnni, 8>();
}

}  // namespace gemmkit::isa_avx512vnni
