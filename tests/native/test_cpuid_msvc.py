"""The MSVC path of cpp/src/dispatch/cpuid.hpp (__cpuid, __cpuidex, _xgetbv of
<intrin.h>) answers every CPUID query as the GCC path (<cpuid.h>) does.

No MSVC here: clang compiles the header for x86_64-pc-windows-msvc (the
intrinsics MSVC code gets, _MSC_VER set), objcopy turns that COFF object into
ELF, and a Linux program calls it through the Microsoft x64 calling convention
(ms_abi) beside the same header compiled by g++, over basic, extended,
hypervisor and absent leaves and XCR0.  What this does not prove: that MSVC
itself compiles the header (clang's <intrin.h> stands in for it).
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys

import pytest

from nativehelpers import REPO_ROOT

pytestmark = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and platform.machine() == "x86_64"),
    reason="CPUID paths compared on x86_64 Linux")

# One query table, one dump: ok flag and the four registers per query.
DUMP_TU = r"""
#include "dispatch/cpuid.hpp"
extern "C" void DUMP(unsigned* out, const unsigned (*q)[2], int n, unsigned long long* xcr0) {
  for (int i = 0; i < n; ++i) {
    gemmkit::cpu::CpuidRegs r{0xdead, 0xdead, 0xdead, 0xdead};
    out[5 * i] = gemmkit::cpu::cpuid(q[i][0], q[i][1], &r);
    out[5 * i + 1] = r.eax; out[5 * i + 2] = r.ebx; out[5 * i + 3] = r.ecx; out[5 * i + 4] = r.edx;
  }
  *xcr0 = gemmkit::cpu::xgetbv0();
}
"""

MAIN = r"""
#include <cstdio>
#include <cstring>
extern "C" void dump_gnu(unsigned*, const unsigned (*)[2], int, unsigned long long*);
extern "C" __attribute__((ms_abi)) void dump_msvc(unsigned*, const unsigned (*)[2], int,
                                                  unsigned long long*);
int main() {
  const unsigned leaves[] = {0, 1, 2, 4, 6, 7, 0xd, 0x14, 0x19, 0x1d, 0x1e, 0x24, 0x7fffffff,
                             0x40000000, 0x80000000, 0x80000001, 0x80000008, 0x8000001d,
                             0x8000ffff, 0xffffffff};
  constexpr int kSubs = 6;
  constexpr int kMax = sizeof leaves / sizeof leaves[0] * kSubs;
  static unsigned q[kMax][2], a[kMax * 5], b[kMax * 5];
  int n = 0;
  for (unsigned leaf : leaves)
    for (unsigned sub = 0; sub < kSubs; ++sub) q[n][0] = leaf, q[n++][1] = sub;
  unsigned long long xa, xb;
  dump_gnu(a, q, n, &xa);
  dump_msvc(b, q, n, &xb);
  int differ = 0, answered = 0;
  for (int i = 0; i < n; ++i) {
    answered += a[5 * i] != 0;
    // Leaf 1 EBX[31:24] is the APIC ID of the core that ran the query.
    if (q[i][0] == 1) a[5 * i + 2] &= 0xffffffu, b[5 * i + 2] &= 0xffffffu;
    if (std::memcmp(a + 5 * i, b + 5 * i, 5 * sizeof(unsigned)) != 0) {
      ++differ;
      std::printf("leaf %#x/%u: gcc path ok=%u %08x %08x %08x %08x, msvc path ok=%u %08x %08x %08x %08x\n",
                  q[i][0], q[i][1], a[5 * i], a[5 * i + 1], a[5 * i + 2], a[5 * i + 3], a[5 * i + 4],
                  b[5 * i], b[5 * i + 1], b[5 * i + 2], b[5 * i + 3], b[5 * i + 4]);
    }
  }
  if (xa != xb) ++differ, std::printf("xcr0: %#llx vs %#llx\n", xa, xb);
  std::printf("queries=%d answered=%d refused=%d differ=%d xcr0=%#llx\n", n, answered,
              n - answered, differ, xa);
  return differ != 0;
}
"""

# Just enough of the Windows C headers for clang's <intrin.h>.
FAKE_WINDOWS_HEADERS = {
    "stdlib.h": "#pragma once\ntypedef unsigned long long size_t;\n"
                'extern "C" void* malloc(size_t);\nextern "C" void free(void*);\n'
                'extern "C" void* _aligned_malloc(size_t, size_t);\n'
                'extern "C" void _aligned_free(void*);\n',
    "malloc.h": '#pragma once\n#include "stdlib.h"\n',
    "setjmp.h": "#pragma once\ntypedef int jmp_buf[64];\n",
}


def _clang():
    for name in ["clang++"] + [f"clang++-{n}" for n in (19, 20, 21, 22, 18, 17)]:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stdout}{proc.stderr}"
    return proc.stdout


def test_msvc_cpuid_path_answers_like_the_gcc_path(tmp_path):
    clang, gxx, objcopy = _clang(), shutil.which("g++"), shutil.which("objcopy")
    if not (clang and gxx and objcopy):
        pytest.skip("needs clang++, g++ and objcopy (tools/install-deps.sh)")
    src = REPO_ROOT / "cpp" / "src"
    (tmp_path / "dump.cpp").write_text(DUMP_TU)
    (tmp_path / "main.cpp").write_text(MAIN)
    inc = tmp_path / "windows-include"
    inc.mkdir()
    for name, text in FAKE_WINDOWS_HEADERS.items():
        (inc / name).write_text(text)
    strict = ["-std=c++20", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{src}"]
    _run([gxx, *strict, "-DDUMP=dump_gnu", "-c", "dump.cpp", "-o", "gnu.o"], tmp_path)
    _run([clang, "--target=x86_64-pc-windows-msvc", "-fms-extensions", "-fms-compatibility",
          "-fms-compatibility-version=19.30", *strict, "-isystem", str(inc),
          # The MSVC copy's symbols apart from the GCC copy's.
          "-Dgemmkit=gemmkit_msvc", "-DDUMP=dump_msvc", "-c", "dump.cpp", "-o", "msvc.obj"],
         tmp_path)
    disasm = _run(["objdump", "-d", "msvc.obj"], tmp_path)
    assert "cpuid" in disasm and "xgetbv" in disasm, "the MSVC path lost its instructions"
    _run([objcopy, "-O", "elf64-x86-64", "msvc.obj", "msvc.o"], tmp_path)
    _run([gxx, "-O2", "-no-pie", "main.cpp", "gnu.o", "msvc.o",
          "-o", "compare"], tmp_path)
    out = _run([str(tmp_path / "compare")], tmp_path)
    assert "differ=0" in out and "answered=0" not in out, out
