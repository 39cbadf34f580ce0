// L7 target scalar: the complex split families (kernel/complex.hpp).
#include "dispatch/targets/scalar/target.hpp"

namespace gemmkit::isa_scalar {

dispatch::Descriptor<complex64> c64_descriptor() {
  return family_descriptor<Complex<float, kComplexMrReg, kComplexNr>::Family, 0>();
}

dispatch::Descriptor<complex128> c128_descriptor() {
  return family_descriptor<Complex<double, kComplexMrReg, kComplexNr>::Family, 0>();
}

}  // namespace gemmkit::isa_scalar
