# Toolchain file: wasm32-wasi with Debian's clang and lld, no emsdk (the
# "wasm" preset of CMakePresets.json uses it; wasm/CMakeLists.txt builds the
# modules).  It takes the newest clang-N (N >= 17) that has every piece:
#
#   clang-N, clang++-N    (clang-N)             the compilers
#   wasm-ld-N             (lld-N)               the linker, called directly
#   llvm-ar-N             (llvm-N)              archiver of CMake's checks, if there
#   wasm32-wasi/c++/v1    (libc++-N-dev-wasm32) the C++ headers
#   libclang_rt.builtins  (libclang-rt-N-dev-wasm32) compiler-rt, if there
#   /usr/lib/wasm32-wasi  (wasi-libc)           libc, its headers, crt1-*.o
#
# Each is a cache variable (GEMMKIT_WASM_LLVM, _CC, _CXX, _LD, _AR,
# _LIBCXX_INCLUDE, _WASI_INCLUDE, _WASI_LIB, _BUILTINS), found at a build
# folder's first configure step and kept: -DGEMMKIT_WASM_LLVM=<N> there picks
# that version; a given GEMMKIT_WASM_CXX skips the search (then give all).
#
# Run as a script (cmake -P this-file) it prints what it found, one
# "key=value" line each, for wasm/build.py --print-toolchain.

set(GEMMKIT_WASM_MIN_LLVM 17)
set(_gemmkit_wasm_apt_hint
    "apt-get install -y clang-19 lld-19 libc++-19-dev-wasm32 libclang-rt-19-dev-wasm32 wasi-libc")

# _gemmkit_wasm_tool(<var> <name> <llvm>): <name>-<llvm> on the PATH, else
# the unversioned tool in /usr/lib/llvm-<llvm>/bin; empty if neither.
function(_gemmkit_wasm_tool var name llvm)
  find_program(_found NAMES ${name}-${llvm} NO_CACHE)
  if(NOT _found AND EXISTS /usr/lib/llvm-${llvm}/bin/${name})
    set(_found /usr/lib/llvm-${llvm}/bin/${name})
  endif()
  if(NOT _found)
    set(_found "")
  endif()
  set(${var} "${_found}" PARENT_SCOPE)
endfunction()

# _gemmkit_wasm_libcxx_include(<var> <llvm>): the folder holding libc++'s
# wasm32 <vector>: where the package says it put it, else the usual places.
function(_gemmkit_wasm_libcxx_include var llvm)
  set(candidates "")
  find_program(_dpkg dpkg NO_CACHE)
  if(_dpkg)
    execute_process(COMMAND ${_dpkg} -L libc++-${llvm}-dev-wasm32
      OUTPUT_VARIABLE _listing ERROR_QUIET RESULT_VARIABLE _status)
    if(_status EQUAL 0)
      string(REGEX MATCHALL "[^\n]*wasm32-wasi/c\\+\\+/v1/?\n" candidates "${_listing}")
      string(REGEX REPLACE "/?\n" "" candidates "${candidates}")
    endif()
  endif()
  list(APPEND candidates /usr/lib/llvm-${llvm}/include/wasm32-wasi/c++/v1
                         /usr/lib/llvm-${llvm}/include/wasm32-wasip1/c++/v1)
  foreach(dir IN LISTS candidates)
    if(EXISTS ${dir}/vector)
      set(${var} ${dir} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${var} "" PARENT_SCOPE)
endfunction()

# _gemmkit_wasm_detect(): fills the cache variables, or stops saying what
# is missing and how to install it.
function(_gemmkit_wasm_detect)
  foreach(dir /usr/lib/wasm32-wasi /usr/lib/wasm32-wasip1)
    if(NOT wasi_lib AND EXISTS ${dir}/libc.a)
      set(wasi_lib ${dir})
    endif()
  endforeach()
  foreach(dir /usr/include/wasm32-wasi /usr/include/wasm32-wasip1)
    if(NOT wasi_include AND EXISTS ${dir}/stdlib.h)
      set(wasi_include ${dir})
    endif()
  endforeach()
  if(GEMMKIT_WASM_LLVM)
    set(versions ${GEMMKIT_WASM_LLVM})
  else()
    file(GLOB compilers /usr/bin/clang++-* /usr/lib/llvm-*/bin/clang++)
    set(versions "")
    foreach(path IN LISTS compilers)
      if(path MATCHES "(clang\\+\\+-|llvm-)([0-9]+)")
        list(APPEND versions ${CMAKE_MATCH_2})
      endif()
    endforeach()
    list(REMOVE_DUPLICATES versions)
    list(SORT versions COMPARE NATURAL ORDER DESCENDING)
  endif()
  set(problems "")
  foreach(llvm IN LISTS versions)
    if(llvm LESS GEMMKIT_WASM_MIN_LLVM)
      continue()
    endif()
    _gemmkit_wasm_tool(cc clang ${llvm})
    _gemmkit_wasm_tool(cxx clang++ ${llvm})
    _gemmkit_wasm_tool(ld wasm-ld ${llvm})
    _gemmkit_wasm_tool(ar llvm-ar ${llvm})
    _gemmkit_wasm_libcxx_include(libcxx ${llvm})
    set(missing "")
    if(NOT cc OR NOT cxx)
      list(APPEND missing "clang++")
    endif()
    if(NOT ld)
      list(APPEND missing "wasm-ld (lld)")
    endif()
    if(NOT libcxx)
      list(APPEND missing "libc++ wasm32 headers")
    endif()
    if(missing)
      list(JOIN missing ", " missing)
      list(APPEND problems "llvm-${llvm}: missing ${missing}")
      continue()
    endif()
    if(NOT wasi_lib OR NOT wasi_include)
      message(FATAL_ERROR "wasi-libc not found (/usr/lib/wasm32-wasi/libc.a); "
                          "install it: ${_gemmkit_wasm_apt_hint}")
    endif()
    file(GLOB builtins
      /usr/lib/llvm-${llvm}/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a)
    list(SORT builtins)
    list(POP_FRONT builtins builtin)
    set(GEMMKIT_WASM_LLVM ${llvm} CACHE STRING "LLVM major version of the wasm32 toolchain")
    set(GEMMKIT_WASM_CC ${cc} CACHE FILEPATH "clang for wasm32")
    set(GEMMKIT_WASM_CXX ${cxx} CACHE FILEPATH "clang++ for wasm32")
    set(GEMMKIT_WASM_LD ${ld} CACHE FILEPATH "wasm-ld")
    set(GEMMKIT_WASM_AR "${ar}" CACHE FILEPATH "llvm-ar (empty: CMake's own choice)")
    set(GEMMKIT_WASM_LIBCXX_INCLUDE ${libcxx} CACHE PATH "libc++'s wasm32 headers")
    set(GEMMKIT_WASM_WASI_INCLUDE ${wasi_include} CACHE PATH "wasi-libc's headers")
    set(GEMMKIT_WASM_WASI_LIB ${wasi_lib} CACHE PATH "wasi-libc's libc.a and crt1-*.o")
    set(GEMMKIT_WASM_BUILTINS "${builtin}" CACHE FILEPATH
        "compiler-rt's builtins for wasm32 (empty: none installed)")
    return()
  endforeach()
  list(JOIN problems "; " detail)
  if(NOT detail)
    set(detail "no clang++-N found")
  endif()
  message(FATAL_ERROR "no usable clang >= ${GEMMKIT_WASM_MIN_LLVM} for wasm32 (${detail}); "
                      "install one, e.g.: ${_gemmkit_wasm_apt_hint}")
endfunction()

set(_gemmkit_wasm_vars GEMMKIT_WASM_LLVM GEMMKIT_WASM_CC GEMMKIT_WASM_CXX GEMMKIT_WASM_LD
    GEMMKIT_WASM_AR GEMMKIT_WASM_LIBCXX_INCLUDE GEMMKIT_WASM_WASI_INCLUDE GEMMKIT_WASM_WASI_LIB
    GEMMKIT_WASM_BUILTINS)
# Found once; try_compile projects get the values (they see no cache).
if(NOT GEMMKIT_WASM_CXX)
  _gemmkit_wasm_detect()
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ${_gemmkit_wasm_vars})

if(CMAKE_SCRIPT_MODE_FILE)
  message(NOTICE "min_llvm=${GEMMKIT_WASM_MIN_LLVM}")
  foreach(var IN LISTS _gemmkit_wasm_vars)
    string(REPLACE "GEMMKIT_WASM_" "" key "${var}")
    string(TOLOWER "${key}" key)
    message(NOTICE "${key}=${${var}}")
  endforeach()
  return()
endif()

# No CMake release knows WASI yet: cpp/cmake/Platform/WASI.cmake says what
# it is.
list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR})
set(CMAKE_SYSTEM_NAME WASI)
set(CMAKE_SYSTEM_VERSION 1)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
set(CMAKE_C_COMPILER ${GEMMKIT_WASM_CC})
set(CMAKE_CXX_COMPILER ${GEMMKIT_WASM_CXX})
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(CMAKE_CXX_COMPILER_TARGET wasm32-wasi)
if(GEMMKIT_WASM_AR)
  set(CMAKE_AR ${GEMMKIT_WASM_AR} CACHE FILEPATH "llvm-ar")
endif()
# A test program would need the link below: the compiler checks compile only.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Only the wasm32 headers, never the host's /usr/include: libc++ first (its
# <cstdlib> and friends include_next wasi-libc's).
set(CMAKE_C_FLAGS_INIT "-nostdlibinc")
set(CMAKE_CXX_FLAGS_INIT "-nostdlibinc")
set(CMAKE_C_STANDARD_INCLUDE_DIRECTORIES ${GEMMKIT_WASM_WASI_INCLUDE})
set(CMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES
    ${GEMMKIT_WASM_LIBCXX_INCLUDE} ${GEMMKIT_WASM_WASI_INCLUDE})

# Modules are linked by wasm-ld itself: what a module links with (a crt1-*.o,
# libc, compiler-rt, exports, memory) is spelled out by its target.
set(CMAKE_CXX_LINK_EXECUTABLE
    "${GEMMKIT_WASM_LD} <LINK_FLAGS> <OBJECTS> <LINK_LIBRARIES> -o <TARGET>")
