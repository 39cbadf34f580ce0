// The browser side of benchmarks/wasm (bench_browser.py serves the repo and
// opens browser.html): runs bench_core.mjs in a dedicated Worker (default)
// or on the page's main thread.  A classic script, not a module, because
// tfjs ships UMD bundles that a worker can only load with importScripts;
// the ES modules (bench_core.mjs, gemmkit.mjs) come in by dynamic import().
"use strict";

// The server maps the repo to /, the web dir (gemmkit.mjs + .wasm) to /web/
// and a Pyodide dist dir (tools/pyodide_dist.py, holding gemmkit's wheel) to
// /pyodide/.
const BENCH_ROOT = new URL("/", self.location.href);
const TFJS = [
  "node_modules/@tensorflow/tfjs-core/dist/tf-core.min.js",
  "node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js",
];
const IN_WORKER = typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope;

let tfjsError = null;
if (IN_WORKER) {
  try {
    importScripts(...TFJS.map((p) => new URL(p, BENCH_ROOT).href));
  } catch (err) {
    tfjsError = err.message; // reported as "XNNPACK skipped"
  }
}

/** "Chromium 156.0.8078.114": the full version from the user-agent data
 * (the UA string says 156.0.0.0), else the UA string. */
async function engineName() {
  const ua = self.navigator.userAgentData;
  try {
    const { fullVersionList = [] } = await ua.getHighEntropyValues(["fullVersionList"]);
    const b = fullVersionList.find((x) => /chrom/i.test(x.brand) && !/not/i.test(x.brand));
    if (b) return `${b.brand} ${b.version}`;
  } catch {
    // no userAgentData (not Chromium): the UA string says what this is
  }
  return self.navigator.userAgent;
}

/** The Pyodide column from the dist dir the server maps to /pyodide/.
 * Pyodide 314 loads only in a module worker or a page, and this worker is
 * classic (tfjs's UMD bundles need importScripts): the column runs with
 * where=page. */
async function pyodideColumn(core, log) {
  if (IN_WORKER) throw new Error("Pyodide loads in no classic worker: run with --where page");
  const dist = new URL("pyodide/", BENCH_ROOT);
  const lockResponse = await fetch(new URL("pyodide-lock.json", dist));
  if (!lockResponse.ok) throw new Error(`no Pyodide dist dir served (HTTP ${lockResponse.status})`);
  const { loadPyodide } = await import(new URL("pyodide.mjs", dist).href);
  const pyo = await core.pyodideImpl({
    loadPyodide, indexURL: dist.href, lock: await lockResponse.json(),
    wheelUrl: (name) => new URL(name, dist).href,
  });
  log(`  Pyodide ${pyo.version}: gemmkit.gemm via ctypes, float32 isa ${pyo.isa}`);
  return pyo.impl;
}

/** Runs the benchmark with `params` ({ sizes, rounds, xnnpack, pyodide, where, quick }),
 * printing through `log`; resolves to the report. */
async function gemmkitBrowserBench(params, log) {
  const core = await import(new URL("benchmarks/wasm/bench_core.mjs", BENCH_ROOT).href);
  const mod = await import(new URL("web/gemmkit.mjs", BENCH_ROOT).href);
  const engine = `${await engineName()} (${params.where === "page" ? "main thread" : "worker"})`;
  log(`gemmkit wasm benchmark: ${engine}, ${self.navigator.hardwareConcurrency} logical cores` +
    `, crossOriginIsolated ${self.crossOriginIsolated}`);
  const { builds, skipped } = await core.loadBuilds(mod, log);
  const impls = core.gemmkitImpls(builds);
  if (params.xnnpack) {
    try {
      if (tfjsError || !self.tf?.wasm) throw new Error(tfjsError ?? "tfjs did not load");
      self.tf.wasm.setWasmPaths(new URL("node_modules/@tensorflow/tfjs-backend-wasm/dist/", BENCH_ROOT).href);
      impls.push(await core.xnnpackImpl(self.tf, self.tf.wasm));
    } catch (err) {
      log(`  XNNPACK skipped: ${err.message}`);
    }
  }
  if (params.pyodide) {
    try {
      impls.push(await pyodideColumn(core, log));
    } catch (err) {
      log(`  Pyodide skipped: ${err.message}`);
    }
  }
  const report = await core.runBenchmark({
    engine, sizes: params.sizes, rounds: params.rounds, builds, skipped, impls, log,
    quick: params.quick,
  });
  return Object.assign(report, {
    where: params.where,
    userAgent: self.navigator.userAgent,
    hardwareConcurrency: self.navigator.hardwareConcurrency,
    crossOriginIsolated: self.crossOriginIsolated,
  });
}

if (IN_WORKER) {
  self.onmessage = async ({ data }) => {
    try {
      const report = await gemmkitBrowserBench(data, (line) => self.postMessage({ line }));
      self.postMessage({ report });
    } catch (err) {
      self.postMessage({ error: `${err.message}\n${err.stack ?? ""}` });
    }
  };
}
