// L7 dispatch: instantiation of the f32/f64 family for one ISA token.
//
// Included once per ISA by targets/<isa>/float.cpp, which first includes its
// token header and defines GEMMKIT_TOKEN plus the tile geometry
// GEMMKIT_F32_TILE / GEMMKIT_F64_TILE as "MR_REG, NR", and optionally
// GEMMKIT_SKINNY_NR: a narrower tile for outputs with few columns, where
// padding n up to NR would waste a third of the arithmetic (16 columns in
// 12-wide tiles is 12 + 4).  Everything defined here lives in that ISA's
// namespace (isa_namespace.hpp).
#include "dispatch/descriptor.hpp"
#include "dispatch/isa_namespace.hpp"
#include "driver/driver.hpp"
#include "special/gemv.hpp"

namespace gemmkit::GEMMKIT_ISA_NAMESPACE {

template <class T, int MR_REG, int NR>
int float_gemm(const GemmTask<T>& task) {
  using Token = GEMMKIT_TOKEN;
  GemmTask<T> t = task;
  // Compute in the orientation where C's columns have unit stride, so the
  // microkernel stores whole vectors (row-major C becomes C^T = B^T A^T).
  const index_t rs = t.rs_co < 0 ? -t.rs_co : t.rs_co;
  const index_t cs = t.cs_co < 0 ? -t.cs_co : t.cs_co;
  if (t.rs_co != 1 && (t.cs_co == 1 || rs > cs)) t = transposed(t);
  // Matrix-vector shapes are bandwidth-bound: skip packing altogether.
  if (t.n == 1) return special::Gemv<Token, T>::run(t);
  if (t.m == 1) return special::Gemv<Token, T>::run(transposed(t));
#if defined(GEMMKIT_SKINNY_NR)
  constexpr int kSkinny = GEMMKIT_SKINNY_NR;
  if (t.n < 8 * NR) {
    const index_t pad = (t.n + NR - 1) / NR * NR - t.n;
    const index_t pad_skinny = (t.n + kSkinny - 1) / kSkinny * kSkinny - t.n;
    if (pad_skinny < pad) {
      return driver::BlockedGemm<Token, T, MR_REG, kSkinny>::run(t);
    }
  }
#endif
  return driver::BlockedGemm<Token, T, MR_REG, NR>::run(t);
}

template <class T, int MR_REG, int NR>
dispatch::FloatDescriptor<T> float_descriptor() {
  using Ops = simd::SimdOps<GEMMKIT_TOKEN, T>;
  dispatch::FloatDescriptor<T> d{};
  d.run = &float_gemm<T, MR_REG, NR>;
  d.run_packed = nullptr;
  d.isa = GEMMKIT_TOKEN::kName;
  d.mr = MR_REG * Ops::kLanes;
  d.nr = NR;
  d.depth_multiple = 1;
  return d;
}

dispatch::FloatDescriptor<float> f32_descriptor() {
  return float_descriptor<float, GEMMKIT_F32_TILE>();
}

dispatch::FloatDescriptor<double> f64_descriptor() {
  return float_descriptor<double, GEMMKIT_F64_TILE>();
}

}  // namespace gemmkit::GEMMKIT_ISA_NAMESPACE
