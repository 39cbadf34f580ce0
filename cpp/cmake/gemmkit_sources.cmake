# The translation units of every gemmkit build, the native library
# (cpp/CMakeLists.txt) and the WebAssembly modules (wasm/CMakeLists.txt):
#
#   GEMMKIT_BASELINE_SOURCES      every *.cpp directly in the baseline folders,
#                                 folder by folder, each in name order (the
#                                 order objects are linked in);
#   GEMMKIT_ISA_SOURCES_<isa>     dispatch/targets/<isa>/*.cpp, for each row
#                                 of the ISA table (gemmkit_isa.cmake).
#
# A new file is picked up at the next build (CONFIGURE_DEPENDS).

include(${CMAKE_CURRENT_LIST_DIR}/gemmkit_isa.cmake)

set(_gemmkit_src ${CMAKE_CURRENT_LIST_DIR}/../src)
get_filename_component(_gemmkit_src ${_gemmkit_src} ABSOLUTE)

set(GEMMKIT_BASELINE_SOURCES "")
foreach(dir api dispatch tuning cache parallel)
  file(GLOB _units CONFIGURE_DEPENDS ${_gemmkit_src}/${dir}/*.cpp)
  list(APPEND GEMMKIT_BASELINE_SOURCES ${_units})
endforeach()
if(NOT GEMMKIT_BASELINE_SOURCES)
  message(FATAL_ERROR "no baseline sources under ${_gemmkit_src}")
endif()

foreach(isa IN LISTS GEMMKIT_ALL_ISAS)
  file(GLOB GEMMKIT_ISA_SOURCES_${isa} CONFIGURE_DEPENDS
       ${_gemmkit_src}/dispatch/targets/${isa}/*.cpp)
endforeach()
