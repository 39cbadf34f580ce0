// L7 target amx: the tile kernels (Intel AMX), bf16 and split f16 (tdpbf16ps) and int8
// (tdpbssd) over 32x32 tiles of C: four 16x16 accumulator tiles, two tiles
// of each operand; 32x16 for skinny outputs.  Other types pinned to amx run
// the avx512f target.
#pragma once
#include "simd/amx.hpp"
#define GEMMKIT_TOKEN isa_amx::Amx
#include "dispatch/gemm-inl.hpp"
#include "kernel/amx.hpp"
