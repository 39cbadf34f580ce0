// node:test suite of the threaded standalone builds
// (web-demo/gemmkit-<isa>-threads.wasm, loadGemmkit({ threads })): results
// bit-identical to the single-threaded build of the same ISA for every
// dtype, with the workers proven to take part; the refusal where shared
// memory is missing; option checks; close(); an unclosed pool never keeps
// node alive.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";

import { REPO, WEB_DIR, artifact, checkGemm, importLoader, randomArray } from "./common.mjs";

const gkmod = await importLoader();
const { loadGemmkit, GemmkitError, THREADS_REFUSAL_MESSAGE, MAX_THREADS } = gkmod;

// Every parallel knob at its floor, so even the smallest shapes are split
// over the whole team (the plan's edges: one-tile blocks, panel chunks).
const SPLIT_EVERYTHING = { GEMMKIT_PARALLEL_THRESHOLD: "1", GEMMKIT_MNK_PER_WORKER: "1" };
const SHAPES = [
  [1, 1, 1], [2, 3, 4], [9, 17, 5], [3, 1, 100], [1, 300, 7], [33, 65, 31],
  [64, 64, 64], [100, 257, 3], [129, 70, 67],
  // Above the small-product route (special/small.hpp: up to 96^3 of work,
  // always on one thread), so the driver splits them: the workers must
  // take part.
  [200, 40, 300], [1000, 30, 40], [40, 1000, 30], [17, 500, 200], [97, 97, 97],
];
const SPLIT_WORK = 96 ** 3;
const TYPES = [
  ["float32", Float32Array], ["float64", Float64Array], ["int8", Int8Array],
  ["int32", Int32Array], ["uint64", BigUint64Array],
  ["complex64", Float32Array], ["complex128", Float64Array],
];

function operand(Ctor, length, seed) {
  if (Ctor === BigUint64Array) {
    return BigUint64Array.from(randomArray(Float64Array, length, seed), (x) => BigInt(Math.round(x * 1000)) & 0xffffffffn);
  }
  if (Ctor === Float32Array || Ctor === Float64Array) return randomArray(Ctor, length, seed);
  return Ctor.from(randomArray(Float64Array, length, seed), (x) => Math.round(x * 100));
}

function sameBits(x, y) {
  assert.equal(x.constructor, y.constructor);
  assert.equal(x.length, y.length);
  const bx = new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  const by = new Uint8Array(y.buffer, y.byteOffset, y.byteLength);
  const bad = bx.findIndex((v, i) => v !== by[i]);
  return bad < 0 ? null : `byte ${bad} of ${bx.length} differs (element ${Math.floor(bad / x.BYTES_PER_ELEMENT)})`;
}

test("web-demo/gemmkit-worker.mjs is the current wasm/gemmkit-worker.mjs", () => {
  assert.equal(
    readFileSync(path.join(WEB_DIR, "gemmkit-worker.mjs"), "utf8"),
    readFileSync(path.join(REPO, "wasm", "gemmkit-worker.mjs"), "utf8"),
    "stale copy: run python wasm/build.py",
  );
});

for (const isa of ["simd128", "relaxed_simd"]) {
  describe(`gemmkit-${isa}-threads.wasm`, async () => {
    const file = artifact(WEB_DIR, `gemmkit-${isa}-threads.wasm`);

    test("it imports one shared memory and exports the pool beside the C ABI", () => {
      const mod = new WebAssembly.Module(readFileSync(file));
      const imports = WebAssembly.Module.imports(mod);
      assert.deepEqual(imports.filter((i) => i.module !== "wasi_snapshot_preview1"),
        [{ module: "env", name: "memory", kind: "memory" }]);
      const exports = new Set(WebAssembly.Module.exports(mod).map((e) => e.name));
      for (const name of ["gemmkit_wasm_worker", "gemmkit_wasm_set_helpers", "gemmkit_wasm_stop",
        "gemmkit_wasm_jobs_served", "__stack_pointer", "__wasm_init_tls", "__tls_size",
        "__tls_align", "malloc", "free", "gemmkit_sgemm"]) {
        assert.ok(exports.has(name), name);
      }
      assert.ok(!exports.has("memory"), "the memory is imported, never its own");
    });

    const one = await loadGemmkit({ isa, env: SPLIT_EVERYTHING });
    const teams = {
      2: await loadGemmkit({ isa, threads: 2, env: SPLIT_EVERYTHING }),
      // More threads than this machine's cores: the plan must not care.
      5: await loadGemmkit({ isa, threads: 5, env: SPLIT_EVERYTHING }),
    };
    after(() => Promise.all(Object.values(teams).map((gk) => gk.close())));

    test("it reports its threads and the same kernels as the single-threaded build", () => {
      for (const [threads, gk] of Object.entries(teams)) {
        assert.equal(gk.threads, Number(threads));
        assert.equal(gk.isa, isa);
        const info = gk.dispatchInfo();
        const base = one.dispatchInfo();
        for (const dtype of ["float32", "float64", "int8", "complex64"]) {
          assert.deepEqual(info[dtype], base[dtype], dtype);
        }
      }
    });

    for (const [dtype, Ctor] of TYPES) {
      test(`${dtype}: every team's result is the single thread's, bit for bit`, () => {
        const parts = dtype.startsWith("complex") ? 2 : 1;
        let seed = 100;
        for (const [m, k, n] of SHAPES) {
          const a = operand(Ctor, m * k * parts, seed++);
          const b = operand(Ctor, k * n * parts, seed++);
          const c = operand(Ctor, m * n * parts, seed++);
          const scalar = (x) => (parts === 2 ? [x, -x / 2] : x);
          const opts = Ctor === BigUint64Array || Ctor === Int32Array || Ctor === Int8Array
            ? { dtype } : { dtype, alpha: scalar(0.75), beta: scalar(-1.5), c };
          const want = one.gemm(a, b, m, k, n, opts);
          for (const [threads, gk] of Object.entries(teams)) {
            const before = gk.jobsServed();
            const got = gk.gemm(a, b, m, k, n, opts);
            const msg = sameBits(got, want);
            assert.equal(msg, null, `${m}x${k}x${n} on ${threads} threads: ${msg}`);
            if (m * k * n > SPLIT_WORK) {
              // Every worker took a share of this split-everything product.
              const served = gk.jobsServed();
              assert.ok(served.every((jobs, i) => jobs > before[i]),
                `${m}x${k}x${n}: workers' jobs ${before} -> ${served}`);
            }
          }
        }
      });
    }

    test("float32 results also meet the k * eps bound", () => {
      const [m, k, n] = [150, 333, 97];
      const a = randomArray(Float32Array, m * k, 7);
      const b = randomArray(Float32Array, k * n, 8);
      const msg = checkGemm(teams[2].gemm(a, b, m, k, n), a, b, m, k, n);
      assert.equal(msg, null, msg);
    });
  });
}

describe("a threaded build with its own default knobs", async () => {
  const gk = await loadGemmkit({ isa: "simd128", threads: 2, env: {} });
  after(() => gk.close());

  test("a large product is split, a small one stays on the caller", () => {
    const big = 384;
    const a = randomArray(Float32Array, big * big, 1);
    const b = randomArray(Float32Array, big * big, 2);
    let before = gk.jobsServed()[0];
    gk.gemm(a, b, big, big, big);
    assert.ok(gk.jobsServed()[0] > before, "the worker took no job of a 384^3 product");
    before = gk.jobsServed()[0];
    gk.gemm(a.subarray(0, 64), b.subarray(0, 64), 8, 8, 8);
    assert.equal(gk.jobsServed()[0], before, "an 8^3 product was split");
  });
});

describe("loadGemmkit's threads option", () => {
  test("threads must be an integer from 1 to MAX_THREADS", async () => {
    for (const threads of [0, -1, 1.5, MAX_THREADS + 1, "2", null, NaN]) {
      await assert.rejects(loadGemmkit({ isa: "simd128", threads }), (err) => {
        assert.ok(err instanceof GemmkitError);
        assert.equal(err.code, "VALUE");
        assert.match(err.message, /threads must be an integer from 1 to 64/);
        return true;
      }, String(threads));
    }
  });

  test("there is no threaded scalar build", async () => {
    await assert.rejects(loadGemmkit({ isa: "scalar", threads: 2 }),
      (err) => err.code === "VALUE" && /no threaded scalar build/.test(err.message));
  });

  test("threads: 1 loads the single-threaded build", async () => {
    const gk = await loadGemmkit({ isa: "simd128", threads: 1 });
    assert.equal(gk.threads, 1);
    assert.equal(gk.exports.gemmkit_wasm_worker, undefined);
    assert.deepEqual(gk.jobsServed(), []);
    await gk.close();  // nothing to end
  });

  test("a single-threaded module given for threads is refused", async () => {
    const bytes = readFileSync(artifact(WEB_DIR, "gemmkit-simd128.wasm"));
    await assert.rejects(loadGemmkit({ isa: "simd128", threads: 2, bytes }),
      (err) => err.code === "VALUE" && /threads need a threaded build/.test(err.message));
  });

  test("after close() products still run, on the caller alone", async () => {
    const gk = await loadGemmkit({ isa: "simd128", threads: 2, env: SPLIT_EVERYTHING });
    const [m, k, n] = [40, 50, 60];
    const a = randomArray(Float32Array, m * k, 3);
    const b = randomArray(Float32Array, k * n, 4);
    const want = gk.gemm(a, b, m, k, n);
    await gk.close();
    const served = gk.jobsServed();
    assert.equal(sameBits(gk.gemm(a, b, m, k, n), want), null);
    assert.deepEqual(gk.jobsServed(), served);
  });
});

// Child processes: what a whole process sees.
const loaderUrl = pathToFileURL(artifact(WEB_DIR, "gemmkit.mjs")).href;
function runChild(nodeArgs, body) {
  const script = `const m = await import(${JSON.stringify(loaderUrl)});\n${body}`;
  return spawnSync(process.execPath, [...nodeArgs, "--input-type=module", "-e", script],
    { encoding: "utf8", timeout: 60000 });
}

test("without SharedArrayBuffer a threaded load is refused with THREADS_REFUSAL_MESSAGE", () => {
  const run = runChild(["--no-harmony-sharedarraybuffer"], `
    console.log(JSON.stringify({ supported: m.threadsSupported() }));
    try { await m.loadGemmkit({ isa: "simd128", threads: 2 }); console.log("loaded"); }
    catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }
    const one = await m.loadGemmkit({ isa: "simd128" });
    console.log(JSON.stringify({ single: one.gemm(new Float32Array([2]), new Float32Array([3]), 1, 1, 1)[0] }));`);
  assert.equal(run.status, 0, run.stderr);
  const [support, refusal, single] = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(support, { supported: false });
  assert.deepEqual(refusal, { name: "GemmkitError", code: "ISA", message: THREADS_REFUSAL_MESSAGE });
  assert.deepEqual(single, { single: 6 });
});

test("a pool that is never closed does not keep node alive", () => {
  const run = runChild([], `
    const gk = await m.loadGemmkit({ isa: "simd128", threads: 3 });
    const a = new Float32Array(256 * 256).fill(1);
    console.log(gk.gemm(a, a, 256, 256, 256)[0], gk.jobsServed().every((j) => j > 0));`);
  assert.equal(run.status, 0, `${run.error ?? ""} ${run.stderr}`);
  assert.equal(run.stdout.trim(), "256 true");
});
