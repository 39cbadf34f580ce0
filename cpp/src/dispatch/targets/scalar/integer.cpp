// L7 target scalar: the exact integer families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/scalar/target.hpp"
#define GEMMKIT_EXACT_INTEGER_FAMILIES
#include "dispatch/exact_families-inl.hpp"
