// L8 api: the per-thread last-error message behind every status code.
#pragma once

namespace gemmkit::api {

// Records a message for the calling thread and returns `status`.
int fail(int status, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

void clear_error();

// The calling thread's last message ("" if none).
const char* message();

}  // namespace gemmkit::api
