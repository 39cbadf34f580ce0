#!/usr/bin/env python3
"""Builds gemmkit's WebAssembly artifacts: CMake compiles and links them
(the ``wasm`` preset of CMakePresets.json: wasm/CMakeLists.txt with Debian's
clang/lld, cpp/cmake/wasm32-wasi-clang.cmake, no emsdk), this script
packages them.

    python wasm/build.py            # everything below
    python wasm/build.py --only web # just the standalone modules

Outputs (build products, never committed):

* ``dist/gemmkit-<version>-py3-none-pyemscripten_2026_0_wasm32.whl``: the
  pure-Python package ``python/gemmkit`` plus two Pyodide side modules,
  ``gemmkit/_gemmkit_relaxed_simd.wasm`` (relaxed SIMD, simd128 and scalar
  targets) and ``gemmkit/_gemmkit_simd128.wasm`` (simd128 and scalar),
  position independent, libc imported from Pyodide's main module, opened by
  the Pyodide backend with ``ctypes.CDLL`` after it has probed the engine.
  They are deliberately not named ``*.so``: Pyodide compiles every ``*.so``
  of a wheel at install time, which would fail inside ``micropip.install``
  on an engine without SIMD instead of raising gemmkit's clear refusal at
  first use.
* ``web-demo/gemmkit-relaxed_simd.wasm``, ``web-demo/gemmkit-simd128.wasm``,
  ``web-demo/gemmkit-scalar.wasm``: standalone modules (wasi-libc linked in
  statically) for browsers and node, loaded by ``wasm/gemmkit.mjs`` (copied
  next to them).
* ``web-demo/gemmkit-relaxed_simd-threads.wasm``,
  ``web-demo/gemmkit-simd128-threads.wasm``: the same with atomics and an
  imported shared memory, whose worker pool runs on the loader's Web Workers
  (``wasm/gemmkit-worker.mjs``, copied next to them too).
* under the build folder (``build/wasm``): the self-check and conformance
  modules of tests/wasm (``--only tests``).

wasm/CMakeLists.txt says what each module holds and how it is compiled and
linked; it writes ``gemmkit-wasm-modules.json`` into the build folder, which
tells this script what lies where.  The build is incremental (Ninja), runs
``--jobs`` compiles at a time, and adds ``-Werror`` when the environment
variable ``GEMMKIT_WERROR`` is ``ON`` (as tools/test-all.sh sets it).

The wheel is written by the ``wheel`` package's WheelFile from the metadata
scikit-build-core (the native wheel's build backend) reads from
pyproject.toml, so both wheels carry the same METADATA: run this script with
the .venv's Python (requirements-test.txt pins both).  The standalone and
test modules need only CMake, Ninja and the standard library.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PLATFORM_TAG = "pyemscripten_2026_0_wasm32"  # PEP 783, Pyodide 314
WHEEL_SIZE_LIMIT = 1 << 20

# What the Pyodide side module may import.  Pyodide's main module exports
# its libc (Emscripten's musl), so plain C functions resolve; but wasi-libc's
# C++ headers declare errno as a thread_local variable (imports errno and
# _ZTH5errno), which Emscripten's libc does not export: "Dynamic linking
# error: undefined symbol 'errno'".  Every name below was loaded and called
# in Pyodide 314.0.7; anything new must be checked there before it is added.
SIDE_MODULE_ALLOWED_IMPORTS = {
    "env": {
        "memory", "__indirect_function_table", "__stack_pointer",
        "__memory_base", "__table_base",
        "malloc", "free", "calloc", "realloc", "posix_memalign",
        "aligned_alloc", "memcpy", "memset", "memmove", "memcmp", "strlen",
        "strcmp", "strncmp", "strchr", "isspace", "tolower", "strtoull",
        "getenv", "snprintf", "vsnprintf", "fprintf",
    },
    "GOT.mem": {"stderr"},
}
# Taking the address of an allowed libc function is fine too.
SIDE_MODULE_ALLOWED_IMPORTS["GOT.func"] = SIDE_MODULE_ALLOWED_IMPORTS["env"]
# What gemmkit._pyodide_call may import: the stable-ABI functions and data
# that cpp/bindings/python_stable_abi.h declares (Pyodide's main module
# exports the whole C API to extension modules).
CALL_MODULE_KEY = "side-pyodide-call"
CALL_MODULE_ALLOWED_IMPORTS = {
    "env": SIDE_MODULE_ALLOWED_IMPORTS["env"] | {
        "PyObject_GetBuffer", "PyBuffer_Release", "PyFloat_AsDouble", "PyLong_AsVoidPtr",
        "PyLong_FromLong", "PyErr_Occurred", "PyErr_Clear", "PyErr_SetString",
        "PyModuleDef_Init",
    },
    "GOT.mem": {"PyExc_TypeError", "PyFloat_Type", "_Py_NoneStruct"},
}

# The JavaScript beside the standalone modules: the loader, and the entry of
# the Web Workers of a threaded module.
LOADER_SCRIPTS = ("gemmkit.mjs", "gemmkit-worker.mjs")

# The configure preset (CMakePresets.json), its toolchain file, and the file
# wasm/CMakeLists.txt writes into the build folder.
PRESET = "wasm"
TOOLCHAIN_FILE = Path("cpp") / "cmake" / "wasm32-wasi-clang.cmake"
MODULES_FILE = "gemmkit-wasm-modules.json"
# --only's words: each builds the CMake target gemmkit_wasm_<group>.
GROUPS = ("wheel", "web", "tests")

CMAKE_HINT = "apt-get install -y cmake ninja-build (or: bash tools/install-deps.sh)"


class BuildError(RuntimeError):
    pass


# --------------------------------------------------------------------------
# CMake
# --------------------------------------------------------------------------

def _cmake() -> str:
    exe = shutil.which("cmake")
    if exe is None:
        raise BuildError(f"cmake is not installed: {CMAKE_HINT}")
    return exe


def _run(cmd: list[str], what: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).splitlines()[-150:]
        raise BuildError(f"{what} failed\n$ {' '.join(cmd)}\n" + "\n".join(tail))
    return proc.stdout + proc.stderr


def _cmake_error(text: str) -> str:
    """A CMake error's message without its 'CMake Error at' and call stack."""
    lines = [ln.strip() for ln in text.splitlines()
             if ln.strip() and not ln.startswith(("CMake Error", "Call Stack"))
             and not re.match(r"\s+\S+\.cmake:\d+ \(", ln)]
    return " ".join(lines)


@dataclasses.dataclass(frozen=True)
class Toolchain:
    """What cpp/cmake/wasm32-wasi-clang.cmake finds (its cache variables)."""
    llvm: int
    min_llvm: int
    cc: str
    cxx: str
    wasm_ld: str
    libcxx_include: str
    wasi_include: str
    wasi_lib: str
    builtins: str | None  # compiler-rt for wasm32, if installed

    def describe(self) -> str:
        return (f"clang {self.llvm}: {self.cxx}, {self.wasm_ld}; libc++ "
                f"{self.libcxx_include}; wasi-libc {self.wasi_lib}")


def detect_toolchain(root: Path = REPO) -> Toolchain:
    """The toolchain file's choice, asked of it as a CMake script: the newest
    usable Debian LLVM (>= its minimum) with every wasm piece."""
    proc = subprocess.run([_cmake(), "-P", str(root / TOOLCHAIN_FILE)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError(_cmake_error(proc.stderr) or proc.stderr.strip())
    found = dict(line.split("=", 1) for line in proc.stderr.splitlines() if "=" in line)
    return Toolchain(int(found["llvm"]), int(found["min_llvm"]), found["cc"], found["cxx"],
                     found["ld"], found["libcxx_include"], found["wasi_include"],
                     found["wasi_lib"], found["builtins"] or None)


# On (1/ON/TRUE/YES), every compiler warning fails the build: tools/test-all.sh
# sets it for all the builds it drives (the CMake ones take -DGEMMKIT_WERROR),
# so CI fails on a new warning.  Off by default, so a newer clang's new warning
# never stops a user's build.
WERROR_ENV = "GEMMKIT_WERROR"


def werror() -> bool:
    """Whether GEMMKIT_WERROR asks for -Werror (CMake's spellings of a bool)."""
    value = os.environ.get(WERROR_ENV, "").strip().upper()
    if value in ("", "0", "OFF", "FALSE", "NO", "N"):
        return False
    if value in ("1", "ON", "TRUE", "YES", "Y"):
        return True
    raise BuildError(f"{WERROR_ENV}={os.environ[WERROR_ENV]!r}: expected ON or OFF")


def configure_command(root: Path, build_dir: Path, web_dir: Path | None) -> list[str]:
    """The configure step: the preset, into ``build_dir``; the standalone
    modules go to ``web_dir`` (None: where the build folder has them)."""
    cmd = [_cmake(), "-S", str(root), "--preset", PRESET, "-B", str(build_dir),
           f"-DGEMMKIT_WERROR={'ON' if werror() else 'OFF'}"]
    if web_dir is not None:
        cmd.append(f"-DGEMMKIT_WASM_WEB_DIR={web_dir}")
    return cmd


def configure(root: Path, build_dir: Path, web_dir: Path | None = None) -> dict:
    """Configures (or brings up to date) ``build_dir``; returns what
    wasm/CMakeLists.txt wrote into gemmkit-wasm-modules.json."""
    build_dir = build_dir.resolve()
    web_dir = web_dir.resolve() if web_dir is not None else None
    _run(configure_command(root, build_dir, web_dir), "cmake configure")
    return read_modules_file(build_dir)


def read_modules_file(build_dir: Path) -> dict:
    """``{"modules": {key: {path, group, isas, pin, objects}}, "sources":
    {part: [files]}}`` of a configured build folder."""
    path = build_dir / MODULES_FILE
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise BuildError(f"{path}: {exc} (configure the build folder first)") from None


def cmake_build(build_dir: Path, targets: list[str], jobs: int) -> None:
    """Builds ``targets`` of a configured ``build_dir``; the compilers' own
    messages (warnings) go to stderr, ninja's progress lines and a re-run
    configure step's report do not."""
    out = _run([_cmake(), "--build", str(build_dir), "-j", str(max(1, jobs)),
                "--target", *targets], "cmake --build")
    noise = re.compile(r"^(\[\d+/\d+\] |-- |ninja: (no work to do|Entering|Leaving))")
    messages = [ln for ln in out.splitlines() if ln.strip() and not noise.match(ln)]
    if messages:
        sys.stderr.write("\n".join(messages) + "\n")


def build_modules(root: Path, build_dir: Path, keys: list[str], jobs: int = 2,
                  web_dir: Path | None = None) -> dict[str, Path]:
    """Builds the modules named ``keys`` (gemmkit-wasm-modules.json's) alone;
    returns their paths."""
    modules = configure(root, build_dir, web_dir)["modules"]
    unknown = sorted(set(keys) - set(modules))
    if unknown:
        raise BuildError(f"no such wasm module: {', '.join(unknown)}")
    cmake_build(build_dir.resolve(), [modules[k]["target"] for k in keys], jobs)
    return {k: Path(modules[k]["path"]) for k in keys}


# --------------------------------------------------------------------------
# the C ABI (what tests/wasm check the modules export)
# --------------------------------------------------------------------------

def c_abi_functions(root: Path) -> list[str]:
    """Every GEMMKIT_API function of gemmkit.h (wasm/CMakeLists.txt exports
    the same list; tests/wasm check the modules against this reading)."""
    header = (root / "cpp" / "include" / "gemmkit" / "gemmkit.h").read_text()
    names = re.findall(r"GEMMKIT_API\b[^;(]*?\b(gemmkit_\w+)\s*\(", header)
    if not names:
        raise BuildError("no GEMMKIT_API functions found in gemmkit.h")
    return sorted(set(names))


# --------------------------------------------------------------------------
# a tiny wasm reader: imports and exports, to check what we ship
# --------------------------------------------------------------------------

def _leb(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result, pos


def _name(data: bytes, pos: int) -> tuple[str, int]:
    n, pos = _leb(data, pos)
    return data[pos:pos + n].decode(), pos + n


def wasm_imports_exports(path: Path) -> tuple[list[tuple[str, str, int]], list[str]]:
    """(module, name, kind) of every import and the export names."""
    data = path.read_bytes()
    if data[:4] != b"\0asm":
        raise BuildError(f"{path} is not a wasm module")
    pos, imports, exports = 8, [], []
    while pos < len(data):
        sid = data[pos]
        size, pos = _leb(data, pos + 1)
        end = pos + size
        if sid == 2:
            count, p = _leb(data, pos)
            for _ in range(count):
                mod, p = _name(data, p)
                nm, p = _name(data, p)
                kind = data[p]
                p += 1
                if kind == 0:      # func: type index
                    _, p = _leb(data, p)
                elif kind == 1:    # table: reftype + limits
                    p += 1
                    flags, p = _leb(data, p + 0)
                    _, p = _leb(data, p)
                    if flags & 1:
                        _, p = _leb(data, p)
                elif kind == 2:    # memory: limits
                    flags, p = _leb(data, p)
                    _, p = _leb(data, p)
                    if flags & 1:
                        _, p = _leb(data, p)
                elif kind == 3:    # global: valtype + mut
                    p += 2
                else:
                    raise BuildError(f"unknown import kind {kind} in {path}")
                imports.append((mod, nm, kind))
        elif sid == 7:
            count, p = _leb(data, pos)
            for _ in range(count):
                nm, p = _name(data, p)
                p += 1
                _, p = _leb(data, p)
                exports.append(nm)
        pos = end
    return imports, exports


def check_side_module(path: Path, allowed: dict = SIDE_MODULE_ALLOWED_IMPORTS) -> None:
    imports, _ = wasm_imports_exports(path)
    bad = [f"{m}.{n}" for m, n, _ in imports if n not in allowed.get(m, ())]
    if bad:
        raise BuildError(
            f"{path.name} imports symbols Pyodide's main module may not "
            f"provide: {', '.join(sorted(bad))} (errno in particular: parse "
            "without strtoull's errno; see SIDE_MODULE_ALLOWED_IMPORTS)")


# --------------------------------------------------------------------------
# the wheel
# --------------------------------------------------------------------------

def _pyproject(root: Path) -> dict:
    """pyproject.toml of the tree being built, parsed (tomllib: Python 3.11+;
    tomli, the same parser, where it is older)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    path = root / "pyproject.toml"
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BuildError(f"cannot read {path}: {exc}") from exc


def standard_metadata(root: Path):
    """pyproject.toml's [project] read by scikit-build-core itself (the
    pinned build backend of the native wheel and the sdist): its regex
    provider fills in the version from cpp/include/gemmkit/version.h, and
    its ``get_standard_metadata`` validates the table and picks the core
    metadata version, so both wheels carry the same METADATA bytes.  numpy's
    requirement carries ``sys_platform != "emscripten"`` there, since the
    Pyodide backend works on plain buffers and needs no numpy."""
    try:
        from scikit_build_core.build.metadata import get_standard_metadata
        from scikit_build_core.settings.skbuild_read_settings import SettingsReader
    except ImportError as exc:
        raise BuildError(
            f"{exc.name} is needed to write the Pyodide wheel: run this script with "
            ".venv/bin/python, or pip install -r requirements-test.txt") from None
    pyproject = _pyproject(root)
    # The metadata providers read their inputs relative to the working
    # directory, as under pip.
    cwd = os.getcwd()
    os.chdir(root)
    try:
        settings = SettingsReader(pyproject, {}, state="wheel").settings
        return get_standard_metadata(pyproject, settings)
    except Exception as exc:  # its validation errors have no common base
        raise BuildError(f"pyproject.toml: {exc}") from exc
    finally:
        os.chdir(cwd)


def read_version(root: Path) -> str:
    """The package version, as scikit-build-core reads it."""
    return str(standard_metadata(root).version)


def license_files(root: Path) -> list[str]:
    """``project.license-files`` (PEP 639 globs) expanded, as paths relative
    to ``root`` (a pattern matching nothing is scikit-build-core's error)."""
    return sorted(p.as_posix() for p in standard_metadata(root).license_files or [])


def core_metadata(root: Path) -> str:
    """The wheel's METADATA, as scikit-build-core writes it."""
    return bytes(standard_metadata(root).as_rfc822()).decode()


_SKIP_SUFFIXES = (".so", ".pyd", ".dylib", ".dll", ".pyc")


def package_files(root: Path) -> list[tuple[str, Path]]:
    pkg = root / "python" / "gemmkit"
    out = []
    for path in sorted(pkg.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        if path.name.endswith(_SKIP_SUFFIXES):
            continue  # a native extension built in place must not leak in
        out.append(("gemmkit/" + path.relative_to(pkg).as_posix(), path))
    if not any(a == "gemmkit/__init__.py" for a, _ in out):
        raise BuildError("python/gemmkit/__init__.py is missing")
    return out


# 1980-01-01, the earliest time a zip entry can carry: every entry gets it,
# so the same inputs give the same wheel bytes.
_ZIP_EPOCH = 315532800


def write_wheel(root: Path, side_modules: list[Path], out_dir: Path) -> Path:
    """The Pyodide wheel, written by the ``wheel`` package's WheelFile (its
    RECORD, hashes and sizes) from scikit-build-core's metadata."""
    try:
        from wheel.wheelfile import WheelFile
    except ImportError:
        raise BuildError("the wheel package is needed to write the Pyodide wheel: run this "
                         "script with .venv/bin/python, or pip install -r "
                         "requirements-test.txt") from None
    meta = standard_metadata(root)
    version = str(meta.version)
    tag = f"py3-none-{PLATFORM_TAG}"
    name = f"{meta.canonical_name}-{version}-{tag}.whl"
    distinfo = f"{meta.canonical_name}-{version}.dist-info"
    files: list[tuple[str, bytes]] = [(a, p.read_bytes()) for a, p in package_files(root)]
    files += [(f"gemmkit/{side.name}", side.read_bytes()) for side in side_modules]
    files.append((f"{distinfo}/METADATA", bytes(meta.as_rfc822())))
    # PEP 639: each License-File lies under .dist-info/licenses/ at its path.
    files += [(f"{distinfo}/licenses/{path}", (root / path).read_bytes())
              for path in license_files(root)]
    files.append((f"{distinfo}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: gemmkit wasm/build.py\n"
        f"Root-Is-Purelib: false\nTag: {tag}\n").encode()))
    files.append((f"{distinfo}/top_level.txt", b"gemmkit\n"))
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob(f"gemmkit-*-{tag}.whl"):
        old.unlink()
    path = out_dir / name
    # WheelFile dates the RECORD it writes on close by SOURCE_DATE_EPOCH.
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = str(_ZIP_EPOCH)
    try:
        with WheelFile(path, "w") as wf:
            for arcname, data in files:
                info = zipfile.ZipInfo(arcname, date_time=time.gmtime(_ZIP_EPOCH)[:6])
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                wf.writestr(info, data)
    finally:
        if saved is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = saved
    size = path.stat().st_size
    if size >= WHEEL_SIZE_LIMIT:
        raise BuildError(f"{name} is {size} bytes, over the 1 MB budget")
    return path


# --------------------------------------------------------------------------

def build(root: Path, only: set[str], jobs: int, out_dist: Path,
          out_web: Path, build_dir: Path, tc: Toolchain | None = None) -> dict:
    """Builds the groups of ``only`` (GROUPS) and packages them; returns the
    products by name (gemmkit-wasm-modules.json's keys, the loader scripts
    and ``wheel``).  ``tc`` is only reported: the build folder keeps the
    toolchain its first configure step found."""
    tc = tc or detect_toolchain(root)
    print(f"gemmkit wasm build: {tc.describe()}")
    t0 = time.perf_counter()
    modules = configure(root, build_dir, out_web)["modules"]
    cmake_build(build_dir.resolve(), [f"gemmkit_wasm_{g}" for g in GROUPS if g in only], jobs)
    produced = {key: Path(m["path"]) for key, m in modules.items() if m["group"] in only}
    if "web" in only:
        for script in LOADER_SCRIPTS:
            copy = out_web / script
            shutil.copyfile(REPO / "wasm" / script, copy)
            produced[script] = copy
    if "wheel" in only:
        wheel = {key: Path(m["path"]) for key, m in modules.items() if m["group"] == "wheel"}
        for key, side in wheel.items():
            check_side_module(side, CALL_MODULE_ALLOWED_IMPORTS if key == CALL_MODULE_KEY
                              else SIDE_MODULE_ALLOWED_IMPORTS)
        sides = list(wheel.values())
        produced["wheel"] = write_wheel(root, sides, out_dist)
    for key, path in produced.items():
        print(f"  {key:24s} {path.stat().st_size:9d} bytes  {path}")
    print(f"done in {time.perf_counter() - t0:.1f} s")
    return produced


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="wheel,web,tests",
                    help="comma list of: wheel, web, tests (default: all three; "
                         "tests = the self-check and conformance modules, "
                         "under the build folder)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--source-root", type=Path, default=REPO,
                    help="tree holding cpp/ and python/ (default: this repository)")
    ap.add_argument("--dist-dir", type=Path, default=REPO / "dist")
    ap.add_argument("--web-dir", type=Path, default=REPO / "web-demo")
    ap.add_argument("--build-dir", type=Path, default=REPO / "build" / "wasm",
                    help="the CMake build folder (default: build/wasm, the preset's)")
    ap.add_argument("--print-toolchain", action="store_true")
    args = ap.parse_args(argv)
    try:
        if args.print_toolchain:
            print(detect_toolchain(args.source_root.resolve()).describe())
            return 0
        only = {s.strip() for s in args.only.split(",") if s.strip()}
        unknown = only - set(GROUPS)
        if unknown:
            ap.error(f"unknown --only item(s): {', '.join(sorted(unknown))}")
        build(args.source_root.resolve(), only, max(1, args.jobs),
              args.dist_dir, args.web_dir, args.build_dir)
    except BuildError as exc:
        print(f"wasm/build.py: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
