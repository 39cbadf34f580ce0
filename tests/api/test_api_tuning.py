"""API suite: gemmkit.tuning, the knob registry from Python.

Runs natively and under Pyodide (the same registry in the side module; no
profile there).  Every test puts back what it set: a knob's setter value is
process-wide.  The layers' order against the environment and a profile file
needs fresh processes and is tested in tests/native/test_native_tune.py.
"""

import pytest

import gemmkit
import gemmkit.tuning as tuning
from apihelpers import py_check_gemm, py_matrix, py_values

KEYS = {"name", "default", "max", "doc", "value", "origin"}
ORIGINS = {"setter", "environment", "profile", "default"}


@pytest.fixture
def knob():
    """A knob to change (GEMMKIT_KC), reset afterwards whatever happened."""
    yield "GEMMKIT_KC"
    tuning.reset("GEMMKIT_KC")


def test_knobs_list_the_registry():
    rows = tuning.knobs()
    names = [row["name"] for row in rows]
    assert len(names) == len(set(names)) >= 10
    assert {"GEMMKIT_NUM_THREADS", "GEMMKIT_KC", "GEMMKIT_MC", "GEMMKIT_NC"} <= set(names)
    for row in rows:
        assert set(row) == KEYS, row
        assert row["name"].startswith("GEMMKIT_") and row["doc"], row
        assert 0 <= row["default"] <= row["max"] and 0 <= row["value"] <= row["max"], row
        assert row["origin"] in ORIGINS, row


def test_set_get_origin_reset(knob):
    before, where = tuning.get(knob), tuning.origin(knob)
    assert where != "setter"
    tuning.set("kc", 72)  # the short, lower-case form names the same knob
    assert tuning.get(knob) == 72 and tuning.origin(knob) == "setter"
    assert tuning.get("KC") == 72
    tuning.reset(knob)
    assert tuning.get(knob) == before and tuning.origin(knob) == where


def test_a_value_above_the_maximum_is_clamped(knob):
    top = next(row["max"] for row in tuning.knobs() if row["name"] == knob)
    for value in (top, top + 1, 2**40, 2**70):
        tuning.set(knob, value)
        assert tuning.get(knob) == top, value


def test_bad_names_and_values_raise(knob):
    with pytest.raises(gemmkit.ArgumentError, match="unknown knob 'GEMMKIT_NOPE'"):
        tuning.get("GEMMKIT_NOPE")
    with pytest.raises(gemmkit.GemmkitError):
        tuning.set("NOPE", 1)
    with pytest.raises(gemmkit.GemmkitError):
        tuning.reset("NOPE")
    for value, word in ((-1, ">= 0"), (True, "not bool"), (1.5, "not float"), ("8", "not str")):
        with pytest.raises(gemmkit.ArgumentError, match=word):
            tuning.set(knob, value)
    with pytest.raises(gemmkit.ArgumentError, match="must be a str"):
        tuning.get(7)
    assert tuning.origin(knob) != "setter"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_products_stay_right_with_the_smallest_blocks(dtype):
    """Blocks of one row panel, one column panel and four depth steps:
    every edge of the loop nest, the result still within the bound."""
    a, b = py_values(1, 70, 45), py_values(2, 45, 90)
    try:
        for name, value in (("MC", 1), ("KC", 4), ("NC", 1)):
            tuning.set(name, value)
        got = gemmkit.gemm(py_matrix(dtype, a), py_matrix(dtype, b))
    finally:
        for name in ("MC", "KC", "NC"):
            tuning.reset(name)
    msg = py_check_gemm(dtype, got.tolist(), a, b)
    assert msg is None, msg


def test_profile_reports_its_status():
    info = tuning.profile()
    assert {"status", "path", "cpu", "this_cpu", "values"} <= set(info), info
    if gemmkit.dispatch_info()["backend"] == "pyodide":
        assert info["status"] == "unsupported" and info["values"] == {}, info
    else:
        assert info["status"] in {"loaded", "missing", "none", "other_cpu", "unreadable"}, info
