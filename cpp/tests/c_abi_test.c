/* C ABI smoke test: the header compiles as C, the calls link, results and
 * errors come back as documented.  Prints "N passed, N failed". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gemmkit/gemmkit.h"

static int passed, failed;

static void check(int ok, const char* what) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    printf("FAILED: %s\n", what);
  }
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

  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
