"""Fixtures of the WebAssembly suite: the wasm builds (made here, incrementally,
by wasm/build.py), node, the offline Pyodide dist dir and the runner of
the one in-Pyodide check pytest-pyodide cannot express (no SIMD).

A missing prerequisite (clang for wasm32, node, ``npm ci``, Playwright)
skips with the command that provides it; under CI (``CI`` set) it fails
instead, so the suite can never vanish silently there.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest

from wasmhelpers import BUILD, HERE, REPO, TIMEOUT, pyodide_dist, require, wasm_build


@dataclasses.dataclass(frozen=True)
class Artifacts:
    web_dir: Path
    relaxed_simd: Path
    simd128: Path
    scalar: Path
    selfcheck: Path          # simd128-pinned, its simd128 units without -msimd128
    selfcheck_relaxed: Path  # relaxed_simd-pinned, its relaxed units without -mrelaxed-simd
    conformance: Path          # the L0 conformance module, simd128 flags
    conformance_relaxed: Path  # the same, relaxed_simd flags

    @property
    def standalone(self) -> tuple[Path, ...]:
        """Every shipped standalone module."""
        return (self.relaxed_simd, self.simd128, self.scalar)

    @property
    def wheel(self) -> Path:
        """The Pyodide wheel, built on first use (a failure there must not
        take the standalone modules' tests down with it)."""
        return _build_wheel()


_WHEEL: list = []


def _build_wheel() -> Path:
    if not _WHEEL:
        tc = _toolchain()
        try:
            _WHEEL.append(wasm_build.build(REPO, {"wheel"}, 2, REPO / "dist", REPO / "web-demo",
                                           BUILD, tc)["wheel"])
        except wasm_build.BuildError as exc:
            _WHEEL.append(exc)
    if isinstance(_WHEEL[0], Exception):
        pytest.fail(f"Pyodide wheel build failed: {_WHEEL[0]}", pytrace=False)
    return _WHEEL[0]


def _toolchain():
    try:
        return wasm_build.detect_toolchain()
    except wasm_build.BuildError as exc:
        require(False, str(exc))


@pytest.fixture(scope="session")
def artifacts() -> Artifacts:
    """Builds (or brings up to date) the standalone modules and the test
    modules: web-demo/*.wasm + gemmkit.mjs, build/wasm/ test modules."""
    tc = _toolchain()
    try:
        out = wasm_build.build(REPO, {"web", "tests"}, 2, REPO / "dist", REPO / "web-demo",
                               BUILD, tc)
    except wasm_build.BuildError as exc:
        pytest.fail(f"wasm build failed: {exc}", pytrace=False)
    return Artifacts(REPO / "web-demo", out["web-relaxed_simd"], out["web-simd128"],
                     out["web-scalar"], out["selfcheck-simd128"], out["selfcheck-relaxed_simd"],
                     out["conformance-simd128"], out["conformance-relaxed_simd"])


@pytest.fixture(scope="session")
def wheel() -> Path:
    """Builds (or brings up to date) the Pyodide wheel in dist/."""
    return _build_wheel()


@pytest.fixture(scope="session")
def node() -> str:
    exe = shutil.which("node")
    require(exe is not None, "node >= 20 is not installed (apt-get install nodejs)")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    require(int(version.lstrip("v").split(".")[0]) >= 20, f"node {version.strip()} < 20")
    return exe


@pytest.fixture(scope="session")
def pyodide_dir(wheel: Path, node: str) -> Path:
    """The offline Pyodide dist dir holding gemmkit's wheel (build/pyodide-dist)."""
    npm_pyodide = REPO / "node_modules" / "pyodide"
    require((npm_pyodide / "pyodide.mjs").exists(),
            "node_modules/pyodide is missing: run `npm ci` in the repository root")
    try:
        return pyodide_dist.make_dist(REPO / "build" / "pyodide-dist", [wheel])
    except pyodide_dist.DistError as exc:
        pytest.fail(f"Pyodide dist dir: {exc}", pytrace=False)


@dataclasses.dataclass
class PyodideRun:
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


@pytest.fixture(scope="session")
def pyodide_without_simd(node: str, pyodide_dir: Path, wheel: Path):
    """pyodide_without_simd(script) runs tests/wasm/pyodide/<script> in a
    fresh Pyodide on a node whose V8 reports Wasm SIMD unsupported
    (--no-enable-sse4-1), with gemmkit's wheel installed through micropip.

    The one case the hand-written runner (pyodide_runner.mjs) keeps:
    pytest-pyodide starts its runtimes itself and has no way to pass a V8
    flag to node, so it cannot prove the refusal without simd128.  Every
    other in-Pyodide test runs through pytest-pyodide (tests/pyodide)."""

    def run(script: str) -> PyodideRun:
        cmd = [node, "--no-enable-sse4-1", str(HERE / "pyodide_runner.mjs"),
               "--dist", str(pyodide_dir), "--install", str(wheel),
               "--script", str(HERE / "pyodide" / script)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=REPO,
                              check=False)
        return PyodideRun(proc.returncode, proc.stdout, proc.stderr)

    return run
