// L7 target fma: the int8 family (int32 accumulator) through the i16 pair
// dot family (kernel/dot_pair_i8.hpp: vpmaddwd, two depth steps per
// instruction, bit-identical to widening), 16x6 tiles and 16x4 for skinny
// outputs as for f32.
#include "dispatch/targets/fma/target.hpp"
#include "kernel/dot_pair_i8.hpp"

namespace gemmkit::isa_fma {

template <int NR>
using PairI8 = kernel::PairI8Family<GEMMKIT_TOKEN, kMrReg, NR == 0 ? kNr : NR>;

dispatch::Descriptor<std::int8_t> int8_descriptor() {
  return family_descriptor<PairI8, kSkinnyNr>();
}

}  // namespace gemmkit::isa_fma
