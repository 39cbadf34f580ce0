"""gemmkit's Pyodide wheel on a V8 without Wasm SIMD: it installs and
imports, and every call refuses with the exact message.  (Everything else
inside Pyodide runs through pytest-pyodide: tests/pyodide and tests/api with
--run-in-pyodide, from tools/test-all.sh.)"""

from __future__ import annotations


def test_refusal_without_simd128(pyodide_without_simd):
    run = pyodide_without_simd("check_refusal.py")
    print(run.stdout)
    assert run.returncode == 0, run
    assert ("REFUSAL-OK gemmkit: the Pyodide build of gemmkit needs WebAssembly SIMD "
            "(simd128), which this engine does not support (WebAssembly.validate of a "
            "simd128 module failed)") in run.stdout
