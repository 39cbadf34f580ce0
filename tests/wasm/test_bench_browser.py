"""Smoke runs of the wasm benchmark's shared measurement core
(benchmarks/wasm/bench_core.mjs) at tiny sizes: in headless Chromium, in a
Worker and on the page's main thread (bench_browser.py), and in node
(bench.mjs).  They assert the report's structure and that every result was
checked against the float64 product, never a timing."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from wasmhelpers import REPO, TIMEOUT, _load, relaxed_simd_flags, require

SIZES = [8, 24]
ROUNDS = 2
XNNPACK = "XNNPACK (tfjs-backend-wasm 4.22, simd)"
THREADED = "simd128 2 threads"  # bench_core.mjs's threaded build (TEAM = 2)
TFJS = REPO / "node_modules" / "@tensorflow" / "tfjs-backend-wasm" / "dist"


@pytest.fixture(scope="module")
def bench_browser():
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        require(False, "playwright is not installed (pip install playwright==1.65.2)")
    require(shutil.which("chromium") is not None,
            "Debian chromium is not installed (apt-get install chromium)")
    return _load("gemmkit_bench_browser", REPO / "benchmarks" / "wasm" / "bench_browser.py")


def check_report(report, engine_word, relaxed_expected, pyodide_expected=False):
    assert engine_word in report["engine"], report["engine"]
    assert report["sizes"] == SIZES and report["rounds"] == ROUNDS and report["quick"] is True
    assert report["verified"] is True
    builds = report["builds"]
    assert builds["simd128"]["dispatch"]["float32"]["kernel"] == "f32_gemm_8x4__simd128"
    assert builds["scalar"]["dispatch"]["float32"]["kernel"] == "f32_gemm_4x4__scalar"
    if relaxed_expected:
        assert builds["relaxed_simd"]["dispatch"]["float32"]["isa"] == "relaxed_simd"
    else:
        assert "relaxed_simd" not in builds and report["skipped"]["relaxed_simd"]
    # Both engines may share memory here (the page is cross-origin isolated).
    assert builds[THREADED]["threads"] == 2 and builds["simd128"]["threads"] == 1
    assert builds[THREADED]["dispatch"]["float32"]["kernel"] == "f32_gemm_8x4__simd128"
    impls = [f"gemmkit {isa}" for isa in builds]
    expected = {(name, dtype) for name in impls for dtype in ("float32", "float64")}
    expected.add((XNNPACK, "float32"))
    if pyodide_expected:
        expected.add(("gemmkit Pyodide", "float32"))
        assert sorted(int(n) for n in report["ratios"]["Pyodide / standalone f32"]) == SIZES
    assert {(r["impl"], r["dtype"]) for r in report["rows"]} == expected
    assert len(report["rows"]) == len(expected) * len(SIZES)
    for row in report["rows"]:
        assert row["verified"] is True and 0 <= row["errorOverBound"] <= 1, row
        assert len(row["samples"]) == ROUNDS and row["min"] <= row["median"] <= row["max"], row
        assert isinstance(row["noisy"], bool), row
    for label in ("simd128 / scalar f32", "simd128 / scalar f64", "simd128 / XNNPACK f32",
                  "2 threads / 1 f32 (simd128)", "2 threads / 1 f64 (simd128)"):
        assert sorted(int(n) for n in report["ratios"][label]) == SIZES, label
    assert (("relaxed_simd / simd128 f32" in report["ratios"]) == relaxed_expected)
    assert report["peaks"]["simd128_f32_mul_add"]["best"]["chains"] > 0
    relaxed_peak = report["peaks"]["relaxed_simd_f32_madd"]
    assert (relaxed_peak is not None) == relaxed_expected
    assert relaxed_peak is None or relaxed_peak["best"]["chains"] > 0


@pytest.mark.parametrize("where", ["worker", "page"])
def test_chromium_report(bench_browser, artifacts, pyodide_dir, where):
    require(TFJS.is_dir(), "node_modules lacks @tensorflow/tfjs-backend-wasm (npm ci)")
    lines = []
    report = bench_browser.run_chromium(sizes=SIZES, rounds=ROUNDS, where=where,
                                        web_dir=artifacts.web_dir, quick=True, timeout_s=TIMEOUT,
                                        pyodide_dist=pyodide_dir, echo=lines.append)
    print("\n".join(lines))
    # Chromium 156 has relaxed SIMD, so its build must load, not be skipped;
    # Pyodide 314 loads on the page, never in the classic benchmark worker.
    check_report(report, "Chromium", relaxed_expected=True, pyodide_expected=where == "page")
    if where == "worker":
        assert "  Pyodide skipped: Pyodide loads in no classic worker: run with --where page" \
            in lines
    assert report["where"] == where
    assert (" (worker)" in report["engine"]) == (where == "worker")
    assert report["lines"] == lines
    assert any(line.startswith("results verified: ") for line in lines)


def test_node_report(artifacts, node, tmp_path):
    require(TFJS.is_dir(), "node_modules lacks @tensorflow/tfjs-backend-wasm (npm ci)")
    out = tmp_path / "wasm.json"
    for flags, relaxed in (([], False), (relaxed_simd_flags(node), True)):
        if relaxed and not flags:
            continue  # this node ships relaxed SIMD: the first run had it
        proc = subprocess.run([node, *flags, str(REPO / "benchmarks" / "wasm" / "bench.mjs"),
                               "--sizes", ",".join(map(str, SIZES)), "--rounds", str(ROUNDS),
                               "--quick", "--no-pyodide", "--web-dir", str(artifacts.web_dir),
                               "--out", str(out)],
                              cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT)
        print(proc.stdout)
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
        has_relaxed = bool(flags) or not relaxed_simd_flags(node)
        check_report(json.loads(out.read_text()), "node", relaxed_expected=has_relaxed)
