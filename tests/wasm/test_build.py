"""The wasm artifacts themselves: wheel name, contents and size, what the side
module imports and exports, the standalone modules' exports, and what
wasm/CMakeLists.txt compiled each module from."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from wasmhelpers import BUILD, REPO, wasm_build

# The shipped modules, by their best ISA: the wasm32 rows, best first.
SHIPPED_ISAS = ("relaxed_simd", "simd128")


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
    # Pyodide compiles every *.so of a wheel at install time, before the
    # simd128 probe could refuse cleanly: the ISA modules are not *.so, and
    # the one *.so, the call module, holds no SIMD instruction (below).
    assert [n for n in names if n.endswith(".so")] == ["gemmkit/_pyodide_call.abi3.so"]
    assert all(line.split(",")[0] in names for line in record.splitlines())


@pytest.mark.parametrize("isa", SHIPPED_ISAS)
def test_side_module_imports_only_libc_and_exports_the_c_abi(wheel, isa):
    side_module = BUILD / f"_gemmkit_{isa}.wasm"
    imports, exports = wasm_build.wasm_imports_exports(side_module)
    wasm_build.check_side_module(side_module)
    assert ("env", "memory", 2) in imports  # shares Pyodide's memory
    abi = wasm_build.c_abi_functions(REPO)
    assert {"gemmkit_sgemm", "gemmkit_dgemm", "gemmkit_last_error",
            "gemmkit_dispatch_info_json", "gemmkit_abi_version"} <= set(abi)
    assert set(abi) <= set(exports)
    # No C++ runtime symbol may leak out of the module.
    assert not [e for e in exports if e.startswith("_Z")], exports


def test_call_module_imports_only_the_stable_abi_and_has_no_simd(artifacts):
    module = wasm_build.read_modules_file(BUILD)["modules"][wasm_build.CALL_MODULE_KEY]
    path = Path(module["path"])
    assert path.name == "_pyodide_call.abi3.so"
    imports, exports = wasm_build.wasm_imports_exports(path)
    wasm_build.check_side_module(path, wasm_build.CALL_MODULE_ALLOWED_IMPORTS)
    assert ("env", "memory", 2) in imports  # shares Pyodide's memory
    assert {n for m, n, _ in imports if m == "env"} >= {"PyObject_GetBuffer", "PyModuleDef_Init"}
    assert "PyInit__pyodide_call" in exports
    for cmd in _unit_commands(module["target"]):
        assert not [f for f in cmd if f in ("-msimd128", "-mrelaxed-simd")], cmd


def test_standalone_modules_import_only_wasi(artifacts):
    abi = set(wasm_build.c_abi_functions(REPO))
    for path in artifacts.standalone:
        imports, exports = wasm_build.wasm_imports_exports(path)
        assert {m for m, _, _ in imports} <= {"wasi_snapshot_preview1"}, imports
        assert abi | {"malloc", "free", "memory", "_initialize"} <= set(exports)


def _unit_commands(objects_target: str) -> list[list[str]]:
    """The compile commands of the units CMake target ``objects_target``
    compiled (compile_commands.json of the wasm build)."""
    entries = json.loads((BUILD / "compile_commands.json").read_text())
    marker = f"/CMakeFiles/{objects_target}.dir/"
    commands = [shlex.split(e["command"]) for e in entries if marker in e["command"]]
    assert commands, f"no units of {objects_target} in compile_commands.json"
    return commands


def test_each_module_holds_its_isa_and_its_base_chain(artifacts):
    modules = wasm_build.read_modules_file(BUILD)["modules"]
    sides = [m for key, m in modules.items()
             if m["group"] == "wheel" and key != wasm_build.CALL_MODULE_KEY]
    assert [m["pin"] for m in sides] == list(SHIPPED_ISAS)
    assert modules["web-simd128"]["isas"] == ["scalar", "simd128"]
    assert modules["web-relaxed_simd"]["isas"] == ["scalar", "simd128", "relaxed_simd"]
    assert modules["web-scalar"]["isas"] == ["scalar"] and not modules["web-scalar"]["pin"]
    for name, module in modules.items():
        if module["pin"]:
            assert module["isas"][-1] == module["pin"], name
        threads = name.endswith("-threads")
        for part, target in module["objects"].items():
            for cmd in _unit_commands(target):
                # Every unit position independent, with its module's pin and
                # ISAs, and the threads' instructions only in threaded modules.
                assert "-fPIC" in cmd, (name, cmd)
                pins = [f for f in cmd if f.startswith("-DGEMMKIT_DEFAULT_REQUIRE_ISA=")]
                assert pins == ([f"-DGEMMKIT_DEFAULT_REQUIRE_ISA={module['pin']}"]
                                if module["pin"] else []), (name, cmd)
                have = {f for f in cmd if f.startswith("-DGEMMKIT_HAVE_")}
                assert have == {f"-DGEMMKIT_HAVE_{isa.upper()}=1" for isa in module["isas"]}
                assert ("-matomics" in cmd) is threads, (name, cmd)
                assert ("-DGEMMKIT_NO_THREADS=1" in cmd) is not threads, (name, cmd)
                if part == "scalar":
                    assert {"-fno-vectorize", "-fno-slp-vectorize"} <= set(cmd), cmd
                    assert "-msimd128" not in cmd, cmd
    relaxed = modules["web-relaxed_simd"]["objects"]["relaxed_simd"]
    for cmd in _unit_commands(relaxed):
        assert {"-msimd128", "-mrelaxed-simd", "-DGEMMKIT_ISA=relaxed_simd"} <= set(cmd)
    noflag = modules["selfcheck-relaxed_simd"]["objects"]
    for cmd in _unit_commands(noflag["relaxed_simd"]):
        assert "-mrelaxed-simd" not in cmd and "-msimd128" not in cmd, cmd
    for cmd in _unit_commands(noflag["simd128"]):
        assert "-msimd128" in cmd, cmd


def test_toolchain_detection_is_not_pinned_to_one_llvm():
    tc = wasm_build.detect_toolchain()
    assert tc.min_llvm == 17
    assert tc.llvm >= tc.min_llvm
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
