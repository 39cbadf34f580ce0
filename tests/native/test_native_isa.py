"""Native suite: every ISA pinned in a subprocess, and pins that must refuse.

Each ISA this machine runs is pinned with GEMMKIT_REQUIRE_ISA in a fresh
interpreter that runs pinned_check.py over that kernel's edge set; the test
proves the pin took (dispatch_info() reports that ISA and its tile).  What
the machine can run is derived from /proc/cpuinfo, not from gemmkit, so a
detection bug shows up as a mismatch.  Pins the machine cannot run must make
every GEMM call raise IsaError naming the missing feature, never abort.
"""

import importlib
import json

import pytest

import gemmkit
from apihelpers import DTYPES, GEOMETRY, kernel_name
from nativehelpers import (
    ALL_ISAS, BEST_FIRST, HERE, ISA_ROW, ISA_ROWS, IS_X86, MACHINE_ARCH, canonical_isa,
    clean_env, cpu_flags,
    missing_for, pin_values, run_json, serving_isa,
)

PINNED_CHECK = str(HERE / "pinned_check.py")

INFO_SCRIPT = """
import json, gemmkit
import numpy as np
a = np.arange(12.0).reshape(3, 4); b = np.ones((4, 2))
assert np.array_equal(gemmkit.gemm(a, b), a @ b)
print(json.dumps(gemmkit.dispatch_info()))
"""

REFUSAL_SCRIPT = """
import json, numpy as np, gemmkit
report = {"calls": []}
a = np.ones((3, 4), np.float32); b = np.ones((4, 2), np.float32)
calls = [
    ("gemm f32", lambda: gemmkit.gemm(a, b)),
    ("gemm f32 again", lambda: gemmkit.gemm(a, b)),
    ("gemm f64", lambda: gemmkit.gemm(a.astype(np.float64), b.astype(np.float64))),
    ("matmul", lambda: gemmkit.matmul(a, b)),
    ("dispatch_info", gemmkit.dispatch_info),
]
for name, fn in calls:
    try:
        fn()
        report["calls"].append({"call": name, "raised": None})
    except BaseException as exc:
        report["calls"].append({
            "call": name, "raised": type(exc).__name__, "message": str(exc),
            "is_isa_error": isinstance(exc, gemmkit.IsaError),
            "is_runtime_error": isinstance(exc, RuntimeError),
            "is_gemmkit_error": isinstance(exc, gemmkit.GemmkitError),
        })
print(json.dumps(report))
"""


def _info():
    return gemmkit.dispatch_info()


def _runnable(isa):
    """(runnable, reason): compiled into this build and the machine has it."""
    if isa not in _info()["compiled_isas"]:
        return False, f"{isa} is not compiled into this build"
    missing = missing_for(isa)
    if missing is None:
        return False, "cannot read /proc/cpuinfo to tell what this CPU runs"
    if missing:
        return False, f"this machine lacks {', '.join(missing)}"
    return True, ""


def test_available_isas_match_cpuinfo():
    info = _info()
    expected = []
    for isa in BEST_FIRST:
        if isa in info["compiled_isas"]:
            missing = missing_for(isa)
            if missing is None:
                pytest.skip("cannot read /proc/cpuinfo to tell what this CPU runs")
            if not missing:
                expected.append(isa)
    assert gemmkit.available_isas() == expected, (info["cpu_features"], info["compiled_isas"])


def test_x86_build_compiles_every_x86_isa():
    if not IS_X86:
        pytest.skip("not an x86-64 machine")
    compiled = set(_info()["compiled_isas"])
    assert {"scalar", "fma", "avx512f"} <= compiled, compiled


@pytest.mark.parametrize("isa", ALL_ISAS)
def test_pinned_isa(isa):
    ok, reason = _runnable(isa)
    if not ok:
        pytest.skip(f"cannot pin {isa}: {reason} (its refusal is tested instead)")
    report = run_json([PINNED_CHECK], clean_env(GEMMKIT_REQUIRE_ISA=isa))
    info = report["info"]
    assert info["pin"] is not None and canonical_isa(info["pin"]) == isa, info["pin"]
    for dtype in DTYPES:
        expected = serving_isa(isa, dtype)
        d = info[dtype]
        assert d["isa"] == expected, f"pin {isa} ran {d['isa']} for {dtype}"
        assert (d["mr"], d["nr"]) == GEOMETRY[(dtype, expected)]
        assert d["kernel"] == kernel_name(dtype, expected)
    assert report["cases"] > 100
    assert report["n_failures"] == 0, "\n".join(report["failures"])


# Every alias of the registry as written and in upper case, every name in
# upper case, and one name in mixed case.
ALIAS_AND_CASE = [(value, row["name"]) for row in ISA_ROWS for alias in row["aliases"]
                  for value in (alias, alias.upper())]
ALIAS_AND_CASE += [(row["name"].upper(), row["name"]) for row in ISA_ROWS]
ALIAS_AND_CASE += [("Avx512F", "avx512f")]


@pytest.mark.parametrize("value, canonical", ALIAS_AND_CASE)
def test_pin_alias_and_case(value, canonical):
    ok, reason = _runnable(canonical)
    if not ok:
        pytest.skip(f"cannot pin {canonical}: {reason}")
    info = run_json(["-c", INFO_SCRIPT], clean_env(GEMMKIT_REQUIRE_ISA=value))
    assert canonical_isa(info["pin"]) == canonical, info["pin"]
    for dtype in DTYPES:
        assert info[dtype]["isa"] == serving_isa(canonical, dtype)


@pytest.mark.parametrize("value", [None, "", "auto", "AUTO", "Auto"])
def test_pin_auto(value):
    info = run_json(["-c", INFO_SCRIPT], clean_env(GEMMKIT_REQUIRE_ISA=value))
    assert info["pin"] in (None, "auto"), info["pin"]
    best = info["available_isas"][0]
    for dtype in DTYPES:
        assert info[dtype]["isa"] == serving_isa(best, dtype)
    assert info["available_isas"] == gemmkit.available_isas()


def _refusal(value, hide=None):
    env = clean_env(GEMMKIT_REQUIRE_ISA=value, GEMMKIT_TEST_HIDE_CPU_FEATURES=hide)
    report = run_json(["-c", REFUSAL_SCRIPT], env)
    for call in report["calls"]:
        assert call["raised"] == "IsaError", f"pin {value!r}: {call}"
        assert call["is_isa_error"] and call["is_runtime_error"] and call["is_gemmkit_error"]
        assert call["message"].startswith("gemmkit: "), call["message"]
        assert "gemmkit_require_isa" in call["message"].lower(), call["message"]
    messages = {c["message"] for c in report["calls"]}
    return messages


def _normalized(text):
    return text.lower().replace("_", "").replace("-", "")


@pytest.mark.parametrize("value", ["foo", "avx1024", "sse4.2", "fma,avx512f", "avx-512f", "neon64",
                                   "0", "x"])
def test_pin_unknown_value_refused(value):
    for message in _refusal(value):
        # The offending value is quoted back, so a typo is easy to spot.
        assert f"'{value}'" in message or f'"{value}"' in message, message


# Every value that pins an ISA some machine lacks (all but the floor's).
@pytest.mark.parametrize("value", [value for row in ISA_ROWS if row["arch"] != "any"
                                   for value in pin_values(row["name"])])
def test_pin_unavailable_isa_refused(value):
    isa = canonical_isa(value)
    missing = missing_for(isa)
    if missing is None:
        pytest.skip("cannot read /proc/cpuinfo to tell what this CPU runs")
    hide = None
    if not missing and isa in _info()["compiled_isas"]:
        # This machine runs it: hide the features the ISA needs, as a
        # machine without them would report (GEMMKIT_TEST_HIDE_CPU_FEATURES).
        missing = list(ISA_ROW[isa]["features"])
        hide = ",".join(missing)
    for message in _refusal(value, hide):
        # The message names the ISA or one of the features it lacks.
        names = [isa] + [m.split()[0] for m in missing]
        assert any(_normalized(n) in _normalized(message) for n in names), message


LADDER_SCRIPT = """
import json, gemmkit
info = gemmkit.dispatch_info()
print(json.dumps({"available": gemmkit.available_isas(),
                  "chosen": {d: info[d]["isa"] for d in ("float32", "float64", "int8")}}))
"""


@pytest.mark.parametrize("isa", [row["name"] for row in ISA_ROWS if row["arch"] == "x86_64"])
def test_auto_ladder_steps_down_without_the_features(isa):
    # With an ISA's features hidden, auto selection never picks it and takes
    # the best of what is left: the ladders proven on a machine that has all.
    if MACHINE_ARCH != "x86_64" or missing_for(isa) != []:
        pytest.skip(f"this machine does not run {isa} at all (its refusal is tested instead)")
    plain = run_json(["-c", LADDER_SCRIPT], clean_env())
    hidden = run_json(["-c", LADDER_SCRIPT],
                      clean_env(GEMMKIT_TEST_HIDE_CPU_FEATURES=",".join(ISA_ROW[isa]["features"])))
    assert isa not in hidden["available"], hidden
    assert hidden["available"] == [x for x in plain["available"] if x in hidden["available"]]
    for dtype, chosen in hidden["chosen"].items():
        assert chosen != isa and chosen in hidden["available"], (dtype, hidden)
        # Nothing better than before was invented: the choice was available
        # without hiding too, and at most as high on the ladder.
        assert plain["available"].index(chosen) >= plain["available"].index(
            plain["chosen"][dtype]), (dtype, plain, hidden)


def test_pin_is_read_once():
    # The pin is read before the first GEMM; changing the environment later
    # changes nothing (and a later bogus value does not break the process).
    script = """
import json, os, numpy as np, gemmkit
a = np.ones((8, 8)); first = gemmkit.dispatch_info()["float64"]["isa"]
gemmkit.gemm(a, a)
os.environ["GEMMKIT_REQUIRE_ISA"] = "definitely-not-an-isa"
gemmkit.gemm(a, a)
os.environ["GEMMKIT_REQUIRE_ISA"] = "scalar"
print(json.dumps([first, gemmkit.dispatch_info()["float64"]["isa"], gemmkit.gemm(a, a).tolist()]))
"""
    first, later, result = run_json(["-c", script], clean_env())
    assert first == later
    assert result == [[8.0] * 8] * 8


def test_dispatch_info_cpu_features_match_cpuinfo():
    # The features gemmkit's ladders depend on are reported exactly when
    # /proc/cpuinfo has them (names compared without "_" and "-").
    flags = cpu_flags() if IS_X86 else None
    if flags is None:
        pytest.skip("not an x86-64 machine with a readable /proc/cpuinfo")
    features = {_normalized(f) for f in _info()["cpu_features"]}
    for flag in ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16"):
        assert (_normalized(flag) in features) == (flag in flags), (flag, sorted(features))


def test_isa_table_json_is_the_registry():
    # The C ABI's ISA table (gemmkit_isa_table_json), what front ends name
    # pins from, is the registry: every row, whatever this build holds, with
    # what this build compiled and this machine can run (the dispatch
    # report's lists, in its best-first order; available_isas() whatever the
    # pin).
    native = importlib.import_module("gemmkit._native")
    table = json.loads(native.isa_table_json())
    assert [{k: row[k] for k in ("name", "arch", "aliases", "features")} for row in table] == [
        {"name": row["name"], "arch": row["arch"], "aliases": list(row["aliases"]),
         "features": list(row["features"])}
        for row in ISA_ROWS
    ]
    info = _info()
    assert [r["name"] for r in reversed(table) if r["compiled"]] == info["compiled_isas"]
    assert [r["name"] for r in reversed(table) if r["usable"]] == info["available_isas"]
    assert gemmkit.available_isas() == info["available_isas"]
