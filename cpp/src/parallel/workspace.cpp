// L2 parallel: per-thread packing scratch (64-byte aligned, grow-only).
#include "parallel/workspace.hpp"

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
  if (GEMMKIT_ALLOCATE_ALIGNED(&p, kAlign, size) != 0) return nullptr;
  GEMMKIT_FREE_ALIGNED(b.data);
  b.data = p;
  b.size = size;
  return p;
}

}  // namespace gemmkit::workspace
