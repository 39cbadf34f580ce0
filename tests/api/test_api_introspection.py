"""API suite: version, error hierarchy, dispatch_info() and available_isas().

Runs natively and under Pyodide; no numpy needed.
"""

import re

import pytest

import gemmkit
from apihelpers import (
    DTYPES,
    GEOMETRY,
    ISA_ORDER,
    canonical_isa,
    float_isa,
    kernel_name,
)


def test_version():
    assert gemmkit.__version__ == "0.1.0"
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
    for dtype in DTYPES:
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
