// L7 target fma: the complex split families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/fma/target.hpp"
#define GEMMKIT_COMPLEX_FAMILIES
#include "dispatch/exact_families-inl.hpp"
