// L7 target avx512f: the exact integer families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/avx512f/target.hpp"
#define GEMMKIT_EXACT_INTEGER_FAMILIES
#include "dispatch/exact_families-inl.hpp"
