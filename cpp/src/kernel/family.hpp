// L4 kernel: what a kernel family is, the contract between the driver (L5),
// the packers (L1) and the microkernel (microkernel.hpp).
//
// A family fixes the element types and the packed layouts of one GEMM kind
// for one token and tile geometry (MR_REG, NR).  The driver is written once
// against this interface; the widening families (widen.hpp: f32, f64, f16,
// bf16, int8 -> int32, and the wrapping integer rings u8, u16, i32, i64 and
// bool on every token), the complex split families (complex.hpp: they also
// take a conj flag in pack_a/pack_b, kConjugates, and have a UserFrame twin,
// CONTRACT.md) and the dot families
// (dot_bf16.hpp: vdpbf16ps, dot_vnni.hpp: vpdpbusd, dot_pair_i8.hpp: int8 as
// int16 pairs through vpmaddwd / i32x4.dot_i16x8_s) implement it.
//
//   struct Family {
//     using Token;                  the ISA token
//     using L, R;                   kernel-frame A and B element types as
//                                   stored by the user (the driver may swap
//                                   the user's operands: C^T = B^T A^T)
//     using A;                      accumulator type
//     using PA, PB;                 element types of packed A and B panels
//     using Ops = simd::SimdOps<Token, A>;  using Reg = typename Ops::Reg;
//     static constexpr int kLanes = Ops::kLanes;
//     static constexpr int kMrReg = MR_REG, kMr = MR_REG * kLanes, kNr = NR;
//     static constexpr int kDepthMultiple;   depth steps one instruction
//                                   folds (1, or 2 for vdpbf16ps, 4 vpdpbusd)
//     static constexpr bool kInplace;        true when the microkernel can
//                                   read A and B in place (PA == L, PB == R,
//                                   depth multiple 1): the f32/f64 families
//
//     // Elements of PA / PB one packed panel of depth kc occupies, padding
//     // and any trailer (e.g. VNNI's column sums) included.  Panels are laid
//     // end to end, so these are also the panel strides.
//     static index_t a_panel_size(index_t kc);
//     static index_t b_panel_size(index_t kc);
//
//     // Pack one panel.  Source element (i, p), for i in [0, width) and
//     // depth p in [0, kc), is src[i * rs + p * cs]; width <= kMr (A) or
//     // kNr (B).  Rows past width and depth past kc (up to the depth
//     // multiple) are zero-filled: the kernel always runs full tiles.
//     static void pack_a(index_t kc, index_t width, const L* src, index_t rs,
//                        index_t cs, PA* dst);
//     static void pack_b(index_t kc, index_t width, const R* src, index_t rs,
//                        index_t cs, PB* dst);
//
//     // acc[j][r] += sum over p < kc of A(r * kLanes + lane, p) * B(p, j),
//     // from one packed A panel and one packed B panel.  acc is initialized
//     // by the caller (zeros, or a seed carried over from an earlier depth
//     // slice).  Any bias correction is applied inside, so acc holds the
//     // true sum on return.  kc is the real depth; the panels were packed
//     // for it.
//     static void accumulate(index_t kc, const PA* a, const PB* b,
//                            Reg (&acc)[NR][MR_REG]);
//   };
//
// Rounding contracts: a widening family is bit-identical to converting the
// inputs to A and running the homogeneous A kernel; for integers every
// family (VNNI and the int16 pairs included) is exact, wrapping at 32 bits,
// so every int8 kernel gives the same bits.  vdpbf16ps rounds
// its fused pair differently (and flushes denormals) and is held to a
// tolerance instead.
#pragma once

#include "kernel/task.hpp"
#include "simd/simd_ops.hpp"
