// L7 target avx512dq: the int64 family with vpmullq, 16x8 tiles as on
// avx512f.  Other types pinned to avx512dq run the avx512f target.
#pragma once
#include "simd/avx512dq.hpp"
#define GEMMKIT_TOKEN isa_avx512dq::Avx512Dq
#include "dispatch/gemm-inl.hpp"

namespace gemmkit::isa_avx512dq {
constexpr int kInt64MrReg = 2;
constexpr int kInt64Nr = 8;
}  // namespace gemmkit::isa_avx512dq
