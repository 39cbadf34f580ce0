#!/usr/bin/env python3
"""Builds and runs the simd128 unit of the int8 pair dot family test in node.

    python cpp/tests/dot_pair_i8/run_wasm.py [--build-dir build/wasm]

cpp/tests/dot_pair_i8_test.cpp and cpp/tests/dot_pair_i8/simd128.cpp are
compiled with exactly the flags of the simd128 target units and linked as a
WASI command module against wasi-libc: the wasm build's module
dot_pair_i8_test (wasm/CMakeLists.txt), built in its CMake build folder
through wasm/build.py; then run under node's WASI (node >= 20).  Exits with
the test's status (0 passed, 1 failed or not built), or 2 when the
toolchain or node is missing (with the reason).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "wasm"))
import build as wasm_build  # noqa: E402  (wasm/build.py)

# node's WASI runs the command module; its exit code is the test's.
RUNNER = r"""
import { readFileSync } from "node:fs";
import { WASI } from "node:wasi";
const wasi = new WASI({ version: "preview1", args: ["dot_pair_i8_test"], env: {} });
const module = await WebAssembly.compile(readFileSync(process.argv[1]));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
"""


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", type=Path, default=REPO / "build" / "wasm",
                    help="the wasm CMake build folder (wasm/build.py's default)")
    args = ap.parse_args(argv)
    try:
        wasm_build.detect_toolchain()
    except wasm_build.BuildError as exc:
        print(f"run_wasm.py: cannot build: {exc}", file=sys.stderr)
        return 2
    node = shutil.which("node")
    if node is None:
        print("run_wasm.py: node >= 20 is not installed", file=sys.stderr)
        return 2
    try:
        built = wasm_build.build_modules(REPO, args.build_dir, ["dot_pair_i8_test"])
    except wasm_build.BuildError as exc:
        print(f"run_wasm.py: {exc}", file=sys.stderr)
        return 1
    return run([node, "--no-warnings", "--input-type=module", "-e", RUNNER, "--",
                str(built["dot_pair_i8_test"])]).returncode


if __name__ == "__main__":
    sys.exit(main())
