// L7 target scalar: f32/f64 kernels, 4x4 tiles of scalars.
#include "simd/scalar.hpp"
#define GEMMKIT_TOKEN isa_scalar::Scalar
#define GEMMKIT_F32_TILE 4, 4
#define GEMMKIT_F64_TILE 4, 4
#include "dispatch/float-inl.hpp"
