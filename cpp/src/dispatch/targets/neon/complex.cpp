// L7 target neon: the complex split families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/neon/target.hpp"
#define GEMMKIT_COMPLEX_FAMILIES
#include "dispatch/exact_families-inl.hpp"
