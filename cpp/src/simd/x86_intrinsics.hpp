// L0 simd: <immintrin.h> for every x86 header of ours; include it from here
// only, never directly.
//
// GCC 12.0 to 12.2 warn -Wmaybe-uninitialized (or -Wuninitialized) inside
// their own AVX-512 headers wherever an intrinsic that passes
// _mm512_undefined_*() as the merge source of an all-ones mask (a value the
// instruction never reads) is inlined into our code: the deliberately
// self-initialised `__Y = __Y` of avx512fintrin.h (GCC bug 105593, fixed in
// 12.3).  Hundreds of them per build would hide real warnings, so on those
// versions both are ignored for the lines of the intrinsic headers alone:
// GCC checks the diagnostic state at the reported (header) line, also after
// inlining, and our own lines keep both warnings.  (A vector of ours used
// uninitialised straight inside an intrinsic is reported at a header line
// too, so GCC 12.0-12.2 miss that one; clang's -Wsometimes-uninitialized,
// in the fuzz build of every unit, still catches it.)  A pragma covers a
// header's lines only where it is first included, hence one include site.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12 && \
    __GNUC_MINOR__ < 3
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
