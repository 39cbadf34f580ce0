// L7 target fma: the exact integer families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/fma/target.hpp"
#define GEMMKIT_EXACT_INTEGER_FAMILIES
#include "dispatch/exact_families-inl.hpp"
