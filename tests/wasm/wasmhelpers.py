"""Shared pieces of the WebAssembly suite (tests/wasm): repository paths,
wasm/build.py and tools/pyodide_dist.py loaded as modules, and the
skip-or-fail rule for missing prerequisites."""

from __future__ import annotations

import importlib.util
import os
import subprocess
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


# The relaxed-SIMD probe of wasm/gemmkit.mjs, asked of a node binary.
_RELAXED_CHECK = ('const m = await import(process.argv[1]); '
                  'process.exit(m.relaxedSimdSupported() ? 0 : 1);')


def relaxed_simd_flags(node: str) -> list[str]:
    """The node options that give ``node`` relaxed SIMD: none where its V8
    ships it on (node 22+), ``--experimental-wasm-relaxed-simd`` on node 20."""
    loader = (REPO / "wasm" / "gemmkit.mjs").as_uri()
    for flags in ([], ["--experimental-wasm-relaxed-simd"]):
        proc = subprocess.run([node, *flags, "--input-type=module", "-e", _RELAXED_CHECK, loader],
                              capture_output=True, timeout=TIMEOUT, check=False)
        if proc.returncode == 0:
            return flags
    pytest.fail(f"{node} runs no relaxed SIMD, not even with --experimental-wasm-relaxed-simd",
                pytrace=False)
