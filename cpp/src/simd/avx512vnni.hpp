// L0 simd: the Avx512Vnni token (AVX-512F + BW + VNNI).  Compiled only in
// targets/avx512vnni/ TUs.  For float, double, int32 and int64 it is
// Avx512F's vocabulary re-instantiated under this token's namespace (see the
// ODR note in simd_ops.hpp); what it adds is vpdpbusd, used by the int8 dot
// family (cpp/src/kernel/), and the same widen/narrow/requant seams as
// Avx512F.
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include "x86_intrinsics.hpp"

#include <cstdint>

#include "avx512f.hpp"
#include "kernel_simd.hpp"

namespace gemmkit::isa_avx512vnni {

struct Avx512Vnni {
  static constexpr const char* kName = "avx512vnni";
};

}  // namespace gemmkit::isa_avx512vnni

namespace gemmkit::simd {

template <>
struct SimdOps<isa_avx512vnni::Avx512Vnni, float>
    : Avx512FloatOps<isa_avx512vnni::Avx512Vnni> {};
template <>
struct SimdOps<isa_avx512vnni::Avx512Vnni, double>
    : Avx512DoubleOps<isa_avx512vnni::Avx512Vnni> {};
template <>
struct SimdOps<isa_avx512vnni::Avx512Vnni, std::int32_t>
    : Avx512Int32Ops<isa_avx512vnni::Avx512Vnni> {};
template <>
struct SimdOps<isa_avx512vnni::Avx512Vnni, std::int64_t>
    : Avx512Int64Ops<isa_avx512vnni::Avx512Vnni> {};

// The widen/narrow/requant seams are Avx512F's, re-instantiated here: one
// source of truth for the conversions (scalar/half.hpp bit for bit).
template <>
struct KernelSimd<isa_avx512vnni::Avx512Vnni, float16, float16, float, float16>
    : Avx512F16Seam<isa_avx512vnni::Avx512Vnni> {};
template <>
struct KernelSimd<isa_avx512vnni::Avx512Vnni, bfloat16, bfloat16, float, bfloat16>
    : Avx512Bf16Seam<isa_avx512vnni::Avx512Vnni> {};
template <>
struct KernelSimd<isa_avx512vnni::Avx512Vnni, std::int8_t, std::int8_t, std::int32_t, std::int32_t>
    : Avx512Int8Seam<isa_avx512vnni::Avx512Vnni> {};

}  // namespace gemmkit::simd

#endif  // x86
