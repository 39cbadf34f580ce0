"""The installed extension runs on any manylinux_2_28 system: it needs no
glibc symbol version newer than 2.28 and carries its C++ runtime inside (no
GLIBCXX_/CXXABI_ version, no libstdc++.so), as tools/build_wheel.py builds it
(GEMMKIT_PORTABLE_WHEEL, CMakeLists.txt).

The versions are read from the ELF file itself (its .gnu.version_r needs and
the .dynsym symbols that use them) with the standard library, so the check
runs in a bare wheel environment too; where objdump or pyelftools is present
the reader is checked against it.  Skips only where the extension is not an
ELF file (macOS, Windows).  Also: the test pins of pyproject.toml's
[tool.cibuildwheel] are those of requirements-test.txt.
"""

from __future__ import annotations

import platform
import re
import shutil
import struct
import subprocess
import sys

import pytest

import gemmkit._native as native
from nativehelpers import REPO_ROOT

# The manylinux_2_28 policy: the newest glibc version a symbol may need.
GLIBC_FLOOR = (2, 28)
# Versions and libraries that mean a shared C++ runtime.
CXX_RUNTIME_VERSIONS = ("GLIBCXX_", "CXXABI_")
CXX_RUNTIME_LIBRARIES = re.compile(r"^lib(stdc\+\+|c\+\+|c\+\+abi)\.so")

SHT_DYNSYM = 11
SHT_GNU_VERNEED = 0x6FFFFFFE
SHT_GNU_VERSYM = 0x6FFFFFFF
SHN_UNDEF = 0


def read_version_needs(path):
    """{(library, version): sorted names of the undefined symbols bound to it}
    from the ELF file `path` (a version needed by no symbol maps to [])."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        raise ValueError(f"{path}: not an ELF file")
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum, _ = struct.unpack_from(end + "HHH", data, 0x3A)
        sh_fmt, sym_fmt = end + "IIQQQQIIQQ", end + "IBBHQQ"
    else:
        shoff, = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum, _ = struct.unpack_from(end + "HHH", data, 0x2E)
        sh_fmt, sym_fmt = end + "IIIIIIIIII", end + "IIIBBH"
    sections = []
    for i in range(shnum):
        (_name, sh_type, _flags, _addr, offset, size, link, _info, _align,
         entsize) = struct.unpack_from(sh_fmt, data, shoff + i * shentsize)
        sections.append((sh_type, offset, size, link, entsize))

    def cstr(strtab, off):
        start = sections[strtab][1] + off
        return data[start:data.index(b"\0", start)].decode()

    names_by_index = {}  # version index -> (library, version)
    for sh_type, offset, _size, link, _entsize in sections:
        if sh_type != SHT_GNU_VERNEED:
            continue
        pos = offset
        while True:
            _ver, cnt, file_off, aux, nxt = struct.unpack_from(end + "HHIII", data, pos)
            library = cstr(link, file_off)
            apos = pos + aux
            for _ in range(cnt):
                _hash, _flags, other, name_off, anext = struct.unpack_from(end + "IHHII", data, apos)
                names_by_index[other] = (library, cstr(link, name_off))
                apos += anext
            if not nxt:
                break
            pos += nxt

    needs = {key: [] for key in names_by_index.values()}
    dynsym = next(((s, i) for i, s in enumerate(sections) if s[0] == SHT_DYNSYM), None)
    versym = next((s for s in sections if s[0] == SHT_GNU_VERSYM), None)
    if dynsym and versym:
        (_t, offset, size, link, entsize), _ = dynsym
        for i in range(size // entsize):
            fields = struct.unpack_from(sym_fmt, data, offset + i * entsize)
            name_off, shndx = fields[0], fields[3] if is64 else fields[5]
            index, = struct.unpack_from(end + "H", data, versym[1] + 2 * i)
            key = names_by_index.get(index & 0x7FFF)
            if key and shndx == SHN_UNDEF:
                needs[key].append(cstr(link, name_off))
    return {key: sorted(symbols) for key, symbols in needs.items()}


def glibc_version(version):
    """(2, 34) for GLIBC_2.34, None for other version names."""
    m = re.fullmatch(r"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", version)
    return (int(m.group(1)), int(m.group(2))) if m else None


def portability_problems(needs):
    """Human-readable reasons why `needs` (read_version_needs) is not portable."""
    problems = []
    for (library, version), symbols in sorted(needs.items()):
        glibc = glibc_version(version)
        shown = ", ".join(symbols[:4]) + (f", ... ({len(symbols)} in all)" if len(symbols) > 4 else "")
        what = f"{library} {version} ({shown or 'no symbol'})"
        if glibc is not None and glibc > GLIBC_FLOOR:
            problems.append(f"glibc newer than 2.28: {what}")
        if version.startswith(CXX_RUNTIME_VERSIONS) or CXX_RUNTIME_LIBRARIES.match(library):
            problems.append(f"a shared C++ runtime: {what}")
    return problems


def _extension_is_elf():
    with open(native.__file__, "rb") as f:
        return f.read(4) == b"\x7fELF"


needs_elf = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not _extension_is_elf(),
    reason=f"{native.__file__} is not an ELF file: the manylinux policy is Linux's")


@needs_elf
def test_extension_needs_glibc_2_28_at_most_and_no_shared_cxx_runtime():
    needs = read_version_needs(native.__file__)
    if platform.libc_ver()[0] == "glibc":  # musl has no symbol versions
        assert needs, f"{native.__file__}: no version needs read (a glibc build has some)"
    problems = portability_problems(needs)
    assert not problems, (
        f"{native.__file__} is not a portable (manylinux_2_28) build:\n  " + "\n  ".join(problems)
        + "\nbuild it with `python tools/build_wheel.py --out DIR` (GEMMKIT_PORTABLE_WHEEL=ON; "
        "cpp/wheel/glibc_compat.cpp binds symbols to older glibc versions)")


def test_the_policy_catches_what_a_plain_build_of_this_machine_needs():
    # What a Debian 12 build without GEMMKIT_PORTABLE_WHEEL needed.
    plain = {
        ("libc.so.6", "GLIBC_2.2.5"): ["free"],
        ("libc.so.6", "GLIBC_2.34"): ["pthread_create"],
        ("libc.so.6", "GLIBC_2.32"): ["__libc_single_threaded"],
        ("libstdc++.so.6", "GLIBCXX_3.4.30"): ["_ZSt21__glibcxx_assert_failPKciS0_S0_"],
        ("libstdc++.so.6", "CXXABI_1.3"): ["__cxa_begin_catch"],
        ("libc.so.6", "GLIBC_2.28"): ["fcntl64"],
    }
    problems = portability_problems(plain)
    assert len(problems) == 4, problems
    assert any("GLIBC_2.34 (pthread_create)" in p for p in problems)
    assert any("GLIBC_2.32" in p for p in problems)
    assert sum("C++ runtime" in p for p in problems) == 2
    assert not portability_problems({("libc.so.6", "GLIBC_2.28"): ["fcntl64"],
                                     ("libgcc_s.so.1", "GCC_3.0"): ["_Unwind_Resume"]})


def _objdump_versions(path):
    """{(version, symbol)} of the undefined versioned symbols objdump -T lists."""
    out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True, check=True).stdout
    found = set()
    for line in out.splitlines():
        m = re.search(r"\*UND\*\s+\S+\s+\(?([A-Za-z_]+[0-9][0-9.]*)\)?\s+(\S+)$", line)
        if m:
            found.add((m.group(1), m.group(2)))
    return found


@needs_elf
def test_the_reader_agrees_with_objdump_or_pyelftools():
    needs = read_version_needs(native.__file__)
    ours = {(version, sym) for (_lib, version), syms in needs.items() for sym in syms}
    if shutil.which("objdump"):
        assert ours == _objdump_versions(native.__file__)
        return
    elftools = pytest.importorskip("elftools.elf.elffile",
                                   reason="neither objdump nor pyelftools to check the reader against")
    from elftools.elf.gnuversions import GNUVerNeedSection

    with open(native.__file__, "rb") as f:
        theirs = {(lib.name, aux.name)
                  for section in elftools.ELFFile(f).iter_sections()
                  if isinstance(section, GNUVerNeedSection)
                  for lib, auxes in section.iter_versions() for aux in auxes}
    assert set(needs) == theirs


def test_cibuildwheel_test_pins_are_those_of_requirements_test():
    tomllib = pytest.importorskip("tomllib", reason="tomllib needs Python 3.11")
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        cibw = tomllib.load(f)["tool"]["cibuildwheel"]
    pins = {}
    for line in (REPO_ROOT / "requirements-test.txt").read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line)
        if m:
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    # Pyodide's numpy is the one of its release (pyodide-version).
    pyodide = cibw["pyodide"]["test-requires"]
    assert [r for r in pyodide if "==" not in r] == ["numpy"]
    for spec in cibw["test-requires"] + pyodide:
        if "==" not in spec:
            continue
        name, version = spec.split("==")
        key = name.lower().replace("_", "-")
        assert key in pins, f"{name}: in [tool.cibuildwheel] test-requires, not in requirements-test.txt"
        assert pins[key] == version, f"{name}: {version} in pyproject.toml, {pins[key]} in requirements-test.txt"
    assert all("==" in r for r in cibw["test-requires"]), cibw["test-requires"]
