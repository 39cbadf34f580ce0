// L7 target avx512dq: the int64 family (int64 and uint64 products, wrapping)
// with a one-instruction 64-bit multiply.
#include "dispatch/targets/avx512dq/target.hpp"

namespace gemmkit::isa_avx512dq {

dispatch::Descriptor<std::int64_t> i64_descriptor() {
  return family_descriptor<Widen<std::int64_t, std::int64_t, kInt64MrReg, kInt64Nr>::Family, 0>();
}

}  // namespace gemmkit::isa_avx512dq
