// L7 dispatch: maps the GEMMKIT_ISA macro (set per target by CMake) to the
// namespace gemmkit::isa_<isa>.  Everything an ISA TU defines that is not a
// template over its token lives in that namespace, so no symbol compiled
// under one ISA's flags can be merged with another's (Highway's
// HWY_NAMESPACE).
#pragma once

#include <type_traits>

#if !defined(GEMMKIT_ISA)
#error "GEMMKIT_ISA must be defined for an ISA translation unit (see cpp/cmake/gemmkit_isa.cmake)"
#endif

#define GEMMKIT_CONCAT2(a, b) a##b
#define GEMMKIT_CONCAT(a, b) GEMMKIT_CONCAT2(a, b)
#define GEMMKIT_ISA_NAMESPACE GEMMKIT_CONCAT(isa_, GEMMKIT_ISA)

// Every registry row's token, declared as gemmkit::isa_<name>::<Token> (the
// token header defines the one of this TU's ISA), and named RegistryToken in
// its namespace, so a target can be held to its row.
#define GEMMKIT_ISA_ROW(name, NAME, Token, ...) \
  namespace gemmkit::isa_##name {               \
  struct Token;                                 \
  using RegistryToken = Token;                  \
  }
#include "dispatch/isa_registry.def"
#undef GEMMKIT_ISA_ROW

#if defined(GEMMKIT_TOKEN)
// A target instantiates its row's token; the only stand-in allowed is the
// scalar floor's, which targets/simd128/ builds (and reports at run time)
// when its units lack -msimd128.
static_assert(
    std::is_same_v<gemmkit::GEMMKIT_TOKEN, gemmkit::GEMMKIT_ISA_NAMESPACE::RegistryToken> ||
        std::is_same_v<gemmkit::GEMMKIT_TOKEN, gemmkit::isa_scalar::RegistryToken>,
    "GEMMKIT_TOKEN is not the token isa_registry.def names for GEMMKIT_ISA");
#endif
