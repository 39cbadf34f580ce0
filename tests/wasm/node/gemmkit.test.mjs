// node:test suite of wasm/gemmkit.mjs on the three standalone builds
// (web-demo/gemmkit-relaxed_simd.wasm, gemmkit-simd128.wasm and
// gemmkit-scalar.wasm): results against an f64 reference, errors,
// dispatchInfo, the GEMMKIT_REQUIRE_ISA pin, the refusals on a V8 without
// SIMD or without relaxed SIMD, and the -msimd128 / -mrelaxed-simd
// self-checks.
//
//   python wasm/build.py --only web,tests &&
//     node --experimental-wasm-relaxed-simd --test tests/wasm/node/
// (tests/wasm/test_node.py does both; the flag is for node 20, whose V8
// ships relaxed SIMD switched off.)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import {
  REPO, WEB_DIR, artifact, checkGemm, holdsRelaxedSimd, importLoader, randomArray,
} from "./common.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const gkmod = await importLoader();
const {
  loadGemmkit, GemmkitError, SIMD_REFUSAL_MESSAGE, RELAXED_SIMD_REFUSAL_MESSAGE,
  simd128Supported, relaxedSimdSupported, bestIsa, DEFAULT_ISA,
} = gkmod;

const TYPES = [Float32Array, Float64Array];
const SHAPES = [
  [1, 1, 1], [2, 3, 4], [7, 9, 5], [8, 16, 4], [8, 6, 4], [9, 17, 5], [17, 13, 9], [3, 1, 100],
  [1, 300, 7], [33, 65, 31], [64, 64, 64], [100, 257, 3], [129, 70, 67], [12, 9, 3],
  [13, 20, 7], [25, 11, 6],
];
const TILES = {
  relaxed_simd: { float32: [12, 3], float64: [6, 3] },
  simd128: { float32: [8, 4], float64: [4, 4] },
  scalar: { float32: [4, 4], float64: [4, 4] },
};
const DTYPE = new Map([[Float32Array, "float32"], [Float64Array, "float64"]]);
// The version's one source; the module must report the same string.
const VERSION = readFileSync(path.join(REPO, "cpp", "include", "gemmkit", "version.h"), "utf8")
  .match(/GEMMKIT_VERSION_STRING "([^"]+)"/)[1];

test("the engine running these tests has simd128 and relaxed SIMD", () => {
  assert.equal(simd128Supported(), true);
  assert.equal(relaxedSimdSupported(), true, "node 20 needs --experimental-wasm-relaxed-simd");
  assert.equal(bestIsa(), "relaxed_simd");
});

test("web-demo/gemmkit.mjs is the current wasm/gemmkit.mjs", () => {
  assert.equal(
    readFileSync(path.join(WEB_DIR, "gemmkit.mjs"), "utf8"),
    readFileSync(path.join(REPO, "wasm", "gemmkit.mjs"), "utf8"),
    "stale copy: run python wasm/build.py",
  );
});

for (const isa of ["relaxed_simd", "simd128", "scalar"]) {
  describe(`gemmkit-${isa}.wasm`, async () => {
    artifact(WEB_DIR, `gemmkit-${isa}.wasm`);
    const gk = await loadGemmkit({ isa, env: {} });

    test("dispatchInfo names the build's kernels and tiles", () => {
      const info = gk.dispatchInfo();
      assert.ok(info.compiled_isas.includes("scalar"));
      assert.equal(info.compiled_isas.includes("simd128"), isa !== "scalar");
      assert.equal(info.compiled_isas.includes("relaxed_simd"), isa === "relaxed_simd");
      for (const dtype of ["float32", "float64"]) {
        const [mr, nr] = TILES[isa][dtype];
        assert.equal(info[dtype].isa, isa);
        assert.equal(info[dtype].mr, mr);
        assert.equal(info[dtype].nr, nr);
        assert.equal(info[dtype].kernel, `${dtype === "float32" ? "f32" : "f64"}_gemm_${mr}x${nr}__${isa}`);
      }
      assert.equal(gk.version, VERSION);
      assert.equal(gk.abiVersion, 1);
      assert.equal(gk.isa, isa);
    });

    if (isa === "relaxed_simd") {
      test("the types relaxed SIMD does not serve run on its base, simd128", () => {
        const info = gk.dispatchInfo();
        for (const dtype of ["float16", "bfloat16", "int8", "complex64"]) {
          assert.equal(info[dtype].isa, "simd128", dtype);
        }
      });
    }

    for (const Ctor of TYPES) {
      test(`${DTYPE.get(Ctor)}: shapes across tile edges`, () => {
        let seed = 10;
        for (const [m, k, n] of SHAPES) {
          const a = randomArray(Ctor, m * k, seed++);
          const b = randomArray(Ctor, k * n, seed++);
          const got = gk.gemm(a, b, m, k, n);
          assert.ok(got instanceof Ctor);
          const msg = checkGemm(got, a, b, m, k, n);
          assert.equal(msg, null, msg);
        }
      });

      test(`${DTYPE.get(Ctor)}: alpha, beta and c`, () => {
        const [m, k, n] = [19, 23, 13];
        const a = randomArray(Ctor, m * k, 1);
        const b = randomArray(Ctor, k * n, 2);
        const c = randomArray(Ctor, m * n, 3);
        for (const [alpha, beta] of [[1, 1], [-0.5, 2], [0.3, -1.25], [2, 0]]) {
          const got = gk.gemm(a, b, m, k, n, { alpha, beta, c });
          const msg = checkGemm(got, a, b, m, k, n, { alpha, beta, c });
          assert.equal(msg, null, `alpha=${alpha} beta=${beta}: ${msg}`);
        }
        assert.deepEqual(c, randomArray(Ctor, m * n, 3), "c is an input only");
      });

      test(`${DTYPE.get(Ctor)}: beta = 0 never reads c, alpha = 0 never reads a or b`, () => {
        const [m, k, n] = [9, 5, 7];
        const a = randomArray(Ctor, m * k, 4);
        const b = randomArray(Ctor, k * n, 5);
        const nanC = new Ctor(m * n).fill(NaN);
        const got = gk.gemm(a, b, m, k, n, { beta: 0, c: nanC });
        assert.equal(checkGemm(got, a, b, m, k, n), null);
        const c = randomArray(Ctor, m * n, 6);
        const poisoned = gk.gemm(new Ctor(m * k).fill(NaN), new Ctor(k * n).fill(Infinity),
          m, k, n, { alpha: 0, beta: 2, c });
        assert.deepEqual(poisoned, c.map((x) => 2 * x));
      });

      test(`${DTYPE.get(Ctor)}: empty dimensions`, () => {
        assert.equal(gk.gemm(new Ctor(0), new Ctor(15), 0, 3, 5).length, 0);
        assert.equal(gk.gemm(new Ctor(6), new Ctor(0), 2, 3, 0).length, 0);
        const c = randomArray(Ctor, 6, 7);
        assert.deepEqual(gk.gemm(new Ctor(0), new Ctor(0), 2, 0, 3, { beta: 0.5, c }),
          c.map((x) => 0.5 * x));
        assert.deepEqual(gk.gemm(new Ctor(0), new Ctor(0), 2, 0, 3), new Ctor(6));
      });
    }

    // The wrapping integer families, bit for bit against BigInt sums
    // reduced to the type (BigInt.asIntN / asUintN).
    const INTS = [[Int8Array, 8, true], [Uint8Array, 8, false], [Int16Array, 16, true],
      [Uint16Array, 16, false], [Int32Array, 32, true], [Uint32Array, 32, false],
      [BigInt64Array, 64, true], [BigUint64Array, 64, false]];
    for (const [Ctor, bits, signed] of INTS) {
      test(`${Ctor.name}: wraps like numpy, alpha and beta`, () => {
        const big = Ctor === BigInt64Array || Ctor === BigUint64Array;
        let state = 12345n;
        const fill = (len) => {
          const x = new Ctor(len);
          for (let i = 0; i < len; i++) {
            state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
            const v = signed ? BigInt.asIntN(bits, state >> 3n) : BigInt.asUintN(bits, state >> 3n);
            x[i] = big ? v : Number(v);
          }
          return x;
        };
        const reduce = (v) => (signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v));
        for (const [m, k, n] of [[1, 1, 1], [9, 17, 5], [33, 70, 13]]) {
          const a = fill(m * k), b = fill(k * n), c = fill(m * n);
          for (const [alpha, beta] of [[1, 0], [-3, 2]]) {
            const got = gk.gemm(a, b, m, k, n, { alpha, beta, c });
            assert.ok(got instanceof Ctor);
            for (let i = 0; i < m; i++) {
              for (let j = 0; j < n; j++) {
                let sum = 0n;
                for (let p = 0; p < k; p++) sum += BigInt(a[i * k + p]) * BigInt(b[p * n + j]);
                const want = reduce(BigInt(alpha) * sum + BigInt(beta) * BigInt(c[i * n + j]));
                assert.equal(BigInt(got[i * n + j]), want, `${m}x${k}x${n} (${i}, ${j})`);
              }
            }
          }
        }
      });
    }

    for (const [dtype, Ctor, eps] of [["complex64", Float32Array, 2 ** -23],
      ["complex128", Float64Array, 2 ** -52]]) {
      test(`${dtype}: interleaved, complex alpha and beta, conjugation`, () => {
        const [m, k, n] = [11, 29, 7];
        const a = randomArray(Ctor, 2 * m * k, 21), b = randomArray(Ctor, 2 * k * n, 22);
        const c = randomArray(Ctor, 2 * m * n, 23);
        const alpha = [0.5, -2], beta = [1, 1];
        for (const [conjA, conjB] of [[false, false], [true, false], [false, true], [true, true]]) {
          const got = gk.gemm(a, b, m, k, n, { dtype, alpha, beta, c, conjA, conjB });
          for (let i = 0; i < m; i++) {
            for (let j = 0; j < n; j++) {
              let re = 0, im = 0, mag = 0;
              for (let p = 0; p < k; p++) {
                const ar = a[2 * (i * k + p)], ai = (conjA ? -1 : 1) * a[2 * (i * k + p) + 1];
                const br = b[2 * (p * n + j)], bi = (conjB ? -1 : 1) * b[2 * (p * n + j) + 1];
                re += ar * br - ai * bi;
                im += ar * bi + ai * br;
                mag += Math.hypot(ar, ai) * Math.hypot(br, bi);
              }
              const cr = c[2 * (i * n + j)], ci = c[2 * (i * n + j) + 1];
              const wr = alpha[0] * re - alpha[1] * im + cr - ci;
              const wi = alpha[0] * im + alpha[1] * re + cr + ci;
              const tol = 16 * (k + 2) * eps * (Math.hypot(...alpha) * mag + 2 * Math.hypot(cr, ci));
              const err = Math.hypot(got[2 * (i * n + j)] - wr, got[2 * (i * n + j) + 1] - wi);
              assert.ok(err <= tol, `${dtype} conj=${conjA},${conjB} (${i}, ${j}): ${err} > ${tol}`);
            }
          }
        }
        const other = dtype === "complex64" ? "complex128" : "complex64";
        assert.throws(() => gk.gemm(a, b, m, k, n, { dtype: other }),
          (e) => e instanceof GemmkitError && e.code === "DTYPE");
        assert.throws(() => gk.gemm(a.subarray(1), b, m, k, n, { dtype }),
          (e) => e instanceof GemmkitError && e.code === "SHAPE");
      });
    }

    test("a complex alpha for a real product is refused by the core", () => {
      assert.throws(() => gk.gemm(new Float32Array(1), new Float32Array(1), 1, 1, 1,
        { alpha: [1, 1] }), (e) => e instanceof GemmkitError && e.code === "VALUE");
      assert.throws(() => gk.gemm(new Int16Array(1), new Int16Array(1), 1, 1, 1,
        { alpha: 0.5 }), (e) => e instanceof GemmkitError && e.code === "VALUE" &&
        /alpha/.test(e.message));
    });

    test("argument errors are GemmkitErrors with a status", () => {
      const a = new Float32Array(6);
      const b = new Float32Array(6);
      assert.throws(() => gk.gemm(a, b, 2, 3, 3),
        (e) => e instanceof GemmkitError && e.code === "SHAPE" && /b has 6 elements, expected 3 x 3/.test(e.message));
      assert.throws(() => gk.gemm(a, new Float64Array(6), 2, 3, 2),
        (e) => e instanceof GemmkitError && e.code === "DTYPE" && e.message.startsWith("gemmkit: "));
      assert.throws(() => gk.gemm([1, 2], b, 1, 2, 3),
        (e) => e instanceof GemmkitError && e.code === "DTYPE");
      assert.throws(() => gk.gemm(a, b, 2.5, 3, 2),
        (e) => e instanceof GemmkitError && e.code === "VALUE");
      assert.throws(() => gk.gemm(a, b, 2, 3, 2, { c: new Float32Array(5) }),
        (e) => e instanceof GemmkitError && e.code === "SHAPE");
    });

    test("memory growth keeps results right (views re-made after malloc)", () => {
      const [m, k, n] = [400, 300, 350];
      const a = randomArray(Float64Array, m * k, 8);
      const b = randomArray(Float64Array, k * n, 9);
      const before = gk.memory.buffer.byteLength;
      const got = gk.gemm(a, b, m, k, n);
      assert.ok(gk.memory.buffer.byteLength > before, "the call grew the memory");
      // Spot rows: the full reference is slow in JS.
      const rows = [0, 1, 199, 399];
      const sub = (x, r) => x.slice(r * k, (r + 1) * k);
      for (const r of rows) {
        const msg = checkGemm(got.slice(r * n, (r + 1) * n), sub(a, r), b, 1, k, n);
        assert.equal(msg, null, `row ${r}: ${msg}`);
      }
    });
  });
}

describe("GEMMKIT_REQUIRE_ISA on the standalone builds", () => {
  test("simd128 build pinned to scalar runs the scalar kernels", async () => {
    const gk = await loadGemmkit({ isa: "simd128", env: { GEMMKIT_REQUIRE_ISA: "Scalar" } });
    assert.equal(gk.dispatchInfo().float32.isa, "scalar");
    const a = randomArray(Float32Array, 35, 1);
    const b = randomArray(Float32Array, 35, 2);
    assert.equal(checkGemm(gk.gemm(a, b, 5, 7, 5), a, b, 5, 7, 5), null);
  });

  test("the alias wasm pins simd128", async () => {
    const gk = await loadGemmkit({ isa: "simd128", env: { GEMMKIT_REQUIRE_ISA: "wasm" } });
    assert.equal(gk.dispatchInfo().float64.isa, "simd128");
  });

  test("relaxed_simd build pinned to simd128 runs the simd128 kernels", async () => {
    const gk = await loadGemmkit({ isa: "relaxed_simd", env: { GEMMKIT_REQUIRE_ISA: "simd128" } });
    assert.equal(gk.dispatchInfo().float32.isa, "simd128");
    assert.equal(gk.dispatchInfo().float64.isa, "simd128");
  });

  test("the alias relaxed pins relaxed_simd", async () => {
    const gk = await loadGemmkit({ isa: "relaxed_simd", env: { GEMMKIT_REQUIRE_ISA: "relaxed" } });
    assert.equal(gk.dispatchInfo().float32.isa, "relaxed_simd");
  });

  test("isa auto loads the best build this engine validates; the default is simd128", async () => {
    const gk = await loadGemmkit({ isa: "auto", env: {} });
    assert.equal(gk.isa, "relaxed_simd");
    assert.equal(gk.dispatchInfo().float32.isa, "relaxed_simd");
    assert.equal(DEFAULT_ISA, "simd128");
    assert.equal((await loadGemmkit({ env: {} })).isa, "simd128");
  });

  for (const [isa, value, pattern] of [
    ["simd128", "avx512f", /avx512f/],
    ["simd128", "neon", /neon/],
    ["simd128", "foo", /unknown value 'foo'/],
    ["scalar", "simd128", /simd128/],
    ["simd128", "relaxed_simd", /compiled without the relaxed_simd kernels/],
    ["relaxed_simd", "neon", /neon/],
  ]) {
    test(`gemmkit-${isa}.wasm refuses GEMMKIT_REQUIRE_ISA=${value} on every call`, async () => {
      const gk = await loadGemmkit({ isa, env: { GEMMKIT_REQUIRE_ISA: value } });
      const isIsa = (e) => e instanceof GemmkitError && e.code === "ISA" &&
        e.message.startsWith("gemmkit: ") && pattern.test(e.message);
      for (let i = 0; i < 2; i++) {
        assert.throws(() => gk.gemm(new Float32Array(4), new Float32Array(4), 2, 2, 2), isIsa);
        assert.throws(() => gk.dispatchInfo(), isIsa);
      }
    });
  }

  test("in node the process's GEMMKIT_* variables reach the module by default", () => {
    const script = `import(${JSON.stringify(path.join(WEB_DIR, "gemmkit.mjs"))}).then(async (m) => {
      const gk = await m.loadGemmkit({ isa: "simd128" });
      console.log(gk.dispatchInfo().float32.isa);
    });`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, GEMMKIT_REQUIRE_ISA: "scalar" }, encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), "scalar");
  });
});

describe("simd128 pin safety", () => {
  test("on a V8 without SIMD the simd128 build is refused before instantiation", () => {
    const run = spawnSync(process.execPath,
      ["--no-enable-sse4-1", path.join(HERE, "nosimd_probe.mjs")],
      { env: { ...process.env, GEMMKIT_WASM_WEB_DIR: WEB_DIR }, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout.trim().split("\n").at(-1));
    assert.equal(out.simd128, false);
    // Refused before any module loads: the status name, no module number.
    assert.deepEqual(out.refusal, { name: "GemmkitError", code: "ISA", message: SIMD_REFUSAL_MESSAGE });
    assert.equal(SIMD_REFUSAL_MESSAGE,
      "gemmkit: gemmkit-simd128.wasm needs WebAssembly SIMD (simd128), which this " +
      'engine does not support; load the scalar build instead: loadGemmkit({ isa: "scalar" })');
    assert.match(out.rawCompile, /CompileError.*Wasm SIMD unsupported/);
    assert.equal(out.scalar, "ok");
    assert.equal(out.scalarIsa, "scalar");
    assert.equal(out.autoIsa, "scalar", "auto falls back to the scalar build");
  });

  test("a simd128-pinned build whose simd128 units lost -msimd128 refuses to run", async () => {
    const file = process.env.GEMMKIT_WASM_SELFCHECK ??
      path.join(REPO, "build", "wasm", "gemmkit-simd128-noflag.wasm");
    const gk = await loadGemmkit({ isa: "simd128", bytes: readFileSync(artifact(file)), env: {} });
    const isIsa = (e) => e instanceof GemmkitError && e.code === "ISA" && /simd128/.test(e.message);
    assert.throws(() => gk.gemm(new Float32Array(4), new Float32Array(4), 2, 2, 2), isIsa);
    assert.throws(() => gk.dispatchInfo(), isIsa);
  });

  test("a relaxed_simd-pinned build whose relaxed units lost -mrelaxed-simd refuses to run",
    async () => {
      const file = process.env.GEMMKIT_WASM_SELFCHECK_RELAXED ??
        path.join(REPO, "build", "wasm", "gemmkit-relaxed_simd-noflag.wasm");
      const gk = await loadGemmkit({ isa: "relaxed_simd", bytes: readFileSync(artifact(file)),
        env: {} });
      const isIsa = (e) => e instanceof GemmkitError && e.code === "ISA" &&
        /compiled without -mrelaxed-simd/.test(e.message);
      assert.throws(() => gk.gemm(new Float32Array(4), new Float32Array(4), 2, 2, 2), isIsa);
      assert.throws(() => gk.dispatchInfo(), isIsa);
    });

  test("loadGemmkit rejects an unknown isa", async () => {
    await assert.rejects(loadGemmkit({ isa: "avx512f" }),
      (e) => e instanceof GemmkitError && e.code === "VALUE" &&
        e.message === 'gemmkit: loadGemmkit: isa must be one of "auto", "relaxed_simd", ' +
        '"simd128", "scalar", got "avx512f"');
  });

  test("on a V8 without relaxed SIMD the relaxed build is refused and auto picks simd128", () => {
    const probe = (flags) => spawnSync(process.execPath,
      [...flags, path.join(HERE, "norelaxed_probe.mjs")],
      { env: { ...process.env, GEMMKIT_WASM_WEB_DIR: WEB_DIR }, encoding: "utf8" });
    // node 20's V8 has the switch; node 22+ ships relaxed SIMD without one,
    // so there a preload refuses relaxed opcodes as such an engine would.
    let run = probe(["--no-experimental-wasm-relaxed-simd"]);
    if (run.status !== 0 && /bad option/.test(run.stderr)) {
      for (const isa of ["simd128", "scalar"]) {
        assert.equal(holdsRelaxedSimd(readFileSync(path.join(WEB_DIR, `gemmkit-${isa}.wasm`))),
          false, `the byte scan would refuse gemmkit-${isa}.wasm too`);
      }
      run = probe(["--import", pathToFileURL(path.join(HERE, "hide_relaxed_simd.mjs")).href]);
    }
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout.trim().split("\n").at(-1));
    assert.equal(out.relaxed, false);
    assert.deepEqual(out.refusal,
      { name: "GemmkitError", code: "ISA", message: RELAXED_SIMD_REFUSAL_MESSAGE });
    // The relaxed build really holds relaxed instructions: the engine rejects it.
    assert.match(out.rawCompile, /CompileError/);
    assert.deepEqual(out.auto, { isa: "simd128", float32: "simd128", check: "ok" });
  });
});

test("instantiation is fast (compile + instantiate from bytes)", async () => {
  const bytes = readFileSync(path.join(WEB_DIR, "gemmkit-simd128.wasm"));
  const times = [];
  for (let i = 0; i < 5; i++) {
    const gk = await loadGemmkit({ isa: "simd128", bytes, env: {} });
    times.push(gk.instantiateMs);
  }
  times.sort((x, y) => x - y);
  // Target 50 ms (issue 3); 2x headroom for a loaded 2-core CI machine.
  assert.ok(times[2] < 100, `median ${times[2].toFixed(1)} ms`);
});
