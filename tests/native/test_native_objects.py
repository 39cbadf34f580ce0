"""Native suite: ISA hygiene of the compiled objects (CONVENTIONS 4).

Reads the object files of CMake build directories (env GEMMKIT_BUILD_DIR,
several separated by os.pathsep; default: build/cpp-tests and the
extension's build/cp3* folders):

1. ``objdump -d`` of every baseline object (not under ``targets/<isa>/``,
   not an ISA conformance unit) uses no ymm/zmm/opmask register and no
   VEX/EVEX instruction: code any CPU may run must not need AVX.
2. ``nm -C`` of every object under ``targets/<isa>/``: each global or weak
   defined symbol carries ``isa_<isa>`` in its name (it lives in
   ``gemmkit::isa_<isa>`` or is a template instantiated with that ISA's
   token), so the linker can never merge it with a copy compiled for
   another ISA (the ODR hazard of multi-ISA builds).
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from nativehelpers import ALL_ISAS, IS_X86, REPO_ROOT

ISAS = ALL_ISAS  # every registry row (cpp/src/dispatch/isa_registry.def)

# Compiler-generated weak symbols that hold no ISA code: the pointer to the
# C++ EH personality routine (data) and clang's terminate trampoline
# (__cxa_begin_catch + std::terminate, identical in every TU).
ALLOWED_FOREIGN = {"DW.ref.__gxx_personality_v0", "__clang_call_terminate"}

# VMX instructions start with "vm" but are not VEX-encoded.
VMX = {"vmcall", "vmlaunch", "vmresume", "vmxoff", "vmxon", "vmread", "vmwrite", "vmptrld",
       "vmptrst", "vmclear", "vmfunc", "verr", "verw"}
AVX_REGISTER = re.compile(r"%(?:[yz]mm\d+|k[0-7])\b")


def _build_dirs():
    """The directories named by GEMMKIT_BUILD_DIR; by default the C++ test
    build and the extension's own build folders (build/cp3*, the
    scikit-build-core build-dir), whichever exist."""
    raw = os.environ.get("GEMMKIT_BUILD_DIR")
    if raw is None:
        candidates = [REPO_ROOT / "build" / "cpp-tests"]
        candidates += sorted((REPO_ROOT / "build").glob("cp3*"))
        raw = os.pathsep.join(str(p) for p in candidates)
    dirs = []
    for part in raw.split(os.pathsep):
        path = Path(part)
        if not path.is_absolute():
            path = REPO_ROOT / path
        if path.is_dir():
            dirs.append(path)
    return raw, dirs


def _objects():
    raw, dirs = _build_dirs()
    if not dirs:
        pytest.skip(f"no build directory at {raw!r} (set GEMMKIT_BUILD_DIR, or configure one "
                    f"with cmake -S . -B build/cpp-tests -DGEMMKIT_BUILD_TESTS=ON and build it)")
    objs = sorted({p for d in dirs for pattern in ("*.o", "*.obj") for p in d.rglob(pattern)})
    objs = [p for p in objs if "CMakeFiles/CMakeScratch" not in p.as_posix()
            and "/CompilerId" not in p.as_posix()]
    if not objs:
        pytest.skip(f"no object files under {', '.join(map(str, dirs))} (build it first)")
    return objs


def _isa_of(path: Path):
    """The ISA an object was compiled for, or None for baseline objects."""
    parts = path.as_posix().split("/")
    for i, part in enumerate(parts[:-1]):
        if part == "targets" and parts[i + 1] in ISAS:
            return parts[i + 1]
    # Per-ISA test units are named after their ISA (tests/conformance/fma.cpp,
    # tests/dot/avx512vnni.cpp, ...); no baseline source is.
    stem = path.name.split(".")[0]
    if "tests" in parts[:-1] and stem in ISAS:
        return stem
    return None


def _tool(name):
    exe = shutil.which(name)
    if exe is None:
        pytest.skip(f"{name} (binutils) is not installed")
    return exe


def _avx_uses(objdump, path):
    text = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(path)], capture_output=True,
                          text=True, check=True).stdout
    hits = []
    function = "?"
    for line in text.splitlines():
        if line.endswith(">:"):
            function = line
            continue
        fields = line.split("\t")
        if len(fields) < 2 or not fields[0].strip().endswith(":"):
            continue
        insn = fields[-1].strip()
        mnemonic = insn.split()[0] if insn else ""
        vex = mnemonic.startswith("v") and mnemonic not in VMX
        if vex or AVX_REGISTER.search(insn):
            hits.append(f"{function} {insn}")
    return hits


def test_baseline_objects_have_no_avx():
    if not IS_X86:
        pytest.skip("ymm/zmm exist only on x86")
    objdump = _tool("objdump")
    objects = _objects()
    baseline = [p for p in objects if _isa_of(p) in (None, "scalar")]
    assert baseline, "found ISA objects but no baseline object"
    failures = {}
    for path in baseline:
        hits = _avx_uses(objdump, path)
        if hits:
            failures[str(path)] = hits[:5]
    assert not failures, f"AVX code in baseline objects: {failures}"


def test_isa_objects_really_use_their_isa():
    # Proves the scan above can see AVX code at all, and that the ISA flags
    # reached the ISA translation units.
    if not IS_X86:
        pytest.skip("ymm/zmm exist only on x86")
    objdump = _tool("objdump")
    objects = _objects()
    seen = set()
    for isa, register in (("fma", "ymm"), ("avx512f", "zmm")):
        units = [p for p in objects if _isa_of(p) == isa and "targets" in p.parts]
        if not units:
            continue
        seen.add(isa)
        text = "".join(subprocess.run([objdump, "-d", str(p)], capture_output=True, text=True,
                                      check=True).stdout for p in units)
        assert re.search(rf"%{register}\d+", text), f"no {register} use in any {isa} object"
    if not seen:
        pytest.skip("no targets/fma or targets/avx512f objects in the build directory")


def test_isa_objects_define_only_isa_namespaced_symbols():
    nm = _tool("nm")
    units = [(p, _isa_of(p)) for p in _objects()]
    units = [(p, isa) for p, isa in units if isa and "targets" in p.parts]
    if not units:
        pytest.skip("no objects under targets/<isa>/ in the build directory")
    failures = {}
    for path, isa in units:
        lines = subprocess.run([nm, "-C", "--defined-only", str(path)], capture_output=True,
                               text=True, check=True).stdout.splitlines()
        for line in lines:
            fields = line.split(maxsplit=2)
            if len(fields) < 3:
                continue
            kind, name = fields[1], fields[2]
            exported = (kind.isupper() and kind not in "UA") or kind == "u"
            if not exported or name in ALLOWED_FOREIGN:
                continue
            if f"isa_{isa}" not in name:
                failures.setdefault(str(path), []).append(f"{kind} {name}")
    shown = {k: v[:8] for k, v in failures.items()}
    assert not failures, f"symbols outside gemmkit::isa_<isa> in ISA objects: {shown}"
