"""Knobs out of their range are clamped with a warning, never a crash or a
wrong answer: GEMMKIT_KC/MC/NC at 2**63 - 1 once ended in a division by zero
(KC, MC) or left C unwritten (NC) in the blocking arithmetic."""

from __future__ import annotations

import json

import pytest

from nativehelpers import clean_env, run_python

pytest.importorskip("numpy", reason="numpy is not installed")

CHILD = r"""
import json, numpy as np, gemmkit
rng = np.random.default_rng(0)
ok = {}
for dt in ("float32", "float64", "float16", "int8"):
    a = rng.integers(-3, 4, (257, 300)).astype(dt)
    b = rng.integers(-3, 4, (300, 190)).astype(dt)
    want = a.astype(np.int64) @ b.astype(np.int64)
    got = gemmkit.gemm(a, b, out_dtype=np.float32 if dt == "float16" else None)
    ok[dt] = bool(np.array_equal(got.astype(np.int64), want))
x = rng.standard_normal((3, 200, 300))
y = rng.standard_normal((300, 150))
ok["batched"] = bool(np.allclose(gemmkit.matmul(x, y), x @ y))
print(json.dumps(ok))
"""


@pytest.mark.parametrize("knob", ["GEMMKIT_KC", "GEMMKIT_MC", "GEMMKIT_NC"])
@pytest.mark.parametrize("value", [str(2**63 - 1), str(2**64 - 1), "99999999999999999999999"])
def test_huge_blocking_knobs_are_clamped(knob, value):
    proc = run_python(["-c", CHILD], clean_env(**{knob: value}))
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got == {"float32": True, "float64": True, "float16": True, "int8": True,
                   "batched": True}, got
    assert f"gemmkit: {knob}={value} is above its range; using 1048576" in proc.stderr


REGISTRY = r"""
import json, gemmkit.tuning as t
print(json.dumps({k["name"]: [k["value"], k["origin"]] for k in t.knobs()}))
"""


def test_registry_reports_environment_values_and_origins():
    # What gemmkit.tuning reports is what the environment layer read: a
    # value, a clamped value, a malformed one (the default); GEMMKIT_PROFILE=
    # keeps a user's profile out.
    env = clean_env(GEMMKIT_PROFILE="", GEMMKIT_KC="300", GEMMKIT_NC=str(2**64 - 1),
                    GEMMKIT_MC="lots")
    proc = run_python(["-c", REGISTRY], env)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["GEMMKIT_KC"] == [300, "environment"]
    assert got["GEMMKIT_NC"] == [1 << 20, "environment"]
    assert got["GEMMKIT_MC"] == [0, "default"]
    assert "gemmkit: ignoring GEMMKIT_MC=lots (expected a non-negative integer)" in proc.stderr
    assert {origin for name, (_, origin) in got.items()
            if name not in ("GEMMKIT_KC", "GEMMKIT_NC")} == {"default"}
