"""gemmkit's Pyodide wheel where the engine cannot run what is asked of it:
on a V8 without Wasm SIMD, and pinned to relaxed_simd on a V8 without
relaxed SIMD.  It installs and imports, and every call refuses with the
exact message.  (Everything else inside Pyodide runs through
pytest-pyodide: tests/pyodide and tests/api with --run-in-pyodide, from
tools/test-all.sh.)"""

from __future__ import annotations

import subprocess

from wasmhelpers import HERE, REPO, TIMEOUT, relaxed_simd_flags


def test_refusal_without_simd128(pyodide_without_simd):
    run = pyodide_without_simd("check_refusal.py")
    print(run.stdout)
    assert run.returncode == 0, run
    assert ("REFUSAL-OK gemmkit: the Pyodide build of gemmkit needs WebAssembly SIMD "
            "(simd128), which this engine does not support (WebAssembly.validate of a "
            "simd128 module failed)") in run.stdout


def test_relaxed_pin_refusal_without_relaxed_simd(node, pyodide_dir, wheel):
    # node 20 has relaxed SIMD only behind a flag; a node that ships it on
    # is told to turn it off (the script checks the probe says no).
    off = [] if relaxed_simd_flags(node) else ["--no-experimental-wasm-relaxed-simd"]
    for pin in ("relaxed_simd", "Relaxed"):
        cmd = [node, *off, str(HERE / "pyodide_runner.mjs"), "--dist", str(pyodide_dir),
               "--install", str(wheel), "--env", f"GEMMKIT_REQUIRE_ISA={pin}",
               "--script", str(HERE / "pyodide" / "check_refusal.py")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=REPO,
                              check=False)
        print(proc.stdout)
        assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        assert ("REFUSAL-OK gemmkit: relaxed_simd (GEMMKIT_REQUIRE_ISA=relaxed_simd) needs "
                "WebAssembly relaxed SIMD, which this engine does not support") in proc.stdout
