"""The wasm artifacts themselves: wheel name, contents and size, what the side
module imports and exports, the standalone modules' exports."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile

import pytest

from wasmhelpers import BUILD, REPO, wasm_build


def test_wheel_name_contents_and_size(wheel):
    version = wasm_build.read_version(REPO)
    assert wheel.name == (
        f"gemmkit-{version}-py3-none-pyemscripten_2026_0_wasm32.whl")
    assert wheel.stat().st_size < 1 << 20
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert zf.testzip() is None
        wheel_meta = zf.read(f"gemmkit-{version}.dist-info/WHEEL").decode()
        record = zf.read(f"gemmkit-{version}.dist-info/RECORD").decode()
    assert "Tag: py3-none-pyemscripten_2026_0_wasm32" in wheel_meta
    package = {p.relative_to(REPO / "python").as_posix()
               for p in (REPO / "python" / "gemmkit").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts
               and not p.name.endswith((".so", ".pyd", ".pyc"))}
    assert package <= names, package - names
    assert {"gemmkit/_gemmkit_simd128.wasm", "gemmkit/_gemmkit_relaxed_simd.wasm"} <= names
    assert "gemmkit/py.typed" in names
    # No *.so: Pyodide would compile it at install time, before the simd128
    # probe could refuse cleanly.
    assert not [n for n in names if n.endswith(".so")]
    assert all(line.split(",")[0] in names for line in record.splitlines())


@pytest.mark.parametrize("isa", wasm_build.MODULE_ISAS)
def test_side_module_imports_only_libc_and_exports_the_c_abi(wheel, isa):
    side_module = BUILD / wasm_build.side_module_name(isa)
    imports, exports = wasm_build.wasm_imports_exports(side_module)
    wasm_build.check_side_module(side_module)
    assert ("env", "memory", 2) in imports  # shares Pyodide's memory
    abi = wasm_build.c_abi_functions(REPO)
    assert {"gemmkit_sgemm", "gemmkit_dgemm", "gemmkit_last_error",
            "gemmkit_dispatch_info_json", "gemmkit_abi_version"} <= set(abi)
    assert set(abi) <= set(exports)
    # No C++ runtime symbol may leak out of the module.
    assert not [e for e in exports if e.startswith("_Z")], exports


def test_standalone_modules_import_only_wasi(artifacts):
    abi = set(wasm_build.c_abi_functions(REPO))
    for path in artifacts.standalone:
        imports, exports = wasm_build.wasm_imports_exports(path)
        assert {m for m, _, _ in imports} <= {"wasi_snapshot_preview1"}, imports
        assert abi | {"malloc", "free", "memory", "_initialize"} <= set(exports)


def test_each_module_holds_its_isa_and_its_base_chain():
    assert wasm_build.MODULE_ISAS == ("relaxed_simd", "simd128")
    assert wasm_build.module_isas("simd128") == ("scalar", "simd128")
    assert wasm_build.module_isas("relaxed_simd") == ("scalar", "simd128", "relaxed_simd")
    for name, variant in wasm_build.VARIANTS.items():
        if variant.pin:
            assert variant.isas[-1] == variant.pin, name
    flags = wasm_build.isa_flags("relaxed_simd", wasm_build.VARIANTS["web-relaxed_simd"])
    assert {"-msimd128", "-mrelaxed-simd"} <= set(flags)
    noflag = wasm_build.VARIANTS["selfcheck-relaxed_simd-noflag"]
    assert "-mrelaxed-simd" not in wasm_build.isa_flags("relaxed_simd", noflag)
    assert "-msimd128" in wasm_build.isa_flags("simd128", noflag)


def test_toolchain_detection_is_not_pinned_to_one_llvm():
    tc = wasm_build.detect_toolchain()
    assert tc.llvm >= wasm_build.MIN_LLVM
    assert re.search(rf"(clang\+\+-{tc.llvm}|llvm-{tc.llvm}/bin/clang\+\+)$", tc.cxx)
    assert tc.libcxx_include.endswith("c++/v1")


def test_int8_pair_kernel_in_simd128():
    # The int8 i16-pair family's own test (cpp/tests/dot_pair_i8_test.cpp),
    # compiled with the simd128 target flags and run under node's WASI:
    # packing and the i32x4.dot_i16x8_s loop against exact references.
    proc = subprocess.run(
        [sys.executable, str(REPO / "cpp" / "tests" / "dot_pair_i8" / "run_wasm.py")],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "0 failed" in proc.stdout, proc.stdout[-2000:]
