"""Native test support: subprocess runs with a clean gemmkit environment and
what this CPU can run, derived from /proc/cpuinfo independently of gemmkit."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
API_DIR = HERE.parent / "api"

MACHINE = platform.machine().lower()
IS_X86 = MACHINE in ("x86_64", "amd64", "i386", "i686")
IS_ARM64 = MACHINE in ("aarch64", "arm64")

X86_ISAS = ("fma", "avx512f", "avx512vnni", "avx512bf16", "amx")
# /proc/cpuinfo flags each ISA needs (Linux spells the dot-product ones with
# an underscore).  The kernel clears AVX/AVX-512 flags when the OS does not
# enable their register state, so this includes the XGETBV condition.
X86_REQUIRES = {
    "fma": ("avx2", "fma"),
    "avx512f": ("avx512f",),
    "avx512vnni": ("avx512f", "avx512bw", "avx512_vnni"),
    "avx512bf16": ("avx512f", "avx512bw", "avx512_bf16"),
    "amx": ("avx512f", "avx512bw", "amx_tile", "amx_bf16", "amx_int8"),
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
    if isa == "scalar":
        return []
    if isa == "simd128":
        return ["wasm32 architecture"]
    if isa == "neon":
        return [] if IS_ARM64 else ["aarch64 architecture"]
    if isa in X86_REQUIRES:
        if not IS_X86:
            return ["x86-64 architecture"]
        flags = cpu_flags()
        if flags is None:
            return None
        return [f for f in X86_REQUIRES[isa] if f not in flags]
    raise ValueError(isa)


def clean_env(**updates: str | None) -> dict[str, str]:
    """os.environ without any GEMMKIT_* setting, plus ``updates`` (None drops)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEMMKIT_")}
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
