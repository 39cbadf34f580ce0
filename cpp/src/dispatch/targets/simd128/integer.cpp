// L7 target simd128: the exact integer families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/simd128/target.hpp"
#define GEMMKIT_EXACT_INTEGER_FAMILIES
#include "dispatch/exact_families-inl.hpp"
