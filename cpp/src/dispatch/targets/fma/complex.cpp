// L7 target fma: the complex split families (kernel/complex.hpp).
#include "dispatch/targets/fma/target.hpp"

namespace gemmkit::isa_fma {

dispatch::Descriptor<complex64> c64_descriptor() {
  return family_descriptor<Complex<float, kComplexMrReg, kComplexNr>::Family, 0>();
}

dispatch::Descriptor<complex128> c128_descriptor() {
  return family_descriptor<Complex<double, kComplexMrReg, kComplexNr>::Family, 0>();
}

}  // namespace gemmkit::isa_fma
