"""Native suite: worker threads and calls from several Python threads.

Results must be bit-identical for every worker count (the partition never
splits k), the thread count must follow its order (set_num_threads or a
threads() block > GEMMKIT_NUM_THREADS > OMP_NUM_THREADS > the CPUs available
to the process) and report where it came from, concurrent calls from Python
threads must not interfere, and a GEMM must release the GIL.
"""

import json
import os
import threading
import time

import pytest

np = pytest.importorskip("numpy", reason="numpy is not installed")

import gemmkit  # noqa: E402
from apihelpers import assert_gemm_close, np_layout, rand  # noqa: E402
from nativehelpers import clean_env, run_json, run_python  # noqa: E402

# Shapes large enough to go parallel, including skinny ones that a
# partitioner might be tempted to split along k.
PARALLEL_SHAPES = [(300, 700, 500), (1000, 1000, 64), (64, 64, 16384), (1, 4096, 2048),
                   (2048, 1, 2048), (517, 3, 1200)]


def _bits(x):
    return x.view(np.uint32 if x.dtype == np.float32 else np.uint64)


@pytest.fixture
def restore_threads():
    before = gemmkit.get_num_threads()
    yield
    gemmkit.set_num_threads(before)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m, n, k", PARALLEL_SHAPES, ids=str)
def test_thread_count_invariance(dtype, m, n, k, restore_threads):
    rng = np.random.default_rng(m + n + k)
    a = np_layout(rand(rng, (m, k), dtype), "C" if m % 2 else "F")
    b = np_layout(rand(rng, (k, n), dtype), "T")
    c = rand(rng, (m, n), dtype)
    results = {}
    for threads in (1, 2, 3):
        gemmkit.set_num_threads(threads)
        assert gemmkit.get_num_threads() == threads
        results[threads] = gemmkit.gemm(a, b, c, alpha=0.75, beta=-0.5)
    assert_gemm_close(results[1], a, b, c, 0.75, -0.5)
    for threads in (2, 3):
        same = np.array_equal(_bits(results[1]), _bits(results[threads]))
        assert same, f"{threads} threads differ bitwise from 1 thread"


def test_set_num_threads_reported(restore_threads):
    gemmkit.set_num_threads(3)
    assert gemmkit.get_num_threads() == 3
    assert gemmkit.dispatch_info()["threads"] == 3
    gemmkit.set_num_threads(1)
    assert gemmkit.get_num_threads() == 1


_ENV_SCRIPT = """
import hashlib, json, os, sys
if len(sys.argv) > 1:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
import numpy as np, gemmkit
rng = np.random.default_rng(7)
a = rng.uniform(-1, 1, (300, 700)); b = rng.uniform(-1, 1, (700, 500))
r64 = gemmkit.gemm(a, b)
r32 = gemmkit.gemm(a.astype(np.float32), b.astype(np.float32))
info = gemmkit.dispatch_info()
threads, source = gemmkit.get_num_threads(), info["threads_source"]
gemmkit.set_num_threads(0)  # back to the default: the environment's count again
print(json.dumps({"threads": threads,
                  "info_threads": info["threads"],
                  "source": source,
                  "after_reset": [gemmkit.get_num_threads(),
                                  gemmkit.dispatch_info()["threads_source"]],
                  "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                          else os.cpu_count(),
                  "digest": hashlib.sha256(r64.tobytes() + r32.tobytes()).hexdigest()}))
"""


def _env(**updates):
    # OMP_NUM_THREADS is part of gemmkit's order: the parent's must not leak in.
    return clean_env(**{"OMP_NUM_THREADS": None, **updates})


def test_env_num_threads():
    reports = {}
    for value in ("1", "2", "3"):
        reports[value] = run_json(["-c", _ENV_SCRIPT], _env(GEMMKIT_NUM_THREADS=value))
        assert reports[value]["source"] == "GEMMKIT_NUM_THREADS"
        assert reports[value]["after_reset"] == [int(value), "GEMMKIT_NUM_THREADS"]
        assert reports[value]["threads"] == int(value)
        assert reports[value]["info_threads"] == int(value)
    digests = {r["digest"] for r in reports.values()}
    assert len(digests) == 1, "results depend on GEMMKIT_NUM_THREADS"


def test_default_threads_follow_affinity():
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("os.sched_getaffinity is not available on this platform")
    report = run_json(["-c", _ENV_SCRIPT], _env())
    assert report["threads"] == report["cpus"] == len(os.sched_getaffinity(0))
    assert report["source"] == "cores"
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("a single CPU: restricting affinity changes nothing")
    report = run_json(["-c", _ENV_SCRIPT, "pin-to-one-cpu"], _env())
    assert report["cpus"] == 1
    assert report["threads"] == 1, "default thread count ignores the process's CPU affinity"


def _cores():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


# (environment, expected count, expected source); None = the cores.
_ORDER_CASES = {
    "omp": ({"OMP_NUM_THREADS": "3"}, 3, "OMP_NUM_THREADS"),
    "omp-list": ({"OMP_NUM_THREADS": "3,2"}, 3, "OMP_NUM_THREADS"),
    "omp-list-blanks": ({"OMP_NUM_THREADS": " 1 , 4,2 "}, 1, "OMP_NUM_THREADS"),
    "omp-above-range": ({"OMP_NUM_THREADS": "5000"}, 1024, "OMP_NUM_THREADS"),
    "omp-empty": ({"OMP_NUM_THREADS": ""}, None, "cores"),
    "omp-zero": ({"OMP_NUM_THREADS": "0"}, None, "cores"),
    "omp-negative": ({"OMP_NUM_THREADS": "-2"}, None, "cores"),
    "omp-word": ({"OMP_NUM_THREADS": "four"}, None, "cores"),
    "omp-fraction": ({"OMP_NUM_THREADS": "2.5"}, None, "cores"),
    "omp-trailing-comma": ({"OMP_NUM_THREADS": "3,"}, None, "cores"),
    "omp-bad-second-entry": ({"OMP_NUM_THREADS": "3,x"}, None, "cores"),
    "gemmkit-over-omp": ({"GEMMKIT_NUM_THREADS": "2", "OMP_NUM_THREADS": "3"}, 2,
                         "GEMMKIT_NUM_THREADS"),
    # GEMMKIT_NUM_THREADS=0 asks for the cores, whatever OMP_NUM_THREADS says.
    "gemmkit-zero-over-omp": ({"GEMMKIT_NUM_THREADS": "0", "OMP_NUM_THREADS": "3"}, None,
                              "GEMMKIT_NUM_THREADS"),
    # A malformed GEMMKIT_NUM_THREADS is warned about and counts as unset.
    "gemmkit-malformed": ({"GEMMKIT_NUM_THREADS": "lots", "OMP_NUM_THREADS": "3"}, 3,
                          "OMP_NUM_THREADS"),
}


@pytest.fixture(scope="module")
def serial_digest():
    return run_json(["-c", _ENV_SCRIPT], _env(GEMMKIT_NUM_THREADS="1"))["digest"]


@pytest.mark.parametrize("case", list(_ORDER_CASES))
def test_thread_count_order(case, serial_digest):
    updates, want, source = _ORDER_CASES[case]
    proc = run_python(["-c", _ENV_SCRIPT], _env(**updates))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    want = _cores() if want is None else want
    assert (report["threads"], report["source"]) == (want, source)
    assert report["info_threads"] == want
    assert report["after_reset"] == [want, source], "set_num_threads(0) is not the default"
    # gemmkit warns about its own variable only: OMP_NUM_THREADS is other
    # libraries' too, so a value they would accept is never refused here.
    malformed = updates.get("GEMMKIT_NUM_THREADS") == "lots"
    assert ("GEMMKIT_NUM_THREADS=lots" in proc.stderr) == malformed, proc.stderr
    assert "OMP_NUM_THREADS" not in proc.stderr, proc.stderr
    assert report["digest"] == serial_digest, "results depend on the thread count"


def test_setter_and_threads_block_over_the_environment():
    script = """
import json, gemmkit
out = {"default": [gemmkit.get_num_threads(), gemmkit.dispatch_info()["threads_source"]]}
with gemmkit.threads(2):
    out["block"] = [gemmkit.get_num_threads(), gemmkit.dispatch_info()["threads_source"]]
out["after_block"] = [gemmkit.get_num_threads(), gemmkit.dispatch_info()["threads_source"]]
gemmkit.set_num_threads(1)
out["set"] = [gemmkit.get_num_threads(), gemmkit.dispatch_info()["threads_source"]]
print(json.dumps(out))
"""
    for env, source in (({"GEMMKIT_NUM_THREADS": "3", "OMP_NUM_THREADS": "4"},
                         "GEMMKIT_NUM_THREADS"),
                        ({"OMP_NUM_THREADS": "4"}, "OMP_NUM_THREADS")):
        report = run_json(["-c", script], _env(**env))
        want = int(env.get("GEMMKIT_NUM_THREADS", env["OMP_NUM_THREADS"]))
        assert report["default"] == [want, source]
        assert report["block"] == [2, "set_num_threads"]
        assert report["after_block"] == [want, source]
        assert report["set"] == [1, "set_num_threads"]


def test_threads_block_bit_identical(restore_threads):
    rng = np.random.default_rng(21)
    for dtype in ("float32", "float64"):
        for m, n, k in PARALLEL_SHAPES[:3]:
            a = rand(rng, (m, k), dtype)
            b = np_layout(rand(rng, (k, n), dtype), "F")
            gemmkit.set_num_threads(0)
            default = gemmkit.gemm(a, b)
            with gemmkit.threads(1):
                one = gemmkit.gemm(a, b)
            with gemmkit.threads(3):
                three = gemmkit.gemm(a, b)
            assert np.array_equal(_bits(default), _bits(one)), (dtype, m, n, k)
            assert np.array_equal(_bits(default), _bits(three)), (dtype, m, n, k)


def test_concurrent_python_threads():
    # Four Python threads, each with its own operands and output, several
    # calls each; every result must equal the serial result bit for bit.
    jobs = []
    for t in range(4):
        rng = np.random.default_rng(100 + t)
        dtype = ("float32", "float64")[t % 2]
        m, n, k = 150 + 37 * t, 260 - 21 * t, 300 + 11 * t
        a = rand(rng, (m, k), dtype)
        b = np_layout(rand(rng, (k, n), dtype), "F")
        c = rand(rng, (m, n), dtype)
        jobs.append((a, b, c, gemmkit.gemm(a, b, c, alpha=1.5, beta=0.5)))
    errors = []
    barrier = threading.Barrier(len(jobs))

    def worker(job):
        a, b, c, expected = job
        try:
            barrier.wait()
            for _ in range(6):
                out = np.empty_like(expected)
                gemmkit.gemm(a, b, c, alpha=1.5, beta=0.5, out=out)
                if not np.array_equal(_bits(out), _bits(expected)):
                    errors.append("result differs from the serial one")
        except Exception as exc:  # surfaced below
            errors.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(job,)) for job in jobs]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "a gemm call hung"
    assert not errors, errors[:3]
    for a, b, c, expected in jobs:
        assert_gemm_close(expected, a, b, c, 1.5, 0.5)


def test_gemm_releases_the_gil(restore_threads):
    # A pure-Python counter thread must keep running while a long GEMM
    # computes.  If the GIL were held for the whole call the counter would
    # advance only during the few milliseconds around it.
    gemmkit.set_num_threads(1)
    n = 1200
    rng = np.random.default_rng(3)
    a = rng.uniform(size=(n, n))
    b = rng.uniform(size=(n, n))
    gemmkit.gemm(a, b)  # warm up (pool, workspace)

    def count_for(seconds):
        count = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            count += 1
        return count

    solo_rate = count_for(0.2) / 0.2
    state = {"stop": False, "count": 0}

    def counter():
        while not state["stop"]:
            state["count"] += 1

    th = threading.Thread(target=counter)
    th.start()
    try:
        time.sleep(0.02)
        t0 = time.perf_counter()
        c0 = state["count"]
        for _ in range(20):
            gemmkit.gemm(a, b)
            if time.perf_counter() - t0 > 0.5:
                break
        elapsed = time.perf_counter() - t0
        progressed = state["count"] - c0
    finally:
        state["stop"] = True
        th.join()
    # The counter loop is lighter than count_for's (no clock call), so with
    # the GIL released it runs well above this floor; held, it gets ~1%.
    assert elapsed > 0.2, f"GEMMs too short to measure ({elapsed:.3f}s)"
    assert progressed > 0.2 * solo_rate * elapsed, (
        f"counter advanced {progressed} times in {elapsed:.2f}s of GEMM "
        f"(solo rate {solo_rate:.0f}/s): is the GIL held during compute?"
    )


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available on this platform")
# Python >= 3.12 warns that forking a multi-threaded process is risky: that
# risk is exactly what this test checks gemmkit handles.
@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")
def test_parallel_gemm_after_fork(restore_threads):
    # The child of a fork has none of the parent's pool threads; a pool that
    # believed in them would deadlock on the first parallel GEMM.
    rng = np.random.default_rng(11)
    a = rand(rng, (600, 500), np.float64)
    b = rand(rng, (500, 700), np.float64)
    gemmkit.set_num_threads(2)
    expected = gemmkit.matmul(a, b)  # the parent's pool is now running
    pid = os.fork()
    if pid == 0:  # child: the exit status carries the verdict
        code = 4
        try:
            code = 0 if np.array_equal(gemmkit.matmul(a, b), expected) else 3
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("parallel GEMM in a forked child hung (pool not reset after fork)")
    assert os.waitstatus_to_exitcode(status) == 0
