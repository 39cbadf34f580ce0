// L2 parallel: the persistent worker pool.
//
// Workers sleep on a condition variable between jobs and spin briefly on a
// generation counter at barriers (a GEMM's barriers are microseconds apart).
// Between jobs, and the caller waiting for the team, spin for kSpinMicros
// first: back-to-back calls (a loop of batched products) then find the team
// awake.  Measured on a 2-core AMD EPYC (Zen 4) VM, 2026-12-01: waking a sleeping
// worker for every call left a batch of 10000 8x8x8 products at one core's
// speed after any idle moment; OpenBLAS spins for 0.1-0.5 s, which steals
// the core from whoever runs next, so the spin here stays short.
// One job runs at a time; a call that finds the pool busy (another Python
// thread is in a GEMM) runs serially instead of waiting, which keeps
// concurrent callers deadlock-free and their results unchanged.
#include "parallel/thread_pool.hpp"

// WebAssembly's threaded builds have their own pool (wasm_pool.cpp).
#if !defined(GEMMKIT_NO_THREADS) && !defined(__wasm__)
#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <bit>
#else
#include <pthread.h>
#include <sched.h>
#endif

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <exception>
#include <thread>
#include <vector>

#include "compiler.hpp"
#endif

#if defined(GEMMKIT_NO_THREADS) || !defined(__wasm__)
namespace gemmkit::parallel {

#if defined(GEMMKIT_NO_THREADS)

void run(int, JobFn fn, void* ctx) {
  Team team{0, 1, nullptr};
  fn(ctx, team);
}

void barrier(const Team&) {}

int available_cores() { return 1; }

#else

namespace {

constexpr int kSpinMicros = 100;

// Spins until done() or kSpinMicros have passed; true when done() held.
template <class Done>
bool spin_until(Done done) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
  for (int i = 0;; ++i) {
    if (done()) return true;
    cpu_pause();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > limit) return false;
  }
}

struct BarrierState {
  std::atomic<int> arrived{0};
  std::atomic<unsigned> generation{0};
  int size = 1;
};

class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }

  bool try_begin() { return busy_.try_lock(); }
  void end() { busy_.unlock(); }

  // Precondition: try_begin() succeeded.
  void execute(int threads, JobFn fn, void* ctx) {
    threads = grow(threads - 1) + 1;
    barrier_.arrived.store(0, std::memory_order_relaxed);
    barrier_.size = threads;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = fn;
      ctx_ = ctx;
      team_size_ = threads;
      pending_.store(threads - 1, std::memory_order_relaxed);
      ++job_id_;
      posted_.store(job_id_, std::memory_order_release);
    }
    wake_.notify_all();
    fn(ctx, Team{0, threads, &barrier_});
    if (spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; })) return;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
  }

 private:
  // Starts workers up to `helpers`; returns how many this job gets.  When
  // the system refuses a thread (a memory cap, a process limit) the job
  // runs with the ones there are, which gives the same result, and a later
  // job tries again: nothing stays degraded and nothing is thrown.
  int grow(int helpers) {
    while (static_cast<int>(workers_.size()) < helpers) {
      const int tid = static_cast<int>(workers_.size()) + 1;
      try {
        workers_.emplace_back([this, tid] { loop(tid); });
      } catch (const std::exception&) {  // std::system_error, or bad_alloc growing the list
        break;
      }
    }
    const int have = static_cast<int>(workers_.size());
    return helpers < have ? helpers : have;
  }

  void loop(int tid) {
    unsigned long seen = 0;
    for (;;) {
      JobFn fn;
      void* ctx;
      int size;
      spin_until([&] { return posted_.load(std::memory_order_acquire) != seen; });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || job_id_ != seen; });
        if (stopping_) return;
        seen = job_id_;
        if (tid >= team_size_) continue;  // not needed for this job
        fn = fn_;
        ctx = ctx_;
        size = team_size_;
      }
      fn(ctx, Team{tid, size, &barrier_});
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // The caller may be asleep: notify under the lock it checks under.
        std::lock_guard<std::mutex> lock(mutex_);
        done_.notify_one();
      }
    }
  }

  std::mutex busy_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  JobFn fn_ = nullptr;
  void* ctx_ = nullptr;
  int team_size_ = 0;
  std::atomic<int> pending_{0};
  unsigned long job_id_ = 0;
  std::atomic<unsigned long> posted_{0};  // job_id_, readable without the lock
  bool stopping_ = false;
  BarrierState barrier_;
};

std::atomic<Pool*> g_pool{nullptr};

#if !defined(_WIN32)
// A forked child has none of the parent's worker threads (and may have
// inherited locked mutexes): it starts over with a fresh pool.  The old one
// is leaked; its threads do not exist in this process.  (Windows has no fork.)
void reset_after_fork() { g_pool.store(nullptr, std::memory_order_relaxed); }
#endif

Pool& pool() {
  Pool* p = g_pool.load(std::memory_order_acquire);
  if (p) return *p;
#if !defined(_WIN32)
  static std::once_flag atfork_once;
  std::call_once(atfork_once, [] { pthread_atfork(nullptr, nullptr, reset_after_fork); });
#endif
  // Leaked on purpose: joining threads from a static destructor at
  // interpreter exit can deadlock.
  Pool* fresh = new Pool();
  Pool* expected = nullptr;
  if (!g_pool.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    delete fresh;  // another thread won the race; fresh never started a thread
    return *expected;
  }
  return *fresh;
}

}  // namespace

void run(int threads, JobFn fn, void* ctx) {
  if (threads > 1) {
    Pool& p = pool();
    if (p.try_begin()) {
      p.execute(threads, fn, ctx);
      p.end();
      return;
    }
  }
  fn(ctx, Team{0, 1, nullptr});
}

void barrier(const Team& team) {
  if (team.size <= 1) return;
  auto* b = static_cast<BarrierState*>(team.shared);
  const unsigned gen = b->generation.load(std::memory_order_acquire);
  if (b->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == b->size) {
    b->arrived.store(0, std::memory_order_relaxed);
    b->generation.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  int spins = 0;
  while (b->generation.load(std::memory_order_acquire) == gen) {
    if (++spins > 4096) std::this_thread::yield();
  }
}

int available_cores() {
  // Affinity is read once: a syscall per GEMM would dominate tiny products.
  static const int cores = [] {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
      const int n = CPU_COUNT(&set);
      if (n > 0) return n;
    }
#elif defined(_WIN32)
    // The process affinity mask (start /affinity, job objects) names the
    // cores of one processor group; with several groups the process may
    // run on all of them (Windows 11 and Server 2022 spread it so).
    DWORD_PTR process_mask = 0, system_mask = 0;
    if (GetActiveProcessorGroupCount() == 1 &&
        GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask) &&
        process_mask != 0) {
      return static_cast<int>(std::popcount(process_mask));
    }
    const DWORD all = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    if (all > 0) return static_cast<int>(all);
#endif
    const unsigned hw = std::thread::hardware_concurrency();
    return hw > 0 ? static_cast<int>(hw) : 1;
  }();
  return cores;
}

#endif  // GEMMKIT_NO_THREADS

}  // namespace gemmkit::parallel
#endif
