// Run by gemmkit.test.mjs as `node --no-experimental-wasm-relaxed-simd
// norelaxed_probe.mjs`: a real V8 with Wasm SIMD but without relaxed SIMD.
// Prints one JSON line with what the loader does there.
import { readFile } from "node:fs/promises";
import path from "node:path";

import { WEB_DIR, checkGemm, importLoader, randomArray } from "./common.mjs";

const { loadGemmkit, relaxedSimdSupported } = await importLoader();
const out = { relaxed: relaxedSimdSupported() };

try {
  await loadGemmkit({ isa: "relaxed_simd" });
  out.refusal = null;
} catch (err) {
  out.refusal = { name: err.name, code: err.code, status: err.status, message: err.message };
}

// Without the probe the engine itself rejects the module.
try {
  await WebAssembly.compile(await readFile(path.join(WEB_DIR, "gemmkit-relaxed_simd.wasm")));
  out.rawCompile = "compiled";
} catch (err) {
  out.rawCompile = String(err);
}

try {
  const gk = await loadGemmkit({ isa: "auto", env: {} });
  const [m, k, n] = [13, 17, 11];
  const a = randomArray(Float32Array, m * k, 1);
  const b = randomArray(Float32Array, k * n, 2);
  out.auto = {
    isa: gk.isa,
    float32: gk.dispatchInfo().float32.isa,
    check: checkGemm(gk.gemm(a, b, m, k, n), a, b, m, k, n) ?? "ok",
  };
} catch (err) {
  out.auto = String(err);
}
console.log(JSON.stringify(out));
