// C++ GEMM oracle test: the dispatched kernels (whatever GEMMKIT_REQUIRE_ISA
// selects) against a naive double-precision product, over shapes that cross
// tile and block edges and over row-major, column-major, transposed and
// reversed layouts.  Runs without Python, so it also checks the NEON kernels
// under user-mode qemu.  Prints "N passed, N failed".
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gemmkit/gemmkit.hpp"

namespace {

int g_passed = 0, g_failed = 0;

// Deterministic values in [-1, 1).
double hashed(unsigned i, unsigned salt) {
  unsigned x = i * 2654435761u ^ (salt * 40503u + 0x9e3779b9u);
  x ^= x >> 15;
  x *= 2246822519u;
  x ^= x >> 13;
  return double(x % 2000u) / 1000.0 - 1.0;
}

template <class T>
void check(long m, long n, long k, int layout, T alpha, T beta) {
  // Storage: A m x k, B k x n, C m x n; layout picks the strides.
  std::vector<T> a(std::size_t(m * k) + 1), b(std::size_t(k * n) + 1);
  std::vector<T> c(std::size_t(m * n) + 1), c0;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = T(hashed(unsigned(i), 1));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = T(hashed(unsigned(i), 2));
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = T(hashed(unsigned(i), 3));
  c0 = c;
  gemmkit::MatrixRef<T> va{a.data(), m, k, k, 1};  // row-major
  gemmkit::MatrixRef<T> vb{b.data(), k, n, n, 1};
  gemmkit::MatrixMut<T> vc{c.data(), m, n, n, 1};
  if (layout == 1) {  // column-major everything
    va = {a.data(), m, k, 1, m};
    vb = {b.data(), k, n, 1, k};
    vc = {c.data(), m, n, 1, m};
  } else if (layout == 2 && m > 0 && k > 0) {  // A reversed in both axes
    va = {a.data() + (m * k - 1), m, k, -k, -1};
  }
  const gemmkit::MatrixRef<T> vci{vc.data, m, n, vc.rs, vc.cs};
  const int st = gemmkit::gemm<T>(alpha, va, vb, beta, &vci, vc);
  double worst = 0, scale = 0;
  for (long i = 0; i < m; ++i) {
    for (long j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (long p = 0; p < k; ++p) {
        const double x = double(va.data[i * va.rs + p * va.cs]);
        const double y = double(vb.data[p * vb.rs + j * vb.cs]);
        ref += x * y;
        mag += std::fabs(x * y);
      }
      const double old = double(c0[std::size_t(i * vc.rs + j * vc.cs)]);
      ref = double(alpha) * ref + double(beta) * old;
      const double got = double(vc.data[i * vc.rs + j * vc.cs]);
      const double tol = 4.0 * double(k + 2) *
                         double(sizeof(T) == 4 ? 1.1920929e-7 : 2.220446e-16) *
                         (std::fabs(double(alpha)) * mag + std::fabs(double(beta) * old));
      const double err = std::fabs(got - ref);
      if (err - tol > worst) worst = err - tol;
      scale += tol;
    }
  }
  if (st == GEMMKIT_OK && worst <= 0) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAILED %s m=%ld n=%ld k=%ld layout=%d status=%d excess=%g\n",
                sizeof(T) == 4 ? "f32" : "f64", m, n, k, layout, st, worst);
  }
}

}  // namespace

int main() {
  // A pin this CPU cannot run is a skip here (ctest SKIP_RETURN_CODE), not a
  // failure: the refusal itself is tested from Python.
  if (!gemmkit::dispatch_info_json()) {
    std::printf("skipped: %s\n", gemmkit::last_error());
    return 77;
  }
  // Around every tile height (4, 8, 16, 32 rows) and width (4..12 columns),
  // plus depths across a packed block (KC is a few hundred).
  const long dims[] = {1, 2, 3, 5, 7, 8, 9, 13, 17, 31, 33, 67};
  const long depths[] = {1, 2, 16, 65, 700};
  for (long m : dims) {
    for (long n : dims) {
      for (long k : depths) {
        const int layout = int((m + n + k) % 3);
        check<float>(m, n, k, layout, 1.0f, 0.0f);
        check<double>(m, n, k, layout, -0.5, 2.0);
      }
    }
  }
  check<float>(300, 200, 900, 0, 1.0f, 1.0f);
  check<double>(129, 257, 513, 1, 1.0, 0.0);
  const char* info = gemmkit::dispatch_info_json();
  std::printf("%s\n", info ? info : gemmkit::last_error());
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
