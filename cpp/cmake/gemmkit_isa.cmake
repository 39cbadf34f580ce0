# The ISA table: isa -> compiler flags -> targets/<isa>/ -> GEMMKIT_HAVE_<ISA>,
# read from the ISA registry, cpp/src/dispatch/isa_registry.def (its header
# says how a row reads; C++ includes the same file).
#
# Every ISA can be switched off with -DGEMMKIT_ISA_<ISA>=OFF, except the
# portable floor (arch "any").  Baseline code (api, dispatch, tuning, cache,
# parallel, bindings) gets none of these flags.
#
# Sets, per row: GEMMKIT_ISA_FLAGS_<isa> (a list, in this compiler's
# spelling: gemmkit_isa_compiler_flags), GEMMKIT_ISA_ARCH_<isa>,
# GEMMKIT_ISA_FEATURES_<isa> (a list), GEMMKIT_ISA_BASE_<isa> (the ISA
# serving the families it lacks, empty for none); and GEMMKIT_ALL_ISAS (every row),
# GEMMKIT_ARCH_ISAS (the rows this processor runs) and GEMMKIT_ISAS (those
# switched on), all in row order.

set(GEMMKIT_ISA_REGISTRY ${CMAKE_CURRENT_LIST_DIR}/../src/dispatch/isa_registry.def)
# Editing the registry re-runs the configure step.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${GEMMKIT_ISA_REGISTRY})

# gemmkit_isa_compiler_flags(<isa>): GEMMKIT_ISA_FLAGS_<isa>, the registry's
# flags (GCC/Clang spelling), in this compiler's words.  MSVC compiles any
# intrinsic without per-feature flags and takes one /arch level per unit
# instead: the level that covers the row's flags (/arch:AVX512 for the AVX-512
# rows, /arch:AVX2 for the fma row, nothing where the row has no flags), and
# GEMMKIT_ISA_NO_MSVC_<isa> is set for a row it has no level for (another
# architecture's: fatal only if that row is built).  clang-cl keeps the
# per-feature flags, passed through /clang:.
function(gemmkit_isa_compiler_flags isa)
  set(flags ${GEMMKIT_ISA_FLAGS_${isa}})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "MSVC")
    if("-mavx512f" IN_LIST flags)
      set(flags /arch:AVX512)
    elseif("-mavx2" IN_LIST flags)
      set(flags /arch:AVX2)
    elseif(flags)
      set(GEMMKIT_ISA_NO_MSVC_${isa} "${flags}" PARENT_SCOPE)
      set(flags "")
    endif()
  elseif(CMAKE_CXX_COMPILER_FRONTEND_VARIANT STREQUAL "MSVC")
    list(TRANSFORM flags PREPEND "/clang:")
  endif()
  set(GEMMKIT_ISA_FLAGS_${isa} ${flags} PARENT_SCOPE)
endfunction()

file(READ ${GEMMKIT_ISA_REGISTRY} _gemmkit_registry)
string(REGEX REPLACE "//[^\n]*" "" _gemmkit_registry "${_gemmkit_registry}")
string(REGEX MATCHALL "GEMMKIT_ISA_ROW\\([^)]*\\)" _gemmkit_rows "${_gemmkit_registry}")
if(NOT _gemmkit_rows)
  message(FATAL_ERROR "${GEMMKIT_ISA_REGISTRY}: no GEMMKIT_ISA_ROW(...) rows")
endif()

set(GEMMKIT_ALL_ISAS "")
foreach(_row IN LISTS _gemmkit_rows)
  string(REGEX REPLACE "^GEMMKIT_ISA_ROW\\((.*)\\)$" "\\1" _fields "${_row}")
  string(REGEX REPLACE "[ \t\r\n]+" " " _fields "${_fields}")
  string(REPLACE "," ";" _fields "${_fields}")
  list(LENGTH _fields _count)
  if(NOT _count EQUAL 9)
    message(FATAL_ERROR "${GEMMKIT_ISA_REGISTRY}: a row needs 9 fields: ${_row}")
  endif()
  set(_values "")
  foreach(_field IN LISTS _fields)
    string(STRIP "${_field}" _field)
    string(REGEX REPLACE "^\"(.*)\"$" "\\1" _field "${_field}")
    list(APPEND _values "${_field}")
  endforeach()
  list(GET _values 0 _isa)
  list(GET _values 1 _upper)
  list(GET _values 3 _arch)
  list(GET _values 4 _flags)
  list(GET _values 5 _features)
  list(GET _values 8 _base)
  string(TOUPPER "${_isa}" _expected)
  if(NOT _upper STREQUAL _expected)
    message(FATAL_ERROR "${GEMMKIT_ISA_REGISTRY}: row ${_isa}: NAME must be ${_expected}")
  endif()
  separate_arguments(GEMMKIT_ISA_FLAGS_${_isa} UNIX_COMMAND "${_flags}")
  gemmkit_isa_compiler_flags(${_isa})
  separate_arguments(GEMMKIT_ISA_FEATURES_${_isa} UNIX_COMMAND "${_features}")
  set(GEMMKIT_ISA_ARCH_${_isa} "${_arch}")
  set(GEMMKIT_ISA_BASE_${_isa} "${_base}")
  list(APPEND GEMMKIT_ALL_ISAS ${_isa})
endforeach()

# The registry's arch names for the target.  wasm32 first, by system name:
# Emscripten's toolchain file (pyodide-build, cibuildwheel's pyodide platform)
# reports CMAKE_SYSTEM_PROCESSOR "x86" (its EMSCRIPTEN_SYSTEM_PROCESSOR
# default), which must not pick x86 rows; wasi-sdk's says WASI and wasm32.
# (The shipped Pyodide wheel and the web modules are built by wasm/CMakeLists.txt,
# under cpp/cmake/wasm32-wasi-clang.cmake, which says WASI and wasm32 too.)
if(CMAKE_SYSTEM_NAME MATCHES "^(Emscripten|WASI)$" OR CMAKE_SYSTEM_PROCESSOR MATCHES "^wasm32")
  set(GEMMKIT_ARCH wasm32)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(GEMMKIT_ARCH x86_64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  set(GEMMKIT_ARCH aarch64)
else()
  set(GEMMKIT_ARCH "")
endif()
# For the top-level CMakeLists.txt (the Pyodide module under Emscripten).
set_property(GLOBAL PROPERTY GEMMKIT_ARCH "${GEMMKIT_ARCH}")

set(GEMMKIT_ARCH_ISAS "")
set(GEMMKIT_ISAS "")
foreach(isa IN LISTS GEMMKIT_ALL_ISAS)
  string(TOUPPER "${isa}" ISA)
  # The portable floor cannot be switched off.
  if(GEMMKIT_ISA_ARCH_${isa} STREQUAL "any")
    list(APPEND GEMMKIT_ARCH_ISAS ${isa})
    list(APPEND GEMMKIT_ISAS ${isa})
    continue()
  endif()
  if(NOT GEMMKIT_ISA_ARCH_${isa} STREQUAL GEMMKIT_ARCH)
    continue()
  endif()
  list(APPEND GEMMKIT_ARCH_ISAS ${isa})
  option(GEMMKIT_ISA_${ISA} "Build the ${isa} kernels" ON)
  if(GEMMKIT_ISA_${ISA})
    if(DEFINED GEMMKIT_ISA_NO_MSVC_${isa})
      message(FATAL_ERROR "${GEMMKIT_ISA_REGISTRY}: row ${isa}: no MSVC /arch level for "
                          "'${GEMMKIT_ISA_NO_MSVC_${isa}}' (gemmkit_isa_compiler_flags)")
    endif()
    list(APPEND GEMMKIT_ISAS ${isa})
  endif()
endforeach()

# gemmkit_add_isa_objects(<prefix> <isa> <sources...>): an OBJECT library
# compiled with the ISA's flags and GEMMKIT_ISA=<isa>.
function(gemmkit_add_isa_objects name isa)
  add_library(${name} OBJECT ${ARGN})
  target_compile_options(${name} PRIVATE ${GEMMKIT_ISA_FLAGS_${isa}})
  target_compile_definitions(${name} PRIVATE GEMMKIT_ISA=${isa})
  target_link_libraries(${name} PRIVATE gemmkit_build_settings)
endfunction()
