// gemmkit.mjs: ES-module loader for gemmkit's standalone WebAssembly builds
// (gemmkit-relaxed_simd.wasm, gemmkit-simd128.wasm, gemmkit-scalar.wasm),
// for browsers, workers and node >= 20.  It sits on the C ABI
// (cpp/include/gemmkit/gemmkit.h) and is the only JavaScript between a
// caller and the C++ core.
//
//   import { loadGemmkit } from "./gemmkit.mjs";
//   const gk = await loadGemmkit();   // the simd128 build (DEFAULT_ISA)
//   const c = gk.gemm(a, b, m, k, n, { alpha: 1, beta: 0, c: null });
//   gk.isa;             // "relaxed_simd", "simd128" or "scalar": what loaded
//   gk.dispatchInfo();  // { float32: { isa: "relaxed_simd", kernel: ... }, ... }
//
// a (m x k), b (k x n) and c (m x n) are row-major typed arrays of one
// type: Float32Array, Float64Array, or an integer array (Int8Array ...
// BigUint64Array: numpy's wrapping products, the result type the input
// type); with { dtype: "complex64" | "complex128" } interleaved (re, im)
// Float32Array / Float64Array, complex alpha and beta as [re, im], and
// { conjA, conjB }.  gemm returns a new array of the same type holding
// alpha * a @ b + beta * c.  Failures throw GemmkitError (an Error) whose
// message is the core's gemmkit_last_error() and whose status is the
// gemmkit_status code.
//
// loadGemmkit({ threads: N }) loads the threaded build of the ISA
// (gemmkit-<isa>-threads.wasm): one shared WebAssembly.Memory, N - 1 Web
// Workers (gemmkit-worker.mjs, next to this file) each running the core's
// worker loop on its own instance, and the caller's thread as the first
// member of every team.  gemm stays synchronous and its results are
// bit-identical to one thread's (the core never splits the depth).  A
// browser allows shared memory only on a cross-origin isolated page (COOP
// same-origin + COEP require-corp); elsewhere a threaded load refuses with
// THREADS_REFUSAL_MESSAGE.  close() ends the workers.
//
// Each SIMD build is compiled with its pin fixed to its ISA.  An engine
// without Wasm SIMD (or without relaxed SIMD) could not even compile it, so
// the loader first validates a tiny probe module and refuses with
// SIMD_REFUSAL_MESSAGE (RELAXED_SIMD_REFUSAL_MESSAGE) before fetching or
// instantiating anything; "auto" takes the first build of BUILDS the engine
// validates.  Relaxed multiply-add rounds once (fused) or twice, as the host
// CPU does it, so relaxed_simd results may differ in the last bits between
// machines; they always meet the same k * eps bound as the others.  That is
// why relaxed SIMD is an opt-in (isa "relaxed_simd" or "auto") and not the
// default: on the machines measured (AMD Zen 4, whose adds issue beside its
// FMAs) it gained 3-9% for float32 and nothing for float64 from 256 up in
// Chromium 156 (1.1-1.16x in node 20; docs/performance.md).

/** ABI this loader speaks (GEMMKIT_ABI_VERSION in gemmkit.h). */
export const ABI_VERSION = 1;

/** Smallest module using a simd128 instruction: (func v128.const 0; drop). */
export const SIMD128_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 23, 1, 21, 0,
  253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 26, 11,
]);

/** Smallest module using relaxed SIMD:
 * (func v128.const 0 (x3); f32x4.relaxed_madd; drop). */
export const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 62, 1, 60, 0,
  ...[0, 1, 2].flatMap(() => [253, 12, ...new Array(16).fill(0)]),
  253, 133, 2, 26, 11,
]);

export const SIMD_REFUSAL_MESSAGE =
  "gemmkit: gemmkit-simd128.wasm needs WebAssembly SIMD (simd128), which " +
  "this engine does not support; load the scalar build instead: " +
  'loadGemmkit({ isa: "scalar" })';

export const RELAXED_SIMD_REFUSAL_MESSAGE =
  "gemmkit: gemmkit-relaxed_simd.wasm needs WebAssembly relaxed SIMD, which " +
  "this engine does not support; load the simd128 build instead: " +
  'loadGemmkit({ isa: "simd128" }) (or isa "auto", the best this engine runs)';

export const THREADS_REFUSAL_MESSAGE =
  "gemmkit: threads need shared WebAssembly memory (SharedArrayBuffer), which " +
  "this context does not allow: a page must be cross-origin isolated (served with " +
  "Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: " +
  "require-corp); load with threads: 1 instead";

/** Most threads a threaded build serves (its 63 workers and the caller). */
export const MAX_THREADS = 64;

// Each worker's stack, as large as the main thread's (-z stack-size in
// wasm/CMakeLists.txt's link).
const WORKER_STACK_BYTES = 1 << 20;

/**
 * Every failure of this module: message starts with "gemmkit: ".  `code` is
 * the status name of gemmkit.h ("SHAPE", "DTYPE", "ISA", ...); `status` its
 * number, read from the loaded module's gemmkit_codes_json() (undefined for
 * a refusal before any module was loaded: the number is the module's).
 */
export class GemmkitError extends Error {
  constructor(message, code = "INTERNAL", status = undefined) {
    super(message);
    this.name = "GemmkitError";
    this.code = code;
    this.status = status;
  }
}

const IS_NODE =
  typeof process === "object" && process !== null &&
  typeof process.versions?.node === "string";

function validates(probe) {
  try {
    return WebAssembly.validate(probe);
  } catch {
    return false;
  }
}

/** True when this engine can compile Wasm SIMD (simd128). */
export function simd128Supported() {
  return validates(SIMD128_PROBE);
}

/** True when this engine can compile Wasm relaxed SIMD. */
export function relaxedSimdSupported() {
  return validates(RELAXED_SIMD_PROBE);
}

/** True when this context may share a WebAssembly.Memory with workers. */
export function threadsSupported() {
  if (typeof SharedArrayBuffer !== "function" || typeof Atomics !== "object") return false;
  if (!IS_NODE && globalThis.crossOriginIsolated !== true) return false;
  if (!IS_NODE && typeof Worker !== "function") return false;
  try {
    new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The standalone builds, best first: what each needs of the engine and the
 * refusal when that is missing.  "auto" loads the first one supported.
 */
export const BUILDS = Object.freeze([
  { isa: "relaxed_simd", supported: relaxedSimdSupported, refusal: RELAXED_SIMD_REFUSAL_MESSAGE },
  { isa: "simd128", supported: simd128Supported, refusal: SIMD_REFUSAL_MESSAGE },
  { isa: "scalar", supported: () => true, refusal: null },
]);

/** The build loadGemmkit() loads when no isa is given. */
export const DEFAULT_ISA = "simd128";

/** The isa "auto" resolves to on this engine. */
export function bestIsa() {
  return BUILDS.find((build) => build.supported()).isa;
}

async function readBytes(url) {
  if (url.protocol === "file:") {
    // node's fetch cannot read file: URLs.
    const { readFile } = await import("node:fs/promises");
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) {
    throw new GemmkitError(
      `gemmkit: cannot fetch ${url.href}: HTTP ${response.status}`,
    );
  }
  return response.arrayBuffer();
}

function defaultEnv() {
  // In node the module sees the GEMMKIT_* variables of the process (so
  // GEMMKIT_REQUIRE_ISA works as on every other build); a browser has none.
  if (!IS_NODE) return {};
  const out = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("GEMMKIT_")) out[key] = value;
  }
  return out;
}

// The few WASI functions wasi-libc's libc.a may import: an environment (for
// getenv), stdout/stderr for a stray message, exit.  Everything else answers
// ENOSYS; the core uses no files, clocks or randomness.
function wasiImports(getMemory, env) {
  const ENOSYS = 52;
  const EBADF = 8;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const entries = Object.entries(env).map(([k, v]) =>
    encoder.encode(`${k}=${v}\0`));
  const pending = { 1: "", 2: "" };
  const u32 = () => new DataView(getMemory().buffer);
  return {
    environ_sizes_get(countPtr, sizePtr) {
      const dv = u32();
      dv.setUint32(countPtr, entries.length, true);
      dv.setUint32(sizePtr, entries.reduce((s, e) => s + e.length, 0), true);
      return 0;
    },
    environ_get(environPtr, bufPtr) {
      const dv = u32();
      const bytes = new Uint8Array(getMemory().buffer);
      let p = bufPtr;
      entries.forEach((entry, i) => {
        dv.setUint32(environPtr + 4 * i, p, true);
        bytes.set(entry, p);
        p += entry.length;
      });
      return 0;
    },
    fd_write(fd, iovs, iovsLen, nwrittenPtr) {
      if (fd !== 1 && fd !== 2) return EBADF;
      const dv = u32();
      let written = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = dv.getUint32(iovs + 8 * i, true);
        const len = dv.getUint32(iovs + 8 * i + 4, true);
        // A copy: TextDecoder refuses views of a shared memory.
        pending[fd] += decoder.decode(
          new Uint8Array(getMemory().buffer, ptr, len).slice());
        written += len;
      }
      const lines = pending[fd].split("\n");
      pending[fd] = lines.pop();
      for (const line of lines) (fd === 1 ? console.log : console.error)(line);
      dv.setUint32(nwrittenPtr, written, true);
      return 0;
    },
    proc_exit(code) {
      throw new GemmkitError(`gemmkit: the module called exit(${code})`);
    },
    fd_close: () => EBADF,
    fd_seek: () => EBADF,
    fd_fdstat_get: () => EBADF,
  };
}

// `memory`: the shared memory a threaded build imports (null otherwise).
function importObject(module, getMemory, env, memory = null) {
  const wasi = wasiImports(getMemory, env);
  const imports = { wasi_snapshot_preview1: {}, env: {} };
  for (const imp of WebAssembly.Module.imports(module)) {
    if (memory && imp.module === "env" && imp.name === "memory" && imp.kind === "memory") {
      imports.env.memory = memory;
      continue;
    }
    if (imp.module !== "wasi_snapshot_preview1" || imp.kind !== "function") {
      throw new GemmkitError(
        `gemmkit: unexpected import ${imp.module}.${imp.name}: ` +
        "not a gemmkit standalone build",
      );
    }
    imports.wasi_snapshot_preview1[imp.name] = wasi[imp.name] ?? (() => 52);
  }
  return imports;
}

// The limits (in 64 KiB pages) of the memory a module imports, read from its
// import section (a threaded build's shared memory must be made to match);
// null when it imports none.
function importedMemoryLimits(bytes) {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let pos = 8;
  const leb = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = data[pos++];
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (byte < 0x80) return result;
    }
  };
  const skipName = () => { const n = leb(); pos += n; };
  while (pos < data.length) {
    const id = data[pos++];
    const size = leb();
    const end = pos + size;
    if (id === 2) {
      for (let count = leb(); count > 0; count--) {
        skipName();
        skipName();
        const kind = data[pos++];
        if (kind === 2) {
          const flags = leb();
          const initial = leb();
          return { initial, maximum: flags & 1 ? leb() : undefined, shared: (flags & 2) !== 0 };
        }
        if (kind === 0) leb();
        else if (kind === 1) { pos++; const f = leb(); leb(); if (f & 1) leb(); }
        else if (kind === 3) pos += 2;
        else break;
      }
    }
    pos = end;
  }
  return null;
}

// Starts a threaded build's workers: each gets the compiled module, the
// shared memory, its tid and a stack and TLS block allocated here; resolves
// once every one serves (gemmkit-worker.mjs, serveAsWorker below).
async function startWorkers(ex, compiled, memory, helpers, env, workerUrl) {
  const alignUp = (p, align) => Math.ceil(p / align) * align;
  const tlsSize = ex.__tls_size.value;
  const tlsAlign = Math.max(ex.__tls_align.value, 16);
  const WorkerImpl = IS_NODE ? (await import("node:worker_threads")).Worker : Worker;
  const workers = [];
  const started = [];
  for (let tid = 1; tid <= helpers; tid++) {
    const stack = ex.malloc(WORKER_STACK_BYTES);
    const tls = ex.malloc(tlsSize + tlsAlign);
    if (!stack || !tls) {
      throw new GemmkitError("gemmkit: out of wasm memory starting the workers", "ALLOC");
    }
    // node: no inherited CLI options (--input-type, --eval would break the
    // worker's start; V8's flags are the process's anyway).
    const worker = IS_NODE
      ? new WorkerImpl(workerUrl, { execArgv: [] })
      : new WorkerImpl(workerUrl, { type: "module" });
    workers.push(worker);
    started.push(new Promise((resolve, reject) => {
      const onMessage = (message) => {
        const data = IS_NODE ? message : message.data;
        if (data.ready) resolve();
        else if (data.error) reject(new GemmkitError(`gemmkit: worker ${tid}: ${data.error}`));
      };
      const onError = (error) => reject(new GemmkitError(
        `gemmkit: worker ${tid} failed to start: ${error?.message ?? error}`));
      if (IS_NODE) {
        worker.on("message", onMessage);
        worker.on("error", onError);
      } else {
        worker.addEventListener("message", onMessage);
        worker.addEventListener("error", onError);
      }
    }));
    worker.postMessage({
      module: compiled, memory, tid, env,
      stackTop: Math.floor((stack + WORKER_STACK_BYTES) / 16) * 16,
      tls: alignUp(tls, tlsAlign),
    });
  }
  try {
    await Promise.all(started);
  } catch (error) {
    for (const worker of workers) worker.terminate();
    throw error;
  }
  // Idle workers never keep node alive.
  if (IS_NODE) for (const worker of workers) worker.unref();
  ex.gemmkit_wasm_set_helpers(helpers);
  return workers;
}

/**
 * The body of a threaded build's Web Worker (gemmkit-worker.mjs): takes its
 * start message, gives its instance the stack and TLS block it was handed,
 * says it is ready, and serves jobs until the loader's close().
 */
export async function serveAsWorker() {
  const port = IS_NODE ? (await import("node:worker_threads")).parentPort : globalThis;
  const start = await new Promise((resolve) => {
    if (IS_NODE) port.once("message", resolve);
    else port.addEventListener("message", (event) => resolve(event.data), { once: true });
  });
  let ex;
  try {
    const { module, memory, env } = start;
    const instance = await WebAssembly.instantiate(
      module, importObject(module, () => memory, env, memory));
    ex = instance.exports;
    ex.__stack_pointer.value = start.stackTop;
    ex.__wasm_init_tls(start.tls);
  } catch (error) {
    port.postMessage({ error: String(error?.message ?? error) });
    return;
  }
  port.postMessage({ ready: true });
  ex.gemmkit_wasm_worker(start.tid);  // returns at close()
  if (IS_NODE) port.close();
  else globalThis.close();
}

function checkDim(name, value, refuse) {
  if (!Number.isSafeInteger(value) || value < 0 || value > 0xffffffff) {
    throw refuse(`gemmkit: ${name} must be a non-negative integer, got ${value}`, "VALUE");
  }
}

/**
 * Instantiates one gemmkit build.
 * @param {object} [options]
 * @param {"auto"|"relaxed_simd"|"simd128"|"scalar"} [options.isa=DEFAULT_ISA]
 *   which build; "auto" is the best this engine validates (BUILDS order)
 * @param {string|URL} [options.url] where the .wasm is (default: next to
 *   this file, gemmkit-<isa>.wasm)
 * @param {ArrayBuffer|Uint8Array} [options.bytes] the .wasm itself
 * @param {WebAssembly.Module} [options.module] an already compiled module
 * @param {Record<string,string>} [options.env] environment the module's
 *   getenv sees (default: in node, the process's GEMMKIT_* variables)
 * @param {number} [options.threads=1] threads of every product: above 1, the
 *   threaded build (gemmkit-<isa>-threads.wasm) with threads - 1 workers;
 *   the core still runs small products on one (GEMMKIT_NUM_THREADS and the
 *   parallel knobs apply)
 * @param {string|URL} [options.workerUrl] the workers' script (default: next
 *   to this file, gemmkit-worker.mjs)
 */
export async function loadGemmkit(options = {}) {
  const { isa: asked = DEFAULT_ISA, url, bytes, module, env, threads = 1, workerUrl } = options;
  const names = ["auto", ...BUILDS.map((build) => build.isa)];
  if (!names.includes(asked)) {
    throw new GemmkitError(
      `gemmkit: loadGemmkit: isa must be one of ${names.map((n) => JSON.stringify(n)).join(", ")}, ` +
      `got ${JSON.stringify(asked)}`,
      "VALUE",
    );
  }
  if (!Number.isSafeInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw new GemmkitError(
      `gemmkit: loadGemmkit: threads must be an integer from 1 to ${MAX_THREADS}, ` +
      `got ${JSON.stringify(threads)}`,
      "VALUE",
    );
  }
  const isa = asked === "auto" ? bestIsa() : asked;
  const build = BUILDS.find((b) => b.isa === isa);
  if (!build.supported()) {
    throw new GemmkitError(build.refusal, "ISA");
  }
  const threaded = threads > 1;
  if (threaded && isa === "scalar") {
    throw new GemmkitError(
      'gemmkit: there is no threaded scalar build: load isa "simd128" or "relaxed_simd" ' +
      "for threads, or the scalar build with threads: 1",
      "VALUE",
    );
  }
  if (threaded && !threadsSupported()) {
    throw new GemmkitError(THREADS_REFUSAL_MESSAGE, "ISA");
  }
  const t0 = performance.now();
  let compiled = module;
  let source = bytes;
  if (!compiled || (threaded && !source)) {
    source ??= await readBytes(
      new URL(url ?? `./gemmkit-${isa}${threaded ? "-threads" : ""}.wasm`, import.meta.url));
    compiled ??= await WebAssembly.compile(source);
  }
  const moduleEnv = env ?? defaultEnv();
  let memory = null;
  if (threaded) {
    const limits = importedMemoryLimits(source);
    if (!limits?.shared) {
      throw new GemmkitError("gemmkit: loadGemmkit: threads need a threaded build " +
        `(gemmkit-${isa}-threads.wasm); this module has no shared memory`, "VALUE");
    }
    try {
      memory = new WebAssembly.Memory({ ...limits, shared: true });
    } catch (error) {  // the engine would not reserve the maximum
      throw new GemmkitError("gemmkit: cannot create the threaded build's shared memory " +
        `(up to ${limits.maximum} pages of 64 KiB): ${error.message}`, "ALLOC");
    }
  }
  const getMemory = () => memory;
  const instance = await WebAssembly.instantiate(
    compiled, importObject(compiled, getMemory, moduleEnv, memory));
  const ex = instance.exports;
  memory ??= ex.memory;
  if (typeof ex._initialize === "function") ex._initialize();
  const abi = ex.gemmkit_abi_version();
  if (abi !== ABI_VERSION) {
    throw new GemmkitError(
      `gemmkit: module has C ABI version ${abi}, this loader speaks ${ABI_VERSION}`,
      "INTERNAL",
    );
  }
  const workers = threaded
    ? await startWorkers(ex, compiled, memory, threads - 1, moduleEnv,
      new URL(workerUrl ?? "./gemmkit-worker.mjs", import.meta.url))
    : [];
  const instantiateMs = performance.now() - t0;

  const cString = (ptr) => {
    if (!ptr) return "";
    const heap = new Uint8Array(memory.buffer);
    let end = ptr;
    while (heap[end] !== 0) end++;
    // A copy: TextDecoder refuses views of a shared memory.
    return new TextDecoder().decode(heap.slice(ptr, end));
  };
  const lastError = () => cString(ex.gemmkit_last_error());
  // The status codes are the module's own (gemmkit_codes_json), by name.
  const codes = JSON.parse(cString(ex.gemmkit_codes_json()));
  const statusName = Object.fromEntries(
    Object.entries(codes.status).map(([name, code]) => [code, name.toUpperCase()]));
  // A failure this loader finds, with the module's number for its code.
  const refuse = (message, code) =>
    new GemmkitError(message, code, codes.status[code.toLowerCase()]);
  const fail = (status) => {
    throw new GemmkitError(lastError() || `gemmkit: status ${status}`,
      statusName[status] ?? "INTERNAL", status);
  };

  // Element types by typed-array constructor (gemmkit's dtype names);
  // complex types are interleaved (re, im) Float32Array / Float64Array
  // chosen with { dtype: "complex64" | "complex128" }.
  const DTYPE_OF = new Map([
    [Float32Array, "float32"], [Float64Array, "float64"],
    [Int8Array, "int8"], [Uint8Array, "uint8"], [Int16Array, "int16"],
    [Uint16Array, "uint16"], [Int32Array, "int32"], [Uint32Array, "uint32"],
    [BigInt64Array, "int64"], [BigUint64Array, "uint64"],
  ]);
  const COMPLEX_OF = { complex64: Float32Array, complex128: Float64Array };
  const scalarPair = (name, v, isComplex) => {
    if (typeof v === "number") return [v, 0];
    if (isComplex && Array.isArray(v) && v.length === 2 &&
        v.every((x) => typeof x === "number")) return v;
    throw refuse(`gemmkit: ${name} must be a number` +
      (isComplex ? " or an [re, im] pair" : ""), "VALUE");
  };

  function gemm(a, b, m, k, n,
    { alpha = 1, beta = 0, c = null, dtype = null, conjA = false, conjB = false } = {}) {
    const Ctor = a?.constructor;
    const isComplex = dtype === "complex64" || dtype === "complex128";
    if (dtype !== null && !isComplex && dtype !== DTYPE_OF.get(Ctor)) {
      throw refuse(`gemmkit: dtype ${dtype} does not match a (a ${Ctor?.name})`, "DTYPE");
    }
    if (isComplex ? Ctor !== COMPLEX_OF[dtype] : !DTYPE_OF.has(Ctor)) {
      throw refuse(
        isComplex
          ? `gemmkit: a ${dtype} operand is an interleaved ${COMPLEX_OF[dtype].name}`
          : "gemmkit: a must be a Float32Array, Float64Array or an integer typed array " +
            "(Int8Array ... BigUint64Array)",
        "DTYPE",
      );
    }
    for (const [name, x] of [["b", b], ["c", c]]) {
      if (x !== null && x !== undefined && x.constructor !== Ctor) {
        throw refuse(
          `gemmkit: ${name} is a ${x?.constructor?.name}, a is a ${Ctor.name}: ` +
          "all operands must have the same element type",
          "DTYPE",
        );
      }
    }
    checkDim("m", m, refuse);
    checkDim("k", k, refuse);
    checkDim("n", n, refuse);
    const parts = isComplex ? 2 : 1;  // array elements per matrix element
    for (const [name, x, rows, cols] of
      [["a", a, m, k], ["b", b, k, n], ["c", c, m, n]]) {
      if (x !== null && x !== undefined && x.length !== rows * cols * parts) {
        throw refuse(
          `gemmkit: ${name} has ${x.length} elements, expected ` +
          `${rows} x ${cols}${isComplex ? " x 2 (re, im)" : ""} = ${rows * cols * parts}`,
          "SHAPE",
        );
      }
    }
    const al = scalarPair("alpha", alpha, isComplex);
    const be = scalarPair("beta", beta, isComplex);
    if (typeof conjA !== "boolean" || typeof conjB !== "boolean") {
      throw refuse("gemmkit: conjA and conjB must be booleans", "VALUE");
    }
    const code = codes.dtypes[isComplex ? dtype : DTYPE_OF.get(Ctor)];
    const size = Ctor.BYTES_PER_ELEMENT * parts;
    const hasC = c !== null && c !== undefined;
    const ptrs = [];
    const alloc = (bytes) => {
      // malloc(0) may return NULL legally; ask for 16 bytes at least.
      const p = ex.malloc(Math.max(bytes, 16));
      if (!p) {
        throw refuse(`gemmkit: out of wasm memory allocating ${bytes} bytes`, "ALLOC");
      }
      ptrs.push(p);
      return p;
    };
    try {
      const pa = alloc(m * k * size);
      const pb = alloc(k * n * size);
      const pc = hasC ? alloc(m * n * size) : 0;
      const pout = alloc(m * n * size);
      // gemmkit_operand on wasm32: nine 4-byte fields (gemmkit.h).
      const OPERAND = 36;
      const pops = alloc(4 * OPERAND + 32);
      // Views are made after every malloc: growing memory detaches old ones.
      new Ctor(memory.buffer, pa, m * k * parts).set(a);
      new Ctor(memory.buffer, pb, k * n * parts).set(b);
      if (hasC) new Ctor(memory.buffer, pc, m * n * parts).set(c);
      const words = new Int32Array(memory.buffer, pops, 4 * OPERAND / 4);
      const operand = (i, data, rows, cols, readonly) => words.set(
        [data, code, readonly ? 1 : 0, 1, rows, cols, 0, cols, 1], i * 9);
      operand(0, pa, m, k, true);
      operand(1, pb, k, n, true);
      operand(2, pc, m, n, true);
      operand(3, pout, m, n, false);
      const pscalars = pops + 4 * OPERAND;
      new Float64Array(memory.buffer, pscalars, 4).set([...al, ...be]);
      const status = ex.gemmkit_gemm_batched_ex(pscalars, pops, pops + OPERAND, 0,
        pscalars + 16, hasC ? pops + 2 * OPERAND : 0, pops + 3 * OPERAND, 0,
        (conjA ? 1 : 0) | (conjB ? 2 : 0));
      if (status !== 0) fail(status);
      return new Ctor(memory.buffer, pout, m * n * parts).slice();
    } finally {
      for (const p of ptrs) ex.free(p);
    }
  }

  function dispatchInfo() {
    const ptr = ex.gemmkit_dispatch_info_json();
    if (!ptr) fail(codes.status.isa);
    return JSON.parse(cString(ptr));
  }

  let closed = false;
  /** Ends a threaded build's workers (nothing to do for one thread). */
  async function close() {
    if (closed || !threaded) return;
    closed = true;
    ex.gemmkit_wasm_stop();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  /** Jobs each worker has finished: [worker 1, worker 2, ...]. */
  const jobsServed = () => workers.map((_, i) => ex.gemmkit_wasm_jobs_served(i + 1));

  return Object.freeze({
    isa,
    threads,
    gemm,
    dispatchInfo,
    close,
    jobsServed,
    version: cString(ex.gemmkit_version()),
    abiVersion: abi,
    instantiateMs,
    lastError,
    /** The raw C ABI, malloc/free and memory, for zero-copy callers. */
    exports: ex,
    get memory() {
      return memory;
    },
  });
}
