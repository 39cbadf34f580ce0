// gemmkit wasm benchmark (not a test): in ONE node process, single thread,
// square f32/f64 GEMM GFLOP/s of the standalone builds (simd128, scalar, and
// relaxed_simd where built and supported), XNNPACK's wasm SIMD matmul (npm
// @tensorflow/tfjs-backend-wasm, B's packed operator reused), gemmkit
// through Pyodide's gemmkit.gemm, and the measured simd128 / scalar mul+add
// peaks; prints ratios and writes JSON.  `--engine chromium` runs the same
// measurement core in headless Chromium instead (bench_browser.py).
//
//   python wasm/build.py && npm ci
//   node benchmarks/wasm/bench.mjs [--sizes 64,128,256,512,1024] [--rounds 3]
//        [--no-xnnpack] [--no-pyodide] [--pyodide-dist build/pyodide-dist]
//        [--web-dir web-demo] [--out build/benchmarks/wasm.json]
//        [--engine node|chromium] [--quick (smoke run: short samples)]
//   node --experimental-wasm-relaxed-simd benchmarks/wasm/bench.mjs  # node 20:
//        the relaxed_simd build too (node 22+ has relaxed SIMD on)
//
// The method (interleaved rounds, warm-up, results checked, noisy rows
// marked) is bench_core.mjs's.  The machine should be quiet: on a loaded
// 2-core VM every number drops and only same-run ratios mean much.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { gemmkitImpls, loadBuilds, pyodideImpl, runBenchmark, xnnpackImpl } from "./bench_core.mjs";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const flag = (name) => args.includes(`--${name}`);

const ENGINE = opt("engine", "node");
if (ENGINE !== "node") {
  // The browser run has its own driver (it serves the repo and drives
  // Chromium through Playwright); hand it the other arguments unchanged.
  const i = args.indexOf("--engine");
  const rest = [...args.slice(0, i), ...args.slice(i + 2)];
  const venv = path.join(REPO, ".venv", "bin", "python");
  const python = existsSync(venv) ? venv : "python3";
  const driver = path.join(REPO, "benchmarks", "wasm", "bench_browser.py");
  const r = spawnSync(python, [driver, "--engine", ENGINE, ...rest], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}

const SIZES = opt("sizes", "64,128,256,512,1024").split(",").map(Number);
const ROUNDS = Number(opt("rounds", "3"));
const OUT = path.resolve(opt("out", path.join(REPO, "build", "benchmarks", "wasm.json")));
const PYODIDE_DIST = path.resolve(opt("pyodide-dist", path.join(REPO, "build", "pyodide-dist")));

const WEB_DIR = path.resolve(opt("web-dir", path.join(REPO, "web-demo")));
const gemmkitModule = await import(pathToFileURL(path.join(WEB_DIR, "gemmkit.mjs")).href);

async function loadXnnpack() {
  const require = createRequire(import.meta.url);
  const tf = require("@tensorflow/tfjs-core");
  const wasm = require("@tensorflow/tfjs-backend-wasm");
  wasm.setWasmPaths(path.join(path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm")), path.sep));
  return xnnpackImpl(tf, wasm);
}

async function loadPyodideGemmkit() {
  const dist = PYODIDE_DIST;
  const { loadPyodide } = await import(pathToFileURL(path.join(dist, "pyodide.mjs")).href);
  const lock = (await import(pathToFileURL(path.join(dist, "pyodide-lock.json")).href,
    { with: { type: "json" } })).default;
  return pyodideImpl({
    loadPyodide, indexURL: dist + path.sep, lock,
    wheelUrl: (name) => pathToFileURL(path.join(dist, name)).href,
  });
}

async function main() {
  const log = (line) => console.log(line);
  const engine = `node ${process.version} (V8 ${process.versions.v8})`;
  log(`gemmkit wasm benchmark: ${engine}, ` +
    `${os.cpus()[0]?.model ?? "cpu"}, load ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  const { builds, skipped } = await loadBuilds(gemmkitModule, log);
  if (skipped.relaxed_simd && gemmkitModule.relaxedSimdSupported && !gemmkitModule.relaxedSimdSupported()) {
    log("    (node 20: node --experimental-wasm-relaxed-simd benchmarks/wasm/bench.mjs)");
  }
  const impls = gemmkitImpls(builds);
  if (!flag("no-xnnpack")) {
    try {
      impls.push(await loadXnnpack());
    } catch (err) {
      log(`  XNNPACK skipped: ${err.message}`);
    }
  }
  if (!flag("no-pyodide")) {
    try {
      const pyo = await loadPyodideGemmkit();
      log(`  Pyodide ${pyo.version}: gemmkit.gemm, float32 isa ${pyo.isa}`);
      impls.push(pyo.impl);
    } catch (err) {
      log(`  Pyodide skipped: ${err.message} ` +
        "(python tools/pyodide_dist.py build/pyodide-dist --wheel dist/gemmkit-*.whl)");
    }
  }
  const report = await runBenchmark({
    engine, sizes: SIZES, rounds: ROUNDS, builds, skipped, impls, log, quick: flag("quick"),
  });
  Object.assign(report, {
    node: process.version,
    v8: process.versions.v8,
    cpu: os.cpus()[0]?.model,
    loadavg: os.loadavg(),
  });
  mkdirSync(path.dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify(report, null, 1));
  log(`\nwrote ${path.relative(process.cwd(), OUT)}`);
  return report.verified ? 0 : 1;
}

process.exit(await main());
