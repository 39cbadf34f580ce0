// L8 api: the per-thread last-error message behind every status code.
#pragma once

#include "compiler.hpp"

namespace gemmkit::api {

// Records a message for the calling thread and returns `status`.
int fail(int status, const char* fmt, ...) GEMMKIT_PRINTF_FORMAT(2, 3);

void clear_error();

// The calling thread's last message ("" if none).
const char* message();

}  // namespace gemmkit::api
