"""The NEON target on aarch64, proven from this x86 machine.

The whole core (scalar and neon targets) is cross-built with an aarch64
compiler; the neon objects must contain real NEON fused multiply-adds; and
where user-mode qemu is installed, the L0 conformance test (every NEON
SimdOps primitive against scalar code) and the C ABI test run on emulated
aarch64, and so does the GEMM oracle test, through the NEON kernels the
dispatcher picks there.  The refusal of a ``neon`` pin on x86 is tested in
test_native_isa.py.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from nativehelpers import ISA_ROWS

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "cross-aarch64"
CXX = shutil.which("aarch64-linux-gnu-g++")
OBJDUMP = shutil.which("aarch64-linux-gnu-objdump")
QEMU = shutil.which("qemu-aarch64-static") or shutil.which("qemu-aarch64")

pytestmark = pytest.mark.skipif(
    CXX is None or OBJDUMP is None,
    reason="aarch64 cross compiler not installed (tools/install-deps.sh installs g++-aarch64-linux-gnu)",
)


@pytest.fixture(scope="module")
def cross_build():
    subprocess.run(
        [
            "cmake", "-S", str(ROOT), "-B", str(BUILD),
            "-DCMAKE_SYSTEM_NAME=Linux", "-DCMAKE_SYSTEM_PROCESSOR=aarch64",
            f"-DCMAKE_CXX_COMPILER={CXX}",
            f"-DCMAKE_C_COMPILER={CXX.replace('g++', 'gcc')}",
            # Static executables run under user-mode qemu without a sysroot.
            "-DCMAKE_EXE_LINKER_FLAGS=-static",
            "-DGEMMKIT_BUILD_PYTHON=OFF", "-DGEMMKIT_BUILD_TESTS=ON",
            "-DCMAKE_BUILD_TYPE=Release",
        ],
        check=True, capture_output=True, text=True,
    )
    subprocess.run(
        ["cmake", "--build", str(BUILD), "-j2"], check=True, capture_output=True, text=True
    )
    return BUILD


def _disasm(path):
    return subprocess.run([OBJDUMP, "-d", str(path)], check=True, capture_output=True,
                          text=True).stdout


def test_neon_objects_hold_neon_kernels(cross_build):
    # targets/<isa>/<type>.cpp.o, one object per ISA and element type.
    objects = {(p.parent.name, p.name.split(".")[0]): p
               for p in cross_build.rglob("*.cpp.o") if p.parent.parent.name == "targets"}
    isas = {isa for isa, _ in objects}
    # The registry's rows for aarch64 (and the floor), and no other arch's.
    aarch64 = {row["name"] for row in ISA_ROWS if row["arch"] in ("any", "aarch64")}
    assert isas >= aarch64, sorted(objects)
    assert isas <= aarch64, "targets of another architecture built for aarch64"
    # Vector FMA on .4s (f32, and f16/bf16 widened to f32) and .2d (f64)
    # lanes, vector integer multiply-add for int8: the NEON kernels are real.
    for kind, lanes in (("f32", ".4s"), ("f16", ".4s"), ("bf16", ".4s"), ("f64", ".2d")):
        disasm = _disasm(objects[("neon", kind)])
        assert "fmla\tv" in disasm and lanes in disasm, kind
    assert "mla\tv" in _disasm(objects[("neon", "int8")])


@pytest.mark.skipif(QEMU is None, reason="qemu-user-static not installed (tools/install-deps.sh installs it)")
@pytest.mark.parametrize(
    "program", ["gemmkit_conformance", "gemmkit_c_abi_test", "gemmkit_gemm_oracle_test"]
)
def test_runs_on_emulated_aarch64(cross_build, program):
    exe = next(cross_build.rglob(program))
    run = subprocess.run([QEMU, str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed" in run.stdout, run.stdout
    if program == "gemmkit_conformance":
        assert "neon" in run.stdout, run.stdout  # the NEON token was exercised
    if program == "gemmkit_gemm_oracle_test":
        # The dispatcher chose the NEON kernels on (emulated) aarch64.
        assert '"kernel":"f32_gemm_16x4__neon"' in run.stdout, run.stdout
        assert '"kernel":"f64_gemm_8x4__neon"' in run.stdout, run.stdout
        for word in ("f16", "bf16", "int8"):
            assert f'"kernel":"{word}_gemm_16x4__neon"' in run.stdout, run.stdout
