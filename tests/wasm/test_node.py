"""Runs the node:test suites of tests/wasm/node (the ES-module loader on the
three standalone builds, the refusals on a V8 without SIMD or without relaxed
SIMD, the -msimd128 and -mrelaxed-simd self-checks, the Simd128 L0
conformance module) against fresh builds."""

from __future__ import annotations

import os
import re
import subprocess

from wasmhelpers import HERE, REPO, TIMEOUT, relaxed_simd_flags


def test_node_suites(artifacts, node):
    env = dict(os.environ,
               GEMMKIT_WASM_WEB_DIR=str(artifacts.web_dir),
               GEMMKIT_WASM_SELFCHECK=str(artifacts.selfcheck),
               GEMMKIT_WASM_SELFCHECK_RELAXED=str(artifacts.selfcheck_relaxed),
               GEMMKIT_WASM_CONFORMANCE=str(artifacts.conformance),
               GEMMKIT_WASM_CONFORMANCE_RELAXED=str(artifacts.conformance_relaxed))
    env.pop("GEMMKIT_REQUIRE_ISA", None)  # the suite sets its own pins
    files = sorted(str(p) for p in (HERE / "node").glob("*.test.mjs"))
    proc = subprocess.run([node, *relaxed_simd_flags(node), "--test", "--test-reporter=spec",
                           *files], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)
    print(proc.stdout[-20000:])
    assert proc.returncode == 0, proc.stdout[-8000:] + proc.stderr[-4000:]
    passed = int(re.search(r"ℹ pass (\d+)", proc.stdout).group(1))
    failed = int(re.search(r"ℹ fail (\d+)", proc.stdout).group(1))
    skipped = int(re.search(r"ℹ skipped (\d+)", proc.stdout).group(1))
    assert failed == 0 and skipped == 0 and passed >= 35, (passed, failed, skipped)
