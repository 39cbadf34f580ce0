"""The worker pool when the system refuses threads: the call still gives the
right result (with the threads there are), raises nothing, and the next call
once threads can be made again uses them (nothing stays degraded).  Seen
before: a bare RuntimeError('Resource temporarily unavailable') and one
thread for the rest of the process."""

from __future__ import annotations

import json
import sys

import pytest

from nativehelpers import clean_env, run_python

pytest.importorskip("numpy", reason="numpy is not installed")

CHILD = r"""
import json, os, resource
import numpy as np, gemmkit

def threads():
    return len(os.listdir("/proc/self/task"))

rng = np.random.default_rng(0)
a = rng.integers(-3, 4, (600, 700)).astype(np.float64)
b = rng.integers(-3, 4, (700, 500)).astype(np.float64)
want = a @ b
gemmkit.gemm(a[:8, :8], b[:8, :8])  # load everything before the cap
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
with open("/proc/self/statm") as f:
    vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
# Room for the workspace and a few thread stacks (8 MiB each), not 63.
resource.setrlimit(resource.RLIMIT_AS, (vm + (200 << 20), hard))
capped_ok = bool(np.array_equal(gemmkit.gemm(a, b), want))
capped_threads = threads()
resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
again_ok = bool(np.array_equal(gemmkit.gemm(a, b), want))
print(json.dumps({"capped_ok": capped_ok, "capped_threads": capped_threads,
                  "again_ok": again_ok, "again_threads": threads()}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="caps threads with RLIMIT_AS and counts them in /proc/self/task (Linux only)")
def test_refused_threads_neither_fail_nor_degrade():
    proc = run_python(["-c", CHILD], clean_env(GEMMKIT_NUM_THREADS="64",
                                               GEMMKIT_MNK_PER_WORKER="1000"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["capped_ok"] and got["again_ok"], got
    assert got["capped_threads"] < 64, got  # the cap did refuse threads
    assert got["again_threads"] >= 64, got  # and the pool grew once it could
