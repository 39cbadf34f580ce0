"""The tuning profile and ``python -m gemmkit.tune``.

Each step of the knob order (setter > environment > profile > default) is
proven in a fresh process, since the environment and the profile are read
once; a profile for another CPU and malformed lines are warned about and
ignored; the tuner's quick run prints its table and writes a profile a new
process reads; GEMMs stay right under any profile values.
"""

from __future__ import annotations

import json

import pytest

from nativehelpers import clean_env, run_json, run_python

pytest.importorskip("numpy", reason="numpy is not installed")

REPORT = r"""
import json, gemmkit.tuning as t
print(json.dumps({"knobs": {k["name"]: [k["value"], k["origin"]] for k in t.knobs()},
                  "profile": t.profile()}))
"""


def _this_cpu(tmp_path) -> str:
    doc = run_json(["-c", REPORT], clean_env(GEMMKIT_PROFILE=str(tmp_path / "none.env")))
    assert doc["profile"]["status"] == "missing"
    return doc["profile"]["this_cpu"]


def _write(path, cpu, *lines):
    path.write_text("# a profile for the tests\n" + (f"cpu={cpu}\n" if cpu else "")
                    + "".join(f"{line}\n" for line in lines))
    return str(path)


def test_knobs_report_the_registry():
    import gemmkit.tuning as t

    rows = t.knobs()
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names)) and "GEMMKIT_KC" in names
    for r in rows:
        assert set(r) == {"name", "default", "max", "doc", "value", "origin"}
        assert r["doc"] and r["default"] <= r["max"]


def test_order_setter_environment_profile_default(tmp_path):
    cpu = _this_cpu(tmp_path)
    profile = _write(tmp_path / "p.env", cpu, "GEMMKIT_KC=384", "GEMMKIT_MC = 96 ",
                     "GEMMKIT_NC=2048")
    child = REPORT.replace("import json, gemmkit.tuning as t",
                           "import json, gemmkit.tuning as t\nt.set('GEMMKIT_KC', 200)")
    doc = run_json(["-c", child], clean_env(GEMMKIT_PROFILE=profile, GEMMKIT_MC="160"))
    knobs = doc["knobs"]
    assert doc["profile"]["status"] == "loaded", doc["profile"]
    assert knobs["GEMMKIT_KC"] == [200, "setter"]        # setter over profile
    assert knobs["GEMMKIT_MC"] == [160, "environment"]   # environment over profile
    assert knobs["GEMMKIT_NC"] == [2048, "profile"]      # profile over default
    assert knobs["GEMMKIT_INPLACE_RHS_MAX_N"] == [256, "default"]
    # reset() falls back to the profile, not the default.
    child = REPORT.replace("import json, gemmkit.tuning as t",
                           "import json, gemmkit.tuning as t\nt.set('kc', 200)\nt.reset('KC')")
    doc = run_json(["-c", child], clean_env(GEMMKIT_PROFILE=profile))
    assert doc["knobs"]["GEMMKIT_KC"] == [384, "profile"]
    assert doc["profile"]["values"] == {"GEMMKIT_KC": 384, "GEMMKIT_MC": 96, "GEMMKIT_NC": 2048}


def test_thread_count_argument_and_setter_beat_the_environment(tmp_path):
    # The thread count is never read from a profile (warned), and the
    # per-call step (a threads() block) and the setter beat the environment.
    cpu = _this_cpu(tmp_path)
    profile = _write(tmp_path / "p.env", cpu, "GEMMKIT_NUM_THREADS=3", "GEMMKIT_KC=256")
    child = r"""
import json, gemmkit
seen = [gemmkit.get_num_threads()]
with gemmkit.threads(1):
    seen.append(gemmkit.get_num_threads())
gemmkit.set_num_threads(2)
seen.append(gemmkit.get_num_threads())
print(json.dumps(seen))
"""
    proc = run_python(["-c", child], clean_env(GEMMKIT_PROFILE=profile, GEMMKIT_NUM_THREADS="4"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == [4, 1, 2]
    # Without the environment the count is the cores', not the profile's 3.
    child = ("import json, gemmkit, gemmkit.tuning as t\n"
             "print(json.dumps([t.get('KC'), gemmkit.dispatch_info()['threads_source']]))\n")
    proc = run_python(["-c", child], clean_env(GEMMKIT_PROFILE=profile))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == [256, "cores"]
    assert proc.stderr.count(
        "ignoring GEMMKIT_NUM_THREADS (the thread count is not read from a profile)") == 1


def test_default_path_under_xdg_config_home(tmp_path):
    cpu = _this_cpu(tmp_path)
    (tmp_path / "gemmkit").mkdir()
    _write(tmp_path / "gemmkit" / "profile.env", cpu, "GEMMKIT_KC=320")
    doc = run_json(["-c", REPORT], clean_env(XDG_CONFIG_HOME=str(tmp_path), GEMMKIT_PROFILE=None))
    assert doc["profile"]["path"] == str(tmp_path / "gemmkit" / "profile.env")
    assert doc["knobs"]["GEMMKIT_KC"] == [320, "profile"]
    # GEMMKIT_PROFILE set empty: no profile at all.
    doc = run_json(["-c", REPORT], clean_env(XDG_CONFIG_HOME=str(tmp_path), GEMMKIT_PROFILE=""))
    assert doc["profile"]["status"] == "none"
    assert doc["knobs"]["GEMMKIT_KC"] == [0, "default"]


def test_profile_for_another_cpu_is_ignored_with_one_warning(tmp_path):
    profile = _write(tmp_path / "p.env", "Some Other CPU|avx2|l1d=1,l2=2,l3=3", "GEMMKIT_KC=384",
                     "GEMMKIT_MC=oops", "no equals sign")
    child = ("import gemmkit, numpy as np\n"
             "gemmkit.matmul(np.ones((300, 300)), np.ones((300, 300)))\n" + REPORT)
    proc = run_python(["-c", child], clean_env(GEMMKIT_PROFILE=profile))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout.splitlines()[-1])
    assert doc["profile"]["status"] == "other_cpu"
    assert doc["profile"]["cpu"] == "Some Other CPU|avx2|l1d=1,l2=2,l3=3"
    assert doc["knobs"]["GEMMKIT_KC"] == [0, "default"]
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("gemmkit:")]
    assert len(warnings) == 1 and "ignoring profile" in warnings[0], proc.stderr
    assert "measured on cpu=Some Other CPU" in warnings[0]
    # No cpu= line at all: ignored too.
    profile = _write(tmp_path / "q.env", None, "GEMMKIT_KC=384")
    proc = run_python(["-c", REPORT], clean_env(GEMMKIT_PROFILE=profile))
    assert json.loads(proc.stdout.splitlines()[-1])["profile"]["status"] == "other_cpu"
    assert "it has no cpu= line" in proc.stderr


def test_malformed_lines_warn_once_and_are_ignored(tmp_path):
    cpu = _this_cpu(tmp_path)
    profile = _write(tmp_path / "p.env", cpu, "GEMMKIT_KC=abc", "just words", "GEMMKIT_NOPE=3",
                     "GEMMKIT_MC=-5", "GEMMKIT_NC=99999999999999999999", "",
                     "   # an indented comment", "GEMMKIT_INPLACE_RHS_MAX_N=64")
    child = REPORT + "import gemmkit.tuning as t\nt.knobs(); t.get('KC')\n"
    proc = run_python(["-c", child], clean_env(GEMMKIT_PROFILE=profile))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout.splitlines()[-1])
    knobs = doc["knobs"]
    assert doc["profile"]["status"] == "loaded"
    assert knobs["GEMMKIT_KC"] == [0, "default"]
    assert knobs["GEMMKIT_MC"] == [0, "default"]
    assert knobs["GEMMKIT_NC"] == [1 << 20, "profile"]  # clamped as the environment's are
    assert knobs["GEMMKIT_INPLACE_RHS_MAX_N"] == [64, "profile"]
    err = proc.stderr
    for needle in ("ignoring GEMMKIT_KC=abc in profile", "line 4: ignoring \"just words\"",
                   "ignoring GEMMKIT_NOPE (not a knob)", "ignoring GEMMKIT_MC=-5 in profile",
                   "GEMMKIT_NC=99999999999999999999 in profile"):
        assert err.count(needle) == 1, (needle, err)


def test_bad_names_and_values_raise():
    import gemmkit
    import gemmkit.tuning as t

    with pytest.raises(gemmkit.ArgumentError, match="unknown knob"):
        t.set("GEMMKIT_NOT_A_KNOB", 1)
    with pytest.raises(gemmkit.ArgumentError, match="unknown knob"):
        t.get("nope")
    with pytest.raises(gemmkit.ArgumentError, match="unknown knob"):
        t.reset("nope")
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(gemmkit.ArgumentError):
            t.set("GEMMKIT_KC", bad)
    with pytest.raises(gemmkit.ArgumentError):
        t.set(3, 1)
    try:
        t.set("GEMMKIT_KC", 2**70)  # clamped to the knob's range
        assert t.get("GEMMKIT_KC") == 1 << 20 and t.origin("kc") == "setter"
    finally:
        t.reset("GEMMKIT_KC")


CHECK = r"""
import json, numpy as np, gemmkit
rng = np.random.default_rng(1)
worst = 0.0
for dt, eps in (("float32", 2.0**-23), ("float64", 2.0**-52)):
    for m, n, k, fortran_b in ((257, 190, 300, False), (64, 33, 517, True), (1, 129, 65, False),
                               (500, 8, 700, False), (130, 300, 80, True)):
        a = rng.standard_normal((m, k)).astype(dt)
        b = rng.standard_normal((k, n)).astype(dt)
        if fortran_b:
            b = np.asfortranarray(b)
        want = a.astype(np.float64) @ b.astype(np.float64)
        bound = 4 * k * eps * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
        err = np.abs(gemmkit.matmul(a, b) - want)
        worst = max(worst, float(np.max(err / (bound + 1e-300))))
import gemmkit.tuning as t
print(json.dumps({"worst": worst, "origins": sorted({k["origin"] for k in t.knobs()})}))
"""


@pytest.mark.parametrize("values", [
    {"GEMMKIT_KC": 1, "GEMMKIT_MC": 1, "GEMMKIT_NC": 1},
    {"GEMMKIT_KC": 7, "GEMMKIT_MC": 5, "GEMMKIT_NC": 3, "GEMMKIT_INPLACE_LHS_MAX_N": 1 << 20,
     "GEMMKIT_INPLACE_RHS_MAX_N": 0, "GEMMKIT_PARALLEL_THRESHOLD": 0,
     "GEMMKIT_MNK_PER_WORKER": 1},
    {"GEMMKIT_KC": 1 << 20, "GEMMKIT_MC": 1 << 20, "GEMMKIT_NC": 1 << 20,
     "GEMMKIT_INPLACE_RHS_MAX_N": 1 << 20, "GEMMKIT_DEEP_KC_BYTES": 1,
     "GEMMKIT_GEMV_PARALLEL_BYTES": 0},
], ids=["ones", "odd", "huge"])
def test_gemms_stay_right_under_any_profile(tmp_path, values):
    cpu = _this_cpu(tmp_path)
    profile = _write(tmp_path / "p.env", cpu, *(f"{k}={v}" for k, v in values.items()))
    doc = run_json(["-c", CHECK], clean_env(GEMMKIT_PROFILE=profile, GEMMKIT_NUM_THREADS="2"))
    assert "profile" in doc["origins"]
    assert doc["worst"] <= 1.0, doc


def test_tuned_and_never_tuned_cover_the_registry_exactly():
    import gemmkit.tune as tune
    import gemmkit.tuning as t

    swept, never = set(tune.SWEPT), set(tune.NEVER_SWEPT)
    assert not swept & never
    assert swept | never == {k["name"] for k in t.knobs()}
    for name, sweep in tune.SWEPT.items():
        default = next(k["default"] for k in t.knobs() if k["name"] == name)
        assert default in sweep.candidates, name
        assert sweep.quick and default in sweep.quick[0], name


def test_quick_dry_run_prints_the_table(tmp_path):
    out = tmp_path / "never.env"
    proc = run_python(["-m", "gemmkit.tune", "--quick", "--dry-run", "--out", str(out)],
                      clean_env(GEMMKIT_PROFILE=""), timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "knob" in text and "candidates" in text and "vs default" in text and "spread" in text
    import gemmkit.tune as tune

    for name in tune.SWEPT:
        assert any(line.startswith(name) for line in text.splitlines()), name
    for name in tune.NEVER_SWEPT:
        assert f"  {name}: " in text, name
    assert "host: " in text and "L2 " in text
    assert "wrong result" not in text  # a new summation order is not an error
    assert not out.exists()


def test_quick_run_writes_a_profile_a_new_process_reads(tmp_path):
    out = tmp_path / "sub" / "profile.env"
    proc = run_python(["-m", "gemmkit.tune", "--quick", "--dtypes", "float64", "--out", str(out)],
                      clean_env(GEMMKIT_PROFILE=""), timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith("# gemmkit ")
    assert f"cpu={_this_cpu(tmp_path)}\n" in text
    doc = run_json(["-c", REPORT], clean_env(GEMMKIT_PROFILE=str(out)))
    assert doc["profile"]["status"] == "loaded"
    written = dict(line.split("=", 1) for line in text.splitlines()
                   if line.startswith("GEMMKIT_"))
    assert written and "GEMMKIT_KC" in written
    for name, value in written.items():
        assert doc["knobs"][name] == [int(value), "profile"], name
    # What a process reads from it still computes right.
    check = run_json(["-c", CHECK], clean_env(GEMMKIT_PROFILE=str(out)))
    assert check["worst"] <= 1.0


def test_tuner_rejects_bad_arguments():
    proc = run_python(["-m", "gemmkit.tune", "--dtypes", "int8", "--dry-run"], clean_env())
    assert proc.returncode == 2 and "--dtypes" in proc.stderr
