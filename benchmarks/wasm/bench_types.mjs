// gemmkit wasm benchmark (not a test): in ONE node process, single thread,
// square GEMM of the standalone simd128 build for the narrow types, bf16 and
// f16 (f32 accumulation; bf16/f16 output and the f32-output twin) and
// int8 x int8 -> int32, for complex64 and for the wrapping int32 and int16
// products (same type in and out), against the same build's f32 GEMM:
// prints the ratios next to the issues' targets (bf16/f16 >= 0.7x f32,
// int8 >= 1.0x f32, complex64 >= 0.8x f32 in real GFLOP/s; int32 and int16:
// time over f32 time, no target) and writes JSON.
//
//   python wasm/build.py --only web
//   node benchmarks/wasm/bench_types.mjs [--sizes 64,128,256,512,1024]
//        [--rounds 3] [--isa simd128,scalar] [--web-dir web-demo]
//        [--out build/benchmarks/wasm-types.json]
//
// Everything goes through the module's C ABI (gemmkit_gemm, gemmkit_sgemm)
// on operands already in its memory, so kernels are timed, not JavaScript
// copies.  Method as in bench.mjs: each figure is the median (and max) over
// `rounds` interleaved rounds (the order of the types is reversed every
// other round); a round times each configuration for >= 60 ms after a
// >= 150 ms warm-up (TurboFan tier-up).  Rates count 2*n^3 operations per
// product, complex64 8*n^3 real flops (a complex multiply-add is 4 real
// multiplies and 4 adds), so complex64 / f32 compares real flop rates.
// Every configuration's first result at n <= 256 is checked against a
// float64 product of the same inputs (complex64: a float64 complex product,
// bound from k and float32 eps; int8: exactly; int32/int16: exactly, modulo
// 2^32 / 2^16 with Math.imul and |0, i.e. BigInt.asIntN of the exact sum, on
// full-range inputs so that the products really wrap), so a wrong
// conversion cannot pass as a fast one.
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { MIN_MS, WARM_MS, sample } from "./bench_core.mjs";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CHECK_MAX_N = 256;

/** gemmkit_dtype of gemmkit.h. */
export const DT = Object.freeze({
  F32: 0, F64: 1, F16: 2, BF16: 3, I8: 4, I32: 5, U8: 6, I16: 8, I64: 9, C64: 13, C128: 14,
});

/** What is measured: input/output types, bytes per element, output unit
 * roundoff (0: exact), and optionally real parts per element (complex: 2),
 * operations per n^3 (default 2), wrapping width in bits (exact modular
 * check) and how the ratio to f32 is reported ("time": time / f32 time). */
export const CONFIGS = [
  { name: "f32", in: DT.F32, out: DT.F32, inBytes: 4, outBytes: 4, unit: 2 ** -24 },
  { name: "bf16", in: DT.BF16, out: DT.BF16, inBytes: 2, outBytes: 2, unit: 2 ** -8 },
  { name: "bf16->f32", in: DT.BF16, out: DT.F32, inBytes: 2, outBytes: 4, unit: 2 ** -24 },
  { name: "f16", in: DT.F16, out: DT.F16, inBytes: 2, outBytes: 2, unit: 2 ** -11 },
  { name: "f16->f32", in: DT.F16, out: DT.F32, inBytes: 2, outBytes: 4, unit: 2 ** -24 },
  { name: "int8", in: DT.I8, out: DT.I32, inBytes: 1, outBytes: 4, unit: 0 },
  { name: "complex64", in: DT.C64, out: DT.C64, inBytes: 8, outBytes: 8, unit: 2 ** -24, parts: 2, ops: 8 },
  { name: "int32", in: DT.I32, out: DT.I32, inBytes: 4, outBytes: 4, unit: 0, wrap: 32, ratio: "time" },
  { name: "int16", in: DT.I16, out: DT.I16, inBytes: 2, outBytes: 2, unit: 0, wrap: 16, ratio: "time" },
];

/** Targets: rate(name) / rate(f32) >= min (issue #4: bf16, f16, int8; the
 * dtype issue: "simd128 complex64 at 512: at least 0.8x our simd128 float32
 * at the same real flop count", checked here at every size measured). */
export const TARGETS = [
  { name: "bf16", min: 0.7 },
  { name: "f16", min: 0.7 },
  { name: "int8", min: 1.0 },
  { name: "complex64", min: 0.8 },
];

// ---------------------------------------------------------------------------
// element conversions (node 20 has no Float16Array)

const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);

/** bf16 bits of x: f32 rounded to nearest even at bit 16 (NaN kept quiet). */
export function f32ToBf16Bits(x) {
  f32buf[0] = x;
  const u = u32buf[0];
  if ((u & 0x7fffffff) > 0x7f800000) return ((u >>> 16) | 0x40) & 0xffff;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

export function bf16BitsToF32(h) {
  u32buf[0] = h << 16;
  return f32buf[0];
}

/** IEEE binary16 bits of x (a double), rounded to nearest even. */
export function f64ToF16Bits(x) {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (Number.isNaN(x)) return 0x7e00;
  if (a >= 65520) return sign | 0x7c00; // rounds past the largest finite value, 65504
  if (a < 2 ** -14) {
    // subnormal (or zero): units of 2^-24, ties to even
    return sign | roundHalfEven(a * 2 ** 24);
  }
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1; // log2 may round up just below a power of two
  if (2 ** (e + 1) <= a) e += 1;
  let m = roundHalfEven((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e += 1;
  }
  if (e > 15) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | m;
}

function roundHalfEven(v) {
  const f = Math.floor(v);
  const d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

export function f16BitsToF64(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

// ---------------------------------------------------------------------------
// one configuration at one size: operands in the module's memory

function rng(seed) {
  // xorshift32: cheap, deterministic, good enough for operand values
  let s = (seed * 2654435761) >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** Fills memory at p with n*n random elements of cfg's input type; returns
 * their values as doubles (the reference's inputs; complex: interleaved
 * re, im, so 2*count of them). */
function fillInput(gk, p, cfg, count, seed) {
  const next = rng(seed);
  const buf = gk.memory.buffer;
  if (cfg.in === DT.C64) count *= 2;
  const vals = new Float64Array(count);
  if (cfg.in === DT.F32 || cfg.in === DT.C64) {
    const v = new Float32Array(buf, p, count);
    for (let i = 0; i < count; i++) vals[i] = v[i] = 2 * next() - 1;
  } else if (cfg.in === DT.BF16) {
    const v = new Uint16Array(buf, p, count);
    for (let i = 0; i < count; i++) {
      v[i] = f32ToBf16Bits(2 * next() - 1);
      vals[i] = bf16BitsToF32(v[i]);
    }
  } else if (cfg.in === DT.F16) {
    const v = new Uint16Array(buf, p, count);
    for (let i = 0; i < count; i++) {
      v[i] = f64ToF16Bits(2 * next() - 1);
      vals[i] = f16BitsToF64(v[i]);
    }
  } else if (cfg.in === DT.I32) {
    // full range: the products and sums wrap modulo 2^32
    const v = new Int32Array(buf, p, count);
    for (let i = 0; i < count; i++) vals[i] = v[i] = Math.floor(4294967296 * next()) - 2147483648;
  } else if (cfg.in === DT.I16) {
    const v = new Int16Array(buf, p, count);
    for (let i = 0; i < count; i++) vals[i] = v[i] = Math.floor(65536 * next()) - 32768;
  } else {
    const v = new Int8Array(buf, p, count);
    for (let i = 0; i < count; i++) vals[i] = v[i] = Math.floor(256 * next()) - 128;
  }
  return vals;
}

function readOutput(gk, p, cfg, count) {
  const buf = gk.memory.buffer;
  if (cfg.out === DT.F32) return Float64Array.from(new Float32Array(buf, p, count));
  if (cfg.out === DT.C64) return Float64Array.from(new Float32Array(buf, p, 2 * count));
  if (cfg.out === DT.I32) return Float64Array.from(new Int32Array(buf, p, count));
  if (cfg.out === DT.I16) return Float64Array.from(new Int16Array(buf, p, count));
  const bits = new Uint16Array(buf, p, count);
  const conv = cfg.out === DT.BF16 ? bf16BitsToF32 : f16BitsToF64;
  return Float64Array.from(bits, conv);
}

/** Exact wrapping reference: Math.imul and |0 compute modulo 2^32, which
 * is BigInt.asIntN(32, exact sum); int16 keeps the low 16 bits of that.
 * Returns the number of elements that differ (bound 0). */
function checkWrapping(a, b, c, n, cfg) {
  const ai = Int32Array.from(a);
  const bi = Int32Array.from(b);
  const row = new Int32Array(n);
  const shift = 32 - cfg.wrap;
  let wrong = 0;
  for (let i = 0; i < n; i++) {
    row.fill(0);
    for (let p = 0; p < n; p++) {
      const x = ai[i * n + p];
      for (let j = 0; j < n; j++) row[j] = (row[j] + Math.imul(x, bi[p * n + j])) | 0;
    }
    for (let j = 0; j < n; j++) if (c[i * n + j] !== (row[j] << shift) >> shift) wrong++;
  }
  return { error: wrong, bound: 0, correct: wrong === 0 };
}

/** complex64 against a float64 complex product: max |err| / (eps * sum of
 * the |terms|) over real and imaginary parts, each a real dot product of
 * length 2k, held to 2 * (1 + 2k) (the f32 bound at depth 2k). */
function checkComplex(a, b, c, n, cfg) {
  let worst = 0;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  const reAbs = new Float64Array(n);
  const imAbs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    re.fill(0);
    im.fill(0);
    reAbs.fill(0);
    imAbs.fill(0);
    for (let p = 0; p < n; p++) {
      const xr = a[2 * (i * n + p)];
      const xi = a[2 * (i * n + p) + 1];
      for (let j = 0; j < n; j++) {
        const yr = b[2 * (p * n + j)];
        const yi = b[2 * (p * n + j) + 1];
        re[j] += xr * yr - xi * yi;
        im[j] += xr * yi + xi * yr;
        reAbs[j] += Math.abs(xr * yr) + Math.abs(xi * yi);
        imAbs[j] += Math.abs(xr * yi) + Math.abs(xi * yr);
      }
    }
    for (let j = 0; j < n; j++) {
      const q = 2 * (i * n + j);
      worst = Math.max(worst,
        Math.abs(c[q] - re[j]) / (cfg.unit * reAbs[j] + Number.MIN_VALUE),
        Math.abs(c[q + 1] - im[j]) / (cfg.unit * imAbs[j] + Number.MIN_VALUE));
    }
  }
  const bound = 2 * (1 + (2 * n * 2 ** -24) / cfg.unit);
  return { error: worst, bound, correct: worst <= bound };
}

/** max |err| / (unit * (|A||B|)) and the bound gemmkit is held to
 * (int8: the number of elements that differ, bound 0). */
function check(a, b, c, n, cfg) {
  if (cfg.wrap) return checkWrapping(a, b, c, n, cfg);
  if (cfg.parts === 2) return checkComplex(a, b, c, n, cfg);
  let worst = 0;
  let wrong = 0;
  const row = new Float64Array(n);
  const rowAbs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    row.fill(0);
    rowAbs.fill(0);
    for (let p = 0; p < n; p++) {
      const x = a[i * n + p];
      for (let j = 0; j < n; j++) {
        row[j] += x * b[p * n + j];
        rowAbs[j] += Math.abs(x * b[p * n + j]);
      }
    }
    for (let j = 0; j < n; j++) {
      const err = Math.abs(c[i * n + j] - row[j]);
      if (cfg.unit === 0) {
        if (err !== 0) wrong++;
      } else {
        worst = Math.max(worst, err / (cfg.unit * rowAbs[j] + Number.MIN_VALUE));
      }
    }
  }
  if (cfg.unit === 0) return { error: wrong, bound: 0, correct: wrong === 0 };
  const bound = 2 * (1 + (n * 2 ** -24) / cfg.unit);
  return { error: worst, bound, correct: worst <= bound };
}

function makeJob(gk, cfg, n, seed) {
  const ex = gk.exports;
  const count = n * n;
  const pa = ex.malloc(count * cfg.inBytes);
  const pb = ex.malloc(count * cfg.inBytes);
  const pc = ex.malloc(count * cfg.outBytes);
  if (!pa || !pb || !pc) throw new Error(`gemmkit: out of wasm memory at n=${n}`);
  // Views are made after every malloc: growing memory detaches old ones.
  const a = fillInput(gk, pa, cfg, count, seed);
  const b = fillInput(gk, pb, cfg, count, seed + 1);
  const run = cfg.in === DT.F32
    ? () => ex.gemmkit_sgemm(n, n, n, 1, pa, n, 1, pb, n, 1, 0, 0, n, 1, pc, n, 1)
    : () => ex.gemmkit_gemm(cfg.in, cfg.out, n, n, n, 1, pa, n, 1, pb, n, 1, 0, 0, n, 1, pc, n, 1);
  const guarded = () => {
    const status = run();
    if (status !== 0) throw new Error(`status ${status}: ${gk.lastError()}`);
  };
  return {
    run: guarded,
    check: () => {
      guarded();
      return check(a, b, readOutput(gk, pc, cfg, count), n, cfg);
    },
    free: () => [pa, pb, pc].forEach((p) => ex.free(p)),
  };
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

/**
 * Runs the benchmark on already loaded builds ({isa: gemmkit}); returns the
 * report.  Exported so a harness can drive it with any module speaking the
 * C ABI.
 */
export function runBenchmark(builds, { sizes, rounds, log = console.log }) {
  const samples = new Map();
  const checks = new Map();
  const failed = new Map();
  const key = (isa, cfg, n) => `${isa}|${cfg}|${n}`;
  for (let round = 0; round < rounds; round++) {
    for (const n of sizes) {
      for (const [isa, gk] of Object.entries(builds)) {
        const order = round % 2 ? [...CONFIGS].reverse() : CONFIGS;
        for (const cfg of order) {
          const k = key(isa, cfg.name, n);
          if (failed.has(k)) continue;
          let job = null;
          try {
            job = makeJob(gk, cfg, n, 1000 * n + cfg.in);
            if (round === 0 && n <= CHECK_MAX_N) checks.set(k, job.check());
            const secs = sample(job.run, { minMs: MIN_MS, warmMs: WARM_MS });
            if (!samples.has(k)) samples.set(k, []);
            samples.get(k).push(((cfg.ops ?? 2) * n ** 3) / secs / 1e9);
          } catch (err) {
            failed.set(k, err.message);
          } finally {
            job?.free();
          }
        }
      }
    }
    log(`  round ${round + 1}/${rounds} done`);
  }
  const rows = [];
  for (const isa of Object.keys(builds)) {
    for (const cfg of CONFIGS) {
      for (const n of sizes) {
        const k = key(isa, cfg.name, n);
        const xs = samples.get(k);
        rows.push({
          isa, config: cfg.name, n, ops_per_n3: cfg.ops ?? 2,
          ...(xs ? { median: median(xs), max: Math.max(...xs), samples: xs } : {}),
          ...(checks.has(k) ? { check: checks.get(k) } : {}),
          ...(failed.has(k) ? { error: failed.get(k) } : {}),
        });
      }
    }
  }
  return { rows };
}

export function printReport(report, sizes, rounds, log = console.log) {
  const get = (isa, cfg, n) => report.rows.find((r) => r.isa === isa && r.config === cfg && r.n === n);
  const pad = (s, w) => String(s).padStart(w);
  const isas = [...new Set(report.rows.map((r) => r.isa))];
  log(`\nGFLOP/s (integers: GOP/s, 2*n^3; complex64: real GFLOP/s, 8*n^3), ` +
    `median / max of ${rounds} rounds, single thread`);
  log(`${"build  configuration".padEnd(34)}${sizes.map((n) => pad(n, 14)).join("")}`);
  for (const isa of isas) {
    for (const cfg of CONFIGS) {
      const cells = sizes.map((n) => {
        const r = get(isa, cfg.name, n);
        if (!r || r.error) return pad("n/a", 14);
        const bad = r.check && !r.check.correct ? " !" : "";
        return pad(`${r.median.toFixed(1)} / ${r.max.toFixed(1)}${bad}`, 14);
      });
      log(`${`${isa}  ${cfg.name}`.padEnd(34)}${cells.join("")}`);
    }
  }
  log("\nratios to the same build's f32 (medians): rate / f32 rate (complex64 in real flops), " +
    "int32/int16 time / f32 time; targets from the issues");
  const verdicts = [];
  const ratioRows = [];
  for (const isa of isas) {
    for (const cfg of CONFIGS.filter((c) => c.name !== "f32")) {
      const target = TARGETS.find((t) => t.name === cfg.name);
      const ratios = sizes.map((n) => {
        const x = get(isa, cfg.name, n);
        const y = get(isa, "f32", n);
        if (!x?.median || !y?.median) return null;
        // time per product: ops * n^3 / rate; time / f32 time
        return cfg.ratio === "time" ? (2 * y.median) / ((cfg.ops ?? 2) * x.median) : x.median / y.median;
      });
      const what = cfg.ratio === "time" ? `${cfg.name} t / f32 t` : `${cfg.name} / f32`;
      const label = `${isa}  ${what}${target ? ` (>= ${target.min})` : ""}`;
      log(`${label.padEnd(34)}${ratios.map((v) => pad(v === null ? "-" : `${v.toFixed(2)}x`, 14)).join("")}`);
      ratioRows.push({
        isa, config: cfg.name, of: cfg.ratio === "time" ? "time / f32 time" : "rate / f32 rate",
        ratios: Object.fromEntries(sizes.map((n, i) => [n, ratios[i]])),
      });
      if (target && isa === "simd128") {
        const got = ratios.filter((v) => v !== null);
        verdicts.push({
          config: cfg.name, min: target.min, ratios: Object.fromEntries(sizes.map((n, i) => [n, ratios[i]])),
          met: got.length > 0 && Math.min(...got) >= target.min,
        });
      }
    }
  }
  const bad = report.rows.filter((r) => r.check && !r.check.correct);
  const errors = report.rows.filter((r) => r.error);
  if (bad.length) {
    log("\nresults outside the error bound (marked !):");
    for (const r of bad) log(`  ${r.isa} ${r.config} n=${r.n}: error ${r.check.error} > bound ${r.check.bound}`);
  }
  if (errors.length) {
    log("\ncould not run:");
    const seen = new Set();
    for (const r of errors) {
      const line = `  ${r.isa} ${r.config}: ${r.error}`;
      if (!seen.has(line)) log(line);
      seen.add(line);
    }
  }
  if (verdicts.length) {
    log("\ntargets (simd128, every size measured):");
    for (const v of verdicts) log(`  ${v.config} / f32 >= ${v.min}: ${v.met ? "met" : "NOT met"}`);
  }
  return { verdicts, ratios: ratioRows, bad: bad.length, errors: errors.length };
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const sizes = opt("sizes", "64,128,256,512,1024").split(",").map(Number);
  const rounds = Number(opt("rounds", "3"));
  const isas = opt("isa", "simd128").split(",");
  const out = path.resolve(opt("out", path.join(REPO, "build", "benchmarks", "wasm-types.json")));
  // Loader and modules from another build folder (python wasm/build.py --web-dir DIR).
  const webDir = path.resolve(opt("web-dir", path.join(REPO, "web-demo")));
  const { loadGemmkit } = await import(pathToFileURL(path.join(webDir, "gemmkit.mjs")).href);

  console.log(`gemmkit wasm types benchmark: node ${process.version} (V8 ${process.versions.v8}), ` +
    `${os.cpus()[0]?.model ?? "cpu"}, load ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  const builds = {};
  for (const isa of isas) {
    const url = pathToFileURL(path.join(webDir, `gemmkit-${isa}.wasm`));
    const gk = await loadGemmkit({ isa, env: {}, url });
    if (typeof gk.exports.gemmkit_gemm !== "function") {
      console.log(`gemmkit-${isa}.wasm does not export gemmkit_gemm: rebuild it (python wasm/build.py --only web)`);
      process.exit(2);
    }
    const d = gk.dispatchInfo();
    const kernels = ["float32", "bfloat16", "float16", "int8", "complex64", "int32", "int16"]
      .map((dt) => `${dt} ${d[dt]?.kernel ?? "(not in dispatch info)"}`).join(", ");
    console.log(`  ${isa}: ${kernels}`);
    builds[isa] = gk;
  }
  const report = runBenchmark(builds, { sizes, rounds });
  const summary = printReport(report, sizes, rounds);
  const full = {
    date: new Date().toISOString(),
    node: process.version,
    v8: process.versions.v8,
    cpu: os.cpus()[0]?.model,
    loadavg: os.loadavg(),
    rounds,
    builds: Object.fromEntries(Object.entries(builds).map(([isa, gk]) => [isa, gk.dispatchInfo()])),
    targets: summary.verdicts,
    ratios: summary.ratios,
    rows: report.rows,
  };
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(full, null, 1));
  console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
  return summary.bad ? 1 : summary.errors ? 2 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exit(await main());
}
