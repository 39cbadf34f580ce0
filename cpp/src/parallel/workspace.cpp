// L2 parallel: per-thread packing scratch (64-byte aligned, grow-only).
#include "parallel/workspace.hpp"

#include <atomic>

#include "compiler.hpp"

namespace gemmkit::workspace {

namespace {

constexpr int kSlots = 3;
constexpr std::size_t kAlign = 64;

struct Buffer {
  void* data = nullptr;
  std::size_t size = 0;
};

#if defined(GEMMKIT_NO_THREADS)
// Single-threaded builds (wasm): a plain static, so no thread-exit hooks
// from the C++ runtime are needed.
struct ThreadBuffers {
  Buffer slots[kSlots];
};
ThreadBuffers tls;
#elif defined(__wasm__)
// Threaded wasm builds: one set per worker, never freed (a worker lives as
// long as its module, and wasi-libc has no thread-exit hooks).  wasi-libc's
// malloc takes no lock, and workers grow their buffers inside a job: every
// allocation here holds this one (wasm_pool.cpp says why it is the only one
// a job makes).
struct ThreadBuffers {
  Buffer slots[kSlots];
};
thread_local ThreadBuffers tls;
std::atomic_flag g_allocating = ATOMIC_FLAG_INIT;
struct AllocationLock {
  AllocationLock() {
    while (g_allocating.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~AllocationLock() { g_allocating.clear(std::memory_order_release); }
  AllocationLock(const AllocationLock&) = delete;
  AllocationLock& operator=(const AllocationLock&) = delete;
};
#define GEMMKIT_HAS_ALLOCATION_LOCK 1
#else
struct ThreadBuffers {
  Buffer slots[kSlots];
  ~ThreadBuffers() {
    for (auto& b : slots) GEMMKIT_FREE_ALIGNED(b.data);
  }
};
thread_local ThreadBuffers tls;
#endif

}  // namespace

void* thread_buffer(int slot, std::size_t bytes) {
  if (slot < 0 || slot >= kSlots) return nullptr;
  Buffer& b = tls.slots[slot];
  if (bytes <= b.size && b.data) return b.data;
  // Round up to a power of two so a growing sequence of calls reallocates
  // O(log n) times.
  std::size_t size = 4096;
  while (size < bytes) {
    if (size > (~std::size_t(0)) / 2) return nullptr;
    size *= 2;
  }
  void* p = nullptr;
  {
#if defined(GEMMKIT_HAS_ALLOCATION_LOCK)
    AllocationLock lock;
#endif
    if (GEMMKIT_ALLOCATE_ALIGNED(&p, kAlign, size) != 0) return nullptr;
    GEMMKIT_FREE_ALIGNED(b.data);
  }
  b.data = p;
  b.size = size;
  return p;
}

}  // namespace gemmkit::workspace
