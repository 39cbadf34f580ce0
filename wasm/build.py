#!/usr/bin/env python3
"""Builds gemmkit's WebAssembly artifacts from the same cpp/ sources as the
native wheel, with Debian's clang/lld only (no emsdk).

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

Each module carries its best ISA as its default pin
(``GEMMKIT_DEFAULT_REQUIRE_ISA``; the ``GEMMKIT_REQUIRE_ISA`` environment
variable still overrides it).  The scalar build has no ``-msimd128`` and no
auto-vectorization, so the demo's comparison is honest.

The wheel is written by the ``wheel`` package's WheelFile from the metadata
scikit-build-core (the native wheel's build backend) reads from
pyproject.toml, so both wheels carry the same METADATA: run this script with
the .venv's Python (requirements-test.txt pins both).  The standalone and
test modules need only the standard library.

Toolchain: the newest ``clang++-N``/``wasm-ld-N`` with N >= 17 that has the
libc++ wasm32 headers (``libc++-N-dev-wasm32``) and Debian's ``wasi-libc``.
Compiles run two at a time and are incremental (depfiles + a flags stamp),
with ``-Wall -Wextra``, and ``-Werror`` when the environment variable
``GEMMKIT_WERROR`` is ``ON`` (as tools/test-all.sh sets it).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import functools
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MIN_LLVM = 17

# Where the baseline (non-ISA) translation units live: every *.cpp directly in
# these folders.  cpp/src/dispatch/targets/<isa>/ holds the per-ISA units.
BASELINE_DIRS = ("api", "dispatch", "tuning", "cache", "parallel")

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

APT_HINT = ("apt-get install -y clang-19 lld-19 libc++-19-dev-wasm32 "
            "libclang-rt-19-dev-wasm32 wasi-libc")


class BuildError(RuntimeError):
    pass


# --------------------------------------------------------------------------
# toolchain detection
# --------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Toolchain:
    llvm: int
    cxx: str
    wasm_ld: str
    libcxx_include: str
    wasi_include: str
    wasi_lib: str
    builtins: str | None  # compiler-rt for wasm32, if installed

    def describe(self) -> str:
        return (f"clang {self.llvm}: {self.cxx}, {self.wasm_ld}; libc++ "
                f"{self.libcxx_include}; wasi-libc {self.wasi_lib}")


def _dpkg_files(package: str) -> list[str]:
    try:
        out = subprocess.run(["dpkg", "-L", package], capture_output=True,
                             text=True, check=False)
    except OSError:
        return []
    return out.stdout.splitlines() if out.returncode == 0 else []


def _tool(name: str, llvm: int) -> str | None:
    for cand in (shutil.which(f"{name}-{llvm}"),
                 f"/usr/lib/llvm-{llvm}/bin/{name}"):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def _libcxx_include(llvm: int) -> str | None:
    for path in _dpkg_files(f"libc++-{llvm}-dev-wasm32"):
        if path.rstrip("/").endswith("wasm32-wasi/c++/v1"):
            if os.path.isfile(os.path.join(path, "vector")):
                return path
    for cand in (f"/usr/lib/llvm-{llvm}/include/wasm32-wasi/c++/v1",
                 f"/usr/lib/llvm-{llvm}/include/wasm32-wasip1/c++/v1"):
        if os.path.isfile(os.path.join(cand, "vector")):
            return cand
    return None


def _llvm_versions() -> list[int]:
    found = set()
    for pattern in ("/usr/bin/clang++-*", "/usr/lib/llvm-*/bin/clang++"):
        for path in glob.glob(pattern):
            m = re.search(r"(?:clang\+\+-|llvm-)(\d+)", path)
            if m:
                found.add(int(m.group(1)))
    return sorted(found, reverse=True)


def detect_toolchain() -> Toolchain:
    """The newest usable Debian LLVM (>= MIN_LLVM) with every wasm piece."""
    wasi_lib = next((d for d in ("/usr/lib/wasm32-wasi", "/usr/lib/wasm32-wasip1")
                     if os.path.isfile(os.path.join(d, "libc.a"))), None)
    wasi_include = next((d for d in ("/usr/include/wasm32-wasi",
                                     "/usr/include/wasm32-wasip1")
                         if os.path.isfile(os.path.join(d, "stdlib.h"))), None)
    problems = []
    for llvm in _llvm_versions():
        if llvm < MIN_LLVM:
            continue
        cxx, ld = _tool("clang++", llvm), _tool("wasm-ld", llvm)
        inc = _libcxx_include(llvm)
        missing = [what for what, ok in (("clang++", cxx), ("wasm-ld (lld)", ld),
                                         ("libc++ wasm32 headers", inc)) if not ok]
        if missing:
            problems.append(f"llvm-{llvm}: missing {', '.join(missing)}")
            continue
        if not wasi_lib or not wasi_include:
            raise BuildError("wasi-libc not found (/usr/lib/wasm32-wasi/libc.a); "
                             f"install it: {APT_HINT}")
        rt = glob.glob(f"/usr/lib/llvm-{llvm}/lib/clang/*/lib/wasi/"
                       "libclang_rt.builtins-wasm32.a")
        return Toolchain(llvm, cxx, ld, inc, wasi_include, wasi_lib,
                         rt[0] if rt else None)
    detail = "; ".join(problems) or "no clang++-N found"
    raise BuildError(f"no usable clang >= {MIN_LLVM} for wasm32 ({detail}); "
                     f"install one, e.g.: {APT_HINT}")


# --------------------------------------------------------------------------
# sources and flags
# --------------------------------------------------------------------------

# The ISA registry (its header says how a row reads): which ISAs a wasm32
# module may hold and the flags of their target units come from there.
ISA_REGISTRY = Path("cpp") / "src" / "dispatch" / "isa_registry.def"


@dataclasses.dataclass(frozen=True)
class IsaRow:
    name: str
    arch: str                  # x86_64, aarch64, wasm32, or any (the floor)
    flags: tuple[str, ...]     # of the target units (gcc/clang spelling)
    base: str                  # the ISA serving the families it lacks ("" none)


@functools.cache
def isa_rows(root: Path = REPO) -> dict[str, IsaRow]:
    """The registry's rows of the tree at ``root``, by name, in row order."""
    path = root / ISA_REGISTRY
    text = re.sub(r"//[^\n]*", "", path.read_text())
    rows = {}
    for body in re.findall(r"GEMMKIT_ISA_ROW\(([^)]*)\)", text):
        fields = [f.strip().strip('"') for f in body.split(",")]
        if len(fields) != 9:
            raise BuildError(f"{path}: a row needs 9 fields: {body.strip()}")
        name, arch, flags, base = fields[0], fields[3], fields[4], fields[8]
        rows[name] = IsaRow(name, arch, tuple(flags.split()), base)
    if not rows:
        raise BuildError(f"{path}: no GEMMKIT_ISA_ROW(...) rows")
    return rows


def floor_isas(root: Path = REPO) -> tuple[str, ...]:
    """The portable floor (arch any): part of every module."""
    return tuple(r.name for r in isa_rows(root).values() if r.arch == "any")


@dataclasses.dataclass(frozen=True)
class Variant:
    """One linked artifact: which ISA targets it holds and how it links."""
    name: str
    isas: tuple[str, ...]
    side_module: bool          # Pyodide side module (-fPIC, libc imported)
    pin: str | None            # GEMMKIT_DEFAULT_REQUIRE_ISA
    flagless: tuple[str, ...] = ()  # ISAs whose units lose the registry's
                               # flags (only the self-check variants used by
                               # the tests: they must refuse to run)
    threads: bool = False      # atomics, one shared memory, a worker pool
                               # (cpp/src/parallel/wasm_pool.cpp)


def module_isas(top: str, root: Path = REPO) -> tuple[str, ...]:
    """What a module whose best ISA is ``top`` holds: the floor, and for a
    wasm32 row that row with its base chain (relaxed_simd: simd128 too)."""
    rows, out = isa_rows(root), list(floor_isas(root))
    chain = []
    while top and top not in out:
        chain.append(top)
        top = rows[top].base
    return tuple(out + chain[::-1])


# The shipped modules, by their best ISA (the pin each carries by default):
# an engine that cannot compile one gets the next (the loaders probe).
MODULE_ISAS = ("relaxed_simd", "simd128")


# The JavaScript beside the standalone modules: the loader, and the entry of
# the Web Workers of a threaded module.
LOADER_SCRIPTS = ("gemmkit.mjs", "gemmkit-worker.mjs")


def side_module_name(isa: str) -> str:
    return f"_gemmkit_{isa}.wasm"


VARIANTS = {
    **{f"pyodide-{isa}": Variant(f"pyodide-{isa}", module_isas(isa), True, isa)
       for isa in MODULE_ISAS},
    **{f"web-{isa}": Variant(f"web-{isa}", module_isas(isa), False, isa)
       for isa in MODULE_ISAS},
    "web-scalar": Variant("web-scalar", floor_isas(), False, None),
    # The threaded standalone modules: the loader's Web Workers share their
    # memory (loadGemmkit({ threads })).  Pyodide cannot start wasm threads.
    **{f"web-{isa}-threads": Variant(f"web-{isa}-threads", module_isas(isa), False, isa,
                                     threads=True)
       for isa in MODULE_ISAS},
    # Pinned builds whose top target lost its flag: they must refuse to run
    # (tests/wasm prove it); never shipped.
    **{f"selfcheck-{isa}-noflag": Variant(f"selfcheck-{isa}-noflag", module_isas(isa), False,
                                          isa, flagless=(isa,))
       for isa in MODULE_ISAS},
}


def baseline_sources(root: Path) -> list[Path]:
    out = []
    for d in BASELINE_DIRS:
        out += sorted((root / "cpp" / "src" / d).glob("*.cpp"))
    return out


def target_sources(root: Path, isa: str) -> list[Path]:
    return sorted((root / "cpp" / "src" / "dispatch" / "targets" / isa).glob("*.cpp"))


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


def common_flags(tc: Toolchain, root: Path, variant: Variant) -> list[str]:
    floor = floor_isas(root)
    built = floor + tuple(isa for isa in variant.isas if isa not in floor)
    flags = [
        "--target=wasm32-wasi", "-std=c++20", "-O3",
        "-fno-exceptions", "-fno-rtti", "-fno-threadsafe-statics",
        "-fvisibility=hidden", "-fvisibility-inlines-hidden",
        "-ffp-contract=off",
        # Only the wasm32 headers: never the host's /usr/include.
        "-nostdlibinc", "-isystem", tc.libcxx_include, "-isystem", tc.wasi_include,
        "-I", str(root / "cpp" / "include"), "-I", str(root / "cpp" / "src"),
        # Threads need atomic instructions, and thread_local data then
        # lives in passive segments (bulk memory); without them the pool is
        # compiled out.
        *(["-matomics", "-mbulk-memory"] if variant.threads else ["-DGEMMKIT_NO_THREADS=1"]),
        *[f"-DGEMMKIT_HAVE_{isa.upper()}=1" for isa in built],
        "-Wall", "-Wextra", *(["-Werror"] if werror() else []),
    ]
    if variant.pin:
        flags.append(f"-DGEMMKIT_DEFAULT_REQUIRE_ISA={variant.pin}")
    # Every unit is position independent: the Pyodide side module needs it,
    # and the standalone modules then link the very same objects (wasm-ld
    # resolves the GOT statically), so the web and Pyodide simd128 builds
    # run identical code and their timings compare.
    flags.append("-fPIC")
    return flags


def isa_flags(isa: str, variant: Variant, root: Path = REPO) -> list[str]:
    row = isa_rows(root)[isa]
    flags = [f"-DGEMMKIT_ISA={isa}"]
    if isa not in variant.flagless:
        flags += row.flags
    if row.arch == "any":
        # The scalar floor stays scalar even where the module allows SIMD.
        flags += ["-fno-vectorize", "-fno-slp-vectorize"]
    return flags


# --------------------------------------------------------------------------
# incremental compilation
# --------------------------------------------------------------------------

def _deps_from_depfile(path: Path) -> list[str]:
    text = path.read_text().replace("\\\n", " ")
    _, _, rest = text.partition(":")
    return [p.replace("\\ ", " ") for p in re.split(r"(?<!\\)\s+", rest) if p]


def _up_to_date(obj: Path, dep: Path, stamp: Path, cmd: list[str]) -> bool:
    if not (obj.exists() and dep.exists() and stamp.exists()):
        return False
    if stamp.read_text() != "\0".join(cmd):
        return False
    t = obj.stat().st_mtime
    try:
        return all(os.stat(p).st_mtime <= t for p in _deps_from_depfile(dep))
    except OSError:
        return False


def compile_one(cmd_base: list[str], src: Path, obj: Path) -> tuple[Path, bool]:
    dep, stamp = obj.with_suffix(".d"), obj.with_suffix(".flags")
    cmd = cmd_base + ["-c", str(src), "-o", str(obj)]
    if _up_to_date(obj, dep, stamp, cmd):
        return obj, False
    obj.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd + ["-MMD", "-MF", str(dep)], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise BuildError(f"compile failed: {src}\n$ {' '.join(cmd)}\n"
                         f"{proc.stdout}{proc.stderr}")
    if proc.stderr.strip():
        sys.stderr.write(proc.stderr)
    stamp.write_text("\0".join(cmd))
    return obj, True


def _object_path(build: Path, root: Path, cmd: list[str], src: Path) -> Path:
    # Objects are keyed by their exact flags, so variants that compile a
    # unit identically (the baseline units of web-simd128 and selfcheck,
    # say) share one object.
    key = hashlib.sha1("\0".join(cmd).encode()).hexdigest()[:10]
    name = str(src.relative_to(root / "cpp" / "src")).replace(os.sep, "__")
    return build / "obj" / key / (name + ".o")


def compile_variant(tc: Toolchain, root: Path, variant: Variant, build: Path,
                    jobs: int) -> list[Path]:
    base = [tc.cxx] + common_flags(tc, root, variant)
    jobs_list = []
    for src in baseline_sources(root):
        jobs_list.append((base, src))
    for isa in variant.isas:
        srcs = target_sources(root, isa)
        if not srcs:
            raise BuildError(f"no sources in cpp/src/dispatch/targets/{isa}/")
        for src in srcs:
            jobs_list.append((base + isa_flags(isa, variant, root), src))
    if not baseline_sources(root):
        raise BuildError("no baseline sources under cpp/src/{%s}" % ",".join(BASELINE_DIRS))
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = [pool.submit(compile_one, cmd, src, _object_path(build, root, cmd, src))
                for cmd, src in jobs_list]
        for fut in futs:
            results.append(fut.result())
    rebuilt = sum(1 for _, r in results if r)
    print(f"  [{variant.name}] {len(results)} objects ({rebuilt} compiled)")
    return [o for o, _ in results]


# --------------------------------------------------------------------------
# linking
# --------------------------------------------------------------------------

def c_abi_functions(root: Path) -> list[str]:
    header = (root / "cpp" / "include" / "gemmkit" / "gemmkit.h").read_text()
    names = re.findall(r"GEMMKIT_API\b[^;(]*?\b(gemmkit_\w+)\s*\(", header)
    if not names:
        raise BuildError("no GEMMKIT_API functions found in gemmkit.h")
    return sorted(set(names))


# What a threaded module exports beside the C ABI, for its loader: the pool
# (wasm_pool.cpp) and what each worker instance needs to give itself its own
# stack and thread-local block.
THREAD_EXPORTS = ("gemmkit_wasm_worker", "gemmkit_wasm_set_helpers", "gemmkit_wasm_stop",
                  "gemmkit_wasm_jobs_served",
                  "__stack_pointer", "__wasm_init_tls", "__tls_size", "__tls_align")
# A threaded module's memory is imported (every worker instance gets the same
# one) and needs a maximum: 4 GiB, the limit of the single-threaded builds.
THREAD_MAX_MEMORY = 1 << 32


def link(tc: Toolchain, root: Path, variant: Variant, objs: list[Path],
         out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    exports = c_abi_functions(root)
    if variant.side_module:
        cmd = [tc.wasm_ld, "-shared", "--experimental-pic", "--no-entry",
               "--unresolved-symbols=import-dynamic", "--strip-debug", "-O2"]
        cmd += [f"--export={name}" for name in exports]
        cmd += [str(o) for o in objs] + ["-o", str(out)]
    else:
        # A WASI "reactor": _initialize runs the static constructors; the
        # loader provides the few WASI imports libc.a pulls in (environ_*,
        # fd_write for stray prints, proc_exit).
        cmd = [tc.wasm_ld, "--entry=_initialize", "--strip-debug", "-O2",
               "-z", "stack-size=1048576", "--gc-sections",
               os.path.join(tc.wasi_lib, "crt1-reactor.o")]
        cmd += [f"--export={name}" for name in exports + ["malloc", "free"]]
        if variant.threads:
            # wasi-libc's objects carry no atomics feature, so wasm-ld would
            # refuse them in a shared memory: --no-check-features, safe since
            # a job's one use of libc's state, the allocator, takes a lock
            # (parallel/wasm_pool.cpp says why that is all).
            cmd += ["--shared-memory", "--import-memory", f"--max-memory={THREAD_MAX_MEMORY}",
                    "--no-check-features"]
            cmd += [f"--export={name}" for name in THREAD_EXPORTS]
        cmd += [str(o) for o in objs]
        cmd += ["-L", tc.wasi_lib, "-lc"]
        if tc.builtins:
            cmd.append(tc.builtins)
        cmd += ["-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"link failed: {out.name}\n$ {' '.join(cmd)}\n"
                         f"{proc.stdout}{proc.stderr}")
    if proc.stderr.strip():
        sys.stderr.write(proc.stderr)


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


def check_side_module(path: Path) -> None:
    imports, _ = wasm_imports_exports(path)
    bad = [f"{m}.{n}" for m, n, _ in imports
           if n not in SIDE_MODULE_ALLOWED_IMPORTS.get(m, ())]
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


def build_test_module(src: Path, out: Path, exports: list[str],
                      root: Path = REPO, tc: Toolchain | None = None,
                      isa: str = "simd128") -> Path:
    """A standalone module from one test source (tests/wasm), with the
    flags of ``isa``'s target units."""
    tc = tc or detect_toolchain()
    v = Variant("test", module_isas(isa, root), False, None)
    obj = out.with_suffix(".o")
    cmd = [tc.cxx] + common_flags(tc, root, v) + isa_flags(isa, v, root)
    compile_one(cmd, src, obj)
    cmd = [tc.wasm_ld, "--entry=_initialize", "--strip-debug", "-O2",
           os.path.join(tc.wasi_lib, "crt1-reactor.o"), str(obj),
           *[f"--export={e}" for e in exports], "-L", tc.wasi_lib, "-lc"]
    if tc.builtins:
        cmd.append(tc.builtins)
    proc = subprocess.run(cmd + ["-o", str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"link failed: {out.name}\n{proc.stdout}{proc.stderr}")
    return out


# --------------------------------------------------------------------------

def build(root: Path, only: set[str], jobs: int, out_dist: Path,
          out_web: Path, build_dir: Path, tc: Toolchain | None = None) -> dict:
    tc = tc or detect_toolchain()
    print(f"gemmkit wasm build: {tc.describe()}")
    t0 = time.perf_counter()
    produced = {}
    if "web" in only:
        for name in (*MODULE_ISAS, "scalar", *(f"{isa}-threads" for isa in MODULE_ISAS)):
            v = VARIANTS[f"web-{name}"]
            objs = compile_variant(tc, root, v, build_dir, jobs)
            out = out_web / f"gemmkit-{name}.wasm"
            link(tc, root, v, objs, out)
            produced[f"web-{name}"] = out
        for script in LOADER_SCRIPTS:
            copy = out_web / script
            shutil.copyfile(REPO / "wasm" / script, copy)
            produced[script] = copy
    if "tests" in only:
        # Test-only modules (never shipped), for tests/wasm.
        for isa in MODULE_ISAS:
            v = VARIANTS[f"selfcheck-{isa}-noflag"]
            objs = compile_variant(tc, root, v, build_dir, jobs)
            out = build_dir / f"gemmkit-{isa}-noflag.wasm"
            link(tc, root, v, objs, out)
            produced[f"selfcheck-{isa}"] = out
        # The L0 conformance module, once per wasm ISA (the relaxed one also
        # checks the RelaxedSimd token).
        for isa in MODULE_ISAS:
            produced[f"conformance-{isa}"] = build_test_module(
                REPO / "tests" / "wasm" / "simd128_conformance.cpp",
                build_dir / "test" / f"{isa}_conformance.wasm",
                ["conformance_run", "conformance_checks", "conformance_first_failure",
                 "conformance_relaxed_rounding"],
                root=root, tc=tc, isa=isa)
    if "wheel" in only:
        sides = []
        for isa in MODULE_ISAS:
            v = VARIANTS[f"pyodide-{isa}"]
            objs = compile_variant(tc, root, v, build_dir, jobs)
            side = build_dir / side_module_name(isa)
            link(tc, root, v, objs, side)
            check_side_module(side)
            produced[f"side-{isa}"] = side
            sides.append(side)
        produced["wheel"] = write_wheel(root, sides, out_dist)
    for key, path in produced.items():
        print(f"  {key:20s} {path.stat().st_size:9d} bytes  {path}")
    print(f"done in {time.perf_counter() - t0:.1f} s")
    return produced


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="wheel,web,tests",
                    help="comma list of: wheel, web, tests (default: all three; "
                         "tests = the -msimd128 self-check module and the "
                         "Simd128 conformance module, under build/wasm)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--source-root", type=Path, default=REPO,
                    help="tree holding cpp/ and python/ (default: this repository)")
    ap.add_argument("--dist-dir", type=Path, default=REPO / "dist")
    ap.add_argument("--web-dir", type=Path, default=REPO / "web-demo")
    ap.add_argument("--build-dir", type=Path, default=REPO / "build" / "wasm")
    ap.add_argument("--print-toolchain", action="store_true")
    args = ap.parse_args(argv)
    try:
        if args.print_toolchain:
            print(detect_toolchain().describe())
            return 0
        only = {s.strip() for s in args.only.split(",") if s.strip()}
        unknown = only - {"wheel", "web", "tests"}
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
