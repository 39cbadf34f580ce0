/* L8 api: the versioned C ABI of gemmkit.
 *
 * This is the surface the wasm builds export, the Pyodide backend and the web
 * loader call, and C users can call natively.  Every function returns a
 * status code; on failure gemmkit_last_error() holds a message for the
 * calling thread.  Nothing here traps or aborts on bad input.
 *
 * Matrices are described BLIS-style: a pointer to element (0, 0) plus signed
 * row and column strides counted in elements (not bytes).  Negative and
 * non-unit strides are allowed for A, B and C; C must address each (i, j)
 * uniquely and must not overlap A or B.
 *
 *   C_out <- alpha * A * B + beta * C_in
 *
 * C_in may be NULL (then beta is ignored and C_in is never read) or may be
 * the very same view as C_out (an in-place update).  beta == 0 never reads
 * C_in, so NaN there does not leak; alpha == 0 or k == 0 never reads A or B.
 */
#ifndef GEMMKIT_GEMMKIT_H
#define GEMMKIT_GEMMKIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define GEMMKIT_API __declspec(dllexport)
#else
#define GEMMKIT_API __attribute__((visibility("default")))
#endif

/* Bumped whenever a signature or the meaning of a status code changes. */
#define GEMMKIT_ABI_VERSION 1

typedef enum gemmkit_status {
  GEMMKIT_OK = 0,
  GEMMKIT_ERROR_SHAPE = 1,    /* dimensions do not agree */
  GEMMKIT_ERROR_DTYPE = 2,    /* unsupported element type or type pair */
  GEMMKIT_ERROR_STRIDE = 3,   /* C aliases itself, or an extent overflows */
  GEMMKIT_ERROR_OVERLAP = 4,  /* C overlaps A or B */
  GEMMKIT_ERROR_VALUE = 5,    /* a scalar argument is out of its domain */
  GEMMKIT_ERROR_ISA = 6,      /* GEMMKIT_REQUIRE_ISA cannot be honoured */
  GEMMKIT_ERROR_ALLOC = 7,    /* workspace allocation failed */
  GEMMKIT_ERROR_INTERNAL = 8  /* a bug: please report it */
} gemmkit_status;

/* GEMMKIT_ABI_VERSION of the library actually loaded. */
GEMMKIT_API int gemmkit_abi_version(void);

/* Library version, e.g. "0.1.0". */
GEMMKIT_API const char* gemmkit_version(void);

/* Message describing the last failed call on this thread ("" if none). */
GEMMKIT_API const char* gemmkit_last_error(void);

GEMMKIT_API int gemmkit_sgemm(size_t m, size_t n, size_t k, float alpha,
                              const float* a, ptrdiff_t rs_a, ptrdiff_t cs_a,
                              const float* b, ptrdiff_t rs_b, ptrdiff_t cs_b,
                              float beta, const float* c_in, ptrdiff_t rs_ci,
                              ptrdiff_t cs_ci, float* c_out, ptrdiff_t rs_co,
                              ptrdiff_t cs_co);

GEMMKIT_API int gemmkit_dgemm(size_t m, size_t n, size_t k, double alpha,
                              const double* a, ptrdiff_t rs_a, ptrdiff_t cs_a,
                              const double* b, ptrdiff_t rs_b, ptrdiff_t cs_b,
                              double beta, const double* c_in, ptrdiff_t rs_ci,
                              ptrdiff_t cs_ci, double* c_out, ptrdiff_t rs_co,
                              ptrdiff_t cs_co);

/* Element types of the generic entries below. */
typedef enum gemmkit_dtype {
  GEMMKIT_F32 = 0,
  GEMMKIT_F64 = 1,
  GEMMKIT_F16 = 2,  /* IEEE binary16 */
  GEMMKIT_BF16 = 3, /* bfloat16 */
  GEMMKIT_I8 = 4,
  GEMMKIT_I32 = 5,
  GEMMKIT_U8 = 6
} gemmkit_dtype;

/* Any supported (input, output) pair: (F32, F32), (F64, F64), (F16, F16),
 * (F16, F32), (BF16, BF16), (BF16, F32), (I8, I32).  alpha and beta are
 * converted to the accumulator type (float, double or int32; for I8 they
 * must be integers in int32 range). */
GEMMKIT_API int gemmkit_gemm(gemmkit_dtype in, gemmkit_dtype out, size_t m,
                             size_t n, size_t k, double alpha, const void* a,
                             ptrdiff_t rs_a, ptrdiff_t cs_a, const void* b,
                             ptrdiff_t rs_b, ptrdiff_t cs_b, double beta,
                             const void* c_in, ptrdiff_t rs_ci,
                             ptrdiff_t cs_ci, void* c_out, ptrdiff_t rs_co,
                             ptrdiff_t cs_co);

/* Requantized int8 product; out is GEMMKIT_I8 or GEMMKIT_U8.
 * scale_kind: 0 per tensor (scale[0]), 1 per row (m values), 2 per column
 * (n values), at scale_stride.  bias_kind: 0 none, 1 per row, 2 per column
 * (int32 values at bias_stride). */
GEMMKIT_API int gemmkit_gemm_requant(
    gemmkit_dtype out, size_t m, size_t n, size_t k, const signed char* a,
    ptrdiff_t rs_a, ptrdiff_t cs_a, const signed char* b, ptrdiff_t rs_b,
    ptrdiff_t cs_b, int scale_kind, const float* scale, ptrdiff_t scale_stride,
    int zero_point, int bias_kind, const int* bias, ptrdiff_t bias_stride,
    void* c_out, ptrdiff_t rs_co, ptrdiff_t cs_co);

/* A prepacked right-hand side (immutable; shareable between threads). */
typedef struct gemmkit_packed_rhs gemmkit_packed_rhs;

GEMMKIT_API int gemmkit_prepack_rhs(gemmkit_dtype in, size_t k, size_t n,
                                    const void* b, ptrdiff_t rs_b,
                                    ptrdiff_t cs_b, gemmkit_packed_rhs** out);
GEMMKIT_API void gemmkit_packed_rhs_free(gemmkit_packed_rhs* packed);
/* JSON: "dtype", "k", "n", "isa", "kernel", "bytes".  Owned by the packed
 * operand; valid until it is freed. */
GEMMKIT_API const char* gemmkit_packed_rhs_describe(
    const gemmkit_packed_rhs* packed);

/* gemmkit_gemm / gemmkit_gemm_requant with B prepacked (k and n are the
 * packed operand's; A must be m x k). */
GEMMKIT_API int gemmkit_gemm_packed(gemmkit_dtype out, size_t m, double alpha,
                                    const void* a, ptrdiff_t rs_a,
                                    ptrdiff_t cs_a,
                                    const gemmkit_packed_rhs* b, double beta,
                                    const void* c_in, ptrdiff_t rs_ci,
                                    ptrdiff_t cs_ci, void* c_out,
                                    ptrdiff_t rs_co, ptrdiff_t cs_co);
GEMMKIT_API int gemmkit_gemm_requant_packed(
    gemmkit_dtype out, size_t m, const signed char* a, ptrdiff_t rs_a,
    ptrdiff_t cs_a, const gemmkit_packed_rhs* b, int scale_kind,
    const float* scale, ptrdiff_t scale_stride, int zero_point, int bias_kind,
    const int* bias, ptrdiff_t bias_stride, void* c_out, ptrdiff_t rs_co,
    ptrdiff_t cs_co);

/* Dispatch decision as a JSON object keyed by dtype name ("float32", ...),
 * each with "isa", "kernel", "mr", "nr", "depth_multiple"; plus "threads",
 * "cpu_features" and "compiled_isas".  Returns NULL (and sets the last error,
 * status GEMMKIT_ERROR_ISA) when GEMMKIT_REQUIRE_ISA cannot be honoured.
 * The string is owned by the library and lives until the process ends. */
GEMMKIT_API const char* gemmkit_dispatch_info_json(void);

/* Worker threads used by large GEMMs; n == 0 restores the default
 * (GEMMKIT_NUM_THREADS, else the cores available to the process). */
GEMMKIT_API int gemmkit_set_num_threads(size_t n);
GEMMKIT_API size_t gemmkit_get_num_threads(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GEMMKIT_GEMMKIT_H */
