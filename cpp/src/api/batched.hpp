// L8 api: the operand door's typed entries (api.cpp), which the type-erased
// C++ API and the C ABI (operands.cpp) reach through one dtype switch.
#pragma once

#include "gemmkit/gemmkit.h"
#include "gemmkit/gemmkit.hpp"

namespace gemmkit::api {

// out[i] = act(alpha * a[i] b[i] + beta * c[i] + bias) over out's batch;
// b == nullptr when packed != nullptr; c and epilogue may be null; flags
// are GEMMKIT_CONJ_A / GEMMKIT_CONJ_B (complex families).
template <class L, class O>
int gemm_operands(acc_t<L> alpha, const gemmkit_operand& a, const gemmkit_operand* b,
                  const PackedRhs* packed, acc_t<L> beta, const gemmkit_operand* c,
                  const gemmkit_operand& out, const FusedEpilogue<acc_t<L>>* epilogue,
                  int flags);

// The requantized int8 product over out's batch (O = int8_t or uint8_t).
template <class O>
int requant_operands(const gemmkit_operand& a, const gemmkit_operand* b,
                     const PackedRhs* packed, const Requantize& rq,
                     const gemmkit_operand& out);

}  // namespace gemmkit::api
