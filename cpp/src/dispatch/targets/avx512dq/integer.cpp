// L7 target avx512dq: the int64 family (int64 and uint64 products, wrapping)
// with a one-instruction 64-bit multiply (dispatch/exact_families-inl.hpp).
#include "dispatch/targets/avx512dq/target.hpp"
#define GEMMKIT_INT64_FAMILY
#include "dispatch/exact_families-inl.hpp"
