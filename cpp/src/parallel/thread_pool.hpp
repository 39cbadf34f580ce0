// L2 parallel: one persistent pool of worker threads per process.
//
// Everything here is compiled in baseline translation units only (no ISA
// flags); ISA code reaches it through these out-of-line functions, so no
// inline pool code is ever instantiated under AVX-512 flags.
#pragma once

namespace gemmkit::parallel {

// The threads working on one job.  tid 0 is always the calling thread.
struct Team {
  int tid;
  int size;
  void* shared;  // the pool's barrier state for this job
};

using JobFn = void (*)(void* ctx, const Team& team);

// Runs fn(ctx, team) on up to `threads` threads (the caller included) and
// returns when all have finished.  When the pool is busy with a call from
// another thread, or threads <= 1, runs fn once on the caller with size 1:
// jobs must produce the same result for every team size.
void run(int threads, JobFn fn, void* ctx);

// Blocks until every member of the team has arrived.
void barrier(const Team& team);

// Cores this process may run on (its affinity: sched_getaffinity on Linux,
// the process affinity mask on Windows; elsewhere the hardware threads), at
// least 1.
int available_cores();

}  // namespace gemmkit::parallel
