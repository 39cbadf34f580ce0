#!/usr/bin/env python3
"""Tooling: builds gemmkit's static JupyterLite site (in-browser notebooks),
fully offline, into a folder that any static web host can serve.

    python tools/build_lite.py                  # -> lite/_output/
    python tools/build_lite.py --out DIR        # elsewhere
    python tools/build_lite.py --serve 8000     # build, then serve on 127.0.0.1:8000

What the site holds (``lite/`` is the JupyterLite "lite dir"):

* ``static/pyodide/``: Pyodide 314 from npm (``node_modules/pyodide``, pinned
  in package.json) plus the pure-Python wheels its kernel installs at start
  (micropip, ipython and its closure, comm: ``lite/pyodide-wheels.txt`` on
  top of ``tools/pyodide-wheels.txt``), with a ``pyodide-lock.json`` listing
  only those wheels.  Made by ``tools/pyodide_dist.make_dist``, the same code
  that makes the Pyodide test harness's dist dir.  Without the extra wheels
  the kernel never becomes ready offline (it would fetch them from a CDN).
* ``pypi/``: gemmkit's Pyodide wheel, indexed by piplite (``pypi/all.json``)
  so that ``%pip install gemmkit`` works with no network
  (``disablePyPIFallback`` in ``lite/jupyter-lite.json``).
* ``files/gemmkit-tour.ipynb``: the tour notebook (from ``lite/files/``).
* ``demo/``: the web demo (``web-demo/``: page, worker, loader and the
  simd128 and scalar modules).

Inputs that this script (re)creates and that are never committed:
``lite/static/pyodide/`` and ``lite/pypi/``; JupyterLite's own build state
goes to ``build/lite-work/``.
Needs ``npm ci`` (Pyodide), ``pip install -r requirements-lite.txt``
(jupyterlite-core, the Pyodide kernel addon, jupyter_server) and, unless
``--wheel`` is given, the wasm toolchain for ``wasm/build.py``, which this
script runs incrementally (only the wheel and the web modules).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LITE = REPO / "lite"
DEFAULT_OUT = LITE / "_output"
LITE_REQUIREMENTS = LITE / "pyodide-wheels.txt"
WEB_DEMO = REPO / "web-demo"
# Files of web-demo/ that the hosted demo needs; serve.py (a local server)
# and anything else there stay behind.
DEMO_FILES = ("index.html", "main.js", "bench-worker.js", "seeded-random.mjs", "gemmkit.mjs",
              "gemmkit-simd128.wasm", "gemmkit-scalar.wasm")
PYODIDE_KERNEL = "@jupyterlite/pyodide-kernel-extension:kernel"

__all__ = ["build_site", "check_site", "LiteError"]


class LiteError(RuntimeError):
    pass


def _load(name: str, path: Path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# The same module names tests/wasm/wasmhelpers.py uses, so a test session
# that already loaded them shares one copy.
def _pyodide_dist():
    return _load("gemmkit_pyodide_dist", REPO / "tools" / "pyodide_dist.py")


def _wasm_build():
    return _load("gemmkit_wasm_build", REPO / "wasm" / "build.py")


def _log(msg: str) -> None:
    print(f"build_lite: {msg}", flush=True)


def build_wasm() -> tuple[Path, Path]:
    """Runs wasm/build.py for the wheel and the web modules (incremental);
    returns (wheel, web-demo dir)."""
    wb = _wasm_build()
    try:
        out = wb.build(REPO, {"wheel", "web"}, 2, REPO / "dist", WEB_DEMO,
                       REPO / "build" / "wasm")
    except wb.BuildError as exc:
        raise LiteError(f"wasm build failed: {exc}") from None
    return Path(out["wheel"]), WEB_DEMO


def build_site(out: Path = DEFAULT_OUT, wheel: Path | None = None,
               web_dir: Path | None = None) -> Path:
    """Builds the site into ``out`` and returns ``out``.

    ``wheel``/``web_dir``: gemmkit's Pyodide wheel and the folder with the
    web demo's files; when ``wheel`` is None both come from running the wasm
    build first."""
    t0 = time.perf_counter()
    out = Path(out).resolve()
    if wheel is None:
        wheel, web_dir = build_wasm()
    wheel = Path(wheel).resolve()
    web_dir = Path(web_dir or WEB_DEMO).resolve()
    if not wheel.is_file():
        raise LiteError(f"gemmkit's Pyodide wheel not found: {wheel} "
                        "(run `python wasm/build.py`)")
    missing = [f for f in DEMO_FILES if not (web_dir / f).is_file()]
    if missing:
        raise LiteError(f"web demo incomplete in {web_dir}: missing {', '.join(missing)} "
                        "(run `python wasm/build.py`)")
    try:
        import jupyterlite_core  # noqa: F401
        import jupyterlite_pyodide_kernel  # noqa: F401
    except ImportError as exc:
        raise LiteError(f"{exc.name} is not installed: "
                        "pip install -r requirements-lite.txt") from None

    # 1. Pyodide for the kernel: one dist dir maker for the tests and the site.
    pd = _pyodide_dist()
    try:
        pd.make_dist(LITE / "static" / "pyodide", wheels=[],
                     requirements=[pd.DEFAULT_REQUIREMENTS, LITE_REQUIREMENTS])
    except pd.DistError as exc:
        raise LiteError(f"Pyodide dist dir: {exc}") from None
    _log(f"Pyodide dist dir: {LITE / 'static' / 'pyodide'}")

    # 2. gemmkit for piplite: only this wheel, so an old version cannot win.
    pypi = LITE / "pypi"
    if pypi.exists():
        shutil.rmtree(pypi)
    pypi.mkdir()
    shutil.copy2(wheel, pypi / wheel.name)

    # 3. The JupyterLite build (offline: every input is local), always from
    #    scratch: its doit state (.jupyterlite.doit.db, written to the working
    #    directory) would otherwise skip the steps that patch jupyter-lite.json
    #    once the output folder is gone.  State and cache live under
    #    build/lite-work, not in the lite dir.
    if out.exists():
        shutil.rmtree(out)
    work = REPO / "build" / "lite-work"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    cmd = [sys.executable, "-m", "jupyterlite_core", "build",
           "--lite-dir", str(LITE), "--output-dir", str(out)]
    _log("$ " + " ".join(cmd))
    env = dict(os.environ, JUPYTERLITE_CACHE_DIR=str(work / "cache"))
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise LiteError(f"jupyter lite build failed (exit {proc.returncode}):\n"
                        + proc.stdout[-4000:] + proc.stderr[-4000:])

    # 4. The web demo next to the notebooks.
    demo = out / "demo"
    demo.mkdir()
    for name in DEMO_FILES:
        shutil.copy2(web_dir / name, demo / name)

    check_site(out, wheel.name)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    _log(f"site ready in {time.perf_counter() - t0:.1f} s: {out} ({size / 2**20:.1f} MiB)")
    return out


def check_site(out: Path, wheel_name: str) -> None:
    """Fails unless the built site points the kernel at the local Pyodide
    and offers the gemmkit wheel through piplite, with no PyPI fallback."""
    cfg = json.loads((out / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = cfg.get("litePluginSettings", {}).get(PYODIDE_KERNEL, {})
    problems = []
    if kernel.get("pyodideUrl") != "./static/pyodide/pyodide.mjs":
        problems.append(f"pyodideUrl is {kernel.get('pyodideUrl')!r}")
    if kernel.get("disablePyPIFallback") is not True:
        problems.append("disablePyPIFallback is not true")
    urls = kernel.get("pipliteUrls", [])
    if not any(u.split("?")[0] == "./pypi/all.json" for u in urls):
        problems.append(f"pipliteUrls lacks ./pypi/all.json: {urls}")
    index = out / "pypi" / "all.json"
    if not (out / "pypi" / wheel_name).is_file() or not index.is_file() or \
            "gemmkit" not in json.loads(index.read_text()):
        problems.append(f"pypi/ does not offer {wheel_name}")
    lock = json.loads((out / "static" / "pyodide" / "pyodide-lock.json").read_text())
    for key, entry in lock["packages"].items():
        if not (out / "static" / "pyodide" / entry["file_name"]).is_file():
            problems.append(f"lock lists {key} but {entry['file_name']} is absent")
    for name in ("micropip", "ipython", "comm"):
        if name not in lock["packages"]:
            problems.append(f"Pyodide lock lacks {name} (the kernel installs it at start)")
    if not (out / "files" / "gemmkit-tour.ipynb").is_file():
        problems.append("files/gemmkit-tour.ipynb is missing")
    if problems:
        raise LiteError("built site is incomplete: " + "; ".join(problems))


def serve(directory: Path, port: int) -> None:
    # web-demo/serve.py names the MIME types of .mjs and .wasm that module
    # workers and streaming compilation need.
    srv = _load("gemmkit_web_demo_serve", WEB_DEMO / "serve.py")
    server = srv.make_server("127.0.0.1", port, directory=str(directory))
    host, port = server.server_address[:2]
    print(f"JupyterLite: http://{host}:{port}/lab/index.html?path=gemmkit-tour.ipynb\n"
          f"web demo:    http://{host}:{port}/demo/index.html   (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help="output folder (default lite/_output); replaced on each build")
    ap.add_argument("--wheel", type=Path,
                    help="use this gemmkit Pyodide wheel (and --web-dir) instead of "
                         "running wasm/build.py")
    ap.add_argument("--web-dir", type=Path, default=WEB_DEMO,
                    help="folder with the built web demo (default web-demo/)")
    ap.add_argument("--serve", type=int, metavar="PORT",
                    help="after building, serve the site on 127.0.0.1:PORT")
    args = ap.parse_args(argv)
    try:
        out = build_site(args.out, args.wheel, args.web_dir if args.wheel else None)
    except LiteError as exc:
        print(f"build_lite: error: {exc}", file=sys.stderr)
        return 1
    if args.serve is not None:
        serve(out, args.serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
