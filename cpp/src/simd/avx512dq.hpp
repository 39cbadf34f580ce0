// L0 simd: the Avx512Dq token (AVX-512F + DQ).  Compiled only in
// targets/avx512dq/ TUs, whose -mavx512dq turns Avx512Int64Ops' multiply
// into one vpmullq (the Avx512F token, without DQ, emulates it with three
// vpmuludq).  Every other type is Avx512F's vocabulary re-instantiated
// under this token's namespace (see the ODR note in simd_ops.hpp), and so
// are the widen/narrow/requant seams the conformance test runs.
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include "x86_intrinsics.hpp"

#include <cstdint>

#include "avx512f.hpp"
#include "kernel_simd.hpp"

namespace gemmkit::isa_avx512dq {

struct Avx512Dq {
  static constexpr const char* kName = "avx512dq";
};

}  // namespace gemmkit::isa_avx512dq

namespace gemmkit::simd {

template <>
struct SimdOps<isa_avx512dq::Avx512Dq, float> : Avx512FloatOps<isa_avx512dq::Avx512Dq> {};
template <>
struct SimdOps<isa_avx512dq::Avx512Dq, double> : Avx512DoubleOps<isa_avx512dq::Avx512Dq> {};
template <>
struct SimdOps<isa_avx512dq::Avx512Dq, std::int32_t>
    : Avx512Int32Ops<isa_avx512dq::Avx512Dq> {};
template <>
struct SimdOps<isa_avx512dq::Avx512Dq, std::int64_t>
    : Avx512Int64Ops<isa_avx512dq::Avx512Dq> {};

template <>
struct KernelSimd<isa_avx512dq::Avx512Dq, float16, float16, float, float16>
    : Avx512F16Seam<isa_avx512dq::Avx512Dq> {};
template <>
struct KernelSimd<isa_avx512dq::Avx512Dq, bfloat16, bfloat16, float, bfloat16>
    : Avx512Bf16Seam<isa_avx512dq::Avx512Dq> {};
template <>
struct KernelSimd<isa_avx512dq::Avx512Dq, std::int8_t, std::int8_t, std::int32_t, std::int32_t>
    : Avx512Int8Seam<isa_avx512dq::Avx512Dq> {};

}  // namespace gemmkit::simd

#endif  // x86
