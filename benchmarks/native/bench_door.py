"""Benchmark (not a test): the front door's targets, in one process.

- batched float32 matmul (one core call for the whole stack) against
  numpy.matmul: 10000 x (8x8x8), 1000 x (32x32x32), 64 x (256x256x256);
- the per-call cost of an 8x8x8 float32 matmul from Python against
  numpy.matmul's;
- the fused epilogue: gemm(a, b, bias=, activation="relu") at 1024 against
  gemm(a, b) followed by numpy's ``+ bias`` and ``maximum``.

Method as in bench_gemm.py (gemmkit._bench, shared with the main job): per
point both sides are warmed up and sampled alternately, medians compared,
other load on the machine measured and reported (a point is "disturbed" when
other processes used 15% of the cores or more while it ran).  Results are
checked against numpy once per point.

    python benchmarks/native/bench_door.py [--samples 9] [--json FILE]

Ratios are "speedup": the competitor's median time over gemmkit's (above 1
means gemmkit is faster), except "per-call ratio", gemmkit's time over
numpy's (the target is at most 1.2).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_gemm import reexec_clean
from gemmkit._bench import OtherLoad, disturbed, time_alternating, wait_quiet


def point(name, fa, fb, samples, sample_s, settle_s):
    """Medians of fa (gemmkit) and fb (the competitor) and the load seen."""
    wait_quiet(2.0)
    with OtherLoad() as load:
        ta, tb = time_alternating(fa, fb, samples, sample_s, settle_s)
    ma, mb = statistics.median(ta), statistics.median(tb)
    return {"point": name, "gemmkit_s": ma, "other_s": mb, "speedup": mb / ma,
            "other_load": round(load.cores, 2), "disturbed": disturbed(load.cores)}


def main() -> int:
    removed = reexec_clean()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=9)
    ap.add_argument("--sample-ms", type=float, default=60.0)
    ap.add_argument("--settle", type=float, default=0.3,
                    help="seconds of pause before each batched sample (OpenBLAS's idle "
                         "workers spin after a call)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()

    import gemmkit
    import numpy as np

    rng = np.random.default_rng(0)
    s = args.sample_ms / 1000.0
    rows = []

    for batch, n in ((10000, 8), (1000, 32), (64, 256)):
        a = rng.standard_normal((batch, n, n)).astype(np.float32)
        b = rng.standard_normal((batch, n, n)).astype(np.float32)
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        assert np.allclose(gemmkit.matmul(a, b), ref, rtol=1e-4, atol=1e-4 * n)
        rows.append(point(f"batched matmul {batch} x {n}^3 f32",
                          lambda: gemmkit.matmul(a, b), lambda: np.matmul(a, b),
                          args.samples, s, args.settle))

    a8 = rng.standard_normal((8, 8)).astype(np.float32)
    b8 = rng.standard_normal((8, 8)).astype(np.float32)
    r = point("per call 8x8x8 f32 matmul", lambda: gemmkit.matmul(a8, b8),
              lambda: np.matmul(a8, b8), args.samples, s, 0.0)
    r["per_call_ratio"] = r["gemmkit_s"] / r["other_s"]
    rows.append(r)

    n = 1024
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    want = np.maximum(a.astype(np.float64) @ b + bias, 0)
    assert np.allclose(gemmkit.gemm(a, b, bias=bias, activation="relu"), want,
                       rtol=1e-3, atol=1e-3)
    rows.append(point("fused bias+relu 1024 f32 (vs gemm, + bias, maximum)",
                      lambda: gemmkit.gemm(a, b, bias=bias, activation="relu"),
                      lambda: np.maximum(gemmkit.gemm(a, b) + bias, 0),
                      args.samples, s, 0.0))

    print(f"gemmkit {gemmkit.__version__}, threads {gemmkit.get_num_threads()}, "
          f"float32 kernel {gemmkit.dispatch_info()['float32']['kernel']}"
          + (f", OpenBLAS overrides removed: {sorted(removed)}" if removed else ""))
    print("| point | gemmkit | other | speedup | other load |")
    print("|---|---|---|---|---|")
    for r in rows:
        extra = f" (per-call ratio {r['per_call_ratio']:.2f})" if "per_call_ratio" in r else ""
        mark = " (disturbed)" if r["disturbed"] else ""
        print(f"| {r['point']} | {r['gemmkit_s'] * 1e6:.1f} us | {r['other_s'] * 1e6:.1f} us | "
              f"{r['speedup']:.2f}x{extra} | {r['other_load']}{mark} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
