"""cpp/bindings/python_stable_abi.h, the stable-ABI declarations that
gemmkit._pyodide_call is compiled against for Pyodide (which has no CPython
headers offline), laid out as CPython's own: one program prints each
declared struct's size and field offsets and each flag's value from that
header, a second prints the same from the host's Python.h (Limited API
3.11), and the two outputs must be equal.  The layouts follow from the C
types alone, so agreement here means agreement on wasm32 too;
test_pyodide_backend_host.py runs the extension itself on the host."""

from __future__ import annotations

import subprocess
import sysconfig
from pathlib import Path

import pytest

from wasmhelpers import BUILD, REPO, require, wasm_build

HEADER = REPO / "cpp" / "bindings" / "python_stable_abi.h"

# Every struct the header declares, with every field.
STRUCTS = {
    "PyObject": ["ob_refcnt", "ob_type"],
    "Py_buffer": ["buf", "obj", "len", "itemsize", "readonly", "ndim", "format", "shape",
                  "strides", "suboffsets", "internal"],
    "PyMethodDef": ["ml_name", "ml_meth", "ml_flags", "ml_doc"],
    "PyModuleDef_Base": ["ob_base", "m_init", "m_index", "m_copy"],
    "PyModuleDef": ["m_base", "m_name", "m_doc", "m_size", "m_methods", "m_slots",
                    "m_traverse", "m_clear", "m_free"],
}
# Every flag it declares.
CONSTANTS = ["PyBUF_WRITABLE", "PyBUF_FORMAT", "PyBUF_ND", "PyBUF_STRIDES", "METH_FASTCALL"]


def _program(include: str, head_init: str) -> str:
    lines = [include, "#include <cstddef>", "#include <cstdio>", "int main() {"]
    for name, fields in STRUCTS.items():
        lines.append(f'  std::printf("sizeof {name} %zu\\n", sizeof({name}));')
        lines += [f'  std::printf("{name}.{f} %zu\\n", offsetof({name}, {f}));' for f in fields]
    lines += [f'  std::printf("{c} %d\\n", static_cast<int>({c}));' for c in CONSTANTS]
    # What a static PyModuleDef's header starts as.
    lines += [f"  PyModuleDef_Base base = {head_init};",
              '  std::printf("head %zd %d %zd %d\\n", base.ob_base.ob_refcnt,',
              "              base.ob_base.ob_type == nullptr, base.m_index,",
              "              base.m_init == nullptr && base.m_copy == nullptr);",
              "  return 0;", "}"]
    return "\n".join(lines) + "\n"


def _run(cxx: str, source: str, name: str, flags: list[str]) -> str:
    out_dir = BUILD / "test" / "stable_abi"
    out_dir.mkdir(parents=True, exist_ok=True)
    src, exe = out_dir / f"{name}.cpp", out_dir / name
    src.write_text(source)
    proc = subprocess.run([cxx, "-std=c++20", *flags, str(src), "-o", str(exe)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout


def test_declarations_match_cpython():
    try:
        cxx = wasm_build.detect_toolchain().cxx
    except wasm_build.BuildError as exc:
        require(False, str(exc))
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").exists():
        pytest.fail(f"no Python.h in {include} (the native build needs it too)")
    ours = _run(cxx, _program(f'#include "{HEADER.name}"', "GEMMKIT_PyModuleDef_HEAD_INIT"),
                "ours", ["-Wall", "-Wextra", "-Werror", f"-I{HEADER.parent}"])
    cpython = _run(cxx, _program("#include <Python.h>", "PyModuleDef_HEAD_INIT"),
                   "cpython", ["-DPy_LIMITED_API=0x030B0000", f"-I{include}"])
    assert ours.count("\n") == 1 + sum(1 + len(f) for f in STRUCTS.values()) + len(CONSTANTS)
    assert ours == cpython
