"""Benchmark (not a test): gemmkit vs numpy.matmul (OpenBLAS) in one process.

Measures f32 and f64 GEMM on squares 64..2048 and the skinny shapes
1x4096x4096 (GEMV-like), 16x4096x4096 and 64x64x16384 (deep k), single
thread and all threads, plus the per-call time of an 8x8x8 product from
Python; and the FMA peak of this CPU (fma_peak.c, compiled here at run time)
so every rate also reads as a fraction of the physical limit.

Method (gemmkit._bench, the one implementation `python -m gemmkit` uses
too): per point, both libraries are warmed up, then sampled alternately
(A B B A A B ...; each sample a loop of calls lasting at least --sample-ms)
and the medians are compared, so noise from other processes hits both; the
CPU other processes used meanwhile is measured, and a point where they used
15% of the cores or more is marked. Results are checked against a float64
product once per point.

    python benchmarks/native/bench_gemm.py [--quick] [--isa auto,fma]
        [--sizes 64,1024,1x4096x4096] [--threads 1,2] [--out DIR]

--isa: one run per value, each in its own process with GEMMKIT_REQUIRE_ISA
set (auto = unset). Pinned runs (anything but auto) cover the 1024 and 2048
squares on one thread unless --sizes/--threads say otherwise.
--blas-coretype fma=Haswell gives the fma run's numpy the OpenBLAS kernel
of the same vector width (AVX2), for a like-for-like ratio.
Writes DIR/bench-native-<stamp>.json and .png (default:
benchmarks/native/results/) and prints markdown tables for docs/performance.md.

OpenBLAS: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which some machines set to
keep old OpenBLAS builds safe, slow a current numpy; this script re-executes
itself without them (its own process only) and prints the kernel that
threadpoolctl then reports. Size notation: N means N x N x N; MxNxK means
(M x K) @ (K x N).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The measurement core, shared with `python -m gemmkit` (one implementation).
from gemmkit._bench import (
    DISTURBED_SHARE,
    OPENBLAS_OVERRIDES,
    OtherLoad,
    cores,
    cpu_model,
    disturbed,
    time_alternating,
    wait_quiet,
    within_rounding_bound,
)

HERE = Path(__file__).resolve().parent
CLEAN_MARK = "GEMMKIT_BENCH_CLEAN_ENV"

SQUARES = [64, 128, 256, 512, 1024, 2048]
SKINNY = [(1, 4096, 4096), (16, 4096, 4096), (64, 64, 16384)]
QUICK_SHAPES = [(64, 64, 64), (256, 256, 256), (1, 1024, 1024)]
PINNED_SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048)]
DTYPES = ("float32", "float64")


# --------------------------------------------------------------------------
# environment, machine


def reexec_clean() -> dict:
    """Re-executes without the OpenBLAS overrides; returns what was removed."""
    if os.environ.get(CLEAN_MARK):
        return json.loads(os.environ[CLEAN_MARK])
    removed = {k: os.environ[k] for k in OPENBLAS_OVERRIDES if k in os.environ}
    env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_OVERRIDES}
    env[CLEAN_MARK] = json.dumps(removed)
    os.execve(sys.executable, [sys.executable, *sys.argv], env)
    raise AssertionError("unreachable")


def cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def measure_peak(threads: list[int], quick: bool, workdir: Path) -> dict:
    """Compiles and runs fma_peak.c; {threads: {kernel: {median, max, min}}}."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None or platform.machine() not in ("x86_64", "AMD64"):
        return {"error": "no C compiler or not x86-64: peak not measured"}
    flags = ["-O2", "-mavx2", "-mfma", "-pthread"]
    if "avx512f" in cpu_flags():
        flags.insert(3, "-mavx512f")
    exe = workdir / "fma_peak"
    subprocess.run([cc, *flags, str(HERE / "fma_peak.c"), "-o", str(exe)], check=True)
    out: dict = {"compiler_flags": flags}
    secs, reps = ("0.05", "3") if quick else ("0.25", "7")
    for t in threads:
        r = subprocess.run(
            [str(exe), str(t), secs, reps], check=True, capture_output=True, text=True
        )
        out[str(t)] = json.loads(r.stdout)
    return out


def peak_for(peak: dict, threads: int, dtype: str, isa: str | None) -> float | None:
    """The FMA peak matching the vector width the dispatched ISA uses."""
    p = peak.get(str(threads))
    if not p:
        return None
    dt = "f32" if dtype == "float32" else "f64"
    width = "ymm" if isa in ("fma", "avx2") else "zmm"
    k = p.get(f"{dt}_{width}") or p.get(f"{dt}_ymm")
    # The best run: other processes can only lower a reading, never raise it.
    return k["max"] if k else None


# --------------------------------------------------------------------------
# child: the measurements, in a process whose pin is fixed


# Pause before every sample in multi-thread runs (OpenBLAS's spinning
# workers; see gemmkit._bench.time_interleaved).
SETTLE_S = 0.3


def child(args) -> int:
    import gemmkit
    import numpy as np
    from threadpoolctl import threadpool_info, threadpool_limits

    try:
        info = gemmkit.dispatch_info()
    except gemmkit.IsaError as exc:
        Path(args.child_out).write_text(json.dumps({"error": str(exc)}))
        print(exc, file=sys.stderr)
        return 2
    blas = [lib for lib in threadpool_info() if lib.get("user_api") == "blas"]
    shapes = parse_sizes(args.sizes) if args.sizes else None
    if shapes is None:
        shapes = QUICK_SHAPES if args.quick else [(s, s, s) for s in SQUARES] + SKINNY
        if args.pin:
            shapes = PINNED_SHAPES
    threads = [int(t) for t in args.threads.split(",")] if args.threads else None
    if threads is None:
        threads = [1] if args.pin else sorted({1, cores()})
    samples = 3 if args.quick else args.samples
    sample_s = args.sample_ms / 1000.0

    rng = np.random.default_rng(0)
    points = []
    small = []
    total = len(threads) * len(DTYPES) * (len(shapes) + 1)
    done = 0
    t_start = time.perf_counter()
    for nt in threads:
        gemmkit.set_num_threads(nt)
        with threadpool_limits(limits=nt, user_api="blas"):
            for dtype in DTYPES:
                for m, n, k in shapes:
                    a = rng.standard_normal((m, k), dtype=np.dtype(dtype).type)
                    b = rng.standard_normal((k, n), dtype=np.dtype(dtype).type)
                    c1 = np.empty((m, n), dtype)
                    c2 = np.empty((m, n), dtype)
                    if args.wait_quiet > 0:
                        wait_quiet(args.wait_quiet)
                    with OtherLoad() as load:
                        tg, tn = time_alternating(
                            lambda a=a, b=b, c=c1: gemmkit.matmul(a, b, out=c),
                            lambda a=a, b=b, c=c2: np.matmul(a, b, out=c),
                            samples,
                            sample_s,
                            SETTLE_S if nt > 1 else 0.0,
                        )
                    flop = 2.0 * m * n * k
                    points.append(
                        {
                            "threads": nt,
                            "dtype": dtype,
                            "m": m,
                            "n": n,
                            "k": k,
                            "gemmkit_s": tg,
                            "numpy_s": tn,
                            "other_cpu": load.cores,
                            "gemmkit_gflops": flop / statistics.median(tg) / 1e9,
                            "numpy_gflops": flop / statistics.median(tn) / 1e9,
                            "correct": within_rounding_bound(c1, a, b),
                        }
                    )
                    done += 1
                    progress(done, total, f"t={nt} {dtype} {m}x{n}x{k}", t_start)
                # 8x8x8 from Python: allocating calls, as a user writes them.
                a = rng.standard_normal((8, 8), dtype=np.dtype(dtype).type)
                b = rng.standard_normal((8, 8), dtype=np.dtype(dtype).type)
                tg, tn = time_alternating(
                    lambda a=a, b=b: gemmkit.matmul(a, b),
                    lambda a=a, b=b: np.matmul(a, b),
                    max(samples, 5),
                    max(sample_s, 0.01),
                )
                small.append(
                    {
                        "threads": nt,
                        "dtype": dtype,
                        "shape": "8x8x8",
                        "gemmkit_us": statistics.median(tg) * 1e6,
                        "numpy_us": statistics.median(tn) * 1e6,
                    }
                )
                done += 1
                progress(done, total, f"t={nt} {dtype} 8x8x8 call time", t_start)
    print(file=sys.stderr)
    Path(args.child_out).write_text(
        json.dumps(
            {
                "pin": args.pin,
                "dispatch_info": info,
                "blas": blas,
                "points": points,
                "small": small,
                "numpy": np.__version__,
                "seconds": time.perf_counter() - t_start,
            },
            default=str,
        )
    )
    return 0


def progress(done: int, total: int, label: str, t0: float) -> None:
    width = 30
    fill = int(width * done / total)
    sys.stderr.write(
        f"\r  [{'#' * fill}{'.' * (width - fill)}] {done}/{total} "
        f"{time.perf_counter() - t0:5.0f}s  {label:<34}"
    )
    sys.stderr.flush()


def parse_sizes(text: str) -> list[tuple[int, int, int]]:
    shapes = []
    for item in text.split(","):
        parts = [int(p) for p in item.strip().lower().split("x")]
        if len(parts) == 1:
            parts *= 3
        if len(parts) != 3 or min(parts) < 1:
            raise SystemExit(f"bad size {item!r}: expected N or MxNxK")
        shapes.append(tuple(parts))
    return shapes


# --------------------------------------------------------------------------
# parent: peak, children, tables, plot


def fmt(x: float | None, digits: int = 1) -> str:
    if x is None:
        return "-"
    return f"{x:.{digits}f}" if x < 1000 else f"{x:.0f}"


def markdown(report: dict) -> str:
    lines = []
    env = report["environment"]
    peak = report["peak"]
    lines.append(
        f"Measured {env['date']} on {env['cpu']} ({env['cores']} cores), "
        f"gemmkit {env['gemmkit']}, numpy {env['numpy']} with {env['blas']}."
    )
    for nt in sorted({int(k) for k in peak if k.isdigit()}):
        p = peak[str(nt)]
        parts = [
            f"{k.replace('_', ' ')} {v['max']:.1f}" for k, v in p.items() if isinstance(v, dict)
        ]
        lines.append(
            f"FMA peak (best of {p.get('reps')} runs), {nt} thread(s), GFLOP/s: "
            + ", ".join(parts)
            + "."
        )
    lines.append(
        f"`*`: other processes used at least {DISTURBED_SHARE:.0%} of the {env['cores']} cores "
        "while that point was measured."
    )
    lines.append("")
    for run in report["runs"]:
        if "error" in run:
            lines.append(f"**{run['label']}**: {run['error']}")
            lines.append("")
            continue
        di = run["dispatch_info"]
        isas = ", ".join(f"{dt} {di[dt]['kernel']}" for dt in DTYPES if dt in di)
        blas = (run.get("blas") or [{}])[0]
        isas += f"; numpy's OpenBLAS kernel {blas.get('architecture', '?')}"
        by_t: dict[int, list[dict]] = {}
        for p in run["points"]:
            by_t.setdefault(p["threads"], []).append(p)
        one = {(p["dtype"], p["m"], p["n"], p["k"]): p for p in by_t.get(1, [])}
        for nt, pts in sorted(by_t.items()):
            lines.append(
                f"**{run['label']}** ({isas}), {nt} thread(s): GFLOP/s, ratio = gemmkit / numpy, "
                f"% = gemmkit / FMA peak of the kernel's vector width"
                + (", scale = gemmkit vs its 1-thread rate" if nt > 1 and one else "")
            )
            lines.append("")
            head = "| m x n x k |"
            rule = "|---|"
            for dt in DTYPES:
                s = dt.replace("float", "f")
                head += f" {s} gemmkit | {s} numpy | {s} ratio | {s} % peak |"
                rule += "---:|---:|---:|---:|"
                if nt > 1 and one:
                    head += f" {s} scale |"
                    rule += "---:|"
            lines += [head, rule]
            shapes = list(dict.fromkeys((p["m"], p["n"], p["k"]) for p in pts))
            for shp in shapes:
                row = f"| {shp[0]}x{shp[1]}x{shp[2]} |"
                for dt in DTYPES:
                    p = next(
                        (q for q in pts if (q["m"], q["n"], q["k"]) == shp and q["dtype"] == dt),
                        None,
                    )
                    if p is None:
                        row += " - | - | - | - |" + (" - |" if nt > 1 and one else "")
                        continue
                    pk = peak_for(peak, nt, dt, di.get(dt, {}).get("isa"))
                    mark = "" if p["correct"] else " (WRONG)"
                    if disturbed(p.get("other_cpu", 0.0), env["cores"]):
                        mark += "*"
                    row += (
                        f" {fmt(p['gemmkit_gflops'])}{mark} | {fmt(p['numpy_gflops'])} |"
                        f" {p['gemmkit_gflops'] / p['numpy_gflops']:.2f} |"
                        f" {fmt(100 * p['gemmkit_gflops'] / pk, 0) + '%' if pk else '-'} |"
                    )
                    if nt > 1 and one:
                        base = one.get((dt, *shp))
                        row += (
                            f" {p['gemmkit_gflops'] / base['gemmkit_gflops']:.2f}x |"
                            if base
                            else " - |"
                        )
                lines.append(row)
            lines.append("")
        if run.get("small"):
            lines.append(
                f"**{run['label']}**: time per call from Python, 8x8x8 (`matmul(a, b)`, µs)"
            )
            lines.append("")
            lines.append("| threads | dtype | gemmkit µs | numpy µs | gemmkit / numpy |")
            lines.append("|---:|---|---:|---:|---:|")
            for s in run["small"]:
                lines.append(
                    f"| {s['threads']} | {s['dtype']} | {s['gemmkit_us']:.2f} |"
                    f" {s['numpy_us']:.2f} | {s['gemmkit_us'] / s['numpy_us']:.2f} |"
                )
            lines.append("")
    return "\n".join(lines)


def plot(report: dict, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    runs = [r for r in report["runs"] if "points" in r]
    if not runs:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    for ax, dt in zip(axes, DTYPES):
        labels: list[str] = []
        for run in runs:
            for p in run["points"]:
                lab = (
                    f"{p['m']}x{p['n']}x{p['k']}"
                    if p["m"] != p["n"] or p["n"] != p["k"]
                    else str(p["m"])
                )
                if lab not in labels:
                    labels.append(lab)
        xs = {lab: i for i, lab in enumerate(labels)}
        threads = sorted({p["threads"] for r in runs for p in r["points"]})
        for run in runs:
            for nt in threads:
                pts = [p for p in run["points"] if p["dtype"] == dt and p["threads"] == nt]
                if not pts:
                    continue
                x = [
                    xs[
                        f"{p['m']}x{p['n']}x{p['k']}"
                        if p["m"] != p["n"] or p["n"] != p["k"]
                        else str(p["m"])
                    ]
                    for p in pts
                ]
                style = "-" if nt == 1 else "--"
                ax.plot(
                    x,
                    [p["gemmkit_gflops"] for p in pts],
                    "o" + style,
                    label=f"gemmkit {run['label']} {nt}T",
                )
                np_label = f"numpy (OpenBLAS) {nt}T"
                seen = {h.get_label() for h in ax.get_lines()}
                ax.plot(
                    x,
                    [p["numpy_gflops"] for p in pts],
                    "s" + style,
                    color="gray",
                    alpha=0.8,
                    label=np_label if np_label not in seen else "_nolegend_",
                )
        for nt in threads:
            pk = peak_for(report["peak"], nt, dt, None)
            if pk:
                ax.axhline(pk, color="red", lw=0.8, ls=":" if nt > 1 else "-", alpha=0.6)
                ax.text(
                    len(labels) - 0.5,
                    pk,
                    f"FMA peak {nt}T",
                    color="red",
                    fontsize=7,
                    ha="right",
                    va="bottom",
                )
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
        ax.set_title(f"{dt} GEMM")
        ax.set_ylabel("GFLOP/s")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    env = report["environment"]
    fig.suptitle(f"gemmkit vs numpy.matmul — {env['cpu']}, {env['date']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--quick", action="store_true", help="a few small shapes, short samples (~15 s)"
    )
    ap.add_argument(
        "--isa", default="auto", help="comma list: auto (no pin) and/or GEMMKIT_REQUIRE_ISA values"
    )
    ap.add_argument("--sizes", help="comma list of N or MxNxK (overrides the default set)")
    ap.add_argument("--threads", help="comma list of thread counts (default: 1 and all cores)")
    ap.add_argument(
        "--samples", type=int, default=7, help="alternating samples per library and point"
    )
    ap.add_argument("--sample-ms", type=float, default=30.0, help="minimum length of one sample")
    ap.add_argument(
        "--wait-quiet",
        type=float,
        default=None,
        help="seconds to wait, before each point, for other processes to go quiet "
        "(default 10; 0 with --quick)",
    )
    ap.add_argument(
        "--blas-coretype",
        default="",
        help="ISA=KERNEL,...: run numpy's OpenBLAS with OPENBLAS_CORETYPE=KERNEL in that ISA's "
        "process, e.g. fma=Haswell compares the AVX2 kernels with OpenBLAS's AVX2 kernel",
    )
    ap.add_argument("--out", default=str(HERE / "results"), help="folder for the JSON and PNG")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    ap.add_argument("--pin", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.wait_quiet is None:
        args.wait_quiet = 0.0 if args.quick else 10.0
    removed = reexec_clean()
    if args.child:
        return child(args)

    import numpy as np

    if removed:
        print(
            f"unset for this benchmark process: {', '.join(f'{k}={v}' for k, v in removed.items())}"
        )
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    n_cores = cores()
    peak_threads = sorted({1, n_cores})
    print(f"{cpu_model()}, {n_cores} cores; measuring the FMA peak ...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.wait_quiet > 0:
            wait_quiet(args.wait_quiet)
        peak = measure_peak(peak_threads, args.quick, Path(tmp))
        for nt in peak_threads:
            p = peak.get(str(nt), {})
            print(
                f"  {nt} thread(s): "
                + ", ".join(f"{k} {v['max']:.1f}" for k, v in p.items() if isinstance(v, dict))
                + " GFLOP/s (best run)"
            )
        coretype = dict(item.split("=", 1) for item in args.blas_coretype.split(",") if "=" in item)
        runs = []
        for isa in [s.strip() for s in args.isa.split(",") if s.strip()]:
            pinned = isa.lower() != "auto"
            env = dict(os.environ)
            env.pop("GEMMKIT_REQUIRE_ISA", None)
            if pinned:
                env["GEMMKIT_REQUIRE_ISA"] = isa
            if isa in coretype:
                # A deliberate choice for this run only (the child keeps it:
                # CLEAN_MARK in its environment stops it from re-executing).
                env["OPENBLAS_CORETYPE"] = coretype[isa]
            child_out = Path(tmp) / f"child-{isa}.json"
            cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                "--child-out",
                str(child_out),
                "--samples",
                str(args.samples),
                "--sample-ms",
                str(args.sample_ms),
                "--wait-quiet",
                str(args.wait_quiet),
            ]
            for flag, val in (
                ("--sizes", args.sizes),
                ("--threads", args.threads),
                ("--pin", isa if pinned else None),
            ):
                if val:
                    cmd += [flag, val]
            if args.quick:
                cmd.append("--quick")
            label = f"pinned {isa}" if pinned else "auto"
            print(f"run: {label} (GEMMKIT_REQUIRE_ISA={isa if pinned else 'unset'})", flush=True)
            rc = subprocess.run(cmd, env=env, check=False).returncode
            try:
                res = json.loads(child_out.read_text())
            except (OSError, ValueError):
                res = {"error": f"benchmark process exited {rc} without results"}
            res["label"] = label
            runs.append(res)

    first = next((r for r in runs if "blas" in r), {})
    blas = first.get("blas") or [{}]
    b0 = blas[0]
    blas_txt = (
        f"{b0.get('internal_api', '?')} {b0.get('version', '?')} "
        f"({b0.get('architecture', '?')} kernel)"
    )
    try:
        import gemmkit

        gk_version = gemmkit.__version__
    except ImportError:
        gk_version = "?"
    report = {
        "environment": {
            "date": _dt.date.today().isoformat(),
            "cpu": cpu_model(),
            "cores": n_cores,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "gemmkit": gk_version,
            "blas": blas_txt,
            "blas_env_removed": removed,
            "loadavg_end": os.getloadavg(),
            "args": vars(args),
        },
        "peak": peak,
        "runs": runs,
    }
    print(f"numpy's BLAS (threadpoolctl): {blas_txt}")
    json_path = out_dir / f"bench-native-{stamp}.json"
    json_path.write_text(json.dumps(report, indent=1, default=str))
    png_path = out_dir / f"bench-native-{stamp}.png"
    plotted = plot(report, png_path)
    print()
    print(markdown(report))
    print(
        f"wrote {json_path}" + (f" and {png_path}" if plotted else " (no plot: matplotlib missing)")
    )
    wrong = sum(not p["correct"] for r in runs for p in r.get("points", []))
    if wrong:
        print(f"{wrong} point(s) gave results outside the rounding bound", file=sys.stderr)
    return 1 if wrong or any("error" in r for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
