"""Shared pieces of the WebAssembly suite (tests/wasm): repository paths,
wasm/build.py and tools/pyodide_dist.py loaded as modules, and the
skip-or-fail rule for missing prerequisites."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BUILD = REPO / "build" / "wasm"
TIMEOUT = 300


def require(ok: bool, reason: str) -> None:
    """Skip with ``reason`` when a prerequisite is missing; fail under CI."""
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def _load(name: str, path: Path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


wasm_build = _load("gemmkit_wasm_build", REPO / "wasm" / "build.py")
pyodide_dist = _load("gemmkit_pyodide_dist", REPO / "tools" / "pyodide_dist.py")
