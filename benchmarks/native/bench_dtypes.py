"""Benchmark (not a test): complex and integer matmul against numpy, one thread.

- complex64 and complex128 matmul at n = 1024 and 2048 against numpy.matmul
  (OpenBLAS cgemm / zgemm): speedup and % of the measured FMA peak, 8 n^3
  flops per product (a complex multiply-add is 4 real multiplies and 4 adds),
  the float32 peak for complex64, float64 for complex128; targets >= 1.0x
  and >= 85%;
- int16, int32 and int64 matmul at n = 512 and 1024 against numpy.matmul of
  the same dtype (a plain C loop: numpy has no BLAS for integers); targets
  >= 30x (int16), >= 20x (int32, int64); int8 and bool at 512, no target
  (bool twice: half the inputs true, where numpy's loop stops at the first
  true product of each element, and "bool-sparse", 1% true, where it runs
  the whole depth).

Method as in bench_gemm.py (gemmkit._bench, shared with the main job): one
process, one thread on both sides (gemmkit.set_num_threads(1), OpenBLAS
limited through threadpoolctl), each side warmed up, samples alternating
between the libraries, medians compared, other load on the machine measured
(a point is "disturbed" when other processes used 15% of the cores or more
while it ran).
numpy's integer loop takes seconds at 1024, so integer points time
--int-numpy-samples single numpy calls spread among the --samples gemmkit
samples.  The FMA peak is fma_peak.c's, compiled and run here (bench_gemm's
measure_peak), at the vector width of the kernel gemmkit dispatched.  Each
result is checked against numpy once per point: integers (wrapping) exactly,
complex by the relative Frobenius error against numpy's complex128 product
(bound 4 k eps of the dtype).

    python benchmarks/native/bench_dtypes.py [--samples 7] [--int-numpy-samples 2]
        [--quick] [--json FILE]

Ratio = numpy's median time over gemmkit's (above 1 means gemmkit is faster).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

# bench_gemm.py sits next to this file, on sys.path when it runs as a script.
from bench_gemm import measure_peak, peak_for, reexec_clean
from gemmkit._bench import OtherLoad, cpu_model, disturbed, time_alternating, wait_quiet

COMPLEX = [("complex64", 1024), ("complex64", 2048), ("complex128", 1024), ("complex128", 2048)]
INTS = [(dt, n) for dt in ("int16", "int32", "int64") for n in (512, 1024)]
RECORD = [("int8", 512), ("bool", 512), ("bool-sparse", 512)]  # measured, no target
# Points measured on another point's dtype, with other inputs.
DTYPE_OF = {"bool-sparse": "bool"}
QUICK = [("complex64", 256), ("complex128", 256), ("int16", 128), ("int64", 128), ("bool", 128)]
TARGET_RATIO = {"complex64": 1.0, "complex128": 1.0, "int16": 30.0, "int32": 20.0, "int64": 20.0}
TARGET_PEAK = 85.0  # % of the FMA peak, complex only
REAL_OF = {"complex64": "float32", "complex128": "float64"}


def time_uneven(fa, fb, na: int, nb: int, sample_s: float) -> tuple[list[float], list[float]]:
    """Seconds per call: na samples of fa (each a loop of at least sample_s),
    and nb single calls of a slow fb placed among them (A..A B A..A B A..A).

    time_alternating runs fb as often as fa, plus warm-up calls: minutes of
    numpy's integer loop at n = 1024.  fb's warm-up is the caller's check.
    """
    fa()
    t0 = time.perf_counter()
    fa()
    inner = max(1, int(sample_s / max(time.perf_counter() - t0, 1e-8)))
    ta: list[float] = []
    tb: list[float] = []

    def run_a(count: int) -> None:
        for _ in range(count):
            t0 = time.perf_counter()
            for _ in range(inner):
                fa()
            ta.append((time.perf_counter() - t0) / inner)

    for j in range(nb):
        run_a(na * (j + 1) // (nb + 1) - len(ta))
        t0 = time.perf_counter()
        fb()
        tb.append(time.perf_counter() - t0)
    run_a(na - len(ta))
    return ta, tb


def operand(rng, dtype: str, n: int):
    import numpy as np

    if dtype.startswith("complex"):
        return (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))).astype(dtype)
    if dtype.startswith("bool"):
        return rng.random((n, n)) < (0.01 if dtype == "bool-sparse" else 0.5)
    # The full range: products and sums wrap, which the check then covers.
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, (n, n), dtype=dtype, endpoint=True)


def check(got, a, b) -> tuple[bool, str]:
    """Integers: equal to numpy's product.  Complex: relative Frobenius error
    against numpy's complex128 product within 4 k eps of the dtype."""
    import numpy as np

    if got.dtype.kind != "c":
        ok = got.dtype == a.dtype and np.array_equal(got, np.matmul(a, b))
        return ok, "exact" if ok else "WRONG"
    ref = np.matmul(a.astype(np.complex128), b.astype(np.complex128))
    rel = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    ok = rel <= 4 * a.shape[1] * np.finfo(got.dtype).eps
    return ok, f"rel {rel:.1e}" + ("" if ok else " WRONG")


def main() -> int:
    removed = reexec_clean()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--samples",
        type=int,
        default=7,
        help="gemmkit samples per point; also numpy's at the complex points",
    )
    ap.add_argument(
        "--int-numpy-samples",
        type=int,
        default=2,
        help="numpy calls timed per integer point (its loop is slow)",
    )
    ap.add_argument("--sample-ms", type=float, default=30.0, help="minimum length of one sample")
    ap.add_argument(
        "--wait-quiet",
        type=float,
        default=2.0,
        help="seconds to wait, before each point, for other processes to go quiet",
    )
    ap.add_argument("--quick", action="store_true", help="small sizes, a smoke run (~15 s)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()

    import gemmkit
    import numpy as np
    from threadpoolctl import threadpool_info, threadpool_limits

    gemmkit.set_num_threads(1)
    info = gemmkit.dispatch_info()
    blas = next((lib for lib in threadpool_info() if lib.get("user_api") == "blas"), {})
    print(f"{cpu_model()}; measuring the FMA peak (1 thread) ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        wait_quiet(args.wait_quiet)
        # Other load lowers the peak and so raises every "% peak": say so.
        # fma_peak (and gcc) are children: OtherLoad counts them as ours.
        with OtherLoad() as peak_load:
            peak = measure_peak([1], args.quick, Path(tmp))

    rng = np.random.default_rng(0)
    s = args.sample_ms / 1000.0
    rows = []
    failed = 0
    with threadpool_limits(limits=1, user_api="blas"):
        for dtype, n in QUICK if args.quick else COMPLEX + INTS + RECORD:
            a, b = operand(rng, dtype, n), operand(rng, dtype, n)
            # For integers, check's numpy call is also numpy's warm-up.
            ok, note = check(gemmkit.matmul(a, b), a, b)
            failed += not ok
            c1, c2 = (np.empty((n, n), DTYPE_OF.get(dtype, dtype)) for _ in range(2))
            fa = partial(gemmkit.matmul, a, b, out=c1)
            fb = partial(np.matmul, a, b, out=c2)
            wait_quiet(args.wait_quiet)
            with OtherLoad() as load:
                if dtype in REAL_OF:
                    tg, tn = time_alternating(fa, fb, args.samples, s)
                else:
                    tg, tn = time_uneven(fa, fb, args.samples, args.int_numpy_samples, s)
            mg, mn = statistics.median(tg), statistics.median(tn)
            row = {
                "dtype": dtype,
                "n": n,
                "kernel": info[DTYPE_OF.get(dtype, dtype)]["kernel"],
                "gemmkit_s": tg,
                "numpy_s": tn,
                "gemmkit_ms": mg * 1e3,
                "numpy_ms": mn * 1e3,
                "ratio": mn / mg,
                "check": note,
                "correct": ok,
                "other_load": round(load.cores, 2),
                "disturbed": disturbed(load.cores),
            }
            if dtype in REAL_OF:
                pk = peak_for(peak, 1, REAL_OF[dtype], info[dtype]["isa"])
                row["gemmkit_gflops"] = 8.0 * n**3 / mg / 1e9
                row["numpy_gflops"] = 8.0 * n**3 / mn / 1e9
                row["peak_gflops"] = pk
                row["pct_peak"] = 100 * row["gemmkit_gflops"] / pk if pk else None
            if dtype in TARGET_RATIO:
                row["met"] = row["ratio"] >= TARGET_RATIO[dtype] and (
                    dtype not in REAL_OF or (row["pct_peak"] or 0) >= TARGET_PEAK
                )
            rows.append(row)
            print(
                f"  {dtype} {n}: gemmkit {mg * 1e3:.2f} ms, numpy {mn * 1e3:.2f} ms",
                file=sys.stderr,
                flush=True,
            )

    p1 = peak.get("1", {})
    print(
        f"{_dt.date.today()}, {cpu_model()}, gemmkit {gemmkit.__version__} (1 thread), "
        f"numpy {np.__version__} with {blas.get('internal_api', '?')} "
        f"{blas.get('version', '?')} ({blas.get('architecture', '?')} kernel, 1 thread)"
        + (f", OpenBLAS overrides removed: {sorted(removed)}" if removed else "")
    )
    kernels = ", ".join(f"{k} {v['max']:.1f}" for k, v in p1.items() if isinstance(v, dict))
    print(
        f"FMA peak, 1 thread, best of {p1.get('reps', '?')} runs, GFLOP/s: "
        f"{kernels or peak.get('error', 'not measured')} (other load {peak_load.cores:.2f}"
        + (", disturbed)" if disturbed(peak_load.cores) else ")")
    )
    print(
        "kernels: "
        + ", ".join(f"{dt} {r['kernel']}" for dt, r in {r["dtype"]: r for r in rows}.items())
    )
    print(
        "| dtype | n | gemmkit ms | numpy ms | ratio | % peak | target | met | check | disturbed (other load) |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---|---|---|")
    for r in rows:
        dt = r["dtype"]
        pct = f"{r['pct_peak']:.0f}%" if r.get("pct_peak") is not None else "-"
        target = (f">= {TARGET_RATIO[dt]:.1f}x" if dt in TARGET_RATIO else "-") + (
            f", >= {TARGET_PEAK:.0f}%" if dt in REAL_OF else ""
        )
        met = "-" if "met" not in r else "met" if r["met"] else "not met"
        flag = "yes" if r["disturbed"] else "no"
        print(
            f"| {dt} | {r['n']} | {r['gemmkit_ms']:.2f} | {r['numpy_ms']:.2f} | "
            f"{r['ratio']:.2f}x | {pct} | {target} | {met} | {r['check']} | "
            f"{flag} ({r['other_load']}) |"
        )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "date": _dt.date.today().isoformat(),
                    "cpu": cpu_model(),
                    "gemmkit": gemmkit.__version__,
                    "numpy": np.__version__,
                    "blas": blas,
                    "blas_env_removed": removed,
                    "peak": peak,
                    "peak_other_load": round(peak_load.cores, 2),
                    "args": vars(args),
                    "points": rows,
                },
                indent=1,
                default=str,
            )
        )
    if failed:
        print(f"{failed} point(s) gave wrong results", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
