// L7 target avx512f: the complex split families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/avx512f/target.hpp"
#define GEMMKIT_COMPLEX_FAMILIES
#include "dispatch/exact_families-inl.hpp"
