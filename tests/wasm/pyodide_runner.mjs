// Runs a Python script inside Pyodide on node, fully offline.  Kept for what
// pytest-pyodide cannot do: start node with a V8 flag (--no-enable-sse4-1,
// no Wasm SIMD) to prove the refusal (tests/wasm/test_pyodide.py).
//
//   node tests/wasm/pyodide_runner.mjs --dist build/pyodide-dist \
//     --install dist/gemmkit-...whl --load pytest --mount .:/repo \
//     --env GEMMKIT_REQUIRE_ISA=scalar --script some.py
//
// --dist     a dir made by tools/pyodide_dist.py (indexURL and lock)
// --install  a wheel file, installed with micropip.install("file://...")
//            exactly as a user installs one from a URL (tags checked)
// --load     a package of the dist dir's lock, loaded with loadPackage
// --mount    HOST:GUEST, a host folder mounted with NODEFS
// --env      K=V for os.environ (set before anything is imported)
// --cwd      working directory inside Pyodide
// --script   Python source run with runPythonAsync; its last expression, if
//            an int, is the exit code (e.g. `int(pytest.main([...]))`)
//
// Exit code: the script's, 0 when it returns a non-int, 1 on an exception
// (traceback printed), 2 on a usage error.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

function parseArgs(argv) {
  const opts = { install: [], load: [], mount: [], env: {}, dist: null,
    script: null, cwd: null };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`missing value for ${key}`);
    switch (key) {
      case "--dist": opts.dist = path.resolve(value); break;
      case "--install": opts.install.push(path.resolve(value)); break;
      case "--load": opts.load.push(value); break;
      case "--mount": {
        const at = value.lastIndexOf(":");
        opts.mount.push([path.resolve(value.slice(0, at)), value.slice(at + 1)]);
        break;
      }
      case "--env": {
        const eq = value.indexOf("=");
        opts.env[value.slice(0, eq)] = value.slice(eq + 1);
        break;
      }
      case "--cwd": opts.cwd = value; break;
      case "--script": opts.script = path.resolve(value); break;
      default: throw new Error(`unknown option ${key}`);
    }
  }
  if (!opts.dist || !opts.script) throw new Error("--dist and --script are required");
  return opts;
}

let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (err) {
  console.error(`pyodide_runner: ${err.message}`);
  process.exit(2);
}

const { loadPyodide } = await import(
  pathToFileURL(path.join(opts.dist, "pyodide.mjs")).href);
const t0 = performance.now();
const pyodide = await loadPyodide({
  indexURL: opts.dist + path.sep,
  env: { HOME: "/home/pyodide", ...opts.env },
});
// Raw byte streams: line-batched output would break pytest's progress lines.
pyodide.setStdout({ write: (buf) => (process.stdout.write(buf), buf.length) });
pyodide.setStderr({ write: (buf) => (process.stderr.write(buf), buf.length) });
const loaded = ["micropip", ...opts.load];
await pyodide.loadPackage(loaded, { messageCallback: () => {} });
for (const [host, guest] of opts.mount) {
  pyodide.FS.mkdirTree(guest);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: host }, guest);
}
if (opts.cwd) pyodide.FS.chdir(opts.cwd);
const micropip = pyodide.pyimport("micropip");
for (const wheel of opts.install) {
  await micropip.install(pathToFileURL(wheel).href);
}
console.error(`[pyodide_runner] Pyodide ${pyodide.version} ready in ` +
  `${((performance.now() - t0) / 1000).toFixed(1)} s ` +
  `(packages: ${loaded.join(", ")}; wheels: ${opts.install.map((w) => path.basename(w)).join(", ") || "none"})`);

let code = 0;
try {
  const source = await readFile(opts.script, "utf8");
  const result = await pyodide.runPythonAsync(source, { filename: opts.script });
  if (typeof result === "number" && Number.isInteger(result)) code = result;
} catch (err) {
  console.error(String(err.message ?? err));
  code = 1;
}
// Flush Python's buffered stdout before leaving.
pyodide.runPython("import sys; sys.stdout.flush(); sys.stderr.flush()");
process.exit(code);
