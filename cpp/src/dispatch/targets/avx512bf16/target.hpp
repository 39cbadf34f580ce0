// L7 target avx512bf16: the bf16 dot kernel, vdpbf16ps over 32x12 tiles (24
// zmm accumulators), two depth steps per instruction; 32x8 for skinny
// outputs.  Other types pinned to avx512bf16 run the avx512f target.
#pragma once
#include "simd/avx512bf16.hpp"
#define GEMMKIT_TOKEN isa_avx512bf16::Avx512Bf16
#include "dispatch/gemm-inl.hpp"
#include "kernel/dot_bf16.hpp"
