// node:test runner of the Simd128 L0 conformance module
// (tests/wasm/simd128_conformance.cpp, built by tests/wasm/conftest.py into
// build/wasm/test/): every SimdOps<Simd128, T> operation equals the Scalar
// token lane by lane, and partial loads/stores stay inside n lanes.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { REPO, artifact } from "./common.mjs";

test("Simd128 SimdOps and KernelSimd seams match Scalar lane by lane (f32x4, f64x2, i32x4, f16/bf16, requant)", async () => {
  const file = process.env.GEMMKIT_WASM_CONFORMANCE ??
    path.join(REPO, "build", "wasm", "test", "simd128_conformance.wasm");
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
  assert.ok(ex.conformance_checks() > 500, "the module ran its checks");
  assert.equal(failures, 0, `${failures} mismatches; first: ${first}`);
});
