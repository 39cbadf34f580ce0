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

typedef struct gemmkit_packed_rhs gemmkit_packed_rhs;

/* Element types.  Every type numpy has a fixed-size name for has a code,
 * so a front end can describe any operand and let the core say what it does
 * not compute (gemmkit_codes_json() lists which pairs it does). */
typedef enum gemmkit_dtype {
  GEMMKIT_DTYPE_UNKNOWN = -1, /* a type gemmkit cannot even name */
  GEMMKIT_F32 = 0,
  GEMMKIT_F64 = 1,
  GEMMKIT_F16 = 2,  /* IEEE binary16 */
  GEMMKIT_BF16 = 3, /* bfloat16 */
  GEMMKIT_I8 = 4,
  GEMMKIT_I32 = 5,
  GEMMKIT_U8 = 6,
  GEMMKIT_BOOL = 7,
  GEMMKIT_I16 = 8,
  GEMMKIT_I64 = 9,
  GEMMKIT_U16 = 10,
  GEMMKIT_U32 = 11,
  GEMMKIT_U64 = 12,
  GEMMKIT_C64 = 13,  /* complex<float> */
  GEMMKIT_C128 = 14  /* complex<double> */
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

/* ---------------------------------------------------------------------
 * The operand door: one descriptor for every operand of every call.
 *
 * An operand is a matrix, or a batch of equally shaped matrices, of one
 * element type.  Strides count elements (not bytes) and may be negative or
 * zero (a zero batch stride broadcasts one matrix over the batch; zero row
 * or column strides broadcast a row or a column, which only inputs may do).
 * A vector (a bias, a scale) is rows values at stride rs, cols = 1.
 * The core checks everything about it: the dtype (pair), the shapes, the
 * batch counts (1 broadcasts), that every extent is addressable, that the
 * output addresses each element of the whole batch once and is writable,
 * and that it shares no byte with an input (c may be out itself).
 */
enum { GEMMKIT_OPERAND_READONLY = 1 /* the memory must not be written */ };

typedef struct gemmkit_operand {
  void* data;        /* element (0, 0) of matrix 0 */
  int dtype;         /* gemmkit_dtype */
  int flags;         /* GEMMKIT_OPERAND_* */
  size_t batch;      /* matrices (1 for one matrix; 0: an empty batch) */
  size_t rows, cols; /* of each matrix */
  ptrdiff_t batch_stride, rs, cs;
} gemmkit_operand;

/* Bias placement (epilogues and requantization). */
enum {
  GEMMKIT_BIAS_NONE = 0,
  GEMMKIT_BIAS_PER_ROW = 1, /* one value per output row (m values) */
  GEMMKIT_BIAS_PER_COL = 2  /* one value per output column (n values) */
};

/* Activations of the fused epilogue:
 *   RELU        max(v, 0); NaN -> 0, -0 -> +0
 *   LEAKY_RELU  max(v, 0) + slope * min(v, 0); NaN -> 0, -0 -> +0;
 *               slope finite
 *   CLIP        min(max(v, lo), hi); lo <= hi */
enum {
  GEMMKIT_ACT_NONE = 0,
  GEMMKIT_ACT_RELU = 1,
  GEMMKIT_ACT_CLIP = 2,
  GEMMKIT_ACT_LEAKY_RELU = 3
};

/* out = act(alpha * A * B + beta * C + bias), floating-point types only.
 * bias is a vector in the accumulator type (float32 for float16 and
 * bfloat16 inputs); the same bias serves every matrix of a batch. */
typedef struct gemmkit_epilogue {
  int bias_kind; /* GEMMKIT_BIAS_* */
  gemmkit_operand bias;
  int activation; /* GEMMKIT_ACT_* */
  double slope;   /* LEAKY_RELU */
  double lo, hi;  /* CLIP */
} gemmkit_epilogue;

/* Requantization of an int8 product (see gemmkit_gemm_requant): scale is
 * a float32 vector of 1, m or n values (scale_kind 0, 1, 2), bias an int32
 * vector of m or n values (bias_kind GEMMKIT_BIAS_*). */
typedef struct gemmkit_requant {
  int scale_kind;
  gemmkit_operand scale;
  int zero_point;
  int bias_kind;
  gemmkit_operand bias;
} gemmkit_requant;

/* out[i] = act(alpha * a[i] @ b[i] + beta * c[i] + bias) for every matrix i
 * of out's batch, as one call: parallel across the batch when each product
 * is small, across tiles when it is large.  b is NULL when packed_b is
 * given (then a's matrices are multiplied by it); c may be NULL (beta is
 * then ignored); epilogue may be NULL.  alpha and beta are converted to the
 * accumulator type (for int8 -> int32: integers in int32 range; for the
 * wrapping integer products: integers, reduced modulo the ring; for bool:
 * 1 and 0). */
GEMMKIT_API int gemmkit_gemm_batched(double alpha, const gemmkit_operand* a,
                                     const gemmkit_operand* b,
                                     const gemmkit_packed_rhs* packed_b,
                                     double beta, const gemmkit_operand* c,
                                     const gemmkit_operand* out,
                                     const gemmkit_epilogue* epilogue);

/* gemmkit_gemm_batched with complex scalars and conjugation: alpha and beta
 * are (real, imaginary) pairs (the imaginary parts must be 0 for real
 * products); flags are GEMMKIT_CONJ_A and GEMMKIT_CONJ_B (conj(a), conj(b):
 * complex inputs; no-ops for real ones; conj_b needs b, not packed_b). */
enum { GEMMKIT_CONJ_A = 1, GEMMKIT_CONJ_B = 2 };
GEMMKIT_API int gemmkit_gemm_batched_ex(const double alpha[2], const gemmkit_operand* a,
                                        const gemmkit_operand* b,
                                        const gemmkit_packed_rhs* packed_b,
                                        const double beta[2], const gemmkit_operand* c,
                                        const gemmkit_operand* out,
                                        const gemmkit_epilogue* epilogue, int flags);

/* The requantized int8 product of every matrix of out's batch (out int8 or
 * uint8); b or packed_b as above. */
GEMMKIT_API int gemmkit_gemm_requant_batched(const gemmkit_operand* a,
                                             const gemmkit_operand* b,
                                             const gemmkit_packed_rhs* packed_b,
                                             const gemmkit_requant* rq,
                                             const gemmkit_operand* out);

/* The code tables front ends read instead of copying them, as JSON:
 * "abi_version"; "status": {name: code} ("ok", "shape", "dtype", "stride",
 * "overlap", "value", "isa", "alloc", "internal"); "dtypes": {name: code};
 * "itemsize": {name: bytes}; "pairs": {input name: [output names, the
 * default first]}; "accumulators": {input name: accumulator name};
 * "requant_outputs": [names]; "activations" and
 * "bias_kinds": {name: code}.  Owned by the library. */
GEMMKIT_API const char* gemmkit_codes_json(void);

/* Dispatch decision as a JSON object keyed by dtype name ("float32", ...),
 * each with "isa", "kernel", "mr", "nr", "depth_multiple"; plus "threads",
 * "threads_source" (where that count came from: "set_num_threads",
 * "GEMMKIT_NUM_THREADS", "OMP_NUM_THREADS" or "cores"), "cpu_features" and
 * "compiled_isas".  Returns NULL (and sets the last error,
 * status GEMMKIT_ERROR_ISA) when GEMMKIT_REQUIRE_ISA cannot be honoured.
 * The string is owned by the library and lives until the process ends. */
GEMMKIT_API const char* gemmkit_dispatch_info_json(void);

/* Every ISA gemmkit knows (its registry, all architectures, whatever this
 * build holds), as a JSON array of objects {"name", "arch" ("x86_64",
 * "aarch64", "wasm32" or "any"), "aliases": [further GEMMKIT_REQUIRE_ISA
 * values], "features": [CPU features it needs, as "cpu_features" of
 * gemmkit_dispatch_info_json spells them], "compiled" and "usable" (this
 * build holds its kernels; this CPU and OS can run them, whatever the
 * pin)}, best last, so a front end can name any pin and list what runs here
 * even under a pin that cannot.  Never NULL; static, owned by the library. */
GEMMKIT_API const char* gemmkit_isa_table_json(void);

/* Worker threads used by large GEMMs, process-wide; n == 0 restores the
 * default (GEMMKIT_NUM_THREADS, else the first entry of OMP_NUM_THREADS,
 * else the cores available to the process). */
GEMMKIT_API int gemmkit_set_num_threads(size_t n);
GEMMKIT_API size_t gemmkit_get_num_threads(void);

/* The tuning knobs, in their registry's order, as a JSON array of objects
 * {"name" (its environment variable, e.g. "GEMMKIT_KC"), "default", "max"
 * (values above are clamped to it), "doc", "value" (what a call uses now)
 * and "origin" (where that came from: "setter", "environment", "profile"
 * or "default")}.  Owned by the library, valid until the next call on this
 * thread. */
GEMMKIT_API const char* gemmkit_knobs_json(void);
/* Sets the knob `name` process-wide (above the environment and the
 * profile; a value above its range is clamped), or drops that setting.
 * GEMMKIT_ERROR_VALUE for a name that is no knob. */
GEMMKIT_API int gemmkit_knob_set(const char* name, size_t value);
GEMMKIT_API int gemmkit_knob_reset(const char* name);
/* The tuning profile, read once: JSON {"status" ("loaded", "missing",
 * "none", "other_cpu", "unreadable" or "unsupported"), "path", "cpu" (what
 * the file names), "this_cpu" (what a profile for this machine must name)
 * and "values": {knob name: value} (empty unless loaded)}.  Owned by the
 * library, valid until the next call on this thread. */
GEMMKIT_API const char* gemmkit_profile_json(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GEMMKIT_GEMMKIT_H */
