// Run by gemmkit.test.mjs as `node --no-enable-sse4-1 nosimd_probe.mjs`: a
// real V8 that reports Wasm SIMD as unsupported.  Prints one JSON line with
// what the loader does there.
import { readFile } from "node:fs/promises";
import path from "node:path";

import { WEB_DIR, checkGemm, importLoader, randomArray } from "./common.mjs";

const { loadGemmkit, simd128Supported } = await importLoader();
const out = { simd128: simd128Supported() };

try {
  await loadGemmkit({ isa: "simd128" });
  out.refusal = null;
} catch (err) {
  out.refusal = { name: err.name, code: err.code, status: err.status, message: err.message };
}

// Without the probe the engine itself rejects the module: proof that the
// simd128 build really contains SIMD code and that the probe is needed.
try {
  await WebAssembly.compile(await readFile(path.join(WEB_DIR, "gemmkit-simd128.wasm")));
  out.rawCompile = "compiled";
} catch (err) {
  out.rawCompile = String(err);
}

// The scalar build holds no SIMD instruction at all, so it runs here.
try {
  const gk = await loadGemmkit({ isa: "scalar" });
  const [m, k, n] = [13, 17, 11];
  const a = randomArray(Float32Array, m * k, 1);
  const b = randomArray(Float32Array, k * n, 2);
  out.scalar = checkGemm(gk.gemm(a, b, m, k, n), a, b, m, k, n) ?? "ok";
  out.scalarIsa = gk.dispatchInfo().float32.isa;
  out.autoIsa = (await loadGemmkit({ isa: "auto" })).isa;
} catch (err) {
  out.scalar = String(err);
}
console.log(JSON.stringify(out));
