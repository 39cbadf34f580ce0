// L0 simd: SimdOps<Token, std::complex<T>>, complex lanes for every token,
// written once over the token's real vocabulary SimdOps<Token, T>.
//
// A register is a pair of real registers (re, im): kLanes complex values
// split into their parts.  Memory holds numpy's interleaved pairs, so the
// loads and stores (de)interleave; the complex kernels never use them in
// their depth loop (their packed panels are already split, kernel/complex.hpp)
// but only where a tile meets C, a seed or a bias.  The products follow the
// split kernel's order of operations (re: ar*br first, then - ai*bi; im:
// ar*bi first, then + ai*br), fused where the token fuses.  No max/min:
// complex numbers have no order, and the complex families take no
// activation.
#pragma once

#include <complex>

#include "simd_ops.hpp"

namespace gemmkit::simd {

template <class Token, class T>
struct ComplexOps {
  using Real = SimdOps<Token, T>;
  using V = std::complex<T>;
  struct Reg {
    typename Real::Reg re, im;
  };
  static constexpr int kLanes = Real::kLanes;
  static constexpr bool kFusedMulAdd = Real::kFusedMulAdd;

  static GEMMKIT_INLINE Reg zero() { return {Real::zero(), Real::zero()}; }
  static GEMMKIT_INLINE Reg splat(V v) { return {Real::splat(v.real()), Real::splat(v.imag())}; }
  // n pairs through split buffers; the standard lets a complex<T> array be
  // read as its T parts.
  static GEMMKIT_INLINE Reg load_partial(const V* p, int n) {
    const T* q = reinterpret_cast<const T*>(p);
    T re[kLanes] = {}, im[kLanes] = {};
    for (int i = 0; i < n; ++i) {
      re[i] = q[2 * i];
      im[i] = q[2 * i + 1];
    }
    return {Real::loadu(re), Real::loadu(im)};
  }
  static GEMMKIT_INLINE void store_partial(V* p, Reg v, int n) {
    T* q = reinterpret_cast<T*>(p);
    T re[kLanes], im[kLanes];
    Real::storeu(re, v.re);
    Real::storeu(im, v.im);
    for (int i = 0; i < n; ++i) {
      q[2 * i] = re[i];
      q[2 * i + 1] = im[i];
    }
  }
  static GEMMKIT_INLINE Reg loadu(const V* p) { return load_partial(p, kLanes); }
  static GEMMKIT_INLINE void storeu(V* p, Reg v) { store_partial(p, v, kLanes); }
  static GEMMKIT_INLINE Reg add(Reg a, Reg b) {
    return {Real::add(a.re, b.re), Real::add(a.im, b.im)};
  }
  static GEMMKIT_INLINE Reg mul_add(Reg a, Reg b, Reg c) {
    return {Real::fnma(a.im, b.im, Real::mul_add(a.re, b.re, c.re)),
            Real::mul_add(a.im, b.re, Real::mul_add(a.re, b.im, c.im))};
  }
  static GEMMKIT_INLINE Reg mul(Reg a, Reg b) { return mul_add(a, b, zero()); }
  static GEMMKIT_INLINE Reg fnma(Reg a, Reg b, Reg c) {
    return {Real::mul_add(a.im, b.im, Real::fnma(a.re, b.re, c.re)),
            Real::fnma(a.im, b.re, Real::fnma(a.re, b.im, c.im))};
  }
  static GEMMKIT_INLINE V reduce_sum(Reg v) {
    return V(Real::reduce_sum(v.re), Real::reduce_sum(v.im));
  }
};

template <class Token>
struct SimdOps<Token, std::complex<float>> : ComplexOps<Token, float> {};
template <class Token>
struct SimdOps<Token, std::complex<double>> : ComplexOps<Token, double> {};

}  // namespace gemmkit::simd
