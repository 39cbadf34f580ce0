// Measured peak of this engine + CPU for the arithmetic gemmkit's wasm
// kernels use: independent chains of acc = acc * m + c (f32x4.mul then
// f32x4.add, as the simd128 token does; one f32x4.relaxed_madd, as the
// relaxed_simd token does; scalar f32.mul + f32.add for the scalar build).  The modules are written byte by byte here, so what runs is
// exactly those instructions, with no compiler in between.
//
// The number of chains matters: mul+add latency needs about 13 in flight on
// Zen 4, and V8 gives wasm 15 xmm registers on x64 (13 accumulators + m + c);
// the sweep finds the best count on the machine at hand.

const uleb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const sleb = (n) => {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};
const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
const f32bytes = (v) => [...new Uint8Array(new Float32Array([v]).buffer)];

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;
const SIMD = 0xfd;
const OP = {
  localGet: 0x20, localSet: 0x21, i32Const: 0x41, i32Sub: 0x6b, brIf: 0x0d,
  loop: 0x03, end: 0x0b, f32Const: 0x43, f32Add: 0x92, f32Mul: 0x94,
};
const SIMD_OP = {
  v128Const: 0x0c, f32x4ExtractLane: 0x1f, f32x4Add: 228, f32x4Mul: 230, f32x4RelaxedMadd: 0x105,
};

/** The arithmetic a peak is measured for. */
export const PEAK_KINDS = Object.freeze(["scalar", "simd128", "relaxed_simd"]);

/**
 * (func (param $iters i32) (result f32)) running `chains` independent
 * acc = acc * m + c chains, `iters` times, with the arithmetic of `kind`
 * (PEAK_KINDS).
 */
function peakModule(chains, kind) {
  const simd = kind !== "scalar";
  const T = simd ? V128 : F32;
  // locals after the param (index 0): acc[0..chains), m, c
  const m = 1 + chains;
  const c = m + 1;
  const constOf = (v) => (simd
    ? [SIMD, SIMD_OP.v128Const, ...[0, 1, 2, 3].flatMap(() => f32bytes(v))]
    : [OP.f32Const, ...f32bytes(v)]);
  const body = [];
  for (let k = 0; k < chains; k++) body.push(...constOf(1 + k / 64), OP.localSet, 1 + k);
  body.push(...constOf(0.9999999), OP.localSet, m, ...constOf(1e-7), OP.localSet, c);
  body.push(OP.loop, 0x40);
  for (let k = 0; k < chains; k++) {
    body.push(OP.localGet, 1 + k, OP.localGet, m);
    if (kind === "relaxed_simd") {
      body.push(OP.localGet, c, SIMD, ...uleb(SIMD_OP.f32x4RelaxedMadd));
    } else {
      body.push(...(simd ? [SIMD, ...uleb(SIMD_OP.f32x4Mul)] : [OP.f32Mul]));
      body.push(OP.localGet, c);
      body.push(...(simd ? [SIMD, ...uleb(SIMD_OP.f32x4Add)] : [OP.f32Add]));
    }
    body.push(OP.localSet, 1 + k);
  }
  body.push(OP.localGet, 0, OP.i32Const, ...sleb(1), OP.i32Sub, OP.localSet, 0);
  body.push(OP.localGet, 0, OP.brIf, 0, OP.end);
  // Sum the chains so nothing is dead code.
  body.push(OP.localGet, 1);
  for (let k = 1; k < chains; k++) {
    body.push(OP.localGet, 1 + k, ...(simd ? [SIMD, ...uleb(SIMD_OP.f32x4Add)] : [OP.f32Add]));
  }
  if (simd) body.push(SIMD, SIMD_OP.f32x4ExtractLane, 0);
  body.push(OP.end);
  const locals = [1, ...uleb(chains + 2), T];
  const func = [...locals, ...body];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 1, I32, 1, F32]),
    ...section(3, [1, 0]),
    ...section(7, [1, 4, ..."peak".split("").map((ch) => ch.charCodeAt(0)), 0x00, 0]),
    ...section(10, [1, ...uleb(func.length), ...func]),
  ];
  return new Uint8Array(bytes);
}

/** Best GFLOP/s over `samples` timed runs of >= minMs each. */
async function measure(chains, kind, { minMs = 60, samples = 5 } = {}) {
  const { instance } = await WebAssembly.instantiate(peakModule(chains, kind));
  const peak = instance.exports.peak;
  const flopsPerIter = chains * (kind === "scalar" ? 1 : 4) * 2;
  let iters = 1 << 16;
  const t0 = performance.now();
  while (performance.now() - t0 < 150) peak(iters); // tier-up
  for (;;) {
    const t = performance.now();
    peak(iters);
    if (performance.now() - t >= minMs) break;
    iters *= 2;
  }
  const rates = [];
  for (let s = 0; s < samples; s++) {
    const t = performance.now();
    peak(iters);
    rates.push((flopsPerIter * iters) / ((performance.now() - t) * 1e-3) / 1e9);
  }
  rates.sort((a, b) => a - b);
  return { median: rates[rates.length >> 1], max: rates[rates.length - 1] };
}

/** Sweeps the chain count; returns the best and every point. */
export async function measurePeak(kind, chainCounts = [8, 10, 12, 13, 14], opts = {}) {
  if (!PEAK_KINDS.includes(kind)) throw new Error(`measurePeak: unknown kind ${kind}`);
  const sweep = {};
  let best = { chains: 0, median: 0, max: 0 };
  for (const chains of chainCounts) {
    const r = await measure(chains, kind, opts);
    sweep[chains] = r;
    if (r.median > best.median) best = { chains, ...r };
  }
  return { best, sweep };
}
