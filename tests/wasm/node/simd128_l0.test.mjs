// node:test runner of the L0 conformance module
// (tests/wasm/simd128_conformance.cpp, built by tests/wasm/conftest.py into
// build/wasm/test/ with the simd128 flags and again with the relaxed_simd
// ones): every SimdOps<Simd128, T> operation equals the Scalar token lane by
// lane, partial loads/stores stay inside n lanes, and RelaxedSimd's
// mul_add/fnma round either once or twice, the same way throughout.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { REPO, artifact } from "./common.mjs";

async function runConformance(file) {
  const module = await WebAssembly.compile(readFileSync(artifact(file)));
  // The module prints nothing; any WASI import it carries answers ENOSYS.
  const wasi = Object.fromEntries(
    WebAssembly.Module.imports(module).map((imp) => [imp.name, () => 52]));
  const { exports: ex } = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi });
  ex._initialize?.();
  const failures = ex.conformance_run();
  const heap = new Uint8Array(ex.memory.buffer);
  const p = ex.conformance_first_failure();
  let end = p;
  while (heap[end] !== 0) end++;
  const first = new TextDecoder().decode(heap.subarray(p, end));
  return { failures, first, checks: ex.conformance_checks(),
    rounding: ex.conformance_relaxed_rounding() };
}

const BUILD = path.join(REPO, "build", "wasm", "test");

test("Simd128 SimdOps and KernelSimd seams match Scalar lane by lane (f32x4, f64x2, i32x4, f16/bf16, requant)", async () => {
  const r = await runConformance(process.env.GEMMKIT_WASM_CONFORMANCE ??
    path.join(BUILD, "simd128_conformance.wasm"));
  assert.ok(r.checks > 500, "the module ran its checks");
  assert.equal(r.failures, 0, `${r.failures} mismatches; first: ${r.first}`);
  assert.equal(r.rounding, 0, "no relaxed code in the simd128 build");
});

test("RelaxedSimd: Simd128's operations, and relaxed_madd rounds once or twice, consistently", async () => {
  const simd128 = await runConformance(process.env.GEMMKIT_WASM_CONFORMANCE ??
    path.join(BUILD, "simd128_conformance.wasm"));
  const r = await runConformance(process.env.GEMMKIT_WASM_CONFORMANCE_RELAXED ??
    path.join(BUILD, "relaxed_simd_conformance.wasm"));
  assert.equal(r.failures, 0, `${r.failures} mismatches; first: ${r.first}`);
  assert.ok(r.checks > simd128.checks, "the relaxed checks ran");
  // The probe products tell the two roundings apart, so one was seen.
  assert.ok(r.rounding === 1 || r.rounding === 2, `rounding ${r.rounding}`);
  console.log(`relaxed_madd here: ${r.rounding === 1 ? "fused" : "unfused"}`);
});
