/* C ABI smoke test: the header compiles as C, the calls link, results and
 * errors come back as documented, for every entry: sgemm/dgemm, the generic
 * gemmkit_gemm (float16/bfloat16 bit patterns, the f32-output twins, int8
 * with wrapping), gemmkit_gemm_requant (ties, saturation, uint8, bias) and
 * the prepacked entries.  Prints "N passed, N failed". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmkit/gemmkit.h"

static int passed, failed;

static void check(int ok, const char* what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    printf("FAILED: %s (last error: %s)\n", what, gemmkit_last_error());
  }
}

/* The generic entry with float16 / bfloat16 storage (bit patterns) and the
 * f32-output twin: A = [[1, 2], [3, 4]], B = [[1, 0.5], [2, 1]], so
 * A @ B = [[5, 2.5], [11, 5.5]], every value exact in both types. */
static void narrow_types(void) {
  const uint16_t a16[4] = {0x3C00, 0x4000, 0x4200, 0x4400};
  const uint16_t b16[4] = {0x3C00, 0x3800, 0x4000, 0x3C00};
  const uint16_t want16[4] = {0x4500, 0x4100, 0x4980, 0x4580};
  const uint16_t abf[4] = {0x3F80, 0x4000, 0x4040, 0x4080};
  const uint16_t bbf[4] = {0x3F80, 0x3F00, 0x4000, 0x3F80};
  const uint16_t wantbf[4] = {0x40A0, 0x4020, 0x4130, 0x40B0};
  const float want32[4] = {5.0f, 2.5f, 11.0f, 5.5f};
  uint16_t c16[4];
  float c32[4];
  int st = gemmkit_gemm(GEMMKIT_F16, GEMMKIT_F16, 2, 2, 2, 1.0, a16, 2, 1, b16,
                        2, 1, 0.0, NULL, 0, 0, c16, 2, 1);
  check(st == GEMMKIT_OK && memcmp(c16, want16, sizeof c16) == 0,
        "gemm float16 -> float16");
  st = gemmkit_gemm(GEMMKIT_F16, GEMMKIT_F32, 2, 2, 2, 1.0, a16, 2, 1, b16, 2,
                    1, 0.0, NULL, 0, 0, c32, 2, 1);
  check(st == GEMMKIT_OK && memcmp(c32, want32, sizeof c32) == 0,
        "gemm float16 -> float32 (twin)");
  st = gemmkit_gemm(GEMMKIT_BF16, GEMMKIT_BF16, 2, 2, 2, 1.0, abf, 2, 1, bbf,
                    2, 1, 0.0, NULL, 0, 0, c16, 2, 1);
  check(st == GEMMKIT_OK && memcmp(c16, wantbf, sizeof c16) == 0,
        "gemm bfloat16 -> bfloat16");
  st = gemmkit_gemm(GEMMKIT_BF16, GEMMKIT_F32, 2, 2, 2, 1.0, abf, 2, 1, bbf, 2,
                    1, 0.0, NULL, 0, 0, c32, 2, 1);
  check(st == GEMMKIT_OK && memcmp(c32, want32, sizeof c32) == 0,
        "gemm bfloat16 -> float32 (twin)");
  /* Column-major B through strides, beta = 1 in place on the f32 twin. */
  const uint16_t b16t[4] = {0x3C00, 0x4000, 0x3800, 0x3C00};
  st = gemmkit_gemm(GEMMKIT_F16, GEMMKIT_F32, 2, 2, 2, 1.0, a16, 2, 1, b16t, 1,
                    2, 1.0, c32, 2, 1, c32, 2, 1);
  check(st == GEMMKIT_OK && c32[0] == 10.0f && c32[1] == 5.0f &&
            c32[2] == 22.0f && c32[3] == 11.0f,
        "gemm float16 twin, strided B, beta = 1 in place");
}

/* complex64 through the operand door: complex alpha, conj(a). */
static void complex_products(void) {
  const float a[4] = {1, 2, 3, -1};  /* [1+2i, 3-i] (1 x 2) */
  const float b[4] = {2, 0, 0, 1};   /* [2, i]^T   (2 x 1) */
  float c[2] = {0, 0};
  const gemmkit_operand va = {(void*)a, GEMMKIT_C64, GEMMKIT_OPERAND_READONLY, 1, 1, 2, 0, 2, 1};
  const gemmkit_operand vb = {(void*)b, GEMMKIT_C64, GEMMKIT_OPERAND_READONLY, 1, 2, 1, 0, 1, 1};
  const gemmkit_operand vc = {c, GEMMKIT_C64, 0, 1, 1, 1, 0, 1, 1};
  const double alpha[2] = {0, 1}, beta[2] = {0, 0};
  /* conj(a) b = (1-2i)2 + (3+i)i = 1 - i; times i: 1 + i. */
  int st = gemmkit_gemm_batched_ex(alpha, &va, &vb, NULL, beta, NULL, &vc, NULL,
                                   GEMMKIT_CONJ_A);
  check(st == GEMMKIT_OK && c[0] == 1.0f && c[1] == 1.0f,
        "gemm complex64 with alpha = i and conj(a)");
  const double real_alpha[2] = {1, 0.5};
  const gemmkit_operand vf = {c, GEMMKIT_F32, 0, 1, 1, 1, 0, 1, 1};
  const gemmkit_operand fa = {(void*)a, GEMMKIT_F32, GEMMKIT_OPERAND_READONLY, 1, 1, 1, 0, 1, 1};
  st = gemmkit_gemm_batched_ex(real_alpha, &fa, &fa, NULL, beta, NULL, &vf, NULL, 0);
  check(st == GEMMKIT_ERROR_VALUE && strstr(gemmkit_last_error(), "imaginary"),
        "a complex alpha for a float32 product is refused");
}

static void int8_products(void) {
  const signed char a[6] = {1, -2, 3, -4, 5, -6};
  const signed char b[6] = {7, -8, 9, 10, -11, 12};
  int c[4] = {100, 200, 300, 400};
  /* A @ B = [[-44, 8], [83, 10]]; 2 * AB - 1 * C. */
  int st = gemmkit_gemm(GEMMKIT_I8, GEMMKIT_I32, 2, 2, 3, 2.0, a, 3, 1, b, 2, 1,
                        -1.0, c, 2, 1, c, 2, 1);
  check(st == GEMMKIT_OK && c[0] == -188 && c[1] == -184 && c[2] == -134 &&
            c[3] == -380,
        "gemm int8 -> int32 with alpha = 2, beta = -1 in place");

  /* -128 * -128 summed 131073 times is 2^31 + 2^14: wraps to
   * -2^31 + 2^14 (int32 arithmetic modulo 2^32). */
  const size_t k = 131073;
  signed char* deep = malloc(k);
  int wrapped = 0;
  if (deep) {
    memset(deep, 0x80, k);
    st = gemmkit_gemm(GEMMKIT_I8, GEMMKIT_I32, 1, 1, k, 1.0, deep, (ptrdiff_t)k,
                      1, deep, 1, 1, 0.0, NULL, 0, 0, &wrapped, 1, 1);
    check(st == GEMMKIT_OK && wrapped == INT32_MIN + 16384,
          "gemm int8 wraps modulo 2^32");
    free(deep);
  }

  /* alpha / beta of an int8 product must be integers in int32 range. */
  int sink[4] = {0};
  st = gemmkit_gemm(GEMMKIT_I8, GEMMKIT_I32, 2, 2, 3, 0.5, a, 3, 1, b, 2, 1,
                    0.0, NULL, 0, 0, sink, 2, 1);
  check(st == GEMMKIT_ERROR_VALUE && strstr(gemmkit_last_error(), "alpha"),
        "int8 alpha = 0.5 is refused");
  st = gemmkit_gemm(GEMMKIT_I8, GEMMKIT_I32, 2, 2, 3, 1.0, a, 3, 1, b, 2, 1,
                    3e9, sink, 2, 1, sink, 2, 1);
  check(st == GEMMKIT_ERROR_VALUE && strstr(gemmkit_last_error(), "beta"),
        "int8 beta = 3e9 is refused");
  /* int8 -> int8 is numpy's matmul: the sums wrap modulo 2^8 (2 * 83 = 166
   * is -90). */
  signed char c8[4] = {0};
  st = gemmkit_gemm(GEMMKIT_I8, GEMMKIT_I8, 2, 2, 3, 2.0, a, 3, 1, b, 2, 1, 0.0,
                    NULL, 0, 0, c8, 2, 1);
  check(st == GEMMKIT_OK && c8[0] == -88 && c8[1] == 16 && c8[2] == -90 && c8[3] == 20,
        "gemm int8 -> int8 wraps modulo 2^8");
  st = gemmkit_gemm(GEMMKIT_F32, GEMMKIT_F16, 2, 2, 3, 1.0, a, 3, 1, b, 2, 1,
                    0.0, NULL, 0, 0, sink, 2, 1);
  check(st == GEMMKIT_ERROR_DTYPE && strstr(gemmkit_last_error(), "pair"),
        "float32 -> float16 is refused");
}

static void requant(void) {
  /* acc = 1 * b: ties at scale 0.5 round to even; saturation at both ends. */
  const signed char a[1] = {1};
  const signed char b[6] = {5, 3, -5, 7, 127, -128};
  const float half = 0.5f, four = 4.0f;
  signed char q[6];
  int st = gemmkit_gemm_requant(GEMMKIT_I8, 1, 6, 1, a, 1, 1, b, 6, 1, 0, &half,
                                0, 0, 0, NULL, 0, q, 6, 1);
  check(st == GEMMKIT_OK && q[0] == 2 && q[1] == 2 && q[2] == -2 && q[3] == 4 &&
            q[4] == 64 && q[5] == -64,
        "requant int8: round half to even");
  st = gemmkit_gemm_requant(GEMMKIT_I8, 1, 6, 1, a, 1, 1, b, 6, 1, 0, &four, 0,
                            -3, 0, NULL, 0, q, 6, 1);
  check(st == GEMMKIT_OK && q[0] == 17 && q[3] == 25 && q[4] == 127 &&
            q[5] == -128,
        "requant int8: zero point and saturation");
  /* Per-column bias, uint8 output with zero point 255 - 10. */
  const int bias[6] = {1, 1, 1, 1, -300, 300};
  unsigned char u[6];
  st = gemmkit_gemm_requant(GEMMKIT_U8, 1, 6, 1, a, 1, 1, b, 6, 1, 0, &half, 0,
                            245, 2, bias, 1, u, 6, 1);
  /* (acc + 1) * 0.5: 3, 2, -2, 4, -86.5 -> -86, 86 -> 255 */
  check(st == GEMMKIT_OK && u[0] == 248 && u[1] == 247 && u[2] == 243 &&
            u[3] == 249 && u[4] == 159 && u[5] == 255,
        "requant uint8 with per-column bias");
  /* k == 0: the map of the bias alone (ties still to even: 0.5 -> 0). */
  const int odd[3] = {1, 3, 5};
  st = gemmkit_gemm_requant(GEMMKIT_I8, 1, 3, 0, a, 1, 1, b, 1, 1, 0, &half, 0,
                            0, 2, odd, 1, q, 3, 1);
  check(st == GEMMKIT_OK && q[0] == 0 && q[1] == 2 && q[2] == 2,
        "requant with k = 0 maps the bias");
  const float zero = 0.0f;
  st = gemmkit_gemm_requant(GEMMKIT_I8, 1, 6, 1, a, 1, 1, b, 6, 1, 0, &zero, 0,
                            0, 0, NULL, 0, q, 6, 1);
  check(st == GEMMKIT_ERROR_VALUE, "requant scale 0 is refused");
  st = gemmkit_gemm_requant(GEMMKIT_I8, 1, 6, 1, a, 1, 1, b, 6, 1, 0, &half, 0,
                            200, 0, NULL, 0, q, 6, 1);
  check(st == GEMMKIT_ERROR_VALUE, "requant zero point outside int8 is refused");
  st = gemmkit_gemm_requant(GEMMKIT_I8, 1, 6, 1, a, 1, 1, b, 6, 1, 3, &half, 0,
                            0, 0, NULL, 0, q, 6, 1);
  check(st == GEMMKIT_ERROR_VALUE, "requant scale_kind 3 is refused");
  st = gemmkit_gemm_requant(GEMMKIT_I32, 1, 6, 1, a, 1, 1, b, 6, 1, 0, &half, 0,
                            0, 0, NULL, 0, q, 6, 1);
  check(st == GEMMKIT_ERROR_DTYPE, "requant to int32 is refused");
}

static void prepacked(void) {
  enum { M = 5, N = 7, K = 9 };
  float a[M * K], b[K * N], plain[M * N], packed_out[M * N];
  for (int i = 0; i < M * K; ++i) a[i] = (float)((i * 7) % 11) - 5.0f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)((i * 5) % 13) * 0.25f - 1.0f;
  gemmkit_packed_rhs* p = NULL;
  int st = gemmkit_prepack_rhs(GEMMKIT_F32, K, N, b, N, 1, &p);
  check(st == GEMMKIT_OK && p != NULL, "prepack float32");
  if (!p) return;
  const char* desc = gemmkit_packed_rhs_describe(p);
  check(strstr(desc, "\"dtype\":\"float32\"") && strstr(desc, "\"k\":9") &&
            strstr(desc, "\"n\":7") && strstr(desc, "\"kernel\":\"f32_gemm_"),
        "describe the packed operand");
  st = gemmkit_gemm(GEMMKIT_F32, GEMMKIT_F32, M, N, K, 1.5, a, K, 1, b, N, 1,
                    0.0, NULL, 0, 0, plain, N, 1);
  check(st == GEMMKIT_OK, "plain float32 product");
  st = gemmkit_gemm_packed(GEMMKIT_F32, M, 1.5, a, K, 1, p, 0.0, NULL, 0, 0,
                           packed_out, 1, M);
  float transposed[M * N];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) transposed[i * N + j] = packed_out[j * M + i];
  check(st == GEMMKIT_OK && memcmp(plain, transposed, sizeof plain) == 0,
        "packed float32 equals plain bit for bit");
  signed char q[M * N];
  const float one = 1.0f;
  st = gemmkit_gemm_requant_packed(GEMMKIT_I8, M, (const signed char*)a, K, 1,
                                   p, 0, &one, 0, 0, 0, NULL, 0, q, N, 1);
  check(st == GEMMKIT_ERROR_DTYPE, "requant with a float32 packed operand is refused");
  gemmkit_packed_rhs_free(p);

  signed char a8[M * K], b8[K * N], q8[M * N], q8p[M * N];
  for (int i = 0; i < M * K; ++i) a8[i] = (signed char)((i * 37) % 256 - 128);
  for (int i = 0; i < K * N; ++i) b8[i] = (signed char)((i * 91) % 256 - 128);
  st = gemmkit_prepack_rhs(GEMMKIT_I8, K, N, b8, 1, K, &p);
  check(st == GEMMKIT_OK && p != NULL, "prepack int8 (column-major B)");
  if (!p) return;
  const float scale = 0.01f;
  st = gemmkit_gemm_requant(GEMMKIT_I8, M, N, K, a8, K, 1, b8, 1, K, 0, &scale,
                            0, 1, 0, NULL, 0, q8, N, 1);
  check(st == GEMMKIT_OK, "plain requant");
  st = gemmkit_gemm_requant_packed(GEMMKIT_I8, M, a8, K, 1, p, 0, &scale, 0, 1,
                                   0, NULL, 0, q8p, N, 1);
  check(st == GEMMKIT_OK && memcmp(q8, q8p, sizeof q8) == 0,
        "packed requant equals plain");
  int i32[M * N];
  st = gemmkit_gemm_packed(GEMMKIT_I32, M, 1.5, a8, K, 1, p, 0.0, NULL, 0, 0,
                           i32, N, 1);
  check(st == GEMMKIT_ERROR_VALUE, "packed int8 with alpha = 1.5 is refused");
  gemmkit_packed_rhs_free(p);
  gemmkit_packed_rhs_free(NULL); /* a no-op, like free(NULL) */
  st = gemmkit_gemm_packed(GEMMKIT_F32, M, 1.0, a, K, 1, NULL, 0.0, NULL, 0, 0,
                           plain, N, 1);
  check(st == GEMMKIT_ERROR_VALUE, "a NULL packed operand is refused");
  st = gemmkit_prepack_rhs(GEMMKIT_I32, K, N, b8, 1, K, &p);
  check(st == GEMMKIT_ERROR_DTYPE && p == NULL, "prepack int32 is refused");
}

int main(void) {
  /* 2x3 @ 3x2, row-major, against hand-computed values. */
  const float a[6] = {1, 2, 3, 4, 5, 6};
  const float b[6] = {7, 8, 9, 10, 11, 12};
  float c[4] = {1, 1, 1, 1};
  int st = gemmkit_sgemm(2, 2, 3, 1.0f, a, 3, 1, b, 2, 1, 0.5f, c, 2, 1, c, 2, 1);
  check(st == GEMMKIT_OK, "sgemm status");
  check(c[0] == 58.5f && c[1] == 64.5f && c[2] == 139.5f && c[3] == 154.5f,
        "sgemm values with beta = 0.5 in place");

  /* Transposed view of B through strides (column-major B^T). */
  const double ad[4] = {1, 2, 3, 4};
  const double bd[4] = {5, 6, 7, 8};
  double cd[4];
  st = gemmkit_dgemm(2, 2, 2, 2.0, ad, 2, 1, bd, 1, 2, 0.0, NULL, 0, 0, cd, 2, 1);
  check(st == GEMMKIT_OK, "dgemm status");
  /* A @ B^T where B^T(p, j) = bd[p + 2 j]: [[17, 23], [39, 53]] * 2 */
  check(cd[0] == 34 && cd[1] == 46 && cd[2] == 78 && cd[3] == 106,
        "dgemm strided B");

  /* C aliasing itself is refused with a message. */
  st = gemmkit_sgemm(2, 2, 3, 1.0f, a, 3, 1, b, 2, 1, 0.0f, NULL, 0, 0, c, 0, 1);
  check(st == GEMMKIT_ERROR_STRIDE, "self-aliasing C is refused");
  check(strstr(gemmkit_last_error(), "aliases itself") != NULL,
        "self-aliasing message");

  /* Output overlapping an input is refused. */
  float buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  st = gemmkit_sgemm(2, 2, 2, 1.0f, buf, 2, 1, b, 2, 1, 0.0f, NULL, 0, 0, buf + 2, 2, 1);
  check(st == GEMMKIT_ERROR_OVERLAP, "overlap is refused");

  check(gemmkit_abi_version() == GEMMKIT_ABI_VERSION, "abi version");
  const char* info = gemmkit_dispatch_info_json();
  check(info != NULL && strstr(info, "\"float32\"") != NULL, "dispatch info");
  check(info != NULL && strstr(info, "\"float16\":{") &&
            strstr(info, "\"bfloat16\":{") && strstr(info, "\"int8\":{"),
        "dispatch info lists float16, bfloat16 and int8");

  narrow_types();
  int8_products();
  complex_products();
  requant();
  prepacked();

  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
