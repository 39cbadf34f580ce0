# The ISA table: isa -> compiler flags -> targets/<isa>/ -> GEMMKIT_HAVE_<ISA>.
#
# Every ISA can be switched off with -DGEMMKIT_ISA_<ISA>=OFF.  Baseline code
# (api, dispatch, tuning, cache, parallel, bindings) gets none of these flags.

set(GEMMKIT_ISA_FLAGS_scalar "")
set(GEMMKIT_ISA_FLAGS_fma -mavx2 -mfma -mf16c)
set(GEMMKIT_ISA_FLAGS_avx512f -mavx512f -mavx2 -mfma -mf16c)
set(GEMMKIT_ISA_FLAGS_avx512vnni -mavx512f -mavx512bw -mavx512vnni -mavx2 -mfma -mf16c)
set(GEMMKIT_ISA_FLAGS_avx512bf16 -mavx512f -mavx512bw -mavx512bf16 -mavx2 -mfma -mf16c)
set(GEMMKIT_ISA_FLAGS_amx -mavx512f -mavx512bw -mamx-tile -mamx-bf16 -mamx-int8 -mavx2 -mfma -mf16c)
set(GEMMKIT_ISA_FLAGS_neon "")

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(GEMMKIT_ARCH_ISAS scalar fma avx512f avx512vnni avx512bf16 amx)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  set(GEMMKIT_ARCH_ISAS scalar neon)
else()
  set(GEMMKIT_ARCH_ISAS scalar)
endif()

set(GEMMKIT_ISAS "")
foreach(isa IN LISTS GEMMKIT_ARCH_ISAS)
  string(TOUPPER "${isa}" ISA)
  # The scalar floor cannot be switched off.
  if(isa STREQUAL "scalar")
    list(APPEND GEMMKIT_ISAS ${isa})
    continue()
  endif()
  option(GEMMKIT_ISA_${ISA} "Build the ${isa} kernels" ON)
  if(GEMMKIT_ISA_${ISA})
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
