#!/usr/bin/env python3
"""Builds an offline Pyodide "dist dir": the npm ``pyodide`` files plus local
wheels, with a ``pyodide-lock.json`` that lists only wheels actually present.

Shared by the Pyodide test harness (tests/wasm) and the JupyterLite site
build, so both see the same interpreter and the same pinned packages.

    python tools/pyodide_dist.py build/pyodide-dist \\
        --wheel dist/gemmkit-0.1.0-py3-none-pyemscripten_2026_0_wasm32.whl

    from tools.pyodide_dist import make_dist   # or importlib on this file
    make_dist("build/pyodide-dist", wheels=[...], requirements=[...])

Why a rewritten lock: the npm package ships the interpreter but no wheels,
while its lock names several hundred; Pyodide (and pytest-pyodide, which
loads ``pytest`` when the lock lists it) would then fetch what is missing
from a CDN, which fails offline.  Pure-Python wheels come from PyPI through
``pip download --python-version 3.14`` into a cache folder (once); each lock
entry gets the wheel's real sha256 and the dependencies named in its METADATA
(markers evaluated for Pyodide: emscripten, wasm32, CPython 3.14).
"""

from __future__ import annotations

import argparse
import email.parser
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_REQUIREMENTS = REPO / "tools" / "pyodide-wheels.txt"
DEFAULT_CACHE = REPO / "build" / "pyodide-wheels"
DEFAULT_PYODIDE = REPO / "node_modules" / "pyodide"

# Files of the npm package that a dist dir needs (pyodide.js for CommonJS
# users such as pytest-pyodide's node driver, pyodide.mjs for ES modules).
NPM_FILES = ("pyodide.js", "pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm",
             "python_stdlib.zip", "pyodide.d.ts", "ffi.d.ts", "package.json",
             "pyodide.js.map", "pyodide.mjs.map")

__all__ = ["make_dist", "read_requirements", "fetch_wheels", "DEFAULT_REQUIREMENTS"]


class DistError(RuntimeError):
    pass


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_requirements(paths: list[Path]) -> list[tuple[str, str]]:
    """(name, version) pins from requirement files (``name==version`` only)."""
    out = []
    for path in paths:
        for raw in Path(path).read_text().splitlines():
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*==\s*([A-Za-z0-9_.+\-!]+)", line)
            if not m:
                raise DistError(f"{path}: only exact pins name==version are "
                                f"allowed, got {line!r}")
            out.append((m.group(1), m.group(2)))
    return out


def _find_cached(cache: Path, name: str, version: str) -> Path | None:
    stem = re.sub(r"[-.]+", "_", name).lower()
    for path in cache.glob("*.whl"):
        parts = path.name.split("-")
        if len(parts) >= 2 and parts[0].lower().replace(".", "_") == stem \
                and parts[1] == version:
            return path
    return None


def fetch_wheels(pins: list[tuple[str, str]], cache: Path,
                 python_version: str = "3.14") -> list[Path]:
    """Pure-Python wheels for ``pins``, downloaded into ``cache`` if absent."""
    cache.mkdir(parents=True, exist_ok=True)
    missing = [(n, v) for n, v in pins if _find_cached(cache, n, v) is None]
    if missing:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps",
               "--disable-pip-version-check", "--python-version", python_version,
               "--only-binary=:all:", "-d", str(cache)]
        cmd += [f"{n}=={v}" for n, v in missing]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise DistError("pip download failed:\n$ " + " ".join(cmd) + "\n"
                            + proc.stdout + proc.stderr)
    out = []
    for n, v in pins:
        path = _find_cached(cache, n, v)
        if path is None:
            raise DistError(f"{n}=={v}: no wheel in {cache} after download")
        if not path.name.endswith("-none-any.whl"):
            raise DistError(f"{path.name} is not a pure-Python wheel")
        out.append(path)
    return out


def _wheel_metadata(path: Path) -> tuple[email.message.Message, list[str]]:
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        meta_name = next((n for n in names if n.endswith(".dist-info/METADATA")
                          and n.count("/") == 1), None)
        if meta_name is None:
            raise DistError(f"{path.name}: no .dist-info/METADATA")
        meta = email.parser.Parser().parsestr(zf.read(meta_name).decode())
        top = next((n for n in names if n.endswith(".dist-info/top_level.txt")), None)
        if top:
            imports = [s for s in zf.read(top).decode().split() if s]
        else:
            imports = sorted({n.split("/")[0].removesuffix(".py") for n in names
                              if not n.split("/")[0].endswith((".dist-info", ".data"))
                              and (n.endswith(".py") or "/" in n)})
    return meta, imports


_MARKER_ENV = {
    "python_version": "3.14", "python_full_version": "3.14.2",
    "sys_platform": "emscripten", "platform_system": "Emscripten",
    "platform_machine": "wasm32", "os_name": "posix",
    "implementation_name": "cpython", "platform_python_implementation": "CPython",
    "extra": "",
}


def _depends(meta: email.message.Message) -> list[str]:
    from packaging.requirements import Requirement  # host-side dependency

    out = []
    for spec in meta.get_all("Requires-Dist") or []:
        req = Requirement(spec)
        if req.marker is not None and not req.marker.evaluate(_MARKER_ENV):
            continue
        out.append(_canon(req.name))
    return sorted(set(out))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def make_dist(outdir: str | os.PathLike, wheels: list[str | os.PathLike] = (),
              requirements: list[str | os.PathLike] | None = None,
              cache: str | os.PathLike = DEFAULT_CACHE,
              pyodide_dir: str | os.PathLike = DEFAULT_PYODIDE,
              strict_depends: bool = True) -> Path:
    """Writes the dist dir ``outdir`` and returns its path.

    ``wheels``: local wheels to add (e.g. gemmkit's Pyodide wheel).
    ``requirements``: files of ``name==version`` pins (default
    tools/pyodide-wheels.txt).  With ``strict_depends`` a dependency that
    is neither pinned nor given is an error, so the lock never promises a
    wheel the dir does not hold."""
    outdir, pyodide_dir = Path(outdir), Path(pyodide_dir)
    reqs = [Path(p) for p in (requirements if requirements is not None
                              else [DEFAULT_REQUIREMENTS])]
    lock_path = pyodide_dir / "pyodide-lock.json"
    if not lock_path.exists():
        raise DistError(f"{lock_path} not found: run `npm ci` first (package.json "
                        "pins pyodide)")
    lock = json.loads(lock_path.read_text())
    all_wheels = fetch_wheels(read_requirements(reqs), Path(cache)) + \
        [Path(w) for w in wheels]

    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    for name in NPM_FILES:
        src = pyodide_dir / name
        if src.exists():
            shutil.copy2(src, outdir / name)
    for required in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip"):
        if not (outdir / required).exists():
            raise DistError(f"{pyodide_dir} lacks {required}")

    packages = {}
    for whl in all_wheels:
        if not whl.exists():
            raise DistError(f"wheel not found: {whl}")
        shutil.copy2(whl, outdir / whl.name)
        meta, imports = _wheel_metadata(whl)
        name = meta["Name"]
        key = _canon(name)
        packages[key] = {
            "name": name,
            "version": meta["Version"],
            "file_name": whl.name,
            "install_dir": "site",
            "sha256": _sha256(whl),
            "package_type": "package",
            "imports": imports,
            "depends": _depends(meta),
            "unvendored_tests": False,
            "tool": {},
        }
    if strict_depends:
        missing = sorted({f"{k} -> {d}" for k, p in packages.items()
                          for d in p["depends"] if d not in packages})
        if missing:
            raise DistError("dependencies missing from the dist dir: "
                            + ", ".join(missing))
    lock["packages"] = dict(sorted(packages.items()))
    (outdir / "pyodide-lock.json").write_text(json.dumps(lock, indent=1) + "\n")
    return outdir


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build an offline Pyodide dist dir.")
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--wheel", action="append", default=[], type=Path,
                    help="local wheel to add (repeatable)")
    ap.add_argument("--requirements", action="append", type=Path,
                    help="pin file(s) (default tools/pyodide-wheels.txt)")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--pyodide-dir", type=Path, default=DEFAULT_PYODIDE)
    args = ap.parse_args(argv)
    try:
        out = make_dist(args.outdir, args.wheel, args.requirements, args.cache,
                        args.pyodide_dir)
    except DistError as exc:
        print(f"pyodide_dist: error: {exc}", file=sys.stderr)
        return 1
    lock = json.loads((out / "pyodide-lock.json").read_text())
    print(f"{out}: Pyodide {lock['info']['python']} ({lock['info']['platform']}), "
          f"{len(lock['packages'])} wheels: {', '.join(sorted(lock['packages']))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
