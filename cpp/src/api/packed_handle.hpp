// L8 api: the C handle of a packed right-hand side (gemmkit.h's opaque
// gemmkit_packed_rhs): the C++ object plus what the C ABI reports about it
// (the describe JSON lives as long as the handle).
#pragma once

#include <cstddef>

#include "gemmkit/gemmkit.h"
#include "gemmkit/gemmkit.hpp"

struct gemmkit_packed_rhs {
  gemmkit::PackedRhs* packed;
  gemmkit_dtype dtype;
  size_t k, n;
  char json[384];
};
