"""The main job, `python -m gemmkit`: it runs, reports what it dispatches, checks its results, and
turns a bad pin into a clear message and exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("numpy", reason="numpy is not installed")


def _run(*args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEMMKIT_")}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "gemmkit", *args],
        capture_output=True, text=True, env=env, timeout=300, cwd="/",
    )


def test_quick_run_reports_dispatch_and_benchmarks():
    import gemmkit

    run = _run("--quick")
    assert run.returncode == 0, run.stdout + run.stderr
    info = gemmkit.dispatch_info()
    for dtype in ("float32", "float64"):
        assert info[dtype]["kernel"] in run.stdout  # the dispatch table
    assert "numpy" in run.stdout and "ok" in run.stdout  # the benchmark and its checks
    assert "mismatch" not in run.stdout.lower()


def test_bad_pin_exits_2_with_the_message():
    # An unknown value refuses on every architecture.
    run = _run("--quick", env_extra={"GEMMKIT_REQUIRE_ISA": "not-an-isa"})
    assert run.returncode == 2, run.stdout + run.stderr
    assert "unknown value 'not-an-isa'" in run.stdout + run.stderr
