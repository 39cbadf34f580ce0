#!/usr/bin/env python3
"""Tooling: builds gemmkit's static JupyterLite site (in-browser notebooks)
into a folder that any static web host can serve, in one of two variants.

    python tools/build_lite.py                  # offline site -> lite/_output/
    python tools/build_lite.py --online         # the site users host
    python tools/build_lite.py --out DIR        # elsewhere
    python tools/build_lite.py --serve 8000     # build, then serve on 127.0.0.1:8000

The offline site (the default, what the tests run) needs no network at all;
it has no numpy and no matplotlib.  The online site (``--online``) serves
Pyodide's interpreter and gemmkit from the site too, but keeps Pyodide's
upstream ``pyodide-lock.json`` byte for byte and sets the kernel's
``loadPyodideOptions.packageBaseUrl`` to Pyodide's own package index for the
pinned release, so that ``import numpy`` or ``import matplotlib`` in a cell
loads them from there.  That URL is not written here: it is the default that
the pinned ``pyodide.mjs`` itself names (see ``pyodide_package_index``).

What the offline site holds (``lite/`` is the JupyterLite "lite dir"):

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

The online site differs in two places: ``static/pyodide/`` holds the npm
files and the upstream lock only (no wheels), and ``pypi/`` also offers the
kernel's start-up wheels that the upstream lock lacks (``comm`` and
``ipython-pygments-lexers`` of ``lite/pyodide-wheels.txt``), so the site still
works with the PyPI fallback off: it reaches the site and Pyodide's package
index, nothing else.

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
import re
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
NPM_PYODIDE = REPO / "node_modules" / "pyodide"

__all__ = ["build_site", "check_site", "pyodide_package_index", "LiteError"]


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


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pyodide_package_index(pyodide_dir: Path = NPM_PYODIDE) -> str:
    """The URL of Pyodide's own package index for the pinned release.

    Read from the pinned ``pyodide.mjs`` rather than written into the repo:
    ``loadPyodide`` sets ``cdnUrl = packageBaseUrl ?? `<index>/v${version}/full/` ``,
    the place its lock's ``file_name`` entries live.  In a browser Pyodide
    never falls back to it (only node does): packages come from
    ``packageBaseUrl``, by default the folder of the lock, so the online site
    passes this URL as ``packageBaseUrl``.  The version is package.json's,
    checked against the one compiled into ``pyodide.mjs``."""
    pyodide_dir = Path(pyodide_dir)
    try:
        version = json.loads((pyodide_dir / "package.json").read_text())["version"]
        source = (pyodide_dir / "pyodide.mjs").read_text()
    except (OSError, KeyError, ValueError) as exc:
        raise LiteError(f"cannot read the pinned Pyodide in {pyodide_dir} ({exc}): "
                        "run `npm ci`") from None
    templates = set(re.findall(
        r"cdnUrl\s*=\s*[\w$]+\(\s*[\w$.]+\.packageBaseUrl\s*\?\?\s*`([^`]*)`", source))
    if len(templates) != 1:
        raise LiteError(f"{pyodide_dir / 'pyodide.mjs'}: expected one default package "
                        f"index (cdnUrl), found {sorted(templates)}")
    template = templates.pop()
    if f'"{version}"' not in source or len(re.findall(r"\$\{[^}]*\}", template)) != 1:
        raise LiteError(f"{pyodide_dir / 'pyodide.mjs'}: its default package index "
                        f"{template!r} does not name version {version} once")
    url = re.sub(r"\$\{[^}]*\}", version, template)
    if not re.fullmatch(r"https://[^/\s]+/\S*/", url):
        raise LiteError(f"Pyodide's default package index is not an https folder URL: {url!r}")
    return url


def _upstream_pyodide(dest: Path, pyodide_dir: Path = NPM_PYODIDE) -> None:
    """The npm Pyodide files and its lock, unchanged, into ``dest``."""
    pd = _pyodide_dist()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in (*pd.NPM_FILES, "pyodide-lock.json"):
        if (pyodide_dir / name).is_file():
            shutil.copy2(pyodide_dir / name, dest / name)
    for required in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        if not (dest / required).is_file():
            raise LiteError(f"{pyodide_dir} lacks {required}: run `npm ci`")


def _missing_from_upstream_lock(pyodide_dir: Path = NPM_PYODIDE) -> list[Path]:
    """The kernel's start-up wheels (lite/pyodide-wheels.txt) that Pyodide's
    upstream lock does not list: the online site offers them through piplite."""
    pd = _pyodide_dist()
    listed = json.loads((pyodide_dir / "pyodide-lock.json").read_text())["packages"]
    pins = [(n, v) for n, v in pd.read_requirements([LITE_REQUIREMENTS])
            if _canon(n) not in listed]
    try:
        return pd.fetch_wheels(pins, pd.DEFAULT_CACHE)
    except pd.DistError as exc:
        raise LiteError(f"kernel wheels for piplite: {exc}") from None


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
               web_dir: Path | None = None, online: bool = False,
               package_index: str | None = None) -> Path:
    """Builds the site into ``out`` and returns ``out``.

    ``wheel``/``web_dir``: gemmkit's Pyodide wheel and the folder with the
    web demo's files; when ``wheel`` is None both come from running the wasm
    build first.  ``online``: the variant whose Pyodide packages (numpy,
    matplotlib, ...) come from ``package_index``, by default Pyodide's own
    (``pyodide_package_index()``); a mirror of it works too."""
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

    # 1. Pyodide for the kernel.  Offline: one dist dir maker for the tests
    #    and the site.  Online: the npm files with the upstream lock.
    pd = _pyodide_dist()
    extra_wheels: list[Path] = []
    if online:
        index = package_index or pyodide_package_index()
        if not index.endswith("/"):
            index += "/"
        _upstream_pyodide(LITE / "static" / "pyodide")
        extra_wheels = _missing_from_upstream_lock()
        _log(f"Pyodide: {LITE / 'static' / 'pyodide'} with the upstream lock; "
             f"packages from {index}")
    else:
        try:
            pd.make_dist(LITE / "static" / "pyodide", wheels=[],
                         requirements=[pd.DEFAULT_REQUIREMENTS, LITE_REQUIREMENTS])
        except pd.DistError as exc:
            raise LiteError(f"Pyodide dist dir: {exc}") from None
        _log(f"Pyodide dist dir: {LITE / 'static' / 'pyodide'}")

    # 2. gemmkit for piplite: only this wheel, so an old version cannot win
    #    (online, with the start-up wheels the upstream lock lacks).
    pypi = LITE / "pypi"
    if pypi.exists():
        shutil.rmtree(pypi)
    pypi.mkdir()
    for whl in (wheel, *extra_wheels):
        shutil.copy2(whl, pypi / whl.name)

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

    # 4. Online: the kernel hands loadPyodideOptions to loadPyodide as they
    #    are, so packageBaseUrl sends every lock entry to the package index.
    if online:
        config_path = out / "jupyter-lite.json"
        config = json.loads(config_path.read_text())
        kernel = config["jupyter-config-data"].setdefault("litePluginSettings", {}) \
            .setdefault(PYODIDE_KERNEL, {})
        kernel.setdefault("loadPyodideOptions", {})["packageBaseUrl"] = index
        config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")

    # 5. The web demo next to the notebooks, with every module the web build
    #    made (gemmkit-<isa>.wasm; the page loads those its browser can run).
    demo = out / "demo"
    demo.mkdir()
    modules = sorted(p.name for p in web_dir.glob("gemmkit-*.wasm"))
    for name in dict.fromkeys((*DEMO_FILES, *modules)):
        shutil.copy2(web_dir / name, demo / name)

    check_site(out, wheel.name, index if online else None)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    _log(f"site ready in {time.perf_counter() - t0:.1f} s: {out} ({size / 2**20:.1f} MiB)")
    return out


def check_site(out: Path, wheel_name: str, package_index: str | None = None,
               pyodide_dir: Path = NPM_PYODIDE) -> None:
    """Fails unless the built site points the kernel at the local Pyodide
    and offers the gemmkit wheel through piplite, with no PyPI fallback.

    Offline (``package_index`` None): every lock entry is a file of the site.
    Online: the lock is the upstream one byte for byte, no lock entry is on
    the site, and ``packageBaseUrl`` is ``package_index``."""
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
    offered = json.loads(index.read_text()) if index.is_file() else {}
    if not (out / "pypi" / wheel_name).is_file() or "gemmkit" not in offered:
        problems.append(f"pypi/ does not offer {wheel_name}")
    dist = out / "static" / "pyodide"
    lock_text = (dist / "pyodide-lock.json").read_bytes()
    lock = json.loads(lock_text)
    # gemmkit's platform tag names the ABI of the Pyodide the site runs.
    tag = f"pyemscripten_{lock['info']['abi_version']}_wasm32"
    if tag not in wheel_name.removesuffix(".whl").split("-")[-1].split("."):
        problems.append(f"{wheel_name} is not tagged {tag} (the site's Pyodide ABI)")
    base = kernel.get("loadPyodideOptions", {}).get("packageBaseUrl")
    if package_index is None:
        if base is not None:
            problems.append(f"the offline site sets packageBaseUrl {base!r}")
        for key, entry in lock["packages"].items():
            if not (dist / entry["file_name"]).is_file():
                problems.append(f"lock lists {key} but {entry['file_name']} is absent")
        kernel_wheels = ("micropip", "ipython", "comm")
    else:
        if base != package_index:
            problems.append(f"packageBaseUrl is {base!r}, not {package_index!r}")
        if lock_text != (Path(pyodide_dir) / "pyodide-lock.json").read_bytes():
            problems.append("static/pyodide/pyodide-lock.json is not Pyodide's upstream lock")
        local = sorted(p.name for p in dist.glob("*.whl"))
        if local:
            problems.append(f"static/pyodide holds wheels the lock resolves remotely: {local}")
        for name in ("numpy", "matplotlib"):
            if name not in lock["packages"]:
                problems.append(f"the upstream lock lacks {name}")
        kernel_wheels = ("micropip", "ipython")
        if "comm" not in offered:
            problems.append("pypi/ does not offer comm (the kernel installs it at start)")
    for name in kernel_wheels:
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
    ap.add_argument("--online", action="store_true",
                    help="the site users host: numpy, matplotlib and the rest of "
                         "Pyodide's packages load from Pyodide's package index")
    ap.add_argument("--package-index", metavar="URL",
                    help="with --online: a mirror of Pyodide's package folder for this "
                         "release (default: the one the pinned pyodide.mjs names)")
    ap.add_argument("--serve", type=int, metavar="PORT",
                    help="after building, serve the site on 127.0.0.1:PORT")
    args = ap.parse_args(argv)
    if args.package_index and not args.online:
        ap.error("--package-index needs --online")
    try:
        out = build_site(args.out, args.wheel, args.web_dir if args.wheel else None,
                         online=args.online, package_index=args.package_index)
    except LiteError as exc:
        print(f"build_lite: error: {exc}", file=sys.stderr)
        return 1
    if args.serve is not None:
        serve(out, args.serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
