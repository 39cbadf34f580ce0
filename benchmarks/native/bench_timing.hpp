// Timing shared by the C++ benchmark helpers of this directory
// (dot_kernel_peak.cpp, amx_loop_probe.cpp).
#pragma once

#include <time.h>

namespace bench_timing {

inline double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Runs f(reps) with reps doubling until one run lasts a quarter of
// `seconds`; returns the best seconds per rep over three such runs.
template <class F>
double time_per_rep(double seconds, F f) {
  long reps = 1;
  for (;;) {
    const double t0 = now();
    f(reps);
    if (now() - t0 >= seconds / 4) break;
    reps *= 2;
  }
  double best = 1e30;
  for (int k = 0; k < 3; ++k) {
    const double t0 = now();
    f(reps);
    const double dt = (now() - t0) / double(reps);
    best = dt < best ? dt : best;
  }
  return best;
}

// The same for a function of no argument, called reps times per run.
template <class F>
double time_per_call(double seconds, F f) {
  return time_per_rep(seconds, [&f](long reps) {
    for (long r = 0; r < reps; ++r) f();
  });
}

}  // namespace bench_timing
