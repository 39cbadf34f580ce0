// L7 target scalar: the complex split families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/scalar/target.hpp"
#define GEMMKIT_COMPLEX_FAMILIES
#include "dispatch/exact_families-inl.hpp"
