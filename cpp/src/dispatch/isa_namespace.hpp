// L7 dispatch: maps the GEMMKIT_ISA macro (set per target by CMake) to the
// namespace gemmkit::isa_<isa>.  Everything an ISA TU defines that is not a
// template over its token lives in that namespace, so no symbol compiled
// under one ISA's flags can be merged with another's (Highway's
// HWY_NAMESPACE).
#pragma once

#if !defined(GEMMKIT_ISA)
#error "GEMMKIT_ISA must be defined for an ISA translation unit (see cpp/cmake/gemmkit_isa.cmake)"
#endif

#define GEMMKIT_CONCAT2(a, b) a##b
#define GEMMKIT_CONCAT(a, b) GEMMKIT_CONCAT2(a, b)
#define GEMMKIT_ISA_NAMESPACE GEMMKIT_CONCAT(isa_, GEMMKIT_ISA)
