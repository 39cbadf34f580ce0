// L7 target fma (AVX2 + FMA): f32 16x6, f64 8x6 (2 x 6 ymm accumulators,
// 15 of 16 ymm registers live).
#include "simd/fma.hpp"
#define GEMMKIT_TOKEN isa_fma::Fma
#define GEMMKIT_F32_TILE 2, 6
#define GEMMKIT_F64_TILE 2, 6
#define GEMMKIT_SKINNY_NR 4
#include "dispatch/float-inl.hpp"
