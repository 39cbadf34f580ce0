"""Memory a call may take beyond its operands: a strided right-hand vector
is read in place (axpy form) or copied piece by piece (dot form), never
whole.  A zero-stride float64 B of 2**27 rows once cost 1 GiB of RSS."""

from __future__ import annotations

import json
import sys

import pytest

from nativehelpers import clean_env, run_python

pytest.importorskip("numpy", reason="numpy is not installed")

CHILD = r"""
import json, resource
import numpy as np, gemmkit
as_strided = np.lib.stride_tricks.as_strided
k = 2**27
one = np.ones(1)
b = as_strided(one, shape=(k, 1), strides=(0, 0))
gemmkit.gemm(np.ones((2, 4)), np.ones((4, 1)))  # everything loaded first
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
row = as_strided(one, shape=(1, k), strides=(0, 0))        # the dot form
rows = as_strided(one, shape=(3, k), strides=(0, 0))       # also the dot form
cols = as_strided(np.ones(8), shape=(8, k), strides=(8, 0))  # the axpy form
got = [float(gemmkit.gemm(x, b)[0, 0]) for x in (row, rows, cols)]
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024
print(json.dumps({"got": got, "grown_mib": grown}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="reads peak RSS from resource.getrusage, in KiB on Linux only "
                           "(bytes on macOS; no resource module on Windows)")
def test_strided_vector_is_never_copied_whole():
    proc = run_python(["-c", CHILD], clean_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["got"] == [2.0**27] * 3, out
    assert out["grown_mib"] < 64, out
