// L4 kernel: the AMX tile families, bf16 x bf16 -> f32 (tdpbf16ps) and
// int8 x int8 -> int32 (tdpbssd), with their packers (the L1 part of these
// families) and the tile configuration they share.
//
// An AMX dot instruction computes C[M][N] += A[M][K] . B[K][N] on tiles of
// 16 rows x 64 bytes: A row-major (a row's K depth values contiguous), B in
// the "VNNI" layout (a row holds one depth group of N columns: 2 bf16 or 4
// int8 per column), C 16 x 16 f32/int32.  The kernel frame's rows i (kMr of
// them, acc lanes) are AMX's N and its columns j (NR) are AMX's M, so:
//
//   kernel A panel = AMX B operand, kernel B panel = AMX A operand,
//   C tile (u, t) row jj, column ii  =  acc[16u + jj][t] lane ii,
//
// which makes acc[NR][MR_REG] (zmm, 64-byte aligned) itself the row-major
// C tile memory: row stride kMr * 4 bytes.  accumulate() loads the C tiles
// straight from acc, runs the depth, and stores them back.
// accumulate_into() runs the same loop on a tile of C in memory (any column
// stride) and may start from zero: for raw-sum outputs it skips
// Microkernel::run's zmm init and store, which cost a 32x32 tile about as
// much as 384 steps of depth (see the note at the families).
//
// Packed layouts (kMr = MR_REG * 16 rows, NR columns; D = depth per chunk:
// 32 for bf16, 64 for int8; Q = ceil(kc / D) chunks; E = D / 16 depth values
// per group, 2 or 4):
//   A panel: [Q * 16][kMr][E]   element (g, i, e) = A(i, E g + e)
//            (DotBf16Family's / DotVnniFamily's A panel without the +128
//            bias, its depth zero-padded to whole chunks).  Rows [16t,
//            16t + 16) of chunk q are the AMX B tile at
//            a + q * 16 * kMr * E + t * 16 * E, row stride kMr * 4 bytes.
//   B panel: [Q][NR][D]          element (q, j, d) = B(D q + d, j): each
//            column's D depth values are one 64-byte row.  Columns [16u,
//            16u + 16) of chunk q are the AMX A tile at
//            b + q * NR * D + u * 16 * D, row stride 64 bytes.
// Rows or columns past width and depth past kc hold zero, so padding
// contributes exactly 0 (int8) or +0 products (bf16).  No trailer: panel
// sizes are Q * 16 * kMr * E and Q * NR * D elements.  B's columns, where
// they are contiguous along the depth, are also AMX A tiles as they lie
// (row stride = their stride): the *_columns entries load them in place.
//
// Rounding: tdpbssd multiplies signed bytes exactly and adds with int32
// wrap-around, so the int8 family is bit-identical to the widening kernel
// for any kc and seed (additions modulo 2^32 do not depend on their order).
// tdpbf16ps forms exact bf16 x bf16 products and adds them to the f32
// accumulator rounding to nearest even, but not once per product: on a
// Sapphire Rapids-class core (2026-11) 1 + 8 products of 2^-26 in one chunk
// gave 1 + 2^-23 (one rounding per step would keep 1).  Denormal inputs,
// products and accumulators are flushed to zero whatever MXCSR says.  So the
// bf16 family rounds unlike the widening one and is held to a tolerance
// (family.hpp); the order of its additions is fixed by the packed layout, so
// a result still does not depend on where its tile falls.
//
// Tile configuration: every family here uses the same palette-1 layout,
// tmm0..7 all 16 rows x 64 bytes.  accumulate() checks the thread's live
// configuration (sttilecfg, ~23 cycles) and loads ours (ldtilecfg, ~230
// cycles, measured 2026-11 on one Sapphire Rapids-class core) only when it
// differs: on a thread's first tile, or after other code on the thread
// (oneDNN in torch, onnxruntime) loaded its own or released the tiles.  No
// caller has to configure anything; release_tiles() is there for a caller
// that wants the tile state back in its init state (cheaper context
// switches) once a GEMM is done.
//
// Contract with the driver: cpp/src/kernel/family.hpp.  Everything here is a
// template over the ISA token or has internal linkage (ODR: see
// simd/simd_ops.hpp); it needs AVX-512F + BW + AMX-TILE/BF16/INT8, i.e. an
// amx translation unit, and a process that was granted XTILEDATA
// (simd/amx.hpp).
#pragma once

#if defined(__x86_64__) || defined(_M_X64)
#include "simd/x86_intrinsics.hpp"

#include <cstdint>
#include <cstring>

#include "cache/cache_info.hpp"
#include "gemmkit/types.hpp"
#include "kernel/dot_bf16.hpp"
#include "kernel/dot_vnni.hpp"
#include "kernel/task.hpp"
#include "simd/amx.hpp"
#include "simd/simd_ops.hpp"

namespace gemmkit::kernel {

namespace amx_detail {

// ---------------------------------------------------------------------------
// Tile configuration

// The 64-byte ldtilecfg image: palette 1 (byte 0), colsb[0..7] = 64 (bytes
// 16..31), rows[0..7] = 16 (bytes 48..55), tiles 8..15 unused.
static GEMMKIT_INLINE __m512i tile_config_image() {
  return _mm512_set_epi64(0, 0x1010101010101010ll, 0, 0, 0x0040004000400040ll,
                          0x0040004000400040ll, 0, 1);
}

struct alignas(64) TileConfig {
  unsigned char bytes[64];
};

// GCC 12's _tile_loadconfig / _tile_storeconfig declare an 8-byte memory
// operand; the asm names all 64 bytes so no store of the image is dropped.
// MSVC's intrinsics take the whole block (and MSVC has no GNU asm).
static GEMMKIT_INLINE void load_config(const TileConfig& c) {
#if GEMMKIT_GNU
  __asm__ volatile("ldtilecfg %0" : : "m"(c));
#else
  _tile_loadconfig(c.bytes);
#endif
}
static GEMMKIT_INLINE void store_config(TileConfig& c) {
#if GEMMKIT_GNU
  __asm__ volatile("sttilecfg %0" : "=m"(c));
#else
  _tile_storeconfig(c.bytes);
#endif
}

// Makes this thread's live tile configuration ours (see the header note).
static GEMMKIT_INLINE void ensure_tile_config() {
  TileConfig live;
  store_config(live);
  const __m512i want = tile_config_image();
  if (_mm512_cmpneq_epi64_mask(_mm512_load_si512(live.bytes), want) != 0) {
    TileConfig c;
    _mm512_store_si512(c.bytes, want);
    load_config(c);
  }
}

// Returns the thread's tile state to its init state (no configuration).
static GEMMKIT_INLINE void release_tiles() { _tile_release(); }

// ---------------------------------------------------------------------------
// The depth loop
//
// Tile registers by role (the instructions take them as immediates):
//   tmm0..3  C (u, t) = tmm(2u + t): kernel columns [16u, 16u + 16) x
//            kernel rows [16t, 16t + 16)
//   tmm4, 5  AMX A = B panel columns [16u, 16u + 16)
//   tmm6, 7  AMX B = A panel rows [16t, 16t + 16)
// MR_REG = 1 leaves t = 1 out, NR = 16 leaves u = 1 out.

// kF16Split: float16 panels split into bfloat16 high and low parts (see
// AmxF16SplitFamily), three tdpbf16ps per pair of tiles.
enum class TileOp { kBf16, kInt8, kF16Split };

// C tile k (0..3) += its A tile . its B tile, per the roles above.
template <TileOp kOp, int kC>
static GEMMKIT_INLINE void tile_dp() {
  if constexpr (kOp == TileOp::kBf16) {
    if constexpr (kC == 0) _tile_dpbf16ps(0, 4, 6);
    if constexpr (kC == 1) _tile_dpbf16ps(1, 4, 7);
    if constexpr (kC == 2) _tile_dpbf16ps(2, 5, 6);
    if constexpr (kC == 3) _tile_dpbf16ps(3, 5, 7);
  } else {
    if constexpr (kC == 0) _tile_dpbssd(0, 4, 6);
    if constexpr (kC == 1) _tile_dpbssd(1, 4, 7);
    if constexpr (kC == 2) _tile_dpbssd(2, 5, 6);
    if constexpr (kC == 3) _tile_dpbssd(3, 5, 7);
  }
}

// Loads operand tile kReg (4..7), with the non-temporal hint where
// kStream.  (The tile register is part of the instruction: GCC's
// intrinsics paste it into the asm text, so each register is spelled out.)
template <bool kStream, int kReg>
static GEMMKIT_INLINE void load_tile(const unsigned char* p, long stride) {
  static_assert(kReg >= 4 && kReg <= 7, "operand tiles are tmm4..tmm7");
  if constexpr (kStream && kReg == 4) _tile_stream_loadd(4, p, stride);
  if constexpr (kStream && kReg == 5) _tile_stream_loadd(5, p, stride);
  if constexpr (kStream && kReg == 6) _tile_stream_loadd(6, p, stride);
  if constexpr (kStream && kReg == 7) _tile_stream_loadd(7, p, stride);
  if constexpr (!kStream && kReg == 4) _tile_loadd(4, p, stride);
  if constexpr (!kStream && kReg == 5) _tile_loadd(5, p, stride);
  if constexpr (!kStream && kReg == 6) _tile_loadd(6, p, stride);
  if constexpr (!kStream && kReg == 7) _tile_loadd(7, p, stride);
}

// Where the B operand's tiles lie: column j's 64 bytes of chunk q at
// b + q * chunk + j * row (bytes).  A packed B panel: row 64, chunk NR * 64;
// B's columns read in place (contiguous along the depth, a stride apart):
// row = the stride, chunk 64.
struct BTiles {
  long row;
  index_t chunk;
};
template <int NR>
constexpr BTiles kPackedB{64, NR * 64};

// Where C's tiles start from: NR kernel columns of kMr accumulators,
// column j at p + j * stride bytes; p == nullptr starts from zero.
struct CSource {
  const void* p;
  long stride;
};

// C = seed + the product of `chunks` depth chunks of one A panel and of B
// (bt: its layout), where C is NR kernel columns of kMr accumulators,
// column j at c + j * c_stride bytes (acc itself: c_stride = kMr * 4), and
// the seed (C itself, another tile of sums, or zero) is laid out alike.
// kStreamA: the A tiles are loaded with the non-temporal hint; so are B's
// past its first resident_b chunks (see tile_loop).
template <int MR_REG, int NR, TileOp kOp, bool kStreamA>
static GEMMKIT_INLINE void tile_loop_as(index_t chunks, index_t resident_b,
                                        const unsigned char* a, const unsigned char* b,
                                        BTiles bt, CSource seed, void* c_ptr, long c_stride) {
  constexpr bool kT1 = MR_REG == 2;
  constexpr bool kU1 = NR == 32;
  constexpr long kAStride = MR_REG * 64;  // bytes per group row of an A panel
  constexpr index_t kAChunk = 16 * kAStride;
  const long b_row = bt.row;
  const index_t b_chunk = bt.chunk;
  const long b16 = 16 * b_row;  // B's columns [16, 32)
  unsigned char* c = static_cast<unsigned char*>(c_ptr);
  const long c16 = 16 * c_stride;
  ensure_tile_config();
  // GCC 12's tile loads are asm without memory operands: this barrier makes
  // every store to C and to the panels happen before them.  (Tile stores
  // clobber memory, so later reads of C see them.)
  GEMMKIT_COMPILER_BARRIER();
  if (seed.p) {
    const unsigned char* s = static_cast<const unsigned char*>(seed.p);
    const long s16 = 16 * seed.stride;
    _tile_loadd(0, s, seed.stride);
    if constexpr (kT1) _tile_loadd(1, s + 64, seed.stride);
    if constexpr (kU1) _tile_loadd(2, s + s16, seed.stride);
    if constexpr (kT1 && kU1) _tile_loadd(3, s + s16 + 64, seed.stride);
  } else {
    _tile_zero(0);
    if constexpr (kT1) _tile_zero(1);
    if constexpr (kU1) _tile_zero(2);
    if constexpr (kT1 && kU1) _tile_zero(3);
  }
  if constexpr (kOp == TileOp::kF16Split) {
    // Each chunk is a high part then a low part of the same size.  C +=
    // Bh.Ah, then Bl.Ah (the A tiles stay), then Bh.Al (the B tiles are
    // loaded again): 10 tile loads (6 with NR = 16) per 12 (6) dot products.
    for (index_t q = 0; q < chunks; ++q) {
      const unsigned char* al = a + kAChunk;
      const unsigned char* bl = b + b_chunk;
      _tile_loadd(4, b, b_row);
      load_tile<kStreamA, 6>(a, kAStride);
      if constexpr (kT1) load_tile<kStreamA, 7>(a + 64, kAStride);
      if constexpr (kU1) _tile_loadd(5, b + b16, b_row);
      tile_dp<TileOp::kBf16, 0>();
      if constexpr (kT1) tile_dp<TileOp::kBf16, 1>();
      if constexpr (kU1) tile_dp<TileOp::kBf16, 2>();
      if constexpr (kT1 && kU1) tile_dp<TileOp::kBf16, 3>();
      _tile_loadd(4, bl, b_row);
      if constexpr (kU1) _tile_loadd(5, bl + b16, b_row);
      tile_dp<TileOp::kBf16, 0>();
      if constexpr (kT1) tile_dp<TileOp::kBf16, 1>();
      if constexpr (kU1) tile_dp<TileOp::kBf16, 2>();
      if constexpr (kT1 && kU1) tile_dp<TileOp::kBf16, 3>();
      load_tile<kStreamA, 6>(al, kAStride);
      if constexpr (kT1) load_tile<kStreamA, 7>(al + 64, kAStride);
      _tile_loadd(4, b, b_row);
      if constexpr (kU1) _tile_loadd(5, b + b16, b_row);
      tile_dp<TileOp::kBf16, 0>();
      if constexpr (kT1) tile_dp<TileOp::kBf16, 1>();
      if constexpr (kU1) tile_dp<TileOp::kBf16, 2>();
      if constexpr (kT1 && kU1) tile_dp<TileOp::kBf16, 3>();
      a += 2 * kAChunk;
      b += 2 * b_chunk;
    }
  } else {
    // Chunks [q0, q1), B's tiles loaded with the non-temporal hint where
    // kStreamB.
    const auto run_chunks = [&]<bool kStreamB>(index_t q0, index_t q1) {
      for (index_t q = q0; q < q1; ++q) {
        load_tile<kStreamB, 4>(b, b_row);
        load_tile<kStreamA, 6>(a, kAStride);
        tile_dp<kOp, 0>();
        if constexpr (kT1) {
          load_tile<kStreamA, 7>(a + 64, kAStride);
          tile_dp<kOp, 1>();
        }
        if constexpr (kU1) {
          load_tile<kStreamB, 5>(b + b16, b_row);
          tile_dp<kOp, 2>();
          if constexpr (kT1) tile_dp<kOp, 3>();
        }
        a += kAChunk;
        b += b_chunk;
      }
    };
    const index_t resident = chunks < resident_b ? chunks : resident_b;
    run_chunks.template operator()<false>(0, resident);
    run_chunks.template operator()<true>(resident, chunks);
  }
  _tile_stored(0, c, c_stride);
  if constexpr (kT1) _tile_stored(1, c + 64, c_stride);
  if constexpr (kU1) _tile_stored(2, c + c16, c_stride);
  if constexpr (kT1 && kU1) _tile_stored(3, c + c16 + 64, c_stride);
}

// tile_loop_as, the A tiles loaded with the non-temporal hint
// (tileloaddt1) where that measured faster: each A tile is read once per
// call, and kept out of L1 it no longer evicts the B panel that every call
// of the row block reads again (a 32 KiB B panel beside a 32 KiB A panel in
// a 48 KiB L1 at the depths of these measurements: int8's 1024, bfloat16's
// 512).  Measured on a Xeon with AMX, 2026-12-05, one thread, alternating
// builds: int8 256^3 +8-20%, 1024^3 +11-24%, 2048^3 +10-15%, prepacked
// 2048^3 +14-16%; float16 256^3 +4-8%, 1024-2048 within noise; bfloat16
// with slices of 512 (AmxBf16Family's depth rule) 2048^3 +9-14%, 3072^3
// +5-15%, but below 16 chunks (depth 512) it lost up to 10% (256^3,
// float32 out), so shallower bfloat16 calls load plainly.  The hint on C's
// tiles gained nothing.
//
// The B operand's tiles are read again by every call of a row block, so
// they stay in L1 as long as the whole B panel fits there.  A deeper panel
// (bfloat16's single slice of depth 1024: 64 KiB) read front to back
// evicts itself before its next call under LRU and comes from L2 entirely;
// with its chunks past 5/6 of L1 loaded non-temporally, the first 5/6 stay
// resident.  Measured on a Xeon with AMX (48 KiB L1d: 20 chunks of 2 KiB),
// 2026-12-05, one thread, alternating builds: bfloat16 1024^3 +7-13%
// (bfloat16 out), +10-12% (float32 out), 768^3 +6-7%; the probe's B panel
// against an A block in L2 at depth 1024 57% -> 66% of the peak, where 16
// or 24 resident chunks gave 62-65% and 57-64%.  (The float16 split's
// loop, which reads each B chunk twice, keeps plain B loads: untried.)
template <int NR>
static GEMMKIT_INLINE index_t resident_b_chunks() {
  static const index_t chunks = index_t(cache::info().l1d * 5 / 6 / (NR * 64));
  return chunks;
}

template <int MR_REG, int NR, TileOp kOp>
static GEMMKIT_INLINE void tile_loop(index_t chunks, const unsigned char* a,
                                     const unsigned char* b, BTiles bt, CSource seed,
                                     void* c_ptr, long c_stride) {
  constexpr index_t kBf16StreamChunks = 16;
  const index_t resident_b = resident_b_chunks<NR>();
  if (kOp != TileOp::kBf16 || chunks >= kBf16StreamChunks)
    tile_loop_as<MR_REG, NR, kOp, true>(chunks, resident_b, a, b, bt, seed, c_ptr, c_stride);
  else
    tile_loop_as<MR_REG, NR, kOp, false>(chunks, resident_b, a, b, bt, seed, c_ptr, c_stride);
}

// ---------------------------------------------------------------------------
// B panel packing: [chunk][W][64 bytes], each column's 64 bytes of depth
// contiguous.  E is the element bit pattern (uint16_t for bf16, int8_t).

static GEMMKIT_INLINE __mmask64 byte_mask(int n) {
  return n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1;
}

// Chunks [q0, q1) of columns [c0, c0 + n) are zero (padding columns).
template <int W>
static GEMMKIT_INLINE void zero_columns(index_t q0, index_t q1, int c0, int n,
                                        unsigned char* dst) {
  for (index_t q = q0; q < q1; ++q)
    for (int j = 0; j < n; ++j)
      _mm512_storeu_si512(dst + (q * W + c0 + j) * 64, _mm512_setzero_si512());
}

// Source contiguous along the depth (element (j, p) at src[j * rs + p]):
// each column's chunk is one 64-byte copy; the last chunk is a masked load
// (never touching the source past kc) stored whole, zeros included.
template <int W, class E>
static GEMMKIT_INLINE void pack_cols_depth(index_t kc, index_t width, const E* src,
                                           index_t rs, E* GEMMKIT_RESTRICT dst) {
  constexpr int kPer = 64 / int(sizeof(E));
  const index_t chunks = (kc + kPer - 1) / kPer;
  const index_t full = kc / kPer;
  const int tail = int(kc - full * kPer) * int(sizeof(E));
  unsigned char* d = reinterpret_cast<unsigned char*>(dst);
  const index_t valid = width < W ? width : W;
  for (index_t j = 0; j < valid; ++j) {
    const E* s = src + j * rs;
    unsigned char* dj = d + j * 64;
    index_t q = 0;
    GEMMKIT_UNROLL(4)
    for (; q < full; ++q)
      _mm512_storeu_si512(dj + q * W * 64, _mm512_loadu_si512(s + q * kPer));
    if (tail > 0)
      _mm512_storeu_si512(dj + q * W * 64, _mm512_maskz_loadu_epi8(byte_mask(tail), s + q * kPer));
  }
  for (index_t j = valid; j < W; ++j)
    for (index_t q = 0; q < chunks; ++q)
      _mm512_storeu_si512(d + (q * W + j) * 64, _mm512_setzero_si512());
}

// 16 lines x 16 bytes per 128-bit lane -> their transpose, per lane:
// r[k] lane L holds depth row 16L + k of 16 columns; afterwards out[c] lane L
// holds column c's 16 depth bytes 16L..16L+15, so out[c] is column c's whole
// 64-byte chunk.  Four rounds of in-lane unpacks (8, 16, 32, 64 bits), each
// splitting the columns by one more bit (lo/hi halves h, then q, s, e), so
// the result for (h, q, s, e) is column 8h + 4q + 2s + e.
static GEMMKIT_INLINE void transpose_lanes_8bit(const __m512i (&r)[16], __m512i (&out)[16]) {
  __m512i s1[8][2], s2[4][2][2], s3[2][2][2][2];
  GEMMKIT_UNROLL(8)
  for (int i = 0; i < 8; ++i) {
    s1[i][0] = _mm512_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
    s1[i][1] = _mm512_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
  }
  GEMMKIT_UNROLL(4)
  for (int i = 0; i < 4; ++i)
    GEMMKIT_UNROLL(2)
    for (int h = 0; h < 2; ++h) {
      s2[i][h][0] = _mm512_unpacklo_epi16(s1[2 * i][h], s1[2 * i + 1][h]);
      s2[i][h][1] = _mm512_unpackhi_epi16(s1[2 * i][h], s1[2 * i + 1][h]);
    }
  GEMMKIT_UNROLL(2)
  for (int i = 0; i < 2; ++i)
    GEMMKIT_UNROLL(2)
    for (int h = 0; h < 2; ++h)
      GEMMKIT_UNROLL(2)
      for (int q = 0; q < 2; ++q) {
        s3[i][h][q][0] = dot_vnni_detail::unpacklo32(s2[2 * i][h][q], s2[2 * i + 1][h][q]);
        s3[i][h][q][1] = dot_vnni_detail::unpackhi32(s2[2 * i][h][q], s2[2 * i + 1][h][q]);
      }
  GEMMKIT_UNROLL(2)
  for (int h = 0; h < 2; ++h)
    GEMMKIT_UNROLL(2)
    for (int q = 0; q < 2; ++q)
      GEMMKIT_UNROLL(2)
      for (int s = 0; s < 2; ++s) {
        out[8 * h + 4 * q + 2 * s] = dot_vnni_detail::unpacklo64(s3[0][h][q][s], s3[1][h][q][s]);
        out[8 * h + 4 * q + 2 * s + 1] =
            dot_vnni_detail::unpackhi64(s3[0][h][q][s], s3[1][h][q][s]);
      }
}

// 8 lines x 8 words per 128-bit lane -> their transpose, per lane: r[k]
// lane L holds depth row 8L + k of 8 columns; afterwards out[c] lane L holds
// column c's depth 8L..8L+7, so out[c] is column c's whole 32-value chunk.
static GEMMKIT_INLINE void transpose_lanes_16bit(const __m512i (&r)[8], __m512i (&out)[8]) {
  __m512i s1[4][2], s2[2][2][2];
  GEMMKIT_UNROLL(4)
  for (int i = 0; i < 4; ++i) {
    s1[i][0] = _mm512_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
    s1[i][1] = _mm512_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
  }
  GEMMKIT_UNROLL(2)
  for (int i = 0; i < 2; ++i)
    GEMMKIT_UNROLL(2)
    for (int h = 0; h < 2; ++h) {
      s2[i][h][0] = dot_vnni_detail::unpacklo32(s1[2 * i][h], s1[2 * i + 1][h]);
      s2[i][h][1] = dot_vnni_detail::unpackhi32(s1[2 * i][h], s1[2 * i + 1][h]);
    }
  GEMMKIT_UNROLL(2)
  for (int h = 0; h < 2; ++h)
    GEMMKIT_UNROLL(2)
    for (int q = 0; q < 2; ++q) {
      out[4 * h + 2 * q] = dot_vnni_detail::unpacklo64(s2[0][h][q], s2[1][h][q]);
      out[4 * h + 2 * q + 1] = dot_vnni_detail::unpackhi64(s2[0][h][q], s2[1][h][q]);
    }
}

// Four 16-byte pieces into one zmm, piece L in lane L.
static GEMMKIT_INLINE __m512i lanes4(__m128i x0, __m128i x1, __m128i x2, __m128i x3) {
  __m512i z = _mm512_zextsi128_si512(x0);
  z = _mm512_inserti32x4(z, x1, 1);
  z = _mm512_inserti32x4(z, x2, 2);
  return _mm512_inserti32x4(z, x3, 3);
}

static GEMMKIT_INLINE __m128i load16(const void* p) {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}

// int8, source contiguous along the panel (element (j, p) at src[j + p * cs]):
// per 64-deep chunk and 16 columns, 16 zmm of four 16-byte rows each and one
// in-lane byte transpose.  The chunk loop is outside so each source line is
// read while it is in L1.  Partial columns and the depth tail use masked
// loads (zeros), never touching the source past the panel.
template <int W>
static GEMMKIT_INLINE void pack_cols_lines_i8(index_t kc, index_t width, const std::int8_t* src,
                                              index_t cs, std::int8_t* GEMMKIT_RESTRICT dst) {
  const index_t chunks = (kc + 63) / 64;
  unsigned char* d = reinterpret_cast<unsigned char*>(dst);
  for (index_t q = 0; q < chunks; ++q) {
    const index_t p0 = q * 64;
    const int nd = kc - p0 >= 64 ? 64 : int(kc - p0);
    GEMMKIT_UNROLL(2)
    for (int c0 = 0; c0 < W; c0 += 16) {
      const int v = width - c0 >= 16 ? 16 : (width > c0 ? int(width - c0) : 0);
      if (v == 0) {
        zero_columns<W>(q, q + 1, c0, 16, d);
        continue;
      }
      const std::int8_t* s = src + p0 * cs + c0;
      __m512i r[16], t[16];
      if (v == 16 && nd == 64) {
        GEMMKIT_UNROLL(16)
        for (int k = 0; k < 16; ++k)
          r[k] = lanes4(load16(s + k * cs), load16(s + (16 + k) * cs), load16(s + (32 + k) * cs),
                        load16(s + (48 + k) * cs));
      } else {
        for (int k = 0; k < 16; ++k) {
          __m128i x[4];
          for (int l = 0; l < 4; ++l) {
            const int p = 16 * l + k;
            x[l] = p < nd ? dot_vnni_detail::load_bytes(s + p * cs, v) : _mm_setzero_si128();
          }
          r[k] = lanes4(x[0], x[1], x[2], x[3]);
        }
      }
      transpose_lanes_8bit(r, t);
      unsigned char* dq = d + (q * W + c0) * 64;
      GEMMKIT_UNROLL(16)
      for (int c = 0; c < 16; ++c) _mm512_storeu_si512(dq + c * 64, t[c]);
    }
  }
}

// bf16, source contiguous along the panel: per 32-deep chunk and 8 columns,
// 8 zmm of four 8-value rows each and one in-lane word transpose.
template <int W>
static GEMMKIT_INLINE void pack_cols_lines_bf16(index_t kc, index_t width, const std::uint16_t* src,
                                                index_t cs, std::uint16_t* GEMMKIT_RESTRICT dst) {
  const index_t chunks = (kc + 31) / 32;
  unsigned char* d = reinterpret_cast<unsigned char*>(dst);
  for (index_t q = 0; q < chunks; ++q) {
    const index_t p0 = q * 32;
    const int nd = kc - p0 >= 32 ? 32 : int(kc - p0);
    GEMMKIT_UNROLL(4)
    for (int c0 = 0; c0 < W; c0 += 8) {
      const int v = width - c0 >= 8 ? 8 : (width > c0 ? int(width - c0) : 0);
      if (v == 0) {
        zero_columns<W>(q, q + 1, c0, 8, d);
        continue;
      }
      const std::uint16_t* s = src + p0 * cs + c0;
      __m512i r[8], t[8];
      if (v == 8 && nd == 32) {
        GEMMKIT_UNROLL(8)
        for (int k = 0; k < 8; ++k)
          r[k] = lanes4(load16(s + k * cs), load16(s + (8 + k) * cs), load16(s + (16 + k) * cs),
                        load16(s + (24 + k) * cs));
      } else {
        for (int k = 0; k < 8; ++k) {
          __m128i x[4];
          for (int l = 0; l < 4; ++l) {
            const int p = 8 * l + k;
            x[l] = p < nd ? dot_bf16_detail::load_words8(s + p * cs, v) : _mm_setzero_si128();
          }
          r[k] = lanes4(x[0], x[1], x[2], x[3]);
        }
      }
      transpose_lanes_16bit(r, t);
      unsigned char* dq = d + (q * W + c0) * 64;
      GEMMKIT_UNROLL(8)
      for (int c = 0; c < 8; ++c) _mm512_storeu_si512(dq + c * 64, t[c]);
    }
  }
}

// Any strides: one element at a time (rare layouts only).
template <int W, class E>
static GEMMKIT_INLINE void pack_cols_strided(index_t kc, index_t width, const E* src, index_t rs,
                                             index_t cs, E* GEMMKIT_RESTRICT dst) {
  constexpr int kPer = 64 / int(sizeof(E));
  const index_t chunks = (kc + kPer - 1) / kPer;
  for (index_t q = 0; q < chunks; ++q)
    for (index_t j = 0; j < W; ++j)
      for (index_t e = 0; e < kPer; ++e) {
        const index_t p = q * kPer + e;
        dst[(q * W + j) * kPer + e] = j < width && p < kc ? src[j * rs + p * cs] : E(0);
      }
}

// Zero-fills the A panel's depth past the packed groups up to whole chunks.
static GEMMKIT_INLINE void zero_tail(void* dst, index_t from_bytes, index_t to_bytes) {
  if (to_bytes > from_bytes)
    std::memset(static_cast<unsigned char*>(dst) + from_bytes, 0,
                static_cast<std::size_t>(to_bytes - from_bytes));
}

// float16 -> bfloat16 high and low parts (AmxF16SplitFamily), in place:
// `chunks` chunks of `words` float16 bit patterns lie at dst + chunks *
// words; chunk q becomes its high part at dst + 2q * words and its low part
// right after.  Each write lands at or below the chunk being read (2q + 1 <=
// chunks + q), and the one equal position is read before it is written.
//   high = x rounded to nearest even at bfloat16's 8 significant bits,
//   low  = x - high, exact in float32 and in bfloat16: x has at most 11
//          significant bits, so low has at most 3 (|low| <= 2^-8 |x|).
// float16's range lies inside bfloat16's normal range, so neither part is
// ever a denormal for the tiles to flush.  Infinities and NaN keep their
// class in the high part (NaN made quiet) with a zero low part; the
// family's callers never give it such values (see the family).
static GEMMKIT_INLINE __m256i split_high_low16(__m512 x, __m256i* low) {
  const __m512i bits = _mm512_castps_si512(x);
  const __m512i abs = _mm512_and_si512(bits, _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 special = _mm512_cmpge_epi32_mask(abs, _mm512_set1_epi32(0x7F800000));
  const __mmask16 nan = _mm512_cmpgt_epi32_mask(abs, _mm512_set1_epi32(0x7F800000));
  const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
  __m512i high = _mm512_add_epi32(bits, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7FFF)));
  high = _mm512_mask_mov_epi32(high, special, bits);
  high = _mm512_and_si512(high, _mm512_set1_epi32(int(0xFFFF0000u)));
  high = _mm512_mask_or_epi32(high, nan, high, _mm512_set1_epi32(0x00400000));
  const __m512 lo = _mm512_maskz_sub_ps(__mmask16(~special), x, _mm512_castsi512_ps(high));
  *low = _mm512_cvtepi32_epi16(_mm512_srli_epi32(_mm512_castps_si512(lo), 16));
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(high, 16));
}

static GEMMKIT_INLINE void split_f16_chunks(index_t chunks, index_t words, void* dst) {
  std::uint16_t* d = static_cast<std::uint16_t*>(dst);
  for (index_t q = 0; q < chunks; ++q) {
    const std::uint16_t* raw = d + (chunks + q) * words;
    std::uint16_t* high = d + 2 * q * words;
    std::uint16_t* low = high + words;
    for (index_t w = 0; w < words; w += 32) {
      const __m512i v = _mm512_loadu_si512(raw + w);
      __m256i lo0, lo1;
      const __m256i hi0 = split_high_low16(_mm512_cvtph_ps(_mm512_castsi512_si256(v)), &lo0);
      const __m256i hi1 = split_high_low16(_mm512_cvtph_ps(_mm512_extracti64x4_epi64(v, 1)), &lo1);
      _mm512_storeu_si512(high + w, _mm512_inserti64x4(_mm512_castsi256_si512(hi0), hi1, 1));
      _mm512_storeu_si512(low + w, _mm512_inserti64x4(_mm512_castsi256_si512(lo0), lo1, 1));
    }
  }
}

// The depth-loop entries every tile family offers (the family contract,
// kernel/family.hpp), over whole chunks of kChunkDepth depth steps:
//   accumulate: acc[j][r] += sum_p A(r * 16 + lane, p) * B(p, j), acc being
//     itself the row-major C tile memory (see the header note);
//   accumulate_into: the same depth loop on a full kMr x NR tile of C in
//     memory, column j at c + j * ldc (unit row stride; every one of the
//     kMr x NR elements is written, so edge tiles must take
//     Microkernel::run), with no trip through zmm accumulators: C += the
//     product (load_c; C is read), or C = the product (C is not read: NaN
//     there cannot leak).  For outputs that are the raw sum (O == A, alpha
//     1, beta 0 or 1, no epilogue; the deep-K scratch), where it saves
//     Microkernel::run's init and store.
//   accumulate_from: acc = a full kMr x NR tile of earlier sums (the seed,
//     column j at seed + j * seed_ld) + the product, the seed read by the
//     tile loads themselves (Microkernel::run's seeded slices, where the
//     zmm init would load it and store it to acc first).
//   accumulate_columns / accumulate_into_columns / accumulate_from_columns
//     (bfloat16 and int8): the same with B's NR columns read in place,
//     column j at b + j * b_cs elements, contiguous along the depth: the
//     tile loads take B's rows straight from the source, as pack_b would
//     have copied them, so the sums are those of a packed B.  kc must be a
//     whole number of chunks and all NR columns real (nothing is read past
//     them).
template <int MR_REG, int NR, TileOp kOp, index_t kChunkDepth, class PA, class PB, class A,
          class Reg>
struct TileEntries {
  static constexpr index_t chunks(index_t kc) { return (kc + kChunkDepth - 1) / kChunkDepth; }
  static constexpr long kAccStride = MR_REG * 16 * 4;  // bytes per column of acc

  static GEMMKIT_INLINE void accumulate(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                        const PB* GEMMKIT_RESTRICT b,
                                        Reg (&acc)[NR][MR_REG]) {
    tile_loop<MR_REG, NR, kOp>(chunks(kc), bytes(a), bytes(b), kPackedB<NR>,
                               CSource{&acc[0][0], kAccStride}, &acc[0][0], kAccStride);
  }

  static GEMMKIT_INLINE void accumulate_from(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                             const PB* GEMMKIT_RESTRICT b, const A* seed,
                                             index_t seed_ld, Reg (&acc)[NR][MR_REG]) {
    tile_loop<MR_REG, NR, kOp>(chunks(kc), bytes(a), bytes(b), kPackedB<NR>,
                               CSource{seed, long(seed_ld) * long(sizeof(A))}, &acc[0][0],
                               kAccStride);
  }

  static GEMMKIT_INLINE void accumulate_into(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                             const PB* GEMMKIT_RESTRICT b, A* c, index_t ldc,
                                             bool load_c) {
    const long stride = long(ldc) * long(sizeof(A));
    tile_loop<MR_REG, NR, kOp>(chunks(kc), bytes(a), bytes(b), kPackedB<NR>,
                               CSource{load_c ? c : nullptr, stride}, c, stride);
  }

  static GEMMKIT_INLINE void accumulate_columns(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                                const PB* b, index_t b_cs,
                                                Reg (&acc)[NR][MR_REG])
    requires(kOp != TileOp::kF16Split)
  {
    tile_loop<MR_REG, NR, kOp>(kc / kChunkDepth, bytes(a), bytes(b), columns(b_cs),
                               CSource{&acc[0][0], kAccStride}, &acc[0][0], kAccStride);
  }

  static GEMMKIT_INLINE void accumulate_from_columns(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                                     const PB* b, index_t b_cs, const A* seed,
                                                     index_t seed_ld, Reg (&acc)[NR][MR_REG])
    requires(kOp != TileOp::kF16Split)
  {
    tile_loop<MR_REG, NR, kOp>(kc / kChunkDepth, bytes(a), bytes(b), columns(b_cs),
                               CSource{seed, long(seed_ld) * long(sizeof(A))}, &acc[0][0],
                               kAccStride);
  }

  static GEMMKIT_INLINE void accumulate_into_columns(index_t kc, const PA* GEMMKIT_RESTRICT a,
                                                     const PB* b, index_t b_cs, A* c,
                                                     index_t ldc, bool load_c)
    requires(kOp != TileOp::kF16Split)
  {
    const long stride = long(ldc) * long(sizeof(A));
    tile_loop<MR_REG, NR, kOp>(kc / kChunkDepth, bytes(a), bytes(b), columns(b_cs),
                               CSource{load_c ? c : nullptr, stride}, c, stride);
  }

 private:
  template <class T>
  static GEMMKIT_INLINE const unsigned char* bytes(const T* p) {
    return reinterpret_cast<const unsigned char*>(p);
  }
  static GEMMKIT_INLINE BTiles columns(index_t b_cs) {
    return BTiles{long(b_cs) * long(sizeof(PB)), 64};
  }
};

}  // namespace amx_detail

// Speed, measured 2026-11 on one Sapphire Rapids-class core (a 2-vCPU VM
// on a shared host: best of 15 runs; peaks from benchmarks/native/
// dot_peak.c: tdpbf16ps 2700 GFLOP/s, tdpbusd 5400 GOP/s; tdpbssd runs
// at the same rate), 32x32 tiles:
//   kc 1024, one A and one B panel in L2, accumulate():
//     bf16 1840 GFLOP/s (68%), int8 2710 GOP/s (50%)
//   B panel in L1 (kc 384 bf16 / 768 int8, as the cache blocking picks),
//   32 A panels streaming from L2:
//     accumulate() alone             bf16 1800 (67%)   int8 2840 (53%)
//     Microkernel::run, f32/i32 out  bf16 1010 (37%)   int8 1950 (36%)
//     accumulate_into(), C = AB      bf16 1975 (73%)   int8 3230 (60%)
// The tile loop itself, panels in L1, peaks near 76% (bf16) and 69% (int8):
// the tile loads, not the dot instructions, limit it.  Microkernel::run adds
// 400-600 cycles per tile (zeroing 64 zmm, the store of 64 zmm through the
// stack): as much as the whole depth loop at kc 384; without a seed it now
// lets the tiles zero themselves (accumulate_into), which leaves the store
// pass.  benchmarks/native/amx_loop_probe.cpp measures the loop from each
// cache level (2026-12-05 numbers in benchmarks/README.md).  For comparison, the
// same core's vector peaks: vfmadd231ps 152 GFLOP/s, vdpbf16ps 76, vpdpbusd
// 615 GOP/s.

// bf16 x bf16 -> f32 through tdpbf16ps: 32 depth steps per chunk.
template <class Token_, int MR_REG, int NR>
struct AmxBf16Family
    : amx_detail::TileEntries<MR_REG, NR, amx_detail::TileOp::kBf16, 32, bfloat16, bfloat16,
                              float, typename simd::SimdOps<Token_, float>::Reg> {
  // accumulate, accumulate_into and chunks: amx_detail::TileEntries.
  using Entries = typename AmxBf16Family::TileEntries;
  using Entries::chunks;
  using Token = Token_;
  using L = bfloat16;
  using R = bfloat16;
  using A = float;
  using PA = bfloat16;
  using PB = bfloat16;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMrReg = MR_REG;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;
  static constexpr int kDepthMultiple = 32;
  // Depth slices: one up to a depth of 1536 (a second slice costs each
  // tile a pass of C in and out: a bfloat16 output at 1024^3 lost 5-9% with
  // two), deeper products the blocking's L1-sized slices but at least 512
  // deep, whose 32 KiB B panel stays in L1 beside the streamed A tiles
  // (tile_loop).  Measured on a Xeon with AMX, 2026-12-05, one thread,
  // against slices of at least 1024 (the rule since 2026-11, +15% then
  // over L1-sized slices without the streamed A): bfloat16 -> bfloat16
  // 2048^3 +9-14%, 3072^3 +5-15%, 512x512x4096 +10-15%, prepacked +3-16%;
  // float32 out 2048^3 +1-4%.  One slice up to 1536 (was 1024) since the
  // first 5/6 of L1 of a deeper B panel stays resident (tile_loop): 1280^3
  // +14-15% (bfloat16 out), +11-15% (float32 out), 1536^3 +6-7% / +4-6%;
  // up to 2048 it gave 2048^3 -4..+6% / -7..0%.
  static constexpr index_t kOneSliceUpTo = 1536;
  static constexpr index_t kMinSliceDepth = 512;
  static constexpr bool kInplace = false;
  static_assert(kLanes == 16, "AMX C tiles hold 16 f32 per row: 16-lane accumulators");
  static_assert(MR_REG == 1 || MR_REG == 2, "one or two 16-row tiles of A");
  static_assert(NR == 16 || NR == 32, "one or two 16-column tiles of B");

  static constexpr index_t a_panel_size(index_t kc) { return chunks(kc) * 32 * kMr; }
  static constexpr index_t b_panel_size(index_t kc) { return chunks(kc) * 32 * NR; }

  static void pack_a(index_t kc, index_t width, const L* src, index_t rs, index_t cs,
                     PA* dst) {
    dot_bf16_detail::pack<Token, kMr>(kc, width, src, rs, cs, dst);
    amx_detail::zero_tail(dst, (kc + 1) / 2 * kMr * 4, a_panel_size(kc) * 2);
  }

  // pack_a of `rows` rows as consecutive panels, for a source contiguous
  // along the rows (rs == 1), read a depth pair of every panel at a time
  // (the driver's pack_a_block).
  static void pack_a_rows(index_t kc, index_t rows, const L* src, index_t cs, PA* dst) {
    dot_bf16_detail::pack_lines_rows<Token, kMr>(
        kc, rows, reinterpret_cast<const std::uint16_t*>(src), cs,
        reinterpret_cast<std::uint16_t*>(dst), a_panel_size(kc));
    for (index_t i = 0; i < rows; i += kMr)
      amx_detail::zero_tail(dst + i / kMr * a_panel_size(kc), (kc + 1) / 2 * kMr * 4,
                            a_panel_size(kc) * 2);
  }

  static void pack_b(index_t kc, index_t width, const R* src, index_t rs, index_t cs,
                     PB* dst) {
    static_assert(sizeof(bfloat16) == 2 && alignof(bfloat16) == 2);
    const std::uint16_t* s = reinterpret_cast<const std::uint16_t*>(src);
    std::uint16_t* d = reinterpret_cast<std::uint16_t*>(dst);
    if (cs == 1) {
      amx_detail::pack_cols_depth<NR>(kc, width, s, rs, d);
    } else if (rs == 1) {
      amx_detail::pack_cols_lines_bf16<NR>(kc, width, s, cs, d);
    } else {
      amx_detail::pack_cols_strided<NR>(kc, width, s, rs, cs, d);
    }
  }

};

// int8 x int8 -> int32 through tdpbssd (signed x signed, wrapping): 64
// depth steps per chunk.
template <class Token_, int MR_REG, int NR>
struct AmxInt8Family
    : amx_detail::TileEntries<MR_REG, NR, amx_detail::TileOp::kInt8, 64, std::int8_t,
                              std::int8_t, std::int32_t,
                              typename simd::SimdOps<Token_, std::int32_t>::Reg> {
  // accumulate, accumulate_into and chunks: amx_detail::TileEntries.
  using Entries = typename AmxInt8Family::TileEntries;
  using Entries::chunks;
  using Token = Token_;
  using L = std::int8_t;
  using R = std::int8_t;
  using A = std::int32_t;
  using PA = std::int8_t;
  using PB = std::int8_t;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMrReg = MR_REG;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;
  static constexpr int kDepthMultiple = 64;
  // Depth slices of at least this many steps: each tile's fixed cost (C
  // tiles in and out, the store pass) is worth more depth than the L1-sized
  // slice the vector kernels use (measured 2026-11: +15% at 1024 and 2048
  // for 1024 over the blocking's).  2048 since B's chunks past L1 stream
  // (tile_loop): a 64 KiB B panel keeps 5/6 of L1 resident and C is loaded
  // and stored half as often.  Measured on a Xeon with AMX, 2026-12-05, one
  // thread, alternating builds, against 1024: 1536^3 +12-16%, 2048^3
  // +1-16% (prepacked +3-10%), 4096^3 +2-16%; two threads 2048^3 +7-26%.
  static constexpr index_t kMinSliceDepth = 2048;
  static constexpr bool kInplace = false;
  static_assert(kLanes == 16, "AMX C tiles hold 16 int32 per row: 16-lane accumulators");
  static_assert(MR_REG == 1 || MR_REG == 2, "one or two 16-row tiles of A");
  static_assert(NR == 16 || NR == 32, "one or two 16-column tiles of B");

  static constexpr index_t a_panel_size(index_t kc) { return chunks(kc) * 64 * kMr; }
  static constexpr index_t b_panel_size(index_t kc) { return chunks(kc) * 64 * NR; }

  static void pack_a(index_t kc, index_t width, const L* src, index_t rs, index_t cs,
                     PA* dst) {
    dot_vnni_detail::pack<Token, kMr, 0x00>(kc, width, src, rs, cs,
                                            reinterpret_cast<std::uint8_t*>(dst));
    amx_detail::zero_tail(dst, (kc + 3) / 4 * kMr * 4, a_panel_size(kc));
  }

  // pack_a of `rows` rows as consecutive panels, for a source contiguous
  // along the rows (rs == 1), read one depth group (4 steps) of every panel
  // at a time (the driver's pack_a_block).
  static void pack_a_rows(index_t kc, index_t rows, const L* src, index_t cs, PA* dst) {
    const index_t panel = a_panel_size(kc);
    dot_vnni_detail::pack_lines_rows<Token, kMr, 0x00>(
        kc, rows, src, cs, reinterpret_cast<std::uint8_t*>(dst), panel);
    for (index_t i = 0; i < rows; i += kMr)
      amx_detail::zero_tail(dst + i / kMr * panel, (kc + 3) / 4 * kMr * 4, panel);
  }

  static void pack_b(index_t kc, index_t width, const R* src, index_t rs, index_t cs,
                     PB* dst) {
    if (cs == 1) {
      amx_detail::pack_cols_depth<NR>(kc, width, src, rs, dst);
    } else if (rs == 1) {
      amx_detail::pack_cols_lines_i8<NR>(kc, width, src, cs, dst);
    } else {
      amx_detail::pack_cols_strided<NR>(kc, width, src, rs, cs, dst);
    }
  }

};

// float16 x float16 -> f32 through tdpbf16ps on split operands.  Each
// float16 value x is packed as two bfloat16 parts, x = xh + xl exactly
// (amx_detail::split_f16_chunks), and the tiles compute
//   sum_p Ah Bh + Ah Bl + Al Bh,
// leaving out Al Bl.  Error bound, per element of C, against the exact sum
// S = sum_p a_p b_p with s = sum_p |a_p| |b_p|:
//   the left-out term: |al bl| <= 2^-8 |a| 2^-8 |b|, so at most 2^-16 s
//     (2^-5 of float16's unit roundoff u = 2^-11);
//   the three exact bf16 products per depth step are summed in f32, 3k
//     terms, each partial sum rounded at most once per addition: at most
//     (3k) 2^-24 s to first order, what the widening family's k additions
//     give (k 2^-24 s) three times over;
// so |C - S| <= (2^-16 + 3k 2^-24) s before the output's own rounding,
// inside the float16 gate of the tests (8 k eps_f16 s) for every k, and
// for float16 outputs below the final rounding (u |S|) unless the sum
// cancels.  Every part is a bf16 normal number or zero and every product a
// multiple of 2^-48, so the tiles' denormal flushing never fires.
// 0 * inf in the extra terms (an exact low part is 0) would turn a correct
// inf into NaN, so callers run the widening family instead when either
// operand holds an infinity or NaN (targets/amx/f16.cpp).
template <class Token_, int MR_REG, int NR>
struct AmxF16SplitFamily
    : amx_detail::TileEntries<MR_REG, NR, amx_detail::TileOp::kF16Split, 32, bfloat16,
                              bfloat16, float, typename simd::SimdOps<Token_, float>::Reg> {
  // accumulate, accumulate_into and chunks: amx_detail::TileEntries.
  using Entries = typename AmxF16SplitFamily::TileEntries;
  using Entries::chunks;
  using Token = Token_;
  using L = float16;
  using R = float16;
  using A = float;
  using PA = bfloat16;
  using PB = bfloat16;
  using Ops = simd::SimdOps<Token, A>;
  using Reg = typename Ops::Reg;
  static constexpr int kLanes = Ops::kLanes;
  static constexpr int kMrReg = MR_REG;
  static constexpr int kMr = MR_REG * kLanes;
  static constexpr int kNr = NR;
  static constexpr int kDepthMultiple = 32;
  // Depth slices: one up to a depth of 768, deeper products in equal
  // slices near 384, whose B panel (two parts: 128 bytes per depth step)
  // fills a 48 KiB L1 while the A tiles stream past it (tile_loop).
  // Measured 2026-12-05 on a Xeon, one thread, float16 out, alternating
  // builds, against slices of 1024 (the rule before): 1536^3 +11-12%,
  // 2048^3 (6 slices of 352) +6-9%, 3072^3 (8 of 384) +3-7%; through
  // GEMMKIT_KC, slices of 256-300 or 416-512 were slower.  The one slice
  // went from 1024 to 768 once a seeded slice read its seed with the tile
  // loads (accumulate_from): 896^3 +10-18%, 1024^3 +23-33%; 768^3 keeps
  // one slice (two of 384 lost 6-9%).  (2026-12-04, before that: one
  // slice at 1024 beat slices of 512 by 8-10%.)
  static constexpr index_t kOneSliceUpTo = 768;
  static constexpr index_t kDeepSliceDepth = 384;
  static constexpr bool kInplace = false;
  static_assert(kLanes == 16, "AMX C tiles hold 16 f32 per row: 16-lane accumulators");
  static_assert(MR_REG == 1 || MR_REG == 2, "one or two 16-row tiles of A");
  static_assert(NR == 16 || NR == 32, "one or two 16-column tiles of B");

  static constexpr index_t a_panel_size(index_t kc) { return 2 * chunks(kc) * 32 * kMr; }
  static constexpr index_t b_panel_size(index_t kc) { return 2 * chunks(kc) * 32 * NR; }

  // The float16 bit patterns are packed by the bf16 family's packers (they
  // move 16-bit words) into the panel's upper half, then split in place.
  static void pack_a(index_t kc, index_t width, const L* src, index_t rs, index_t cs,
                     PA* dst) {
    static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2);
    const index_t words = 32 * kMr;
    PA* raw = dst + chunks(kc) * words;
    dot_bf16_detail::pack<Token, kMr>(kc, width, reinterpret_cast<const bfloat16*>(src), rs, cs,
                                      raw);
    amx_detail::zero_tail(raw, (kc + 1) / 2 * kMr * 4, chunks(kc) * words * 2);
    amx_detail::split_f16_chunks(chunks(kc), words, dst);
  }

  static void pack_b(index_t kc, index_t width, const R* src, index_t rs, index_t cs,
                     PB* dst) {
    const index_t words = 32 * NR;
    const std::uint16_t* s = reinterpret_cast<const std::uint16_t*>(src);
    std::uint16_t* raw = reinterpret_cast<std::uint16_t*>(dst) + chunks(kc) * words;
    if (cs == 1) {
      amx_detail::pack_cols_depth<NR>(kc, width, s, rs, raw);
    } else if (rs == 1) {
      amx_detail::pack_cols_lines_bf16<NR>(kc, width, s, cs, raw);
    } else {
      amx_detail::pack_cols_strided<NR>(kc, width, s, rs, cs, raw);
    }
    amx_detail::split_f16_chunks(chunks(kc), words, dst);
  }

};

}  // namespace gemmkit::kernel

#endif  // x86-64
