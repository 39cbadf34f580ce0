// L2 parallel: per-thread scratch memory for packing.
#pragma once

#include <cstddef>

namespace gemmkit::workspace {

// 64-byte aligned scratch owned by the calling thread, at least `bytes`
// long; grows (never shrinks) and is reused by the next call on this thread.
// Returns nullptr if the allocation fails.  Slots let one call hold several
// regions at once.
void* thread_buffer(int slot, std::size_t bytes);

constexpr int kSlotPack = 0;     // packed A and B panels of the driver
constexpr int kSlotSpecial = 1;  // GEMV and small-shape scratch
constexpr int kSlotScratch = 2;  // A-typed C scratch of the deep-K twin

}  // namespace gemmkit::workspace
