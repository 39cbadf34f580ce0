"""Native suite: the exact integer, bool and complex families under every
ISA this machine runs, each pinned in a subprocess (pinned_dtypes_check.py:
bit-exact against Python integers, complex against clongdouble), once as
configured and once with a tiny depth block on one and two threads, so the
depth slices resume from their raw sums (the seeded path) and the team
splits the work.  Pins the machine cannot run are refused in
test_native_isa.py, for every family alike."""

import pytest
from nativehelpers import ALL_ISAS, HERE, clean_env, run_json, serving_isa
from test_native_isa import _runnable

CHECK = str(HERE / "pinned_dtypes_check.py")
KEYS = ("uint8", "int16", "int32", "int64", "bool", "complex64", "complex128")
WORD = {"uint8": "u8", "int16": "u16", "int32": "i32", "int64": "i64", "bool": "bool",
        "complex64": "c64", "complex128": "c128"}
SETTINGS = {
    "default": {},
    "kc4-1thread": {"GEMMKIT_KC": "4", "GEMMKIT_NUM_THREADS": "1"},
    "kc4-2threads": {"GEMMKIT_KC": "4", "GEMMKIT_NUM_THREADS": "2",
                     "GEMMKIT_PARALLEL_THRESHOLD": "1"},
}


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("isa", ALL_ISAS)
def test_exact_and_complex_families_pinned(isa, setting):
    ok, reason = _runnable(isa)
    if not ok:
        pytest.skip(f"cannot pin {isa}: {reason} (its refusal is tested instead)")
    report = run_json([CHECK], clean_env(GEMMKIT_REQUIRE_ISA=isa, **SETTINGS[setting]))
    info = report["info"]
    for key in KEYS:
        d = info[key]
        expected = serving_isa(isa, key)
        assert d["isa"] == expected, f"pin {isa} ran {d['isa']} for {key}"
        assert d["kernel"] == f"{WORD[key]}_gemm_{d['mr']}x{d['nr']}__{expected}"
    assert report["cases"] > 300
    assert report["n_failures"] == 0, "\n".join(report["failures"])
