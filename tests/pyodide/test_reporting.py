"""The in-Pyodide runs report as pytest does on the host: a failing
assertion inside Pyodide arrives with pytest's rewriting and a traceback,
and is a failure (pytest-pyodide 0.59.2 alone would report it as passed,
see pyodide_plugin.py)."""

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def test_a_failure_inside_pyodide_reports_rewritten(request):
    dist = request.config.option.dist_dir
    env = dict(os.environ, PYTHONPATH=str(HERE))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/pyodide/samples/failing_inside.py",
         "--run-in-pyodide", "--runtime", request.config.option.runtime, "--dist-dir",
         str(dist), "-p", "pyodide_plugin", "-p", "no:cacheprovider", "-q", "--color=no",
         *(["--runner", "playwright"] if request.config.option.runner == "playwright" else [])],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "1 failed" in out, out
    assert "assert 'emscripten' != 'emscripten'" in out, out  # pytest's rewriting
    assert "failing_inside.py:7: AssertionError" in out, out   # the traceback's frame
