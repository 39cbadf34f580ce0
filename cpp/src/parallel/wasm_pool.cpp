// L2 parallel, WebAssembly with threads: the pool of a threaded standalone
// module (gemmkit-<isa>-threads.wasm).
//
// The workers are the loader's Web Workers (wasm/gemmkit.mjs): each holds its
// own instance of the module over the one shared memory, gives itself a stack
// and a TLS block the main instance allocated, and then calls
// gemmkit_wasm_worker(tid), which serves jobs until gemmkit_wasm_stop().  The
// thread that calls the C ABI (the page's or node's main thread) is tid 0 of
// every team; a browser's main thread may not block (memory.atomic.wait traps
// there), so tid 0 only ever spins, and only the workers sleep.
//
// Each worker has its own mailbox (a job and a sequence number it waits on),
// written only while that worker is idle, so a worker can never read half of
// a job or one meant for another team.  The partition of the work is the
// native one (parallel/partition.hpp: the depth is never split), so results
// are bit-identical to one thread.
//
// Debian's wasi-libc has no threads build: its malloc takes no lock.  A job
// allocates only through workspace::thread_buffer, which takes a lock in
// these builds, and all other allocation (the loader's, the planning of a
// call) happens while no job runs; the rest of libc a job touches (memcpy,
// memset) keeps no state.  Every function-local static of the core is first
// reached by tid 0 while it plans the call, before any worker runs (the
// build has -fno-threadsafe-statics).
#include "parallel/thread_pool.hpp"

#if defined(__wasm__) && !defined(GEMMKIT_NO_THREADS)

#include <atomic>
#include <cstddef>
#include <cstdint>

#define GEMMKIT_WASM_EXPORT extern "C" __attribute__((visibility("default")))

namespace gemmkit::parallel {

namespace {

constexpr int kMaxHelpers = 63;
// Polls of a word before a worker sleeps on it (about 50-100 us in V8):
// back-to-back products then find their team awake, as natively.
constexpr int kSpinPolls = 1 << 16;

struct alignas(64) Mailbox {
  std::atomic<std::int32_t> seq{0};  // jobs posted to this worker so far
  std::atomic<std::int32_t> served{0};  // jobs it has finished
  JobFn fn = nullptr;
  void* ctx = nullptr;
  int size = 0;
};

struct alignas(64) BarrierState {
  std::atomic<int> arrived{0};
  std::atomic<std::int32_t> generation{0};
  int size = 1;
};

Mailbox g_box[kMaxHelpers + 1];  // by tid; 0 unused (tid 0 is the caller)
std::atomic<int> g_helpers{0};   // workers serving, set by the loader
std::atomic<int> g_pending{0};   // helpers still in the current job
std::atomic<int> g_busy{0};
std::atomic<int> g_stopping{0};
BarrierState g_barrier;

std::int32_t* futex(std::atomic<std::int32_t>& word) {
  static_assert(sizeof(std::atomic<std::int32_t>) == sizeof(std::int32_t));
  return reinterpret_cast<std::int32_t*>(&word);
}

void wake(std::atomic<std::int32_t>& word) {
  __builtin_wasm_memory_atomic_notify(futex(word), ~0u);
}

// Spins, then (workers only: tid 0 may be a browser's main thread) sleeps
// until `word` differs from `seen`; returns its new value.
std::int32_t await_change(std::atomic<std::int32_t>& word, std::int32_t seen, bool may_sleep) {
  for (int polls = 0;;) {
    const std::int32_t now = word.load(std::memory_order_acquire);
    if (now != seen) return now;
    if (polls < kSpinPolls) {
      ++polls;  // counts up to the limit only: tid 0 may spin for seconds
    } else if (may_sleep) {
      __builtin_wasm_memory_atomic_wait32(futex(word), seen, -1);
    }
  }
}

}  // namespace

void run(int threads, JobFn fn, void* ctx) {
  const int helpers = g_helpers.load(std::memory_order_acquire);
  if (threads > helpers + 1) threads = helpers + 1;
  if (threads <= 1 || g_busy.exchange(1, std::memory_order_acquire) != 0) {
    fn(ctx, Team{0, 1, nullptr});
    return;
  }
  g_barrier.arrived.store(0, std::memory_order_relaxed);
  g_barrier.size = threads;
  g_pending.store(threads - 1, std::memory_order_relaxed);
  for (int tid = 1; tid < threads; ++tid) {
    Mailbox& box = g_box[tid];  // idle: its last job ended before the last run returned
    box.fn = fn;
    box.ctx = ctx;
    box.size = threads;
    box.seq.fetch_add(1, std::memory_order_release);
    wake(box.seq);
  }
  fn(ctx, Team{0, threads, &g_barrier});
  while (g_pending.load(std::memory_order_acquire) != 0) {
  }
  g_busy.store(0, std::memory_order_release);
}

void barrier(const Team& team) {
  if (team.size <= 1) return;
  auto* b = static_cast<BarrierState*>(team.shared);
  const std::int32_t gen = b->generation.load(std::memory_order_acquire);
  if (b->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == b->size) {
    b->arrived.store(0, std::memory_order_relaxed);
    b->generation.fetch_add(1, std::memory_order_acq_rel);
    wake(b->generation);
    return;
  }
  await_change(b->generation, gen, team.tid != 0);
}

int available_cores() { return g_helpers.load(std::memory_order_acquire) + 1; }

}  // namespace gemmkit::parallel

using gemmkit::parallel::Team;

// How many workers serve from now on (the loader calls it once they all run
// gemmkit_wasm_worker, or will); returns the count kept (at most 63).
GEMMKIT_WASM_EXPORT int gemmkit_wasm_set_helpers(int helpers) {
  using namespace gemmkit::parallel;
  if (helpers < 0) helpers = 0;
  if (helpers > kMaxHelpers) helpers = kMaxHelpers;
  g_helpers.store(helpers, std::memory_order_release);
  return helpers;
}

// The loop of worker `tid` (1..63): serves the jobs posted to its mailbox
// until gemmkit_wasm_stop(); returns 0 then, -1 for a tid out of range.
GEMMKIT_WASM_EXPORT int gemmkit_wasm_worker(int tid) {
  using namespace gemmkit::parallel;
  if (tid < 1 || tid > kMaxHelpers) return -1;
  Mailbox& box = g_box[tid];
  std::int32_t seen = 0;
  for (;;) {
    seen = await_change(box.seq, seen, true);
    if (g_stopping.load(std::memory_order_acquire) != 0) return 0;
    box.fn(box.ctx, Team{tid, box.size, &g_barrier});
    box.served.fetch_add(1, std::memory_order_relaxed);
    g_pending.fetch_sub(1, std::memory_order_acq_rel);
  }
}

// Jobs worker `tid` has finished (0 for a tid out of range): how a caller
// sees that its workers took part.
GEMMKIT_WASM_EXPORT int gemmkit_wasm_jobs_served(int tid) {
  using namespace gemmkit::parallel;
  if (tid < 1 || tid > kMaxHelpers) return 0;
  return g_box[tid].served.load(std::memory_order_relaxed);
}

// Ends every worker's loop (the loader's close()); no job may be running.
GEMMKIT_WASM_EXPORT void gemmkit_wasm_stop() {
  using namespace gemmkit::parallel;
  g_helpers.store(0, std::memory_order_release);
  g_stopping.store(1, std::memory_order_release);
  for (int tid = 1; tid <= kMaxHelpers; ++tid) {
    g_box[tid].seq.fetch_add(1, std::memory_order_release);
    wake(g_box[tid].seq);
  }
}

#endif  // __wasm__ && !GEMMKIT_NO_THREADS
