// L7 target avx512f: f32 32x12, f64 16x12 (24 zmm accumulators + 2 A + 1 B
// = 27 of 32 zmm registers).
#include "simd/avx512f.hpp"
#define GEMMKIT_TOKEN isa_avx512f::Avx512F
#define GEMMKIT_F32_TILE 2, 12
#define GEMMKIT_F64_TILE 2, 12
#define GEMMKIT_SKINNY_NR 8
#include "dispatch/float-inl.hpp"
