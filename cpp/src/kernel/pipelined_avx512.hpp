// L4 kernel: the hand-scheduled AVX-512 depth loops of the square tile
// (3 registers of rows x 8 columns: 48x8 float32, 24x8 float64) and of the
// main tile (2 x 12: 32x12, 16x12); float16 and bfloat16 widen to the
// float32 tiles.
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
// The main tile's loops are the same with 2 A registers per set and 12
// columns (three base registers for B in place, where the compiler's loop
// kept 12 column pointers and reloaded the spilled ones inside the loop):
// 256^3 float32 +2-6%, 1024x100x1024 +6%.
//
// The arithmetic is FloatKernel's: acc[j][r] = fma(a_r(p), b(p, j),
// acc[j][r]) for p in order, one rounding per step, so the results are the
// same bits as the generic loop of the same tile (and as every other float
// tile).
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
// Registers: acc[j][r] in zmm(8 + R j + r) (R registers of rows, 24 in
// all), loaded from and stored back to the caller's acc array (GCC takes
// at most 30 asm operands, an in-out register counting twice); two sets of
// R A registers (3 x 8: zmm0-2 and zmm3-5; 2 x 12: zmm0-1 and zmm2-3);
// broadcasts alternate between zmm6 and zmm7.
// One depth step: B element j (at address BOj) broadcast, R FMAs into
// acc[j][0..R) with the current A set, and the loads Li (the next step's A
// vectors into the other set, or nothing) spread between the columns.
#define GK_FMA(FMA, B, A, C) FMA " %%zmm" B ", %%zmm" A ", %%zmm" C "\n\t"
#define GK_BC(BC, ADDR, B) BC " " ADDR ", %%zmm" B "\n\t"
#define GK_LD(OFF, R) "vmovups " OFF "(%[a]), %%zmm" R "\n\t"
#define GK_COL3(FMA, BC, BO, B, A0, A1, A2, C0, C1, C2) \
  GK_BC(BC, BO, B) GK_FMA(FMA, B, A0, C0) GK_FMA(FMA, B, A1, C1) GK_FMA(FMA, B, A2, C2)
#define GK_COL2(FMA, BC, BO, B, A0, A1, C0, C1) \
  GK_BC(BC, BO, B) GK_FMA(FMA, B, A0, C0) GK_FMA(FMA, B, A1, C1)

// 3 x 8: 192 bytes of A per step; the next set loads after columns 0, 2, 4.
#define GK_R3C8_STEP(FMA, BC, BO0, BO1, BO2, BO3, BO4, BO5, BO6, BO7, A0, A1, A2, L0, L1, L2) \
  GK_COL3(FMA, BC, BO0, "6", A0, A1, A2, "8", "9", "10") L0                                     \
  GK_COL3(FMA, BC, BO1, "7", A0, A1, A2, "11", "12", "13")                                      \
  GK_COL3(FMA, BC, BO2, "6", A0, A1, A2, "14", "15", "16") L1                                   \
  GK_COL3(FMA, BC, BO3, "7", A0, A1, A2, "17", "18", "19")                                      \
  GK_COL3(FMA, BC, BO4, "6", A0, A1, A2, "20", "21", "22") L2                                   \
  GK_COL3(FMA, BC, BO5, "7", A0, A1, A2, "23", "24", "25")                                      \
  GK_COL3(FMA, BC, BO6, "6", A0, A1, A2, "26", "27", "28")                                      \
  GK_COL3(FMA, BC, BO7, "7", A0, A1, A2, "29", "30", "31")
#define GK_R3C8_FIRST GK_LD("0", "0") GK_LD("64", "1") GK_LD("128", "2")
#define GK_R3C8_PAIR "384"
#define GK_R3C8_SET0 "0", "1", "2"
#define GK_R3C8_SET1 "3", "4", "5"
#define GK_R3C8_NEXT1 GK_LD("192", "3"), GK_LD("256", "4"), GK_LD("320", "5")
#define GK_R3C8_NEXT0 GK_LD("384", "0"), GK_LD("448", "1"), GK_LD("512", "2")
#define GK_R3C8_NONE "", "", ""

// 2 x 12: 128 bytes of A per step; the next set loads after columns 0, 4.
#define GK_R2C12_STEP(FMA, BC, BO0, BO1, BO2, BO3, BO4, BO5, BO6, BO7, BO8, BO9, BO10, BO11, \
                      A0, A1, L0, L1)                                                          \
  GK_COL2(FMA, BC, BO0, "6", A0, A1, "8", "9") L0                                              \
  GK_COL2(FMA, BC, BO1, "7", A0, A1, "10", "11")                                               \
  GK_COL2(FMA, BC, BO2, "6", A0, A1, "12", "13")                                               \
  GK_COL2(FMA, BC, BO3, "7", A0, A1, "14", "15")                                               \
  GK_COL2(FMA, BC, BO4, "6", A0, A1, "16", "17") L1                                            \
  GK_COL2(FMA, BC, BO5, "7", A0, A1, "18", "19")                                               \
  GK_COL2(FMA, BC, BO6, "6", A0, A1, "20", "21")                                               \
  GK_COL2(FMA, BC, BO7, "7", A0, A1, "22", "23")                                               \
  GK_COL2(FMA, BC, BO8, "6", A0, A1, "24", "25")                                               \
  GK_COL2(FMA, BC, BO9, "7", A0, A1, "26", "27")                                               \
  GK_COL2(FMA, BC, BO10, "6", A0, A1, "28", "29")                                              \
  GK_COL2(FMA, BC, BO11, "7", A0, A1, "30", "31")
#define GK_R2C12_FIRST GK_LD("0", "0") GK_LD("64", "1")
#define GK_R2C12_PAIR "256"
#define GK_R2C12_SET0 "0", "1"
#define GK_R2C12_SET1 "2", "3"
#define GK_R2C12_NEXT1 GK_LD("128", "2"), GK_LD("192", "3")
#define GK_R2C12_NEXT0 GK_LD("256", "0"), GK_LD("320", "1")
#define GK_R2C12_NONE "", ""

// The loop over kc >= 1 depth steps.  Steps go in pairs (set 0, then set
// 1), each pair loading the sets of the next two steps; the last one or two
// steps load nothing past the panel.  S0/S1: one step on set 0 (loading set
// 1) and on set 1 (loading set 0); S0_LAST/S1_LAST the same without loads;
// B_ADVANCE moves the B pointers two steps on.
#define GK_LOOP(FIRST, PAIR, S0, S1, S0_LAST, S1_LAST, B_ADVANCE) \
  GK_ACC_LOAD                                                     \
  FIRST                                                           \
  "test %[pairs], %[pairs]\n\t"                                  \
  "jz 2f\n\t"                                                    \
  "1:\n\t" S0 S1                                                 \
  "add $" PAIR ", %[a]\n\t"                                      \
  B_ADVANCE                                                      \
  "dec %[pairs]\n\t"                                             \
  "jnz 1b\n\t"                                                   \
  "2:\n\t"                                                       \
  "test %[two], %[two]\n\t"                                      \
  "jz 3f\n\t" S0 S1_LAST                                         \
  "jmp 4f\n\t"                                                   \
  "3:\n\t" S0_LAST                                               \
  "4:\n\t"                                                       \
  GK_ACC_STORE

// acc[j][r] at byte 64 (R j + r) of the array <-> zmm(8 + R j + r).
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

// The B addresses of one step, as a parenthesized list (so it passes
// through macro arguments whole; GK_UNPACK opens it).  Packed B: NR
// elements per step at %[b], O the first one's byte offset and E the size.
#define GK_PACKED8(O, E)                                                                     \
  (O "+0*" E "(%[b])", O "+1*" E "(%[b])", O "+2*" E "(%[b])", O "+3*" E "(%[b])",          \
   O "+4*" E "(%[b])", O "+5*" E "(%[b])", O "+6*" E "(%[b])", O "+7*" E "(%[b])")
#define GK_PACKED12(O, E)                                                                    \
  (O "+0*" E "(%[b])", O "+1*" E "(%[b])", O "+2*" E "(%[b])", O "+3*" E "(%[b])",          \
   O "+4*" E "(%[b])", O "+5*" E "(%[b])", O "+6*" E "(%[b])", O "+7*" E "(%[b])",          \
   O "+8*" E "(%[b])", O "+9*" E "(%[b])", O "+10*" E "(%[b])", O "+11*" E "(%[b])")
// B read in place: NR columns a stride %[cs] bytes apart, four from each
// base register (%[b], %[b4], %[b8]; cs3 = 3 cs), element O bytes down each.
#define GK_FOUR(O, B) O "(" B ")", O "(" B ",%[cs],1)", O "(" B ",%[cs],2)", O "(" B ",%[cs3],1)"
#define GK_COLUMNS8(O) (GK_FOUR(O, "%[b]"), GK_FOUR(O, "%[b4]"))
#define GK_COLUMNS12(O) (GK_FOUR(O, "%[b]"), GK_FOUR(O, "%[b4]"), GK_FOUR(O, "%[b8]"))
#define GK_UNPACK(...) __VA_ARGS__
// M(arguments) once the arguments are expanded (the lists open into their
// elements before M counts them).
#define GK_CALL(M, ...) M(__VA_ARGS__)
#define GK_CALL_OUTER(M, ...) M(__VA_ARGS__)  // around GK_CALL (no macro expands in itself)
// The loop of geometry G (R3C8, R2C12) for the type's FMA and broadcast,
// B0/B1 the B address lists of a pair's two steps.
#define GK_LOOP_OF(G, FMA, BC, B0, B1, ADVANCE)                                                \
  GK_LOOP(GK_##G##_FIRST, GK_##G##_PAIR,                                                       \
          GK_CALL(GK_##G##_STEP, FMA, BC, GK_UNPACK B0, GK_##G##_SET0, GK_##G##_NEXT1),        \
          GK_CALL(GK_##G##_STEP, FMA, BC, GK_UNPACK B1, GK_##G##_SET1, GK_##G##_NEXT0),        \
          GK_CALL(GK_##G##_STEP, FMA, BC, GK_UNPACK B0, GK_##G##_SET0, GK_##G##_NONE),         \
          GK_CALL(GK_##G##_STEP, FMA, BC, GK_UNPACK B1, GK_##G##_SET1, GK_##G##_NONE), ADVANCE)
#define GK_F32 "vfmadd231ps", "vbroadcastss"
#define GK_F64 "vfmadd231pd", "vbroadcastsd"

#define GK_CLOBBERS                                                                     \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
      "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",      \
      "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28",      \
      "xmm29", "xmm30", "xmm31", "cc", "memory"

// The asm statements of the loops, OP the type's GK_F32/GK_F64, E its size
// and PAIR_B the bytes a pair of steps moves down a B column.
#define GK_ASM_PACKED(G, OP, B0, B1, ADVANCE)                                                \
  __asm__ volatile(GK_CALL_OUTER(GK_LOOP_OF, G, OP, B0, B1, "add $" ADVANCE ", %[b]\n\t")         \
                   : [a] "+r"(a), [b] "+r"(b), [pairs] "+r"(pairs)                          \
                   : [two] "r"(two), [acc] "r"(&acc[0][0])                                  \
                   : GK_CLOBBERS)
#define GK_ASM_COLUMNS8(OP, E, PAIR_B)                                                        \
  __asm__ volatile(GK_CALL_OUTER(GK_LOOP_OF, R3C8, OP, GK_COLUMNS8("0"), GK_COLUMNS8(E),           \
                           "add $" PAIR_B ", %[b]\n\tadd $" PAIR_B ", %[b4]\n\t")            \
                   : [a] "+r"(a), [b] "+r"(b), [b4] "+r"(b4), [pairs] "+r"(pairs)            \
                   : [two] "r"(two), [acc] "r"(&acc[0][0]), [cs] "r"(cs), [cs3] "r"(cs3)     \
                   : GK_CLOBBERS)
#define GK_ASM_COLUMNS12(OP, E, PAIR_B)                                                       \
  __asm__ volatile(GK_CALL_OUTER(GK_LOOP_OF, R2C12, OP, GK_COLUMNS12("0"), GK_COLUMNS12(E),        \
                           "add $" PAIR_B ", %[b]\n\tadd $" PAIR_B ", %[b4]\n\tadd $" PAIR_B \
                           ", %[b8]\n\t")                                                    \
                   : [a] "+r"(a), [b] "+r"(b), [b4] "+r"(b4), [b8] "+r"(b8),                 \
                     [pairs] "+r"(pairs)                                                     \
                   : [two] "r"(two), [acc] "r"(&acc[0][0]), [cs] "r"(cs), [cs3] "r"(cs3)     \
                   : GK_CLOBBERS)

// acc[j][r] += sum over the kc >= 1 steps of a packed A panel and a packed
// B panel, for the tiles R x NR = 3 x 8 and 2 x 12.
template <int R, int NR, class T, class Reg>
GEMMKIT_INLINE void depth_loop(index_t kc, const T* a, const T* b, Reg (&acc)[NR][R]) {
  index_t pairs = (kc - 1) / 2;           // pairs whose loads stay inside the panel
  const index_t two = kc - 2 * pairs == 2;  // then one more pair, or one step
  if constexpr (R == 3 && NR == 8 && sizeof(T) == 4) {
    GK_ASM_PACKED(R3C8, GK_F32, GK_PACKED8("0", "4"), GK_PACKED8("32", "4"), "64");
  } else if constexpr (R == 3 && NR == 8) {
    GK_ASM_PACKED(R3C8, GK_F64, GK_PACKED8("0", "8"), GK_PACKED8("64", "8"), "128");
  } else if constexpr (R == 2 && NR == 12 && sizeof(T) == 4) {
    GK_ASM_PACKED(R2C12, GK_F32, GK_PACKED12("0", "4"), GK_PACKED12("48", "4"), "96");
  } else {
    static_assert(R == 2 && NR == 12, "pipelined tiles: 3 x 8 or 2 x 12");
    GK_ASM_PACKED(R2C12, GK_F64, GK_PACKED12("0", "8"), GK_PACKED12("96", "8"), "192");
  }
}

// The same with B's NR columns read in place, column j at b + j * b_cs
// elements, contiguous along the depth.
template <int R, int NR, class T, class Reg>
GEMMKIT_INLINE void depth_loop_columns(index_t kc, const T* a, const T* b, index_t b_cs,
                                       Reg (&acc)[NR][R]) {
  index_t pairs = (kc - 1) / 2;
  const index_t two = kc - 2 * pairs == 2;
  const index_t cs = b_cs * index_t(sizeof(T));
  const index_t cs3 = 3 * cs;
  const T* b4 = b + 4 * b_cs;
  if constexpr (NR == 8) {
    static_assert(R == 3, "pipelined tiles: 3 x 8 or 2 x 12");
    if constexpr (sizeof(T) == 4) GK_ASM_COLUMNS8(GK_F32, "4", "8");
    else GK_ASM_COLUMNS8(GK_F64, "8", "16");
  } else {
    static_assert(R == 2 && NR == 12, "pipelined tiles: 3 x 8 or 2 x 12");
    const T* b8 = b + 8 * b_cs;
    if constexpr (sizeof(T) == 4) GK_ASM_COLUMNS12(GK_F32, "4", "8");
    else GK_ASM_COLUMNS12(GK_F64, "8", "16");
  }
}
#undef GK_FMA
#undef GK_BC
#undef GK_LD
#undef GK_COL3
#undef GK_COL2
#undef GK_R3C8_STEP
#undef GK_R3C8_FIRST
#undef GK_R3C8_PAIR
#undef GK_R3C8_SET0
#undef GK_R3C8_SET1
#undef GK_R3C8_NEXT1
#undef GK_R3C8_NEXT0
#undef GK_R3C8_NONE
#undef GK_R2C12_STEP
#undef GK_R2C12_FIRST
#undef GK_R2C12_PAIR
#undef GK_R2C12_SET0
#undef GK_R2C12_SET1
#undef GK_R2C12_NEXT1
#undef GK_R2C12_NEXT0
#undef GK_R2C12_NONE
#undef GK_LOOP
#undef GK_ACC_LOAD1
#undef GK_ACC_STORE1
#undef GK_ACC_EACH
#undef GK_ACC_LOAD
#undef GK_ACC_STORE
#undef GK_PACKED8
#undef GK_PACKED12
#undef GK_FOUR
#undef GK_COLUMNS8
#undef GK_COLUMNS12
#undef GK_UNPACK
#undef GK_CALL
#undef GK_CALL_OUTER
#undef GK_LOOP_OF
#undef GK_F32
#undef GK_F64
#undef GK_CLOBBERS
#undef GK_ASM_PACKED
#undef GK_ASM_COLUMNS8
#undef GK_ASM_COLUMNS12
#endif

}  // namespace pipelined_detail

// The family of a pipelined tile, R x NR = 3 x 8 (the square tile) or
// 2 x 12 (the main tile): WidenFamily's packing and layout for input L and
// accumulator A (float or double; float16/bfloat16 inputs are widened while
// packing, so the loop is the float one), with the depth loops above.  B's
// columns are read in place only where L is A.
template <class Token, class L, class A, int R, int NR>
struct PipelinedFamily : WidenFamily<Token, L, A, R, NR> {
  using Base = WidenFamily<Token, L, A, R, NR>;
  using Reg = typename Base::Reg;
  static GEMMKIT_INLINE void accumulate(index_t kc, const A* a, const A* b, Reg (&acc)[NR][R]) {
#if defined(GEMMKIT_PIPELINED_ASM)
    if (kc > 0) pipelined_detail::depth_loop<R, NR>(kc, a, b, acc);
#else
    Base::accumulate(kc, a, b, acc);
#endif
  }
  // A whole tile whose B columns are read in place (Microkernel::run_inplace):
  // column j at b + j * b_cs.
  static GEMMKIT_INLINE void accumulate_columns(index_t kc, const A* a, const A* b, index_t b_cs,
                                                Reg (&acc)[NR][R])
    requires(Base::kInplace)
  {
#if defined(GEMMKIT_PIPELINED_ASM)
    if (kc > 0) pipelined_detail::depth_loop_columns<R, NR>(kc, a, b, b_cs, acc);
#else
    FloatKernel<Token, A, R, NR>::accumulate(
        kc, a, Base::kMr, [b, b_cs](index_t p, int j) { return b[j * b_cs + p]; }, acc);
#endif
  }
};

}  // namespace gemmkit::kernel
