// L7 target avx512vnni: the int8 dot kernel, vpdpbusd over 32x12 tiles (24
// zmm accumulators), four depth steps per instruction; 32x8 for skinny
// outputs.  Other types pinned to avx512vnni run the avx512f target.
#pragma once
#include "simd/avx512vnni.hpp"
#define GEMMKIT_TOKEN isa_avx512vnni::Avx512Vnni
#include "dispatch/gemm-inl.hpp"
#include "kernel/dot_vnni.hpp"
