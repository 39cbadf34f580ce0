"""The main job, `python -m gemmkit`: its exit codes (0 ok, 1 a result disagrees with numpy, 2 usage
errors only, 3 a pin that cannot run), a --help a newcomer can follow, --json output that is one JSON
document, the direction of each ratio in words, the trust judgement (a machine kept busy by other
processes marks every ratio untrustworthy; no /proc/stat degrades to "unknown"), and that
benchmarks/native measure with the very same code (gemmkit._bench)."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import gemmkit
import gemmkit.__main__ as main_job
import pytest
from gemmkit import _bench
from nativehelpers import ALL_ISAS, REPO_ROOT, clean_env

np = pytest.importorskip("numpy", reason="numpy is not installed")

QUICK_SHAPES = ["64x64x64", "256x256x256"]
POINT_FIELDS = {
    "shape": str,
    "m": int,
    "n": int,
    "k": int,
    "dtype": str,
    "gemmkit_gflops": float,
    "numpy_gflops": float,
    "ratio": float,
    "direction": str,
    "verdict": str,
    "samples": int,
    "trustworthy": bool,
    "untrustworthy_because": list,
    "correct": bool,
    "check": str,
}
# Loose enough that no load or spread on any machine trips them (load is at most 100% of the
# cores; the spread of a ratio is its interquartile range over its median).
NEVER_UNTRUSTWORTHY = ["--max-load", "1000", "--max-spread", "100000"]


def _run(*args, env_extra=None, timeout=300):
    # From / so that the installed package runs, as a user's would; argparse wraps its help
    # to COLUMNS.
    return subprocess.run(
        [sys.executable, "-m", "gemmkit", *args],
        capture_output=True,
        text=True,
        env=clean_env(COLUMNS="80", **(env_extra or {})),
        timeout=timeout,
        cwd="/",
        check=False,
    )


def _proc_stat_readable():
    return not math.isnan(_bench.cpu_seconds()[0])


@pytest.fixture(scope="module")
def quick_json():
    run = _run("--quick", "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(run.stdout)  # the whole of stdout: nothing else is printed there


# --------------------------------------------------------------------------
# exit codes


def test_quick_text_run_succeeds_and_says_units_direction_check_and_trust():
    run = _run("--quick")
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    info = gemmkit.dispatch_info()
    for dtype in ("float32", "float64"):
        assert info[dtype]["kernel"] in out  # the dispatch table
    assert "GFLOP/s" in out and "higher is faster" in out
    assert "above 1, gemmkit is faster" in out
    rows = [
        line for line in out.splitlines() if line.split()[:1] and line.split()[0] in QUICK_SHAPES
    ]
    assert len(rows) == 4, out
    for row in rows:
        assert ("gemmkit is" in row) or ("numpy is" in row) or ("about the same" in row), row
        assert " ok " in row, row  # the check column
        assert row.rstrip().endswith("ok") or "UNTRUSTWORTHY [" in row, row
    # Every untrustworthy row has its numbered reason below the table.
    for i in range(1, out.count("UNTRUSTWORTHY [") + 1):
        note = out.split(f"\n[{i}] ", 1)[1].split("\n[", 1)[0]
        assert "other processes used" in note or "its samples disagree" in note, note
    assert "All 4 results agree with numpy." in out
    assert "MISMATCH" not in out and "DISAGREE" not in out
    # threadpoolctl (a test requirement) names numpy's BLAS.
    assert "install threadpoolctl" not in out


def test_a_result_that_disagrees_with_numpy_exits_1(monkeypatch):
    monkeypatch.setattr(_bench, "within_rounding_bound", lambda got, a, b: False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main_job.main(["--quick", "--sizes", "8", *NEVER_UNTRUSTWORTHY])
    assert status == 1
    assert "MISMATCH" in out.getvalue() and "2 of 2 results DISAGREE with numpy" in out.getvalue()


def test_the_rounding_bound_accepts_an_exact_product_and_refuses_a_wrong_one():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 300), dtype=np.float32)
    b = rng.standard_normal((300, 8), dtype=np.float32)
    good = gemmkit.matmul(a, b)
    assert _bench.within_rounding_bound(good, a, b)
    bad = good.copy()
    bad[3, 5] += 1e-2 * abs(bad[3, 5]) + 1e-3
    assert not _bench.within_rounding_bound(bad, a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "float16", "uint16"])
@pytest.mark.parametrize("shape", [(1,), (7,), (33, 5), (3, 4, 5)])
def test_aligned_copies_start_on_64_bytes_with_the_same_values(dtype, shape):
    x = (np.arange(math.prod(shape)) % 100).astype(dtype).reshape(shape)[...]
    for offset in (0, 1, 3):  # sources at other alignments too
        src = np.empty(x.size + offset, dtype)[offset:].reshape(shape)
        src[...] = x
        got = _bench.aligned(src)
        assert got.ctypes.data % 64 == 0
        assert got.dtype == x.dtype and got.shape == x.shape
        assert np.array_equal(got, x)
        assert not np.shares_memory(got, src)


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["--sizes", "0"],
        ["--sizes", "12x"],
        ["--sizes", ","],
        ["--threads", "0"],
        ["--threads", "two"],
        ["--max-load", "-1"],
        ["--max-spread", "nan"],
        ["extra"],
    ],
)
def test_usage_errors_exit_2_and_print_nothing_on_stdout(args):
    run = _run(*args)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout == ""
    assert "usage: python -m gemmkit" in run.stderr and "error:" in run.stderr


def test_an_unknown_pin_exits_3_with_the_message():
    # An unknown value refuses on every architecture.
    run = _run("--quick", env_extra={"GEMMKIT_REQUIRE_ISA": "nonsense"})
    assert run.returncode == 3, run.stdout + run.stderr
    assert "unknown value 'nonsense'" in run.stderr


def test_an_unknown_pin_with_json_prints_the_error_as_json():
    run = _run("--quick", "--json", env_extra={"GEMMKIT_REQUIRE_ISA": "nonsense"})
    assert run.returncode == 3, run.stdout + run.stderr
    doc = json.loads(run.stdout)
    assert doc["exit_status"] == 3 and "unknown value 'nonsense'" in doc["error"]


def test_a_pin_this_machine_lacks_exits_3():
    # The registry spans architectures (neon, simd128, ...): some ISA never runs here.
    lacking = [isa for isa in ALL_ISAS if isa not in gemmkit.available_isas()]
    assert lacking, "every registry ISA runs here: the registry lost its other architectures"
    run = _run("--quick", env_extra={"GEMMKIT_REQUIRE_ISA": lacking[0]})
    assert run.returncode == 3, run.stdout + run.stderr
    assert lacking[0] in run.stderr.lower()
    assert "Traceback" not in run.stderr


# --------------------------------------------------------------------------
# --help, words, grammar


def test_help_says_what_it_does_with_options_examples_and_exit_codes():
    run = _run("--help")
    assert run.returncode == 0, run.stderr
    text = run.stdout
    assert "Shows what gemmkit runs on this machine and how fast" in text
    assert "GFLOP/s" in text and "UNTRUSTWORTHY" in text
    for option in (
        "--quick",
        "--sizes",
        "--threads",
        "--json",
        "--no-bench",
        "--max-load",
        "--max-spread",
    ):
        assert option in text
    assert "examples:" in text
    assert "\n  python -m gemmkit --quick\n" in text
    assert "GEMMKIT_REQUIRE_ISA=fma python -m gemmkit" in text
    exits = text.split("exit status:", 1)[1]
    for code, words in (
        (0, "success"),
        (1, "disagreed with numpy"),
        (2, "usage error"),
        (3, "GEMMKIT_REQUIRE_ISA"),
    ):
        line = next(ln for ln in exits.splitlines() if ln.startswith(f"  {code}  "))
        assert words in line, line
    assert max(len(line) for line in text.splitlines()) <= 80


@pytest.mark.parametrize(
    "ratio, words",
    [
        (1.8, "gemmkit is 1.80x faster than numpy"),
        (0.5, "numpy is 2.00x faster than gemmkit"),
        (0.7, "numpy is 1.43x faster than gemmkit"),
        (1.04, "about the same speed"),
        (0.96, "about the same speed"),
    ],
)
def test_direction_in_words(ratio, words):
    assert main_job.direction(ratio)[1].startswith(words)


def test_json_direction_words_agree_with_the_ratio(quick_json):
    for p in quick_json["benchmark"]["points"]:
        assert math.isclose(p["ratio"], p["gemmkit_gflops"] / p["numpy_gflops"], rel_tol=1e-9)
        if p["ratio"] > 1.05:
            assert p["direction"] == "gemmkit faster", p
            assert p["verdict"] == f"gemmkit is {p['ratio']:.2f}x faster than numpy", p
        elif p["ratio"] < 0.95:
            assert p["direction"] == "numpy faster", p
            assert p["verdict"] == f"numpy is {1 / p['ratio']:.2f}x faster than gemmkit", p
        else:
            assert p["direction"] == "about the same", p


def test_one_thread_is_singular():
    run = _run("--quick", "--sizes", "64", "--threads", "1", *NEVER_UNTRUSTWORTHY)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "\n  gemmkit: 1 thread\n" in run.stdout
    assert "1 thread)" in run.stdout  # numpy's BLAS, limited through threadpoolctl
    assert "1 threads" not in run.stdout
    assert re.search(r"^threads: +1( \(source: [^)]*\))?$", run.stdout, re.MULTILINE), run.stdout
    # Thresholds no machine reaches: every ratio trusted, and it says so.
    assert "UNTRUSTWORTHY" not in run.stdout
    assert (
        "Every ratio is within the limits: other processes' load below 1000% of the cores, "
        "spread at most 100000%." in " ".join(run.stdout.split())
    )


def test_plural():
    assert [main_job.plural(n, "core") for n in (0, 1, 2)] == ["0 cores", "1 core", "2 cores"]


# --------------------------------------------------------------------------
# --json


def test_json_schema(quick_json):
    doc = quick_json
    assert set(doc) == {"gemmkit", "machine", "dispatch_info", "benchmark", "notes", "exit_status"}
    assert doc["gemmkit"] == gemmkit.__version__ and doc["exit_status"] == 0
    assert doc["machine"]["cores"] == _bench.cores()
    info = gemmkit.dispatch_info()
    assert doc["dispatch_info"]["float32"] == info["float32"]
    assert doc["dispatch_info"]["available_isas"] == info["available_isas"]
    bench = doc["benchmark"]
    assert bench["gemmkit_threads"] == gemmkit.get_num_threads()
    assert bench["numpy"]["version"] == np.__version__
    assert bench["numpy"]["blas"] and bench["numpy"]["blas"][0]["internal_api"]
    assert bench["method"]["load_measured"] == _proc_stat_readable()
    points = bench["points"]
    assert [(p["shape"], p["dtype"]) for p in points] == [
        (s, d) for s in QUICK_SHAPES for d in ("float32", "float64")
    ]
    for p in points:
        for field, kind in POINT_FIELDS.items():
            assert isinstance(p[field], kind), (field, p)
        assert p["gemmkit_gflops"] > 0 and p["numpy_gflops"] > 0
        assert p["correct"] and p["check"] == "ok"
        assert p["samples"] >= main_job.MIN_SAMPLES
        assert p["trustworthy"] == (not p["untrustworthy_because"])
        assert isinstance(p["spread_percent"], float)
        if _proc_stat_readable():
            # At most every core of the machine (and a few clock ticks of rounding).
            assert 0.0 <= p["other_load_percent"] <= 100.0 * os.cpu_count() / _bench.cores() + 10
    assert bench["mismatches"] == 0
    assert bench["untrustworthy"] == sum(not p["trustworthy"] for p in points)


def test_no_bench_json_has_the_dispatch_and_no_benchmark():
    run = _run("--no-bench", "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["benchmark"] is None
    assert doc["dispatch_info"]["float64"] == gemmkit.dispatch_info()["float64"]


# --------------------------------------------------------------------------
# trust


def test_the_reasons_for_distrust():
    judge = main_job.untrustworthy_reasons
    assert judge(0.05, 0.02, 2, 15.0, 10.0) == []
    (load,) = judge(0.5, 0.02, 2, 15.0, 10.0)
    assert load.startswith("other processes used 50% of the 2 cores") and "limit 15%" in load
    (spread,) = judge(0.05, 0.3, 2, 15.0, 10.0)
    assert "spread 30%" in spread and "limit 10%" in spread
    assert len(judge(0.5, 0.3, 1, 15.0, 10.0)) == 2
    assert judge(math.nan, 0.02, 2, 15.0, 10.0) == []  # an unknown load alone is no reason
    (few,) = judge(0.0, math.nan, 2, 15.0, 10.0)
    assert "too few samples" in few
    assert "of the 1 core " in judge(0.5, 0.0, 1, 15.0, 10.0)[0]


def test_ratio_spread():
    assert _bench.ratio_spread([1.0] * 5, [2.0] * 5) == 0.0
    # Ratios 1..5: quartiles 2 and 4, median 3.
    assert math.isclose(_bench.ratio_spread([1.0] * 5, [1.0, 2.0, 3.0, 4.0, 5.0]), 2.0 / 3.0)
    assert math.isnan(_bench.ratio_spread([1.0], [1.0]))


def test_a_busy_machine_marks_every_ratio_untrustworthy():
    if not _proc_stat_readable():
        pytest.skip("no /proc/stat: this platform cannot tell other processes' load")
    # Two CPU burners per core: whatever the scheduler does, other processes hold well over half
    # the cores (4 burners against the job's 2 threads on 2 cores get ~67%), far above the 15%
    # that marks a ratio.
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(2 * _bench.cores())
    ]
    try:
        time.sleep(0.3)
        with _bench.OtherLoad() as before:
            time.sleep(0.5)
        assert before.share >= 0.5, f"the burners used only {before.share:.0%} of the cores"
        run = _run("--quick", "--json")
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()
    assert run.returncode == 0, run.stdout + run.stderr
    points = json.loads(run.stdout)["benchmark"]["points"]
    assert len(points) == 4
    for p in points:
        assert not p["trustworthy"], p
        assert p["other_load_percent"] >= main_job.MAX_LOAD_PERCENT, p
        assert any(r.startswith("other processes used") for r in p["untrustworthy_because"]), p


def test_without_proc_stat_the_load_is_unknown_not_an_error(monkeypatch):
    # As under Pyodide, macOS or Windows: no /proc/stat.
    monkeypatch.setattr(_bench, "PROC_STAT", "/nonexistent/stat")
    assert math.isnan(_bench.cpu_seconds()[0])
    with _bench.OtherLoad() as load:
        pass
    assert not load.known and math.isnan(load.share) and not _bench.disturbed(load.cores)
    t0 = time.perf_counter()
    assert math.isnan(_bench.wait_quiet(5.0))
    assert time.perf_counter() - t0 < 1.0  # no waiting for what cannot be measured
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main_job.main(["--quick", "--sizes", "32", "--json", "--max-spread", "100000"])
    assert status == 0
    doc = json.loads(out.getvalue())
    assert doc["benchmark"]["method"]["load_measured"] is False
    assert any("cannot be measured" in note for note in doc["notes"])
    for p in doc["benchmark"]["points"]:
        assert p["other_load_percent"] is None and p["trustworthy"], p


# --------------------------------------------------------------------------
# one implementation


def test_benchmarks_and_the_main_job_share_the_measurement_core():
    # Every function and class of gemmkit._bench exists there only: a benchmark (or the main job)
    # that defines its own cpu_seconds, time_alternating, ... has forked the method.
    core = {
        node.name
        for node in ast.parse(Path(_bench.__file__).read_text()).body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }
    assert {
        "time_interleaved",
        "time_alternating",
        "cpu_seconds",
        "other_cpu",
        "OtherLoad",
        "wait_quiet",
        "ratio_spread",
        "within_rounding_bound",
    } <= core
    files = sorted((REPO_ROOT / "benchmarks" / "native").glob("bench_*.py"))
    assert {f.name for f in files} >= {
        "bench_gemm.py",
        "bench_door.py",
        "bench_dtypes.py",
        "bench_mixed.py",
    }
    files.append(REPO_ROOT / "python" / "gemmkit" / "__main__.py")
    for path in files:
        tree = ast.parse(path.read_text())
        defined = {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))
        }
        assert not defined & core, f"{path.name} defines its own {sorted(defined & core)}"
        imports_core = any(
            isinstance(node, ast.ImportFrom)
            and (
                node.module == "gemmkit._bench"
                or (node.module == "gemmkit" and any(a.name == "_bench" for a in node.names))
            )
            for node in ast.walk(tree)
        )
        assert imports_core, f"{path.name} does not measure with gemmkit._bench"
