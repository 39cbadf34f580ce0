// L7 target simd128: the complex split families (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/simd128/target.hpp"
#define GEMMKIT_COMPLEX_FAMILIES
#include "dispatch/exact_families-inl.hpp"
