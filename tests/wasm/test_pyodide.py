"""gemmkit's Pyodide wheel in a real Pyodide 314 on node, offline: the shared
API suite (tests/api) through pytest inside Pyodide, default and pinned to
scalar; GEMMKIT_REQUIRE_ISA values; the refusal on a V8 without SIMD."""

from __future__ import annotations

import re

import pytest

NUMPY_SKIP = "numpy is not installed"


@pytest.mark.parametrize("pin", [None, "scalar"])
def test_api_suite_inside_pyodide(run_in_pyodide, pin):
    env = {"GEMMKIT_PYODIDE_PYTEST_ARGS": "tests/api -p no:cacheprovider -v -rs --color=no"}
    if pin:
        env["GEMMKIT_REQUIRE_ISA"] = pin
    run = run_in_pyodide("run_pytest.py", env=env, load=("pytest",), mount_repo=True)
    print(run.stdout[-20000:])
    assert run.returncode == 0, run
    summary = run.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", summary) and "failed" not in summary, summary
    # The numpy-free parts ran unconditionally, under the Pyodide backend.
    passed = re.findall(r"^(tests/api/\S+)::(\S+) PASSED", run.stdout, re.M)
    files = {f for f, _ in passed}
    assert {"tests/api/test_api_buffers.py", "tests/api/test_api_introspection.py"} <= files
    assert sum(f.endswith("test_api_buffers.py") for f, _ in passed) >= 20
    # float16 ('e', CPython >= 3.12), int8, requantized and prepacked buffers
    # through the C ABI, and the new types' dispatch entries, ran here.
    names = {name.split("[")[0] for _, name in passed}
    assert {"test_float16_buffers", "test_int8_buffers", "test_int8_buffers_wrap_and_in_place",
            "test_requant_buffers", "test_prepack_buffers", "test_new_type_buffer_errors",
            "test_dispatch_info_new_types"} <= names, sorted(names)
    # Only the numpy parts skipped, each saying why.
    for line in re.findall(r"^SKIPPED .*$", run.stdout, re.M):
        assert NUMPY_SKIP in line, line


def test_dispatch_info_inside_pyodide(run_in_pyodide):
    run = run_in_pyodide("check_pins.py")
    print(run.stdout)
    assert run.returncode == 0, run
    assert "PINS-OK" in run.stdout
    assert "pin None: f32_gemm_8x4__simd128, f64_gemm_4x4__simd128" in run.stdout
    assert "pin ' Scalar ': f32_gemm_4x4__scalar, f64_gemm_4x4__scalar" in run.stdout


def test_x86_pin_refuses_through_the_public_api(run_in_pyodide):
    run = run_in_pyodide("check_public_pin.py", env={"GEMMKIT_REQUIRE_ISA": "avx512f"})
    print(run.stdout)
    assert run.returncode == 0, run
    assert "PUBLIC-PIN-OK" in run.stdout


def test_refusal_without_simd128(run_in_pyodide):
    run = run_in_pyodide("check_refusal.py", no_simd=True)
    print(run.stdout)
    assert run.returncode == 0, run
    assert ("REFUSAL-OK gemmkit: the Pyodide build of gemmkit needs WebAssembly SIMD "
            "(simd128), which this engine does not support (WebAssembly.validate of a "
            "simd128 module failed)") in run.stdout
