// L0 simd: the Avx512Bf16 token (AVX-512F + BW + BF16).  Compiled only in
// targets/avx512bf16/ TUs.  For float, double, int32 and int64 it is
// Avx512F's vocabulary re-instantiated under this token's namespace (see the
// ODR note in simd_ops.hpp); what it adds is vdpbf16ps, used by the bf16 dot
// family (cpp/src/kernel/), and the same widen/narrow/requant seams as
// Avx512F.
#pragma once

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include "x86_intrinsics.hpp"

#include <cstdint>

#include "avx512f.hpp"
#include "kernel_simd.hpp"

namespace gemmkit::isa_avx512bf16 {

struct Avx512Bf16 {
  static constexpr const char* kName = "avx512bf16";
};

}  // namespace gemmkit::isa_avx512bf16

namespace gemmkit::simd {

template <>
struct SimdOps<isa_avx512bf16::Avx512Bf16, float>
    : Avx512FloatOps<isa_avx512bf16::Avx512Bf16> {};
template <>
struct SimdOps<isa_avx512bf16::Avx512Bf16, double>
    : Avx512DoubleOps<isa_avx512bf16::Avx512Bf16> {};
template <>
struct SimdOps<isa_avx512bf16::Avx512Bf16, std::int32_t>
    : Avx512Int32Ops<isa_avx512bf16::Avx512Bf16> {};
template <>
struct SimdOps<isa_avx512bf16::Avx512Bf16, std::int64_t>
    : Avx512Int64Ops<isa_avx512bf16::Avx512Bf16> {};

// The widen/narrow/requant seams are Avx512F's, re-instantiated here: one
// source of truth for the conversions (scalar/half.hpp bit for bit).
template <>
struct KernelSimd<isa_avx512bf16::Avx512Bf16, float16, float16, float, float16>
    : Avx512F16Seam<isa_avx512bf16::Avx512Bf16> {};
template <>
struct KernelSimd<isa_avx512bf16::Avx512Bf16, bfloat16, bfloat16, float, bfloat16>
    : Avx512Bf16Seam<isa_avx512bf16::Avx512Bf16> {};
template <>
struct KernelSimd<isa_avx512bf16::Avx512Bf16, std::int8_t, std::int8_t, std::int32_t, std::int32_t>
    : Avx512Int8Seam<isa_avx512bf16::Avx512Bf16> {};

}  // namespace gemmkit::simd

#endif  // x86
