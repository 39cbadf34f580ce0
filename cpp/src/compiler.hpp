// Compiler and C runtime facts, in one place: each GCC/Clang extension the
// code uses, and what MSVC (cl.exe) says instead.  Below every layer: it
// depends on nothing in the project, so any file may include it.
//
// On GCC and Clang (clang-cl included: it takes the GNU spellings) each macro
// and function here is exactly the builtin, attribute or pragma the code
// spelled out before, so their generated code does not depend on this
// header.  The other branch is MSVC's documented equivalent, or nothing where
// MSVC has none (an unroll hint, a format check).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <type_traits>

#if defined(__GNUC__) || defined(__clang__)
#define GEMMKIT_GNU 1
#else
#define GEMMKIT_GNU 0
#endif

#if !GEMMKIT_GNU
#include <cmath>
#include <cstring>
#endif
#if !GEMMKIT_GNU && defined(_MSC_VER)
#include <intrin.h>
#endif

// GEMMKIT_INLINE: inline, and always inlined (the SimdOps vocabulary and the
// kernels' helpers are one or two instructions each).
// GEMMKIT_RESTRICT: the pointer is the only way to what it points to.
#if GEMMKIT_GNU
#define GEMMKIT_INLINE inline __attribute__((always_inline))
#define GEMMKIT_RESTRICT __restrict__
#elif defined(_MSC_VER)
#define GEMMKIT_INLINE __forceinline
#define GEMMKIT_RESTRICT __restrict
#else
#define GEMMKIT_INLINE inline
#define GEMMKIT_RESTRICT
#endif

// GEMMKIT_UNROLL(n): unroll the next loop n times (GCC's pragma, which Clang
// reads too).  MSVC has no unroll count and would warn (C4068) on the pragma.
#if GEMMKIT_GNU
#define GEMMKIT_PRAGMA(text) _Pragma(#text)
#define GEMMKIT_UNROLL(n) GEMMKIT_PRAGMA(GCC unroll n)
#else
#define GEMMKIT_UNROLL(n)
#endif

// GEMMKIT_PREFETCH_READ(p) / GEMMKIT_PREFETCH_WRITE(p): bring p's cache line
// into every cache level, to be read / written.  MSVC's branch reads for
// both (its PREFETCHW would need a CPUID check): the miss is hidden all the same.
#if GEMMKIT_GNU
#define GEMMKIT_PREFETCH_READ(p) __builtin_prefetch(p)
#define GEMMKIT_PREFETCH_WRITE(p) __builtin_prefetch(p, 1, 3)
#elif defined(_M_X64) || defined(_M_IX86)
#define GEMMKIT_PREFETCH_READ(p) _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0)
#define GEMMKIT_PREFETCH_WRITE(p) GEMMKIT_PREFETCH_READ(p)
#elif defined(_M_ARM64)
#define GEMMKIT_PREFETCH_READ(p) __prefetch(p)
#define GEMMKIT_PREFETCH_WRITE(p) __prefetch(p)
#else
#define GEMMKIT_PREFETCH_READ(p) static_cast<void>(p)
#define GEMMKIT_PREFETCH_WRITE(p) static_cast<void>(p)
#endif

// GEMMKIT_PRINTF_FORMAT(f, a): parameter f is a printf format for the
// arguments from a on (checked by GCC and Clang only).
#if GEMMKIT_GNU
#define GEMMKIT_PRINTF_FORMAT(f, a) __attribute__((format(printf, f, a)))
#else
#define GEMMKIT_PRINTF_FORMAT(f, a)
#endif

// GEMMKIT_MEMCPY, GEMMKIT_FABS, GEMMKIT_COPYSIGN: the builtins, which need no
// header and never become a library call (the wasm side module imports no
// libm); elsewhere the standard functions, which MSVC expands inline too.
#if GEMMKIT_GNU
#define GEMMKIT_MEMCPY __builtin_memcpy
#define GEMMKIT_FABS __builtin_fabs
#define GEMMKIT_COPYSIGN __builtin_copysign
#else
#define GEMMKIT_MEMCPY std::memcpy
#define GEMMKIT_FABS std::fabs
#define GEMMKIT_COPYSIGN std::copysign
#endif

// GEMMKIT_COMPILER_BARRIER(): no memory access moves across it (it emits no
// instruction).
#if GEMMKIT_GNU
#define GEMMKIT_COMPILER_BARRIER() __asm__ volatile("" : : : "memory")
#else
#define GEMMKIT_COMPILER_BARRIER() _ReadWriteBarrier()
#endif

// GEMMKIT_TARGET_AVX2_FMA_F16C: this unit is compiled for AVX2 with FMA and
// F16C (the fma row's flags, or any row above it).  MSVC defines neither
// __FMA__ nor __F16C__: its /arch:AVX2 enables FMA, and it compiles the F16C
// intrinsics at any /arch level.
#if defined(__AVX2__) && ((defined(__FMA__) && defined(__F16C__)) || (!GEMMKIT_GNU && defined(_MSC_VER)))
#define GEMMKIT_TARGET_AVX2_FMA_F16C 1
#else
#define GEMMKIT_TARGET_AVX2_FMA_F16C 0
#endif

namespace gemmkit {

namespace portable {

// a + b and a * b in T, wrapping modulo 2^bits; true when the exact result
// does not fit T (what __builtin_add_overflow / __builtin_mul_overflow
// return, for one integer type T): GEMMKIT_ADD_OVERFLOWS and
// GEMMKIT_MUL_OVERFLOWS on compilers without those builtins.
template <class T>
constexpr bool add_overflows(T a, T b, T* out) {
  static_assert(std::is_integral_v<T>);
  using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;  // never promoted to int
  *out = static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  if constexpr (std::is_unsigned_v<T>) {
    return *out < a;
  } else {
    return b > 0 ? a > std::numeric_limits<T>::max() - b : a < std::numeric_limits<T>::min() - b;
  }
}

template <class T>
constexpr bool mul_overflows(T a, T b, T* out) {
  static_assert(std::is_integral_v<T>);
  using U = std::common_type_t<std::make_unsigned_t<T>, unsigned>;
  *out = static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  if (a == 0 || b == 0) return false;
  constexpr T kMax = std::numeric_limits<T>::max();
  constexpr T kMin = std::numeric_limits<T>::min();
  if constexpr (std::is_unsigned_v<T>) {
    return a > kMax / b;
  } else {
    // No division here is kMin / -1.
    if (a > 0) return b > 0 ? a > kMax / b : b < kMin / a;
    return b > 0 ? a < kMin / b : a < kMax / b;
  }
}

}  // namespace portable

// One spin-wait step: tells the core this thread is polling (x86 pause,
// AArch64 yield), which frees resources for its sibling hyperthread.
inline void cpu_pause() {
#if GEMMKIT_GNU
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
#elif defined(_M_X64) || defined(_M_IX86)
  _mm_pause();
#elif defined(_M_ARM64)
  __yield();
#endif
}

#if defined(_WIN32)
// posix_memalign's contract on Windows, which lacks it: its _aligned_malloc
// blocks only _aligned_free may release.
inline int windows_allocate_aligned(void** out, std::size_t align, std::size_t size) {
  *out = _aligned_malloc(size, align);
  return *out ? 0 : ENOMEM;
}
#endif

}  // namespace gemmkit

// GEMMKIT_ADD_OVERFLOWS(a, b, out) / GEMMKIT_MUL_OVERFLOWS(a, b, out): a + b
// / a * b into *out (wrapping); true when the exact result overflows.  Both
// operands and *out of one integer type.  Macros, so that GCC and Clang see
// their builtin at the call itself (Clang's wasm code changed when it sat in
// an inline function).
#if GEMMKIT_GNU
#define GEMMKIT_ADD_OVERFLOWS(a, b, out) __builtin_add_overflow(a, b, out)
#define GEMMKIT_MUL_OVERFLOWS(a, b, out) __builtin_mul_overflow(a, b, out)
#else
#define GEMMKIT_ADD_OVERFLOWS(a, b, out) ::gemmkit::portable::add_overflows(a, b, out)
#define GEMMKIT_MUL_OVERFLOWS(a, b, out) ::gemmkit::portable::mul_overflows(a, b, out)
#endif

// GEMMKIT_ALLOCATE_ALIGNED(out, align, size): posix_memalign (0, or an error
// number); release the block with GEMMKIT_FREE_ALIGNED(p).  Macros, so that
// GCC still sees the posix_memalign call itself (it optimizes around it).
#if defined(_WIN32)
#define GEMMKIT_ALLOCATE_ALIGNED(out, align, size) \
  ::gemmkit::windows_allocate_aligned(out, align, size)
#define GEMMKIT_FREE_ALIGNED(p) _aligned_free(p)
#else
#define GEMMKIT_ALLOCATE_ALIGNED(out, align, size) posix_memalign(out, align, size)
#define GEMMKIT_FREE_ALIGNED(p) std::free(p)
#endif
