"""Native suite: the warning gate (GEMMKIT_WERROR) and the one warning
suppression of the C++ sources (cpp/src/simd/x86_intrinsics.hpp).

1. CMake's GEMMKIT_WERROR=ON puts -Werror on every C++ object of the library,
   the extension and the C++ tests, and OFF (the default) on none.
2. wasm/build.py takes GEMMKIT_WERROR from the environment and passes it to
   the wasm CMake configuration, where ON puts -Werror on every unit of every
   module and OFF on none.
3. The x86 intrinsic headers are included in one place only: the pragma there
   covers their lines only where they are first included.
4. With the host's C++ compiler at the build's warning flags, an
   uninitialised read in our own code is still reported through that header,
   and, on GCC 12.0-12.2, the AVX-512 header false positive (GCC bug 105593)
   appears through plain <immintrin.h> and not through ours.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from nativehelpers import IS_X86, REPO_ROOT

SRC = REPO_ROOT / "cpp" / "src"
WRAPPER = SRC / "simd" / "x86_intrinsics.hpp"
# The headers that hold (or include) GCC's AVX-512 intrinsics.
INTRINSIC_INCLUDE = re.compile(
    r"^\s*#\s*include\s*<((?:imm|x86|zmm|avx512\w*)intrin\.h)>", re.MULTILINE)
# The flags every gemmkit object gets (cpp/CMakeLists.txt) and the ISA flags
# of the avx512f target units.
WARNING_FLAGS = ["-std=c++20", "-O2", "-Wall", "-Wextra"]
AVX512_FLAGS = ["-mavx512f", "-mavx2", "-mfma", "-mf16c"]


def _cmake_commands(tmp_path, werror):
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not installed")
    build = tmp_path / f"werror-{werror}"
    proc = subprocess.run(
        [cmake, "-S", str(REPO_ROOT), "-B", str(build), "-DGEMMKIT_BUILD_TESTS=ON",
         f"-DGEMMKIT_WERROR={werror}", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
        capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commands = json.loads((build / "compile_commands.json").read_text())
    # The C smoke test of the C ABI (cpp/tests/c_abi_test.c) does not take
    # the C++ settings; every C++ object does.
    return {c["file"]: c["command"].split() for c in commands if c["file"].endswith(".cpp")}


@pytest.mark.skipif(sys.platform == "win32", reason="checks the GCC/Clang spelling, -Werror")
def test_cmake_werror_option_reaches_every_object(tmp_path):
    on = _cmake_commands(tmp_path, "ON")
    units = {os.path.relpath(f, REPO_ROOT) for f in on}
    # The library (baseline and ISA units) and the C++ tests.
    assert any(u.startswith(os.path.join("cpp", "src", "api")) for u in units), units
    assert any(os.sep + "targets" + os.sep in u for u in units), units
    assert any(u.startswith(os.path.join("cpp", "tests")) for u in units), units
    missing = sorted(os.path.relpath(f, REPO_ROOT) for f, cmd in on.items()
                     if not {"-Wall", "-Wextra", "-Werror"} <= set(cmd))
    assert not missing, f"compiled without -Wall -Wextra -Werror: {missing}"
    off = _cmake_commands(tmp_path, "OFF")
    assert set(off) == set(on)
    assert not [f for f, cmd in off.items() if "-Werror" in cmd]


def _wasm_build_module():
    spec = importlib.util.spec_from_file_location(
        "gemmkit_wasm_build_for_warnings", REPO_ROOT / "wasm" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


@pytest.mark.parametrize(("value", "expected"), [
    (None, "OFF"), ("OFF", "OFF"), ("0", "OFF"), ("ON", "ON"), ("1", "ON"), ("true", "ON")])
def test_wasm_build_takes_werror_from_environment(monkeypatch, tmp_path, value, expected):
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed")
    wasm_build = _wasm_build_module()
    if value is None:
        monkeypatch.delenv("GEMMKIT_WERROR", raising=False)
    else:
        monkeypatch.setenv("GEMMKIT_WERROR", value)
    cmd = wasm_build.configure_command(REPO_ROOT, tmp_path, None)
    assert [f for f in cmd if f.startswith("-DGEMMKIT_WERROR=")] == [f"-DGEMMKIT_WERROR={expected}"]


def _wasm_cmake_commands(tmp_path, monkeypatch, werror):
    """{(source, object): compile command} of every unit of the wasm modules,
    configured as wasm/build.py does under GEMMKIT_WERROR=werror."""
    wasm_build = _wasm_build_module()
    try:
        wasm_build.detect_toolchain()
    except wasm_build.BuildError as exc:
        if os.environ.get("CI"):
            pytest.fail(str(exc), pytrace=False)
        pytest.skip(str(exc))
    build = tmp_path / f"wasm-werror-{werror}"
    monkeypatch.setenv("GEMMKIT_WERROR", werror)
    proc = subprocess.run(wasm_build.configure_command(REPO_ROOT, build, tmp_path / "web"),
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commands = json.loads((build / "compile_commands.json").read_text())
    return {(c["file"], c["command"].split(" -o ")[1].split()[0]): c["command"].split()
            for c in commands}


@pytest.mark.skipif(sys.platform == "win32", reason="the wasm build runs on Debian's clang")
def test_wasm_werror_option_reaches_every_unit(tmp_path, monkeypatch):
    on = _wasm_cmake_commands(tmp_path, monkeypatch, "ON")
    units = {os.path.relpath(f, REPO_ROOT) for f, _ in on}
    assert any(u.startswith(os.path.join("cpp", "src", "api")) for u in units), units
    assert any(os.sep + "targets" + os.sep in u for u in units), units
    assert any(u.startswith("tests") for u in units), units
    missing = sorted(out for (_, out), cmd in on.items()
                     if not {"-Wall", "-Wextra", "-Werror"} <= set(cmd))
    assert not missing, f"compiled without -Wall -Wextra -Werror: {missing}"
    assert not [cmd for cmd in on.values() if any(f.startswith("-Wno-") for f in cmd)]
    off = _wasm_cmake_commands(tmp_path, monkeypatch, "OFF")
    assert set(off) == set(on)
    assert not [k for k, cmd in off.items() if "-Werror" in cmd]


def test_wasm_build_refuses_an_unknown_werror_value(monkeypatch):
    wasm_build = _wasm_build_module()
    monkeypatch.setenv("GEMMKIT_WERROR", "sometimes")
    with pytest.raises(wasm_build.BuildError, match="GEMMKIT_WERROR='sometimes'"):
        wasm_build.werror()


def test_intrinsic_headers_are_included_in_one_place():
    sites = {}
    for root in (REPO_ROOT / "cpp", REPO_ROOT / "tests"):
        for path in root.rglob("*"):
            if path.suffix in (".h", ".hpp", ".c", ".cc", ".cpp") and path.is_file():
                found = INTRINSIC_INCLUDE.findall(path.read_text(errors="replace"))
                if found:
                    sites[path.relative_to(REPO_ROOT).as_posix()] = found
    assert sites == {WRAPPER.relative_to(REPO_ROOT).as_posix(): ["immintrin.h", "immintrin.h"]}, (
        "include cpp/src/simd/x86_intrinsics.hpp instead of the compiler's intrinsic headers")


def _compiler():
    if not IS_X86:
        pytest.skip("the x86 intrinsic headers")
    cxx = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler (CXX, c++, g++)")
    return cxx


def _version(cxx):
    """(is clang, major, minor) of the compiler, from its predefined macros."""
    proc = subprocess.run([cxx, "-x", "c++", "-E", "-"], input="__clang__ __GNUC__ __GNUC_MINOR__",
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    clang, major, minor = proc.stdout.strip().splitlines()[-1].split()
    return clang != "__clang__", int(major), int(minor)


def _warnings(cxx, source, tmp_path):
    """The compiler's warnings for ``source``, as (file name, flag) pairs."""
    src = tmp_path / "probe.cpp"
    src.write_text(source)
    proc = subprocess.run(
        [cxx, *WARNING_FLAGS, *AVX512_FLAGS, "-I", str(SRC), "-c", str(src),
         "-o", str(tmp_path / "probe.o")],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return {(os.path.basename(m.group(1)), m.group(2))
            for m in re.finditer(r"^(\S+?):\d+:\d+: warning: .*\[(-W[\w-]+)\]$",
                                 proc.stderr, re.MULTILINE)}


OWN_UNINITIALISED = """
int own_uninitialised(int n) { int x; return x + n; }
int own_maybe_uninitialised(int n, int m) { int x; if (n > 0) x = m; if (m > 1) return x; return 0; }
"""
# An all-ones-mask conversion whose merge source is _mm512_undefined_epi32():
# the load_lhs of the bf16 seam (cpp/src/simd/avx512f.hpp).
UNDEFINED_MERGE_SOURCE = """
__m512i widen(__m256i a) { return _mm512_cvtepu16_epi32(a); }
"""


def test_own_uninitialised_reads_still_warn(tmp_path):
    cxx = _compiler()
    clang, _, _ = _version(cxx)
    found = _warnings(cxx, '#include "simd/x86_intrinsics.hpp"\n' + OWN_UNINITIALISED, tmp_path)
    expected = {("probe.cpp", "-Wuninitialized"),
                ("probe.cpp", "-Wsometimes-uninitialized" if clang else "-Wmaybe-uninitialized")}
    assert expected <= found, found


def test_gcc_12_avx512_header_false_positive_is_silenced(tmp_path):
    cxx = _compiler()
    clang, major, minor = _version(cxx)
    if clang or (major, minor) >= (12, 3) or major < 12:
        pytest.skip(f"GCC bug 105593 is in GCC 12.0-12.2 only, not {os.path.basename(cxx)} "
                    f"{'clang' if clang else 'GCC'} {major}.{minor}")
    plain = _warnings(cxx, "#include <immintrin.h>\n" + UNDEFINED_MERGE_SOURCE, tmp_path)
    assert {f for _, f in plain} & {"-Wuninitialized", "-Wmaybe-uninitialized"}, (
        f"GCC {major}.{minor} no longer warns here: {plain}")
    assert all(name.endswith("intrin.h") for name, _ in plain), plain
    ours = _warnings(cxx, '#include "simd/x86_intrinsics.hpp"\n' + UNDEFINED_MERGE_SOURCE,
                     tmp_path)
    assert ours == set(), f"warnings through {WRAPPER.name}: {ours}"
