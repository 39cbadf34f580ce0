// L0 simd: the Amx token (AVX-512F + BW + AMX-TILE, AMX-BF16, AMX-INT8).
// Compiled only in targets/amx/ TUs.  For float, double, int32 and int64 it
// is Avx512F's vocabulary re-instantiated under this token's namespace (see the
// ODR note in simd_ops.hpp): the accumulators of the AMX families
// (cpp/src/kernel/amx.hpp) are plain zmm arrays between tiles, and the
// epilogue, stores and widen/narrow/requant seams are Avx512F's.  What it
// adds is the tile instructions, used only inside those families.
//
// AMX needs the kernel's permission before a process may touch tile data
// (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)); without it the
// first tile instruction raises SIGILL.  Asking is dispatch's job, once per
// process, before this token is ever selected.
#pragma once

#if defined(__x86_64__) || defined(_M_X64)
#include "x86_intrinsics.hpp"

#include <cstdint>

#include "avx512f.hpp"
#include "kernel_simd.hpp"

namespace gemmkit::isa_amx {

struct Amx {
  static constexpr const char* kName = "amx";
};

}  // namespace gemmkit::isa_amx

namespace gemmkit::simd {

template <>
struct SimdOps<isa_amx::Amx, float> : Avx512FloatOps<isa_amx::Amx> {};
template <>
struct SimdOps<isa_amx::Amx, double> : Avx512DoubleOps<isa_amx::Amx> {};
template <>
struct SimdOps<isa_amx::Amx, std::int32_t> : Avx512Int32Ops<isa_amx::Amx> {};
template <>
struct SimdOps<isa_amx::Amx, std::int64_t> : Avx512Int64Ops<isa_amx::Amx> {};

// The widen/narrow/requant seams are Avx512F's, re-instantiated here: one
// source of truth for the conversions (scalar/half.hpp bit for bit).
template <>
struct KernelSimd<isa_amx::Amx, float16, float16, float, float16>
    : Avx512F16Seam<isa_amx::Amx> {};
template <>
struct KernelSimd<isa_amx::Amx, bfloat16, bfloat16, float, bfloat16>
    : Avx512Bf16Seam<isa_amx::Amx> {};
template <>
struct KernelSimd<isa_amx::Amx, std::int8_t, std::int8_t, std::int32_t, std::int32_t>
    : Avx512Int8Seam<isa_amx::Amx> {};

}  // namespace gemmkit::simd

#endif  // x86-64
