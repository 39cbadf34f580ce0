"""The NEON target compiles for aarch64 (cross build of the C++ core).

This x86 machine cannot run NEON code, so this proves what it can: the whole
core, with the scalar and neon targets, builds with an aarch64 compiler, and
the neon objects really contain NEON fused multiply-adds.  (The pin refusal
of ``neon`` on x86 is tested in test_native_isa.py.)
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CXX = shutil.which("aarch64-linux-gnu-g++")
OBJDUMP = shutil.which("aarch64-linux-gnu-objdump")

pytestmark = pytest.mark.skipif(
    CXX is None or OBJDUMP is None,
    reason="aarch64 cross compiler not installed (tools/install-deps.sh installs g++-aarch64-linux-gnu)",
)


def test_core_cross_compiles_for_aarch64_with_neon(tmp_path):
    build = ROOT / "build" / "cross-aarch64"
    subprocess.run(
        [
            "cmake", "-S", str(ROOT), "-B", str(build),
            "-DCMAKE_SYSTEM_NAME=Linux", "-DCMAKE_SYSTEM_PROCESSOR=aarch64",
            f"-DCMAKE_CXX_COMPILER={CXX}",
            f"-DCMAKE_C_COMPILER={CXX.replace('g++', 'gcc')}",
            "-DGEMMKIT_BUILD_PYTHON=OFF", "-DCMAKE_BUILD_TYPE=Release",
        ],
        check=True, capture_output=True, text=True,
    )
    subprocess.run(
        ["cmake", "--build", str(build), "--target", "gemmkit", "-j2"],
        check=True, capture_output=True, text=True,
    )
    objects = {p.parent.name: p for p in build.rglob("float.cpp.o")}
    assert set(objects) >= {"scalar", "neon"}, objects
    assert not any(isa in objects for isa in ("fma", "avx512f")), "x86 targets built for aarch64"
    disasm = subprocess.run(
        [OBJDUMP, "-d", str(objects["neon"])], check=True, capture_output=True, text=True
    ).stdout
    # Vector FMA on .4s (f32) and .2d (f64) lanes: the NEON kernels are real.
    assert "fmla\tv" in disasm and ".4s" in disasm and ".2d" in disasm
