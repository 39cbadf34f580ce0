// L7 target neon: f32 16x4, f64 8x4 (4 x 4 accumulators, leaving about 11
// registers free as rename headroom for wide out-of-order cores).
#include "simd/neon.hpp"
#define GEMMKIT_TOKEN isa_neon::Neon
#define GEMMKIT_F32_TILE 4, 4
#define GEMMKIT_F64_TILE 4, 4
#include "dispatch/float-inl.hpp"
