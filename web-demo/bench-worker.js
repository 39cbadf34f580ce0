// gemmkit web demo, benchmark worker (a module Web Worker): loads each build
// of COLUMNS through gemmkit.mjs, times square f32 and f64 GEMMs, verifies
// every result and posts rows to the page, which only draws.
//
// Timing calls the C ABI on buffers allocated once in each module's memory,
// so the numbers are the kernels', not JavaScript copies'.  Verification:
// each build's C against the reference build's elementwise
// (|C1 - C2| <= 2 tol, tol = 2 (k+2) eps |A||B| bounded by rowmax|A| colsum|B|),
// and each C against float64 arithmetic with Freivalds' test
// (|C x - A (B x)| <= 2 (k+2) eps |A| (|B| |x|)), both O(n^2).  Never bit
// equality: relaxed SIMD multiply-add rounds once or twice, as the host CPU
// does it, so its results may differ in the last bits between machines.
import { loadGemmkit, THREADS_REFUSAL_MESSAGE } from "./gemmkit.mjs";
import { rng } from "./seeded-random.mjs";

/** Threads of the threaded column: this machine's logical cores (at least
 * two, at most what the threaded build serves). */
const TEAM = Math.min(Math.max(navigator.hardwareConcurrency || 2, 2), 64);

/**
 * The table's build columns, best first (the loader's own order), each one
 * a load of gemmkit.mjs.  `versus` names the column its speedup is quoted
 * against; `threads` is how many threads the build runs on.
 */
const COLUMNS = [
  {
    key: `simd128 ×${TEAM}`, load: { isa: "simd128", threads: TEAM }, threads: TEAM,
    versus: "simd128",
  },
  { key: "relaxed_simd", load: { isa: "relaxed_simd" }, threads: 1, versus: "simd128" },
  { key: "simd128", load: { isa: "simd128" }, threads: 1, versus: "scalar" },
  { key: "scalar", load: { isa: "scalar" }, threads: 1, versus: null },
];
/** The build every other one is checked against elementwise. */
const REFERENCE = "scalar";
/** A point whose samples' slowest/fastest ratio exceeds 1 + this is noisy. */
const NOISY_SPREAD = 0.1;

const TOL_C = 2;
const EPS = { float32: 2 ** -23, float64: 2 ** -52 };
const CTOR = { float32: Float32Array, float64: Float64Array };

function randomMatrix(Ctor, len, seed) {
  const next = rng(seed);
  const out = new Ctor(len);
  for (let i = 0; i < len; i++) out[i] = 2 * next() - 1;
  return out;
}

/** A, B and C of one size living in one module's memory; run() is one GEMM. */
function prepare(gk, dtype, a, b, n) {
  const Ctor = CTOR[dtype];
  const ex = gk.exports;
  const bytes = n * n * Ctor.BYTES_PER_ELEMENT;
  const pa = ex.malloc(bytes);
  const pb = ex.malloc(bytes);
  const pc = ex.malloc(bytes);
  if (!pa || !pb || !pc) throw new Error(`gemmkit: out of wasm memory at n=${n}`);
  new Ctor(gk.memory.buffer, pa, n * n).set(a);
  new Ctor(gk.memory.buffer, pb, n * n).set(b);
  const fn = dtype === "float32" ? ex.gemmkit_sgemm : ex.gemmkit_dgemm;
  return {
    run() {
      const status = fn(n, n, n, 1, pa, n, 1, pb, n, 1, 0, 0, n, 1, pc, n, 1);
      if (status !== 0) throw new Error(gk.lastError());
    },
    result: () => new Ctor(gk.memory.buffer, pc, n * n).slice(),
    free() {
      ex.free(pa);
      ex.free(pb);
      ex.free(pc);
    },
  };
}

/**
 * `rounds` samples of one GEMM's time, each the mean over repeats filling
 * >= minMs: the best as GFLOP/s, and the spread (slowest / fastest - 1)
 * that tells whether other work on the machine got in the way.
 */
function timeGemm(job, n, minMs, rounds) {
  job.run(); // warm-up: tier-up and first-touch of the workspace
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    let reps = 0;
    const t0 = performance.now();
    let t = t0;
    do {
      job.run();
      reps++;
      t = performance.now();
    } while (t - t0 < minMs);
    samples.push((t - t0) / reps);
  }
  const best = Math.min(...samples);
  return { gflops: (2 * n * n * n) / (best * 1e-3) / 1e9, spread: Math.max(...samples) / best - 1 };
}

function magnitudes(a, b, n) {
  const rowMax = new Float64Array(n);
  const colSum = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let m = 0;
    for (let p = 0; p < n; p++) m = Math.max(m, Math.abs(a[i * n + p]));
    rowMax[i] = m;
  }
  for (let p = 0; p < n; p++) {
    for (let j = 0; j < n; j++) colSum[j] += Math.abs(b[p * n + j]);
  }
  return { rowMax, colSum };
}

function crossCheck(c1, c2, mag, n, eps) {
  let worst = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const tol = 2 * TOL_C * (n + 2) * eps * mag.rowMax[i] * mag.colSum[j];
      const ratio = Math.abs(c1[i * n + j] - c2[i * n + j]) / (tol || 1);
      if (!(ratio <= 1)) return { ok: false, ratio };
      worst = Math.max(worst, ratio);
    }
  }
  return { ok: true, ratio: worst };
}

function freivalds(c, a, b, n, eps, seed) {
  const next = rng(seed);
  const x = new Float64Array(n).map(() => 2 * next() - 1);
  const bx = new Float64Array(n);
  const bAbsX = new Float64Array(n);
  for (let p = 0; p < n; p++) {
    let s = 0;
    let t = 0;
    for (let j = 0; j < n; j++) {
      s += b[p * n + j] * x[j];
      t += Math.abs(b[p * n + j] * x[j]);
    }
    bx[p] = s;
    bAbsX[p] = t;
  }
  let worst = 0;
  for (let i = 0; i < n; i++) {
    let cx = 0;
    let abx = 0;
    let bound = 0;
    for (let j = 0; j < n; j++) cx += c[i * n + j] * x[j];
    for (let p = 0; p < n; p++) {
      abx += a[i * n + p] * bx[p];
      bound += Math.abs(a[i * n + p]) * bAbsX[p];
    }
    // The f64 products add their own rounding, far below the f32 bound.
    const tol = TOL_C * (n + 2) * eps * bound + 4 * n * 2 ** -52 * bound;
    const ratio = Math.abs(cx - abx) / (tol || 1);
    if (!(ratio <= 1)) return { ok: false, ratio };
    worst = Math.max(worst, ratio);
  }
  return { ok: true, ratio: worst };
}

/** The columns' builds, or the loader's refusal for those this engine lacks. */
async function loadColumns() {
  const builds = {};
  const refusals = {};
  for (const column of COLUMNS) {
    try {
      builds[column.key] = await loadGemmkit(column.load);
    } catch (err) {
      if (err?.code !== "ISA") throw err;
      // Without shared memory the page goes on with one thread, and says so.
      refusals[column.key] = err.message === THREADS_REFUSAL_MESSAGE
        ? `${err.message}; this page runs on one thread.` : err.message;
    }
  }
  return { builds, refusals };
}

async function run({ sizes, dtypes, minMs, rounds }) {
  const { builds, refusals } = await loadColumns();
  const loaded = COLUMNS.filter((column) => builds[column.key]);
  postMessage({
    type: "info",
    noisySpread: NOISY_SPREAD,
    columns: COLUMNS.map(({ key, threads, versus }) => ({ key, threads, versus })),
    refusals,
    builds: Object.fromEntries(loaded.map(({ key }) => [key, {
      isa: builds[key].isa,
      dispatch: builds[key].dispatchInfo(),
      instantiateMs: builds[key].instantiateMs,
      version: builds[key].version,
    }])),
  });

  const total = sizes.length * dtypes.length * loaded.length;
  let done = 0;
  for (const dtype of dtypes) {
    for (const n of sizes) {
      const Ctor = CTOR[dtype];
      const a = randomMatrix(Ctor, n * n, 1000 + n);
      const b = randomMatrix(Ctor, n * n, 2000 + n);
      const row = { dtype, n, gflops: {}, spread: {}, noisy: {}, speedup: {}, verified: true,
        checks: {} };
      const results = {};
      for (const { key } of loaded) {
        postMessage({ type: "progress", done, total, label: `${dtype} ${n}x${n}x${n} on ${key}` });
        const job = prepare(builds[key], dtype, a, b, n);
        try {
          const timing = timeGemm(job, n, minMs, rounds);
          row.gflops[key] = timing.gflops;
          row.spread[key] = timing.spread;
          row.noisy[key] = timing.spread > NOISY_SPREAD;
          results[key] = job.result();
        } finally {
          job.free();
        }
        const f = freivalds(results[key], a, b, n, EPS[dtype], 3000 + n);
        row.checks[`${key} vs float64`] = f;
        row.verified &&= f.ok;
        done++;
        // Let the worker breathe between jobs so progress messages flush.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      let mag = null;
      for (const { key, versus } of loaded) {
        if (key !== REFERENCE && results[REFERENCE]) {
          mag ??= magnitudes(a, b, n);
          const x = crossCheck(results[key], results[REFERENCE], mag, n, EPS[dtype]);
          row.checks[`${key} vs ${REFERENCE}`] = x;
          row.verified &&= x.ok;
        }
        if (versus && results[versus]) row.speedup[key] = row.gflops[key] / row.gflops[versus];
      }
      postMessage({ type: "row", row });
    }
  }
  postMessage({ type: "progress", done, total, label: "done" });
  postMessage({ type: "done" });
}

onmessage = (event) => {
  run(event.data).catch((err) => {
    postMessage({ type: "error", message: String(err?.message ?? err) });
  });
};
