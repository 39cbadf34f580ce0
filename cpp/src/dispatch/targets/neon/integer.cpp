// L7 target neon: the exact integer families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/neon/target.hpp"
#define GEMMKIT_EXACT_INTEGER_FAMILIES
#include "dispatch/exact_families-inl.hpp"
