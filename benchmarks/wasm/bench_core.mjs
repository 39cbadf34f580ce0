// The measurement core of benchmarks/wasm, shared by node (bench.mjs) and a
// browser page or worker (browser_run.js, driven by bench_browser.py): no
// node or DOM API here, only WebAssembly, performance.now() and what the
// drivers pass in (the gemmkit.mjs module, tfjs, the Pyodide job, a log).
//
// Method: each figure is the median (and max) over `rounds` interleaved
// rounds (round, then size, then implementation; one unrecorded pass at
// the smallest size before them); a round times each
// configuration for >= 60 ms after a >= 150 ms warm-up (TurboFan tier-up).
// gemmkit is timed on operands already in its memory (the C ABI directly),
// XNNPACK on tensors already in its memory, so both measure kernels, not
// JavaScript copies.  In the first round every result is checked element by
// element against a float64 product of the same inputs, so a wrong kernel
// cannot pass as a fast one.  A row whose rounds spread by more than
// NOISY_SPREAD of its median is marked noisy ("*"): on a loaded machine
// absolute numbers drop, and only same-run ratios of quiet rows mean much.
import { rng } from "../../web-demo/seeded-random.mjs";
import { measurePeak } from "./peak.mjs";

export const MIN_MS = 60;
export const WARM_MS = 150;
/** --quick: a smoke run's timing (tests); its numbers mean nothing. */
export const QUICK = Object.freeze({ minMs: 5, warmMs: 10, peakChains: [12], peakSamples: 2 });
const FULL = Object.freeze({ minMs: MIN_MS, warmMs: WARM_MS, peakChains: undefined, peakSamples: 5 });
/** (max - min) / median over the rounds above which a row is noisy. */
export const NOISY_SPREAD = 0.1;

/** Threads of the threaded column (the issue's target: two at 1024). */
export const TEAM = 2;

const simd128 = (mod) => mod.simd128Supported() || "no WebAssembly SIMD in this engine";

/**
 * The standalone builds, in report order: `key` names the build in the
 * tables ("gemmkit <key>"), `options` are loadGemmkit's.  `supported(mod)`
 * gets the gemmkit.mjs module and returns true or the reason this engine
 * cannot run the build; a build that is unsupported, missing or fails to
 * load is skipped with a printed note.  Adding a build is one line here.
 */
export const BUILDS = [
  { key: "simd128", options: { isa: "simd128" }, supported: simd128 },
  { key: "scalar", options: { isa: "scalar" }, supported: () => true },
  {
    key: "relaxed_simd",
    options: { isa: "relaxed_simd" },
    supported: (mod) => (typeof mod.relaxedSimdSupported !== "function"
      ? "this gemmkit.mjs exports no relaxedSimdSupported()"
      : mod.relaxedSimdSupported() || "no WebAssembly relaxed SIMD in this engine"),
  },
  {
    key: `simd128 ${TEAM} threads`,
    options: { isa: "simd128", threads: TEAM },
    supported: (mod) => (typeof mod.threadsSupported !== "function"
      ? "this gemmkit.mjs has no threaded builds"
      : simd128(mod) === true && !mod.threadsSupported()
        ? "no shared WebAssembly memory here (a page must be cross-origin isolated)"
        : simd128(mod)),
  },
];

/** Same-run ratios: [label, numerator, denominator, dtype]; a line prints
 * only when both implementations ran. */
const ratioDefs = (xnnName) => [
  ["simd128 / scalar f32", "gemmkit simd128", "gemmkit scalar", "float32"],
  ["simd128 / scalar f64", "gemmkit simd128", "gemmkit scalar", "float64"],
  ["simd128 / XNNPACK f32", "gemmkit simd128", xnnName, "float32"],
  ["relaxed_simd / simd128 f32", "gemmkit relaxed_simd", "gemmkit simd128", "float32"],
  ["relaxed_simd / simd128 f64", "gemmkit relaxed_simd", "gemmkit simd128", "float64"],
  ["relaxed_simd / XNNPACK f32", "gemmkit relaxed_simd", xnnName, "float32"],
  ["Pyodide / standalone f32", "gemmkit Pyodide", "gemmkit simd128", "float32"],
  [`${TEAM} threads / 1 f32 (simd128)`, `gemmkit simd128 ${TEAM} threads`, "gemmkit simd128", "float32"],
  [`${TEAM} threads / 1 f64 (simd128)`, `gemmkit simd128 ${TEAM} threads`, "gemmkit simd128", "float64"],
];

const UNIT = { float32: 2 ** -24, float64: 2 ** -53 };

/** The n x n inputs for size n: float32 values (exact in float64 too), so
 * every implementation and dtype at size n multiplies the same numbers. */
export function inputs(n) {
  const make = (seed) => {
    const next = rng(seed);
    return Float32Array.from({ length: n * n }, () => 2 * next() - 1);
  };
  return { a: make(n), b: make(n + 1) };
}

/** float64 a @ b and |a| @ |b| (the error bound's scale), row-major. */
function reference(a, b, n) {
  const ref = new Float64Array(n * n);
  const mag = new Float64Array(n * n);
  const absB = Float64Array.from(b, Math.abs);
  for (let i = 0; i < n; i++) {
    const row = i * n;
    for (let l = 0; l < n; l++) {
      const x = a[row + l];
      const ax = Math.abs(x);
      const bl = l * n;
      for (let j = 0; j < n; j++) {
        ref[row + j] += x * b[bl + j];
        mag[row + j] += ax * absB[bl + j];
      }
    }
  }
  return { ref, mag };
}

/**
 * Worst |c - ref| / bound over the elements, bound = 2 (n + 2) u |a||b|
 * (u: the dtype's unit roundoff; the float64 reference's own error is
 * added): <= 1 passes.  NaN anywhere fails.
 */
function check(c, { ref, mag }, n, dtype) {
  const scale = 2 * (n + 2) * UNIT[dtype] + n * UNIT.float64;
  let worst = 0;
  for (let i = 0; i < n * n; i++) {
    const r = Math.abs(c[i] - ref[i]) / (scale * mag[i] + Number.MIN_VALUE);
    if (!(r <= worst)) worst = Number.isNaN(r) ? Infinity : r;
  }
  return worst;
}

/** Seconds per call of fn: best-effort steady state, one sample >= minMs. */
export function sample(fn, { minMs, warmMs }) {
  let t0 = performance.now();
  do fn(); while (performance.now() - t0 < warmMs);
  let reps = 0;
  t0 = performance.now();
  let t = t0;
  do {
    fn();
    reps++;
    t = performance.now();
  } while (t - t0 < minMs);
  return (t - t0) / 1e3 / reps;
}

/**
 * Loads every build of BUILDS the engine can run from the gemmkit.mjs
 * module `mod`; prints what it loaded and why it skipped the others.
 */
export async function loadBuilds(mod, log) {
  const builds = {};
  const skipped = {};
  for (const { key, options, supported } of BUILDS) {
    let why = supported(mod);
    if (why === true) {
      try {
        builds[key] = await mod.loadGemmkit({ ...options, env: {} });
      } catch (err) {
        why = err.message;
      }
    }
    if (why !== true) {
      skipped[key] = why;
      log(`  ${key} skipped: ${why}`);
      continue;
    }
    const d = builds[key].dispatchInfo();
    log(`  ${key}: ${d.float32.kernel}, ${d.float64.kernel}; ` +
      `instantiate ${builds[key].instantiateMs.toFixed(1)} ms`);
  }
  if (!Object.keys(builds).length) throw new Error("no gemmkit build could be loaded");
  return { builds, skipped };
}

function gemmkitJob(gk, dtype, n) {
  const Ctor = dtype === "float32" ? Float32Array : Float64Array;
  const ex = gk.exports;
  const len = n * n;
  const bytes = len * Ctor.BYTES_PER_ELEMENT;
  const [pa, pb, pc] = [ex.malloc(bytes), ex.malloc(bytes), ex.malloc(bytes)];
  const { a, b } = inputs(n);
  new Ctor(gk.memory.buffer, pa, len).set(a);
  new Ctor(gk.memory.buffer, pb, len).set(b);
  const fn = dtype === "float32" ? ex.gemmkit_sgemm : ex.gemmkit_dgemm;
  return {
    run: () => {
      if (fn(n, n, n, 1, pa, n, 1, pb, n, 1, 0, 0, n, 1, pc, n, 1) !== 0) {
        throw new Error(gk.lastError());
      }
    },
    // A fresh view: the memory may have grown since the job began.
    result: () => new Ctor(gk.memory.buffer, pc, len).slice(),
    free: () => [pa, pb, pc].forEach((p) => ex.free(p)),
  };
}

/** Both dtypes of every loaded build, dtype outermost (as bench.mjs has
 * always ordered them). */
export function gemmkitImpls(builds) {
  const impls = [];
  for (const dtype of ["float32", "float64"]) {
    for (const [key, gk] of Object.entries(builds)) {
      impls.push({ name: `gemmkit ${key}`, dtype, make: (n) => gemmkitJob(gk, dtype, n) });
    }
  }
  return impls;
}

/**
 * XNNPACK through tfjs's wasm backend, given tfjs-core with the backend
 * registered and its .wasm paths set: single thread (the multithreaded
 * binary would use every core), SIMD where the engine has it.
 */
export async function xnnpackImpl(tf, wasmBackend) {
  tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);
  if (!(await tf.setBackend("wasm"))) throw new Error("tfjs wasm backend did not initialize");
  await tf.ready();
  const simd = await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT");
  const version = wasmBackend.version_wasm.split(".").slice(0, 2).join(".");
  return {
    name: `XNNPACK (tfjs-backend-wasm ${version}, ${simd ? "simd" : "no simd"})`,
    dtype: "float32",
    make(n) {
      const { a: av, b: bv } = inputs(n);
      const a = tf.tensor2d(av, [n, n]);
      const b = tf.tensor2d(bv, [n, n]);
      return {
        // The wasm backend runs synchronously; dispose frees C at once.
        // XNNPACK's fully-connected operator is cached per B tensor, so B's
        // packing is reused across calls, as the issue's target asks.
        run: () => tf.matMul(a, b).dispose(),
        result: () => {
          const c = tf.matMul(a, b);
          const data = c.dataSync().slice();
          c.dispose();
          return data;
        },
        free: () => { a.dispose(); b.dispose(); },
      };
    },
  };
}

// The Python side of the Pyodide column: gemmkit.gemm on memoryviews, `reps`
// calls per crossing from JavaScript, as a Python loop would run them.
const PYODIDE_JOB = `
import time, gemmkit
def _gk_job(n, a_js, b_js):
    def matrix(js):
        buf = bytearray(js.to_bytes())
        return buf, memoryview(buf).cast("f", (n, n))
    _, a = matrix(a_js)
    _, b = matrix(b_js)
    out_buf, out = matrix(a_js)
    def run(reps):
        t = time.perf_counter()
        for _ in range(reps):
            gemmkit.gemm(a, b, out=out)
        return time.perf_counter() - t
    def result(into):
        into.assign(memoryview(out_buf).cast("f"))
    return run, result
`;

/**
 * The Pyodide column: gemmkit's Pyodide wheel (gemmkit.gemm with out=) in
 * `loadPyodide`'s runtime from `indexURL` (a tools/pyodide_dist.py dir,
 * whose lock names the wheel), installed with micropip from `wheelUrl(name)`.
 * node (bench.mjs) and the browser (browser_run.js) differ only in those.
 */
export async function pyodideImpl({ loadPyodide, indexURL, lock, wheelUrl }) {
  const py = await loadPyodide({ indexURL });
  await py.loadPackage("micropip", { messageCallback: () => {} });
  const wheel = lock.packages.gemmkit?.file_name;
  if (!wheel) throw new Error(`${indexURL} has no gemmkit wheel`);
  await py.pyimport("micropip").install(wheelUrl(wheel));
  py.runPython(PYODIDE_JOB);
  const info = py.runPython("gemmkit.dispatch_info()").toJs({ dict_converter: Object.fromEntries });
  return {
    version: py.version,
    isa: info.float32.isa,
    impl: {
      name: "gemmkit Pyodide",
      dtype: "float32",
      selfTimed: true,
      make(n) {
        const { a, b } = inputs(n);
        const pair = py.globals.get("_gk_job")(n, a, b);
        const [run, result] = pair.toJs({ depth: 1 });
        pair.destroy();
        // One Python-level call runs `reps` GEMMs, so the JS<->Python
        // crossing is amortized exactly as a Python loop would see it.
        let reps = 1;
        return {
          run: () => {
            const s = run(reps);
            if (s < MIN_MS / 3e3) reps *= 2;
            return s / reps;
          },
          result: () => {
            const c = new Float32Array(n * n);
            result(c);
            return c;
          },
          free: () => { run.destroy(); result.destroy(); },
        };
      },
    },
  };
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};

async function peakOrNull(kind, timing, log) {
  try {
    return await measurePeak(kind, timing.peakChains,
      { minMs: timing.minMs, samples: timing.peakSamples });
  } catch (err) {
    log(`  ${kind} peak skipped: ${err.message}`);
    return null;
  }
}

/**
 * Runs the interleaved rounds over `impls` (each { name, dtype, make(n) ->
 * { run, result, free } }; `selfTimed` jobs' run() returns seconds per
 * call), checks results, measures the peaks and prints the tables through
 * `log`.  Returns the report (the drivers add their engine's details).
 */
export async function runBenchmark({
  engine, sizes, rounds, builds, skipped = {}, impls, notes = [], log, quick = false,
}) {
  const timing = quick ? QUICK : FULL;
  // One unrecorded pass at the smallest size first: Chromium tiers wasm up
  // on background threads, which a loaded 2-core machine runs late, so the
  // first configuration timed would otherwise pay for everyone's tier-up.
  for (const impl of impls) {
    const job = impl.make(sizes[0]);
    try {
      const t0 = performance.now();
      do job.run(); while (performance.now() - t0 < timing.warmMs);
    } finally {
      job.free();
    }
  }
  const samples = new Map();
  const checks = new Map();
  for (let round = 0; round < rounds; round++) {
    for (const n of sizes) {
      // Round one checks every result; the reference is dropped with n.
      const ref = round === 0 ? (() => { const { a, b } = inputs(n); return reference(a, b, n); })() : null;
      for (const impl of impls) {
        const job = impl.make(n);
        const key = `${impl.name}|${impl.dtype}|${n}`;
        try {
          let secs;
          if (impl.selfTimed) {
            const t0 = performance.now();
            const ms = timing.minMs + (round ? 0 : timing.warmMs);
            do secs = job.run(); while (performance.now() - t0 < ms);
          } else {
            secs = sample(job.run, timing);
          }
          if (!samples.has(key)) samples.set(key, []);
          samples.get(key).push((2 * n ** 3) / secs / 1e9);
          if (ref) checks.set(key, check(job.result(), ref, n, impl.dtype));
        } finally {
          job.free();
        }
      }
    }
    log(`  round ${round + 1}/${rounds} done`);
  }

  const peakSimd = builds.simd128 ? await peakOrNull("simd128", timing, log) : null;
  const peakScalar = await peakOrNull("scalar", timing, log);
  // Only where the relaxed build loaded: the engine validates relaxed SIMD.
  const peakRelaxed = builds.relaxed_simd ? await peakOrNull("relaxed_simd", timing, log) : null;
  const rows = [];
  const get = (name, dtype, n) => rows.find((r) => r.impl === name && r.dtype === dtype && r.n === n);
  for (const impl of impls) {
    for (const n of sizes) {
      const xs = samples.get(`${impl.name}|${impl.dtype}|${n}`);
      const med = median(xs);
      const spread = (Math.max(...xs) - Math.min(...xs)) / med;
      const worst = checks.get(`${impl.name}|${impl.dtype}|${n}`);
      rows.push({
        impl: impl.name, dtype: impl.dtype, n, median: med, max: Math.max(...xs), min: Math.min(...xs),
        spread, noisy: spread > NOISY_SPREAD, samples: xs, verified: worst <= 1, errorOverBound: worst,
      });
    }
  }

  const pad = (s, w) => String(s).padStart(w);
  const star = (...rs) => (rs.some((r) => r.noisy) ? "*" : " ");
  log(`\nGFLOP/s, median / max of ${rounds} rounds, one thread unless named, ${engine}` +
    (quick ? " (--quick: a smoke run, the numbers mean nothing)" : ""));
  log(`${"implementation".padEnd(42)}${sizes.map((n) => pad(n, 15)).join("")}`);
  for (const impl of impls) {
    const cells = sizes.map((n) => {
      const r = get(impl.name, impl.dtype, n);
      return pad(`${r.median.toFixed(1)} / ${r.max.toFixed(1)}${star(r)}`, 15);
    });
    log(`${`${impl.name} ${impl.dtype === "float32" ? "f32" : "f64"}`.padEnd(42)}${cells.join("")}`);
  }
  const xnn = impls.find((i) => i.name.startsWith("XNNPACK"));
  const ratios = {};
  log("\nratios (medians)");
  for (const [label, num, den, dtype] of ratioDefs(xnn?.name)) {
    if (!get(num, dtype, sizes[0]) || !get(den, dtype, sizes[0])) continue;
    ratios[label] = {};
    const cells = sizes.map((n) => {
      const a = get(num, dtype, n);
      const b = get(den, dtype, n);
      ratios[label][n] = { ratio: a.median / b.median, noisy: a.noisy || b.noisy };
      return pad(`${(a.median / b.median).toFixed(2)}x${star(a, b)}`, 15);
    });
    log(`${label.padEnd(42)}${cells.join("")}`);
  }
  if (peakSimd && peakScalar) {
    log(`\nmeasured peaks: simd128 f32x4 mul+add ${peakSimd.best.median.toFixed(1)} GFLOP/s ` +
      `(max ${peakSimd.best.max.toFixed(1)}, ${peakSimd.best.chains} chains); ` +
      `scalar f32 mul+add ${peakScalar.best.median.toFixed(1)} (max ${peakScalar.best.max.toFixed(1)})`);
    const fracs = sizes.map((n) => {
      const r = get("gemmkit simd128", "float32", n);
      return pad(r ? `${((100 * r.median) / peakSimd.best.median).toFixed(0)}% ` : "-", 15);
    });
    log(`${"simd128 f32 / simd128 peak".padEnd(42)}${fracs.join("")}`);
  }
  if (peakRelaxed) {
    log(`measured peak: f32x4.relaxed_madd ${peakRelaxed.best.median.toFixed(1)} GFLOP/s ` +
      `(max ${peakRelaxed.best.max.toFixed(1)}, ${peakRelaxed.best.chains} chains)`);
    const fracs = sizes.map((n) => {
      const r = get("gemmkit relaxed_simd", "float32", n);
      return pad(r ? `${((100 * r.median) / peakRelaxed.best.median).toFixed(0)}% ` : "-", 15);
    });
    log(`${"relaxed_simd f32 / relaxed_madd peak".padEnd(42)}${fracs.join("")}`);
  }
  const noisy = rows.filter((r) => r.noisy).length;
  log(rounds > 1
    ? `* rounds spread > ${100 * NOISY_SPREAD}% of the median (noisy): ${noisy} of ${rows.length} rows`
    : "one round: the spread between rounds is unknown (use --rounds 3)");
  const wrong = rows.filter((r) => !r.verified);
  const what = (r) => `${r.impl} ${r.dtype} ${r.n} (error ${r.errorOverBound} x bound)`;
  log(wrong.length
    ? `WRONG RESULTS: ${wrong.map(what).join("; ")}`
    : `results verified: ${rows.length} of ${rows.length} against a float64 product ` +
      "(bound 2 (n+2) u |A||B|)");
  for (const note of notes) log(note);

  return {
    date: new Date().toISOString(),
    engine,
    quick,
    rounds,
    sizes,
    noisySpread: NOISY_SPREAD,
    builds: Object.fromEntries(Object.entries(builds).map(([key, gk]) =>
      [key, { dispatch: gk.dispatchInfo(), instantiateMs: gk.instantiateMs, threads: gk.threads }])),
    skipped,
    notes,
    peaks: {
      simd128_f32_mul_add: peakSimd, scalar_f32_mul_add: peakScalar,
      relaxed_simd_f32_madd: peakRelaxed,
    },
    rows,
    ratios,
    verified: wrong.length === 0,
  };
}
