"""Native test support: subprocess runs with a clean gemmkit environment, the
ISA registry (cpp/src/dispatch/isa_registry.def) as the suites' ISA list, and
what this CPU can run, derived from /proc/cpuinfo independently of gemmkit's
own detection."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
API_DIR = HERE.parent / "api"

MACHINE = platform.machine().lower()
IS_X86 = MACHINE in ("x86_64", "amd64", "i386", "i686")
IS_ARM64 = MACHINE in ("aarch64", "arm64")

REGISTRY = REPO_ROOT / "cpp" / "src" / "dispatch" / "isa_registry.def"


def _read_registry():
    """The registry's rows in order, as dicts of its nine fields (lists split
    on spaces).  Read as text, as CMake (cpp/cmake/gemmkit_isa.cmake) reads it."""
    text = re.sub(r"//[^\n]*", "", REGISTRY.read_text())
    keys = ("name", "upper", "token", "arch", "flags", "features", "aliases", "families", "base")
    rows = []
    for body in re.findall(r"GEMMKIT_ISA_ROW\(([^)]*)\)", text):
        fields = [f.strip().strip('"') for f in body.split(",")]
        assert len(fields) == len(keys), f"{REGISTRY}: bad row {body!r}"
        row = dict(zip(keys, fields))
        for key in ("flags", "features", "aliases", "families"):
            row[key] = tuple(row[key].split())
        rows.append(row)
    assert rows, f"no rows in {REGISTRY}"
    return rows


ISA_ROWS = _read_registry()
ISA_ROW = {row["name"]: row for row in ISA_ROWS}
ALL_ISAS = tuple(row["name"] for row in ISA_ROWS)
# The architecture this machine runs, in the registry's words.
MACHINE_ARCH = "x86_64" if IS_X86 else "aarch64" if IS_ARM64 else MACHINE
X86_ISAS = tuple(row["name"] for row in ISA_ROWS if row["arch"] == "x86_64")


def _cpuinfo_flag(feature):
    """The /proc/cpuinfo flag of an x86 registry feature, or None when
    /proc/cpuinfo has none: the kernel clears the AVX/AVX-512 flags when the
    OS does not enable their register state, so the os_* conditions are in
    the flags already (and AMX's tile permission is asked per process).
    Linux spells the dot-product features with an underscore."""
    if feature.startswith("os_"):
        return None
    return {"avx512vnni": "avx512_vnni", "avx512bf16": "avx512_bf16"}.get(feature, feature)


# /proc/cpuinfo flags each x86 ISA needs.
X86_REQUIRES = {
    isa: tuple(f for f in map(_cpuinfo_flag, ISA_ROW[isa]["features"]) if f)
    for isa in X86_ISAS
}


def cpu_flags() -> set[str] | None:
    """Feature flags of the first CPU in /proc/cpuinfo, or None if unreadable."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return set(value.split())
    return None


def missing_for(isa: str) -> list[str] | None:
    """What this machine lacks to run ``isa`` ([] = it can run it), or None
    if that cannot be told (no /proc/cpuinfo)."""
    if isa not in ISA_ROW:
        raise ValueError(isa)
    arch = ISA_ROW[isa]["arch"]
    if arch == "any":
        return []
    if arch != MACHINE_ARCH:
        return [f"{arch} architecture"]
    if arch != "x86_64":
        return []  # neon is mandatory on aarch64
    flags = cpu_flags()
    if flags is None:
        return None
    return [f for f in X86_REQUIRES[isa] if f not in flags]


def clean_env(**updates: str | None) -> dict[str, str]:
    """os.environ without any GEMMKIT_* setting nor OMP_NUM_THREADS (which sets
    gemmkit's default thread count when GEMMKIT_NUM_THREADS is unset), with no
    tuning profile (GEMMKIT_PROFILE empty: a profile the tuner wrote on this
    machine would otherwise change the knobs' values and origins), plus
    ``updates`` (None drops)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GEMMKIT_") and k != "OMP_NUM_THREADS"}
    env["GEMMKIT_PROFILE"] = ""
    for key, value in updates.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run_python(args: list[str], env: dict[str, str],
               timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=str(REPO_ROOT), capture_output=True,
        text=True, timeout=timeout,
    )


def run_json(args: list[str], env: dict[str, str], timeout: float = 300):
    """Run a Python child that prints one JSON document last; return it.
    A non-zero exit (an abort, a traceback) fails with the child's stderr."""
    proc = run_python(args, env, timeout)
    assert proc.returncode == 0, (
        f"child exited with {proc.returncode}\nstdout:\n{proc.stdout[-3000:]}\n"
        f"stderr:\n{proc.stderr[-3000:]}"
    )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert lines, f"child printed nothing; stderr:\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1])


# dispatch_info()'s best-first order: the registry's rows read backwards.
BEST_FIRST = tuple(reversed(ALL_ISAS))
# Registry family words of the dtypes.
# dispatch_info() key -> the registry's family word of its kernel.
FAMILY_WORD = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
               "int8": "int8", "uint8": "u8", "int16": "u16", "int32": "i32", "int64": "i64",
               "bool": "bool", "complex64": "c64", "complex128": "c128"}


def canonical_isa(value: str) -> str:
    """The registry name of a GEMMKIT_REQUIRE_ISA value (case, aliases)."""
    name = value.strip().lower()
    for row in ISA_ROWS:
        if name == row["name"] or name in row["aliases"]:
            return row["name"]
    return name


def pin_values(isa: str) -> tuple[str, ...]:
    """Every value that pins ``isa``: its name, then its aliases."""
    return (isa, *ISA_ROW[isa]["aliases"])


def serving_isa(pin: str, dtype: str) -> str:
    """The ISA whose kernels run ``dtype`` under ``pin`` (a registry name):
    the pin's own where its target defines that family, else its base's (the
    dot and tile ISAs run the other types on plain AVX-512F)."""
    row = ISA_ROW[pin]
    if FAMILY_WORD[dtype] in row["families"] or not row["base"]:
        return pin
    return serving_isa(row["base"], dtype)
