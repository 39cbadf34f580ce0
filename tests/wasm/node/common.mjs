// Shared helpers of the node:test suites for gemmkit's standalone wasm
// builds: where the artifacts are, a seeded generator, the f64 reference and
// the suite's one tolerance formula (the same as tests/api/apihelpers.py).
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Folder with gemmkit.mjs and the two .wasm builds (wasm/build.py output). */
export const WEB_DIR = process.env.GEMMKIT_WASM_WEB_DIR ?? path.join(REPO, "web-demo");

export function artifact(...parts) {
  const p = path.join(...parts);
  if (!existsSync(p)) {
    throw new Error(`${p} is missing: build it with \`python wasm/build.py\``);
  }
  return p;
}

export async function importLoader() {
  return import(pathToFileURL(artifact(WEB_DIR, "gemmkit.mjs")).href);
}

// The generator the demo and the benchmark use too (one module, same data).
import { rng } from "../../../web-demo/seeded-random.mjs";

export { rng };

export function randomArray(Ctor, length, seed) {
  const next = rng(seed);
  const out = new Ctor(length);
  for (let i = 0; i < length; i++) out[i] = 2 * next() - 1;
  return out;
}

export const EPS = new Map([[Float32Array, 2 ** -23], [Float64Array, 2 ** -52]]);
const TOL_C = 2;

/**
 * Checks got == alpha*a@b + beta*c within
 * TOL_C * (k + 2) * eps * (|alpha| |A||B| + |beta| |C|), elementwise, with the
 * reference and the bound computed in f64 from the (already rounded) inputs.
 * Returns null or a description of the first bad element.
 */
export function checkGemm(got, a, b, m, k, n, { alpha = 1, beta = 0, c = null } = {}) {
  const eps = EPS.get(a.constructor);
  if (got.length !== m * n) return `length ${got.length}, expected ${m * n}`;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      let mag = 0;
      for (let p = 0; p < k; p++) {
        const t = a[i * k + p] * b[p * n + j];
        s += t;
        mag += Math.abs(t);
      }
      let ref = alpha * s;
      let bound = Math.abs(alpha) * mag;
      if (c && beta !== 0) {
        ref += beta * c[i * n + j];
        bound += Math.abs(beta * c[i * n + j]);
      }
      const tol = TOL_C * (k + 2) * eps * bound;
      const err = Math.abs(got[i * n + j] - ref);
      if (!(err <= tol)) {
        return `(${i}, ${j}) of ${m}x${k}x${n}: got ${got[i * n + j]}, want ${ref} (|err| ${err} > tol ${tol})`;
      }
    }
  }
  return null;
}

/** Whether a module's bytes hold a relaxed SIMD opcode (0xfd then 0x100..0x113
 * as LEB128): the byte scan of hide_relaxed_simd.mjs. */
export function holdsRelaxedSimd(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer ?? bytes);
  for (let i = 0; i + 2 < b.length; i++) {
    if (b[i] === 0xfd && b[i + 1] >= 0x80 && b[i + 1] <= 0x93 && b[i + 2] === 0x02) return true;
  }
  return false;
}
