// The portable wheel's glibc floor (GEMMKIT_PORTABLE_WHEEL, CMakeLists.txt).
//
// A manylinux_2_28 wheel may need no glibc symbol version newer than 2.28,
// but a build machine with a newer glibc binds every reference to the newest
// default version there: glibc 2.34 moved the pthread functions into libc.so.6
// under GLIBC_2.34, and the static libstdc++ of such a machine reads
// __libc_single_threaded (2.32).  The references come from our objects and from
// libstdc++.a alike, so a .symver in our sources alone cannot move them.
// Instead this file DEFINES those names, hidden (never exported), so that the
// link resolves every reference to them here rather than in libc.so.6:
//   - each pthread function is a one-jump forwarder to the same function at
//     the architecture's base version (GLIBC_2.2.5 on x86_64, GLIBC_2.17 on
//     aarch64), which glibc 2.34+ keeps in libc.so.6 for old binaries and older
//     glibc exports from libpthread.so.0 (the dynamic linker matches a symbol
//     by name and version, not by library; CMake also links libpthread.so.0);
//   - __libc_single_threaded is a constant 0, "other threads may exist", so
//     libstdc++ always takes its atomic paths (always correct, and what it
//     does anyway once a second thread has been started).
// Nothing is added where the build machine's glibc already has the old
// defaults (a manylinux_2_28 container) or is not glibc (musl); anything else
// newer than 2.28 fails tools/build_wheel.py's check, which names it.
#if defined(__linux__)
#include <features.h>  // __GLIBC__, __GLIBC_PREREQ (musl has the header, not the macros)
#endif
#if defined(__GLIBC__)

#if defined(__x86_64__)
#define GEMMKIT_GLIBC_BASE "GLIBC_2.2.5"
#define GEMMKIT_TAIL_JUMP(target) "jmp " target "@PLT"
#elif defined(__aarch64__)
#define GEMMKIT_GLIBC_BASE "GLIBC_2.17"
#define GEMMKIT_TAIL_JUMP(target) "b " target
#else
#error "GEMMKIT_PORTABLE_WHEEL: no glibc floor for this architecture (x86_64 and aarch64 have one)"
#endif

// NAME, hidden, jumps to NAME@GEMMKIT_GLIBC_BASE (reached through the local
// alias gemmkit_glibc_NAME, which .symver binds to that version).
#define GEMMKIT_GLIBC_FORWARD(name)                                        \
  __asm__(".symver gemmkit_glibc_" #name ", " #name "@" GEMMKIT_GLIBC_BASE "\n" \
          ".pushsection .text." #name ",\"ax\",%progbits\n"                \
          ".globl " #name "\n"                                             \
          ".hidden " #name "\n"                                            \
          ".type " #name ", %function\n"                                   \
          #name ":\n"                                                      \
          "  " GEMMKIT_TAIL_JUMP("gemmkit_glibc_" #name) "\n"              \
          ".size " #name ", . - " #name "\n"                               \
          ".popsection\n")

#if __GLIBC_PREREQ(2, 34)
// The functions libstdc++ (threads, once, TLS keys, mutexes) and
// cpp/src/parallel use that 2.34 gave new versions.
GEMMKIT_GLIBC_FORWARD(pthread_create);
GEMMKIT_GLIBC_FORWARD(pthread_join);
GEMMKIT_GLIBC_FORWARD(pthread_detach);
GEMMKIT_GLIBC_FORWARD(pthread_once);
GEMMKIT_GLIBC_FORWARD(pthread_key_create);
GEMMKIT_GLIBC_FORWARD(__pthread_key_create);
GEMMKIT_GLIBC_FORWARD(pthread_key_delete);
GEMMKIT_GLIBC_FORWARD(pthread_getspecific);
GEMMKIT_GLIBC_FORWARD(pthread_setspecific);
GEMMKIT_GLIBC_FORWARD(pthread_mutex_trylock);
#endif

#if __GLIBC_PREREQ(2, 32)
extern "C" {
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;
}
#endif

#endif  // __GLIBC__
