// L4 kernel: the hand-scheduled AVX-512 depth loops of the square tile
// (3 registers of rows x 8 columns: 48x8 float32, 24x8 float64; float16 and
// bfloat16 widen to the float32 tile).
//
// Why a hand-scheduled loop: on a core with two 512-bit FMA units every
// load in the depth loop costs FMA throughput (measured on a Xeon with AMX,
// 2026-12-04: 24 register-only FMAs per step run at the peak, with 12
// broadcasts beside them at 94%, with 2 vector loads + 12 broadcasts, the
// 32x12 tile's mix, at 86%).  A 3 x 8 tile needs 3 vector loads + 8
// broadcasts per 24 FMAs, and this loop loads the next step's 3 A vectors
// into a second register set between this step's broadcasts, so no FMA
// waits for them: 24 accumulators + 2 x 3 A + 2 broadcast registers, all
// 32 zmm.  The compiler's schedule of the same tile keeps one A set and
// measured no gain over 32x12; this one measured +4-5% (a harness of the
// driver's blocking, packed panels from L2, kc 512-768); in the library,
// +1-7% (float32) and +3-9% (float64) on 512-2048 squares.  Prefetching the
// next A lines or B lines lost 3-5% there, so there is none.  The second
// loop reads B's 8 columns in place (the driver's in-place B: two base
// registers, the stride and three times it address all 8): 256x2048x2048
// float32 +9-11%, 128x4096x1024 float64 +7-11% over the generic 32x12 one.
//
// The arithmetic is FloatKernel's: acc[j][r] = fma(a_r(p), b(p, j),
// acc[j][r]) for p in order, one rounding per step, so the results are the
// same bits as the generic 3 x 8 loop (and as every other float tile).
// Other compilers (MSVC) run the generic loop.
#pragma once

#include "kernel/microkernel.hpp"
#include "kernel/widen.hpp"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define GEMMKIT_PIPELINED_ASM 1
#endif

namespace gemmkit::kernel {

namespace pipelined_detail {

#if defined(GEMMKIT_PIPELINED_ASM)
// Registers: A sets zmm0-2 and zmm3-5, broadcasts zmm6/zmm7, acc[j][r] in
// zmm(8 + 3j + r), loaded from and stored back to the caller's acc array
// (GCC takes at most 30 asm operands, an in-out register counting twice).
// One depth step: B element j (at address BOj) broadcast
// into zmm6 / zmm7 alternately, three FMAs into acc[j][0..2] with the
// current A set (zmm A0..A2), and the loads L0..L2 (the next step's A
// vectors into the other set, or nothing) after broadcasts 0, 2, 4.
#define GK_FMA3(FMA, B, A0, A1, A2, C0, C1, C2)  \
  FMA " %%zmm" B ", %%zmm" A0 ", %%zmm" C0 "\n\t" \
  FMA " %%zmm" B ", %%zmm" A1 ", %%zmm" C1 "\n\t" \
  FMA " %%zmm" B ", %%zmm" A2 ", %%zmm" C2 "\n\t"
#define GK_BC(BC, ADDR, B) BC " " ADDR ", %%zmm" B "\n\t"
#define GK_LD(OFF, R) "vmovups " OFF "(%[a]), %%zmm" R "\n\t"
#define GK_STEP(FMA, BC, BO0, BO1, BO2, BO3, BO4, BO5, BO6, BO7, A0, A1, A2, L0, L1, L2) \
  GK_BC(BC, BO0, "6") GK_FMA3(FMA, "6", A0, A1, A2, "8", "9", "10") L0                      \
  GK_BC(BC, BO1, "7") GK_FMA3(FMA, "7", A0, A1, A2, "11", "12", "13")                         \
  GK_BC(BC, BO2, "6") GK_FMA3(FMA, "6", A0, A1, A2, "14", "15", "16") L1                      \
  GK_BC(BC, BO3, "7") GK_FMA3(FMA, "7", A0, A1, A2, "17", "18", "19")                         \
  GK_BC(BC, BO4, "6") GK_FMA3(FMA, "6", A0, A1, A2, "20", "21", "22") L2                      \
  GK_BC(BC, BO5, "7") GK_FMA3(FMA, "7", A0, A1, A2, "23", "24", "25")                         \
  GK_BC(BC, BO6, "6") GK_FMA3(FMA, "6", A0, A1, A2, "26", "27", "28")                         \
  GK_BC(BC, BO7, "7") GK_FMA3(FMA, "7", A0, A1, A2, "29", "30", "31")
// Loads of the A set at byte offset OFF into registers R0..R2.
#define GK_LD3(OFF0, OFF1, OFF2, R0, R1, R2) GK_LD(OFF0, R0) GK_LD(OFF1, R1) GK_LD(OFF2, R2)

// The loop over kc >= 1 depth steps, both types: set 0 = zmm0-2, set 1 =
// zmm3-5.  Steps go in pairs (set 0, then set 1), each pair loading the
// sets of the next two steps; the last one or two steps load nothing past
// the panel.  S0/S1: one step on set 0 (loading set 1 from +192 bytes) and
// on set 1 (loading set 0 from +384); S0_LAST/S1_LAST the same without loads;
// B_ADVANCE moves the B pointers two steps on.
#define GK_LOOP(S0, S1, S0_LAST, S1_LAST, B_ADVANCE)                   \
  GK_ACC_LOAD                                                          \
  GK_LD3("0", "64", "128", "0", "1", "2")                              \
  "test %[pairs], %[pairs]\n\t"                                       \
  "jz 2f\n\t"                                                         \
  "1:\n\t" S0 S1                                                      \
  "add $384, %[a]\n\t"                                                \
  B_ADVANCE                                                           \
  "dec %[pairs]\n\t"                                                  \
  "jnz 1b\n\t"                                                        \
  "2:\n\t"                                                            \
  "test %[two], %[two]\n\t"                                           \
  "jz 3f\n\t" S0 S1_LAST                                              \
  "jmp 4f\n\t"                                                        \
  "3:\n\t" S0_LAST                                                    \
  "4:\n\t"                                                            \
  GK_ACC_STORE

// acc[j][r] at byte 64 (3j + r) of the array <-> zmm(8 + 3j + r).
#define GK_ACC_LOAD1(OFF, R) "vmovups " OFF "(%[acc]), %%zmm" R "\n\t"
#define GK_ACC_STORE1(OFF, R) "vmovups %%zmm" R ", " OFF "(%[acc])\n\t"
#define GK_ACC_EACH(M)                                                                    \
  M("0", "8") M("64", "9") M("128", "10") M("192", "11") M("256", "12") M("320", "13")    \
  M("384", "14") M("448", "15") M("512", "16") M("576", "17") M("640", "18")              \
  M("704", "19") M("768", "20") M("832", "21") M("896", "22") M("960", "23")              \
  M("1024", "24") M("1088", "25") M("1152", "26") M("1216", "27") M("1280", "28")         \
  M("1344", "29") M("1408", "30") M("1472", "31")
#define GK_ACC_LOAD GK_ACC_EACH(GK_ACC_LOAD1)
#define GK_ACC_STORE GK_ACC_EACH(GK_ACC_STORE1)

#define GK_NEXT1 GK_LD("192", "3"), GK_LD("256", "4"), GK_LD("320", "5")
#define GK_NEXT0 GK_LD("384", "0"), GK_LD("448", "1"), GK_LD("512", "2")
#define GK_NONE "", "", ""
// The 8 B addresses of one step, as a parenthesized list (so it passes
// through macro arguments whole; GK_UNPACK opens it).  Packed B: 8
// elements per step at %[b].
#define GK_PACKED(O0, O1, O2, O3, O4, O5, O6, O7)                                   \
  (O0 "(%[b])", O1 "(%[b])", O2 "(%[b])", O3 "(%[b])", O4 "(%[b])", O5 "(%[b])", \
   O6 "(%[b])", O7 "(%[b])")
// B read in place: 8 columns a stride %[cs] bytes apart, 0-3 from %[b] and
// 4-7 from %[b4] (cs3 = 3 cs), element O bytes down each.
#define GK_COLUMNS(O)                                                                    \
  (O "(%[b])", O "(%[b],%[cs],1)", O "(%[b],%[cs],2)", O "(%[b],%[cs3],1)", O "(%[b4])", \
   O "(%[b4],%[cs],1)", O "(%[b4],%[cs],2)", O "(%[b4],%[cs3],1)")
#define GK_UNPACK(...) __VA_ARGS__
// (B addresses, A set, loads): variadic, as each is a list of its own.
#define GK_F32(...) GK_STEP("vfmadd231ps", "vbroadcastss", __VA_ARGS__)
#define GK_F64(...) GK_STEP("vfmadd231pd", "vbroadcastsd", __VA_ARGS__)
#define GK_SET0 "0", "1", "2"
#define GK_SET1 "3", "4", "5"
#define GK_LOOP_OF(OP, B0, B1, ADVANCE)                                            \
  GK_LOOP(OP(GK_UNPACK B0, GK_SET0, GK_NEXT1), OP(GK_UNPACK B1, GK_SET1, GK_NEXT0), \
          OP(GK_UNPACK B0, GK_SET0, GK_NONE), OP(GK_UNPACK B1, GK_SET1, GK_NONE), ADVANCE)
#endif

#if defined(GEMMKIT_PIPELINED_ASM)
#define GK_CLOBBERS                                                                     \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
      "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",      \
      "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28",      \
      "xmm29", "xmm30", "xmm31", "cc", "memory"

// The asm statements of the two loops, OP the type's step (GK_F32/GK_F64).
#define GK_ASM_PACKED(OP, B0, B1, ADVANCE)                         \
  __asm__ volatile(GK_LOOP_OF(OP, B0, B1, "add $" ADVANCE ", %[b]\n\t") \
                   : [a] "+r"(a), [b] "+r"(b), [pairs] "+r"(pairs)   \
                   : [two] "r"(two), [acc] "r"(&acc[0][0])           \
                   : GK_CLOBBERS)
#define GK_ASM_COLUMNS(OP, STEP, ADVANCE)                                                   \
  __asm__ volatile(GK_LOOP_OF(OP, GK_COLUMNS("0"), GK_COLUMNS(STEP),                        \
                              "add $" ADVANCE ", %[b]\n\tadd $" ADVANCE ", %[b4]\n\t")     \
                   : [a] "+r"(a), [b] "+r"(b), [b4] "+r"(b4), [pairs] "+r"(pairs)             \
                   : [two] "r"(two), [acc] "r"(&acc[0][0]), [cs] "r"(cs), [cs3] "r"(cs3)      \
                   : GK_CLOBBERS)

// acc[j][r] += sum over the kc >= 1 steps of a packed A panel and a packed
// B panel.
template <class T, class Reg>
GEMMKIT_INLINE void depth_loop(index_t kc, const T* a, const T* b, Reg (&acc)[8][3]) {
  index_t pairs = (kc - 1) / 2;           // pairs whose loads stay inside the panel
  const index_t two = kc - 2 * pairs == 2;  // then one more pair, or one step
  if constexpr (sizeof(T) == 4) {
    GK_ASM_PACKED(GK_F32, GK_PACKED("0", "4", "8", "12", "16", "20", "24", "28"),
                  GK_PACKED("32", "36", "40", "44", "48", "52", "56", "60"), "64");
  } else {
    GK_ASM_PACKED(GK_F64, GK_PACKED("0", "8", "16", "24", "32", "40", "48", "56"),
                  GK_PACKED("64", "72", "80", "88", "96", "104", "112", "120"), "128");
  }
}

// The same with B's 8 columns read in place, column j at b + j * b_cs
// elements, contiguous along the depth.
template <class T, class Reg>
GEMMKIT_INLINE void depth_loop_columns(index_t kc, const T* a, const T* b, index_t b_cs,
                                       Reg (&acc)[8][3]) {
  index_t pairs = (kc - 1) / 2;
  const index_t two = kc - 2 * pairs == 2;
  const index_t cs = b_cs * index_t(sizeof(T));
  const index_t cs3 = 3 * cs;
  const T* b4 = b + 4 * b_cs;
  if constexpr (sizeof(T) == 4) {
    GK_ASM_COLUMNS(GK_F32, "4", "8");
  } else {
    GK_ASM_COLUMNS(GK_F64, "8", "16");
  }
}
#undef GK_FMA3
#undef GK_BC
#undef GK_LD
#undef GK_STEP
#undef GK_LD3
#undef GK_LOOP
#undef GK_ACC_STORE1
#undef GK_ACC_EACH
#undef GK_ACC_LOAD1
#undef GK_ACC_LOAD
#undef GK_ACC_STORE
#undef GK_NEXT1
#undef GK_NEXT0
#undef GK_NONE
#undef GK_PACKED
#undef GK_COLUMNS
#undef GK_UNPACK
#undef GK_F32
#undef GK_F64
#undef GK_SET0
#undef GK_SET1
#undef GK_LOOP_OF
#undef GK_CLOBBERS
#undef GK_ASM_PACKED
#undef GK_ASM_COLUMNS
#endif

}  // namespace pipelined_detail

// The square tile's family: WidenFamily's packing and layout at 3 x 8 for
// input L and accumulator A (float or double; float16/bfloat16 inputs are
// widened while packing, so the loop is the float one), with the depth
// loops above.  B's columns are read in place only where L is A.
template <class Token, class L, class A = L>
struct PipelinedFamily : WidenFamily<Token, L, A, 3, 8> {
  using Base = WidenFamily<Token, L, A, 3, 8>;
  using Reg = typename Base::Reg;
  static GEMMKIT_INLINE void accumulate(index_t kc, const A* a, const A* b, Reg (&acc)[8][3]) {
#if defined(GEMMKIT_PIPELINED_ASM)
    if (kc > 0) pipelined_detail::depth_loop(kc, a, b, acc);
#else
    Base::accumulate(kc, a, b, acc);
#endif
  }
  // A whole tile whose B columns are read in place (Microkernel::run_inplace):
  // column j at b + j * b_cs.
  static GEMMKIT_INLINE void accumulate_columns(index_t kc, const A* a, const A* b, index_t b_cs,
                                                Reg (&acc)[8][3])
    requires(Base::kInplace)
  {
#if defined(GEMMKIT_PIPELINED_ASM)
    if (kc > 0) pipelined_detail::depth_loop_columns(kc, a, b, b_cs, acc);
#else
    FloatKernel<Token, A, 3, 8>::accumulate(
        kc, a, Base::kMr, [b, b_cs](index_t p, int j) { return b[j * b_cs + p]; }, acc);
#endif
  }
};

}  // namespace gemmkit::kernel
