"""API suite: version, error hierarchy, dispatch_info() and available_isas().

Runs natively and under Pyodide; no numpy needed.
"""

import importlib.metadata
import re

import pytest

import gemmkit
from apihelpers import (
    DOT_ISA,
    TILE_DTYPES,
    DTYPES,
    GEOMETRY,
    ISA_ORDER,
    KERNEL_WORD,
    NEW_DTYPES,
    canonical_isa,
    depth_multiple,
    expected_isa,
    float_isa,
    geometry,
    kernel_name,
)


def test_version():
    # The library's compiled-in string (cpp/include/gemmkit/version.h) and the
    # installed distribution's version come from that one file by two routes.
    assert gemmkit.__version__ == importlib.metadata.version("gemmkit")
    assert re.fullmatch(r"\d+\.\d+\.\d+([.+-].*)?", gemmkit.__version__)


@pytest.mark.parametrize(
    "name, builtin",
    [
        ("ShapeError", ValueError),
        ("DTypeError", TypeError),
        ("LayoutError", ValueError),
        ("OverlapError", ValueError),
        ("ArgumentError", ValueError),
        ("IsaError", RuntimeError),
        ("WorkspaceError", MemoryError),
        ("InternalError", RuntimeError),
    ],
)
def test_error_hierarchy(name, builtin):
    cls = getattr(gemmkit, name)
    assert issubclass(cls, gemmkit.GemmkitError)
    assert issubclass(cls, builtin)
    assert issubclass(gemmkit.GemmkitError, Exception)


def test_public_names():
    for name in ("gemm", "matmul", "dispatch_info", "available_isas", "set_num_threads",
                 "get_num_threads", "GemmkitError", "__version__"):
        assert hasattr(gemmkit, name), name
    exported = set(getattr(gemmkit, "__all__", ()))
    assert exported >= {"gemm", "matmul", "dispatch_info", "available_isas"}


def test_dispatch_info_structure():
    info = gemmkit.dispatch_info()
    assert info["backend"] in ("native", "pyodide")
    assert info["version"] == gemmkit.__version__
    assert isinstance(info["threads"], int) and info["threads"] >= 1
    assert info["threads_source"] in (
        "set_num_threads", "GEMMKIT_NUM_THREADS", "OMP_NUM_THREADS", "cores")
    for key in ("cpu_features", "compiled_isas", "available_isas"):
        assert isinstance(info[key], list), key
        assert all(isinstance(x, str) for x in info[key]), key
    assert info["pin"] is None or isinstance(info["pin"], str)
    assert "scalar" in info["compiled_isas"]
    assert set(info["available_isas"]) <= set(info["compiled_isas"])
    assert set(info["compiled_isas"]) <= set(ISA_ORDER), info["compiled_isas"]
    for dtype in DTYPES:
        d = info[dtype]
        isa = d["isa"]
        assert isa in info["available_isas"], (dtype, isa)
        # The tile is the reference design's for that ISA, and the name
        # carries it (CONVENTIONS 8).
        assert (d["mr"], d["nr"]) == GEOMETRY[(dtype, isa)], (dtype, d)
        assert d["kernel"] == kernel_name(dtype, isa), d
        assert d["depth_multiple"] == 1, d


def test_dispatch_info_matches_pin_or_ladder():
    info = gemmkit.dispatch_info()
    pin = info["pin"]
    if pin is None or canonical_isa(pin) in ("", "auto"):
        expected = float_isa(info["available_isas"][0])
    else:
        expected = float_isa(canonical_isa(pin))
    for dtype in DTYPES:
        assert info[dtype]["isa"] == expected, (dtype, info[dtype], pin)


def test_dispatch_info_is_stable():
    # The descriptor is resolved once per process; repeated calls agree.
    first = gemmkit.dispatch_info()
    second = gemmkit.dispatch_info()
    for dtype in DTYPES + NEW_DTYPES:
        assert first[dtype] == second[dtype]
    assert first["available_isas"] == second["available_isas"]


def test_available_isas_best_first():
    isas = gemmkit.available_isas()
    assert isinstance(isas, list) and isas
    assert isas == gemmkit.dispatch_info()["available_isas"]
    assert isas[-1] == "scalar"
    assert len(set(isas)) == len(isas)
    ranks = [ISA_ORDER.index(x) for x in isas]
    assert ranks == sorted(ranks), isas
    # The ISA running float32 is the best available one that runs floats
    # (unless a pin chose another).
    if gemmkit.dispatch_info()["pin"] is None:
        assert gemmkit.dispatch_info()["float32"]["isa"] == float_isa(isas[0])


# ---------------------------------------------------------------- issue #4 types

def _cpu_vendor():
    """"GenuineIntel", "AuthenticAMD", ... from /proc/cpuinfo, or None."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _auto_isa(dtype, info):
    """The ladder's choice for ``dtype`` (DESIGN.md, dispatch; select.cpp):
    the tile kernels (amx) for bfloat16 and int8 where available, then its
    dot ISA where available (bfloat16's only off Intel cores, where
    vdpbf16ps is slower than widening to float32 FMAs), else the best ISA
    that runs the widening kernels (float16 skips fma on a CPU without
    F16C)."""
    dot = DOT_ISA.get(dtype, (None,))[0]
    available = info["available_isas"]
    if dtype in TILE_DTYPES and "amx" in available:
        return "amx"
    if dot == "avx512bf16" and _cpu_vendor() == "GenuineIntel":
        dot = None
    if dot in available:
        return dot
    for isa in available:
        if isa in ("amx", "avx512bf16", "avx512vnni", "avx512dq"):
            continue
        if dtype == "float16" and isa == "fma" and "f16c" not in info["cpu_features"]:
            continue
        return isa
    raise AssertionError(f"no ISA for {dtype} in {available}")


@pytest.mark.parametrize("dtype", NEW_DTYPES)
def test_dispatch_info_new_types(dtype):
    info = gemmkit.dispatch_info()
    d = info[dtype]
    assert set(d) >= {"isa", "kernel", "mr", "nr", "depth_multiple"}, d
    isa = d["isa"]
    assert isa in info["available_isas"], (dtype, isa)
    pin = info["pin"]
    if pin is None or canonical_isa(pin) in ("", "auto"):
        assert isa == _auto_isa(dtype, info), (dtype, d, info["available_isas"])
    else:
        assert isa == expected_isa(dtype, canonical_isa(pin)), (dtype, d, pin)
    assert (d["mr"], d["nr"]) == geometry(dtype, isa), (dtype, d)
    assert d["depth_multiple"] == depth_multiple(dtype, isa), (dtype, d)
    assert d["kernel"] == f"{KERNEL_WORD[dtype]}_gemm_{d['mr']}x{d['nr']}__{isa}", d


def test_public_names_of_issue_4():
    for name in ("gemm_requant", "prepack_rhs", "PackedRhs"):
        assert hasattr(gemmkit, name) and name in gemmkit.__all__, name
