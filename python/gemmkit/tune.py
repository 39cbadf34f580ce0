"""``python -m gemmkit.tune``: measures the blocking knobs on this CPU and
writes the tuning profile the library reads at start.

One knob at a time, in a fixed order, every other swept knob held at its
built-in default (through the setter, so neither the environment nor an
older profile leaks into a measurement).  Each candidate value runs two or
three probe shapes per dtype, warmed up, then timed in batches (the
candidates taking turns); a batch's score is its time per call, a
candidate's score the geometric mean over shapes and dtypes of the median
batch, its spread the largest (max - min) / median of those batches.  A
candidate replaces the default only when it beats it by more than the
larger of the two spreads (plus 5 % when the default is 0, the analytic
choice, which adapts to shapes a fixed value does not).  Every candidate's
result is compared with the default's, so a value that changed an answer
(beyond the rounding a new summation order brings) is never chosen.

The profile (``GEMMKIT_PROFILE``, else ``$XDG_CONFIG_HOME`` or
``~/.config`` + ``/gemmkit/profile.env``) holds ``#`` header lines, the
``cpu=`` line naming this machine and one ``GEMMKIT_<NAME>=<value>`` line
per swept knob (the default where it was kept).  Environment variables and
:func:`gemmkit.tuning.set` still win over it.

    python -m gemmkit.tune [--dtypes float32,float64] [--budget SECONDS]
                           [--out PATH] [--dry-run] [--quick]
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import sys
import time
from typing import Any, NamedTuple, Optional, Sequence

from . import tuning

Shape = tuple  # (m, n, k)


class Sweep(NamedTuple):
    candidates: tuple  # the default among them
    shapes: tuple  # probe shapes (m, n, k)
    layout: str = "c"  # "c": both operands row-major; "bt": B k-contiguous
    parallel: bool = False  # only has an effect with more than one thread
    quick: Optional[tuple] = None  # (candidates, shapes) for --quick


# The knobs swept, in the order they are swept (blocking first: the
# thresholds are measured with the blocking at its defaults).
SWEPT = {
    "GEMMKIT_KC": Sweep((0, 128, 192, 256, 384, 512), ((384, 384, 1024), (256, 768, 768)),
                        quick=((0, 256), ((96, 96, 256),))),
    "GEMMKIT_MC": Sweep((0, 64, 96, 144, 192, 288, 384), ((1024, 256, 256), (512, 512, 512)),
                        quick=((0, 96), ((192, 64, 64),))),
    "GEMMKIT_NC": Sweep((0, 512, 1024, 2048, 4096, 8192), ((256, 2048, 256), (512, 512, 512)),
                        quick=((0, 512), ((64, 256, 64),))),
    "GEMMKIT_INPLACE_RHS_MAX_N": Sweep((0, 64, 128, 256, 512), ((1024, 64, 1024), (512, 192, 512)),
                                       layout="bt", quick=((256, 0), ((128, 32, 128),))),
    "GEMMKIT_INPLACE_LHS_MAX_N": Sweep((0, 8, 16, 32), ((2048, 16, 1024), (1024, 8, 1024)),
                                       quick=((0, 16), ((256, 16, 128),))),
    "GEMMKIT_STREAM_B_BYTES": Sweep((0, 1, 4 << 20), ((2048, 16, 2048), (2048, 8, 2048)),
                                    quick=((0, 1), ((512, 16, 2048),))),
    "GEMMKIT_PARALLEL_THRESHOLD": Sweep((147456, 294912, 589824, 1179648, 2359296),
                                        ((64, 64, 128), (64, 64, 256), (96, 96, 128)),
                                        parallel=True, quick=((589824, 1179648), ((64, 64, 160),))),
    "GEMMKIT_MNK_PER_WORKER": Sweep((500000, 1000000, 2000000, 4000000, 8000000),
                                    ((128, 128, 128), (192, 192, 192), (96, 256, 256)),
                                    parallel=True, quick=((2000000, 1000000), ((128, 128, 96),))),
}

# The registry's other knobs, and why no profile holds a measured value.
NEVER_SWEPT = {
    "GEMMKIT_NUM_THREADS": "the best count depends on what else runs; profiles never hold it",
    "GEMMKIT_GEMV_PARALLEL_BYTES": "matrix-vector products only, bound by memory bandwidth "
                                   "that other processes share; the tuner times GEMMs",
    "GEMMKIT_DEEP_KC_BYTES": "float16/bfloat16/requantized outputs only; the tuner sweeps "
                             "float32 and float64",
}

DTYPES = ("float32", "float64")
DEFAULT_BUDGET_S = 150.0
BATCHES = 5  # timed batches per (candidate, shape, dtype)
QUICK_BATCHES = 3


class Point(NamedTuple):
    seconds: float  # median time per call
    spread: float  # (max - min) / median over the batches


class Result(NamedTuple):
    knob: str
    candidates: tuple
    default: int
    scores: dict  # candidate -> geometric-mean seconds
    spreads: dict  # candidate -> largest spread
    per_dtype: dict  # dtype -> {candidate: geometric-mean seconds}
    best: int  # fastest candidate
    chosen: int  # what the profile gets
    skipped: str  # non-empty: not measured, and why
    wrong: tuple  # candidates whose result differed from the default's


def _registry() -> dict:
    return {row["name"]: row for row in tuning.knobs()}


def _operands(np: Any, shape: Shape, dtype: str, layout: str, rng: Any) -> tuple:
    m, n, k = shape
    a = rng.standard_normal((m, k)).astype(dtype)
    if layout == "bt":
        b = np.asfortranarray(rng.standard_normal((k, n)).astype(dtype))  # k-contiguous
    else:
        b = rng.standard_normal((k, n)).astype(dtype)
    return a, b, np.empty((m, n), dtype)


def _time(knob: str, candidates: Sequence[int], call: Any, batch_s: float,
          batches: int) -> dict:
    """{candidate: Point}: the median and spread of the time per call over
    `batches` batches of about `batch_s` seconds each, after a warm-up
    batch.  The candidates take turns batch by batch, so a drift of the
    machine (another process, the clock) spreads over all of them alike."""
    reps = {}
    for c in candidates:
        tuning.set(knob, c)
        start = time.perf_counter()
        call()
        reps[c] = max(1, int(batch_s / max(time.perf_counter() - start, 1e-7)))
    call_times: dict = {c: [] for c in candidates}
    for i in range(batches + 1):
        for c in candidates:
            tuning.set(knob, c)
            start = time.perf_counter()
            for _ in range(reps[c]):
                call()
            if i:  # the first round warms up
                call_times[c].append((time.perf_counter() - start) / reps[c])
    points = {}
    for c, got in call_times.items():
        got.sort()
        median = got[len(got) // 2]
        points[c] = Point(median, (got[-1] - got[0]) / median)
    return points


def _geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def measure(knob: str, sweep: Sweep, default: int, dtypes: Sequence[str], batch_s: float,
            batches: int, quick: bool, cores: int) -> Result:
    import numpy as np

    import gemmkit

    candidates, shapes = sweep.quick if quick and sweep.quick else (sweep.candidates,
                                                                    sweep.shapes)
    if default not in candidates:
        candidates = (default, *candidates)
    if sweep.parallel and cores < 2:
        return Result(knob, candidates, default, {}, {}, {}, default, default,
                      "one thread here: the knob has no effect", ())
    rng = np.random.default_rng(0)
    times: dict = {c: [] for c in candidates}
    spreads: dict = {c: 0.0 for c in candidates}
    per_dtype: dict = {dt: {c: [] for c in candidates} for dt in dtypes}
    wrong = []
    try:
        for dtype in dtypes:
            for shape in shapes:
                a, b, out = _operands(np, shape, dtype, sweep.layout, rng)
                tuning.set(knob, default)
                want = gemmkit.gemm(a, b)
                # Blocking changes the order of the sums: both results are
                # within k * eps * (|a| @ |b|) of the exact product.
                eps = float(np.finfo(dtype).eps)
                bound = 4 * shape[2] * eps * (np.abs(a).astype(np.float64)
                                              @ np.abs(b).astype(np.float64))
                for c in candidates:
                    tuning.set(knob, c)
                    gemmkit.gemm(a, b, out=out)
                    if not np.all(np.abs(out.astype(np.float64) - want) <= bound):
                        wrong.append(c)
                points = _time(knob, candidates, lambda: gemmkit.gemm(a, b, out=out), batch_s,
                               batches)
                for c, point in points.items():
                    times[c].append(point.seconds)
                    per_dtype[dtype][c].append(point.seconds)
                    spreads[c] = max(spreads[c], point.spread)
    finally:
        tuning.set(knob, default)
    scores = {c: _geomean(v) for c, v in times.items()}
    fair = [c for c in candidates if c not in wrong]
    best = min(fair, key=lambda c: scores[c]) if fair else default
    margin = max(spreads[best], spreads[default]) + (0.05 if default == 0 else 0.0)
    chosen = best if default in fair and scores[default] / scores[best] - 1 > margin else default
    return Result(knob, candidates, default, scores, spreads,
                  {dt: {c: _geomean(v) for c, v in d.items()} for dt, d in per_dtype.items()},
                  best, chosen, "", tuple(sorted(set(wrong))))


def _table(results: Sequence[Result], dtypes: Sequence[str]) -> str:
    head = ["knob", "candidates", "best", "vs default", "spread", "chosen",
            *[f"{dt} best/default" for dt in dtypes]]
    rows = []
    for r in results:
        if r.skipped:
            rows.append([r.knob, ",".join(map(str, r.candidates)), "-", "-", "-",
                         f"{r.chosen} (default; {r.skipped})", *["-" for _ in dtypes]])
            continue
        ratio = r.scores[r.default] / r.scores[r.best]
        spread = max(r.spreads[r.best], r.spreads[r.default])
        kept = "kept default" if r.chosen == r.default else "new"
        note = f" (wrong result: {','.join(map(str, r.wrong))})" if r.wrong else ""
        rows.append([r.knob, ",".join(map(str, r.candidates)), str(r.best), f"{ratio:.3f}x",
                     f"{100 * spread:.1f}%", f"{r.chosen} ({kept}){note}",
                     *[f"{r.per_dtype[dt][r.default] / r.per_dtype[dt][r.best]:.3f}x"
                       for dt in dtypes]])
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    lines = ["  ".join(x.ljust(w) for x, w in zip(row, widths)).rstrip()
             for row in (head, ["-" * w for w in widths], *rows)]
    return "\n".join(lines)


def _header(dtypes: Sequence[str], budget: float, quick: bool) -> list:
    import gemmkit

    info = gemmkit.dispatch_info()
    cache = info.get("cache", {})
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    isas = ", ".join(f"{dt} {info[dt]['isa']}" for dt in dtypes if info.get(dt))
    return [
        f"gemmkit {gemmkit.__version__} tuning profile, {now}",
        f"host: {os.cpu_count()} cores, {info['threads']} threads ({info['threads_source']}), "
        f"L1d {cache.get('l1d', 0) // 1024} KiB, L2 {cache.get('l2', 0) // 1024} KiB, "
        f"L3 {cache.get('l3', 0) // 1024} KiB ({cache.get('source', '?')})",
        f"kernels: {isas}",
        f"dtypes {','.join(dtypes)}, budget {budget:g} s{', quick' if quick else ''}",
    ]


def _footer(registry: dict) -> list:
    lines = ["never swept:"]
    lines += [f"  {name}: {why}" for name, why in NEVER_SWEPT.items()]
    unknown = [name for name in registry if name not in SWEPT and name not in NEVER_SWEPT]
    lines += [f"  {name}: not known to this tuner" for name in unknown]
    return lines


def profile_text(results: Sequence[Result], header: Sequence[str], cpu: str) -> str:
    """The profile file: `#` header lines, cpu=, one line per measured knob."""
    lines = [f"# {line}" for line in header]
    lines.append("# written by python -m gemmkit.tune; GEMMKIT_<NAME> environment "
                 "variables override these values")
    lines.append(f"cpu={cpu}")
    for r in results:
        if r.skipped:
            lines.append(f"# {r.knob}: not measured ({r.skipped})")
            continue
        ratio = r.scores[r.default] / r.scores[r.best]
        what = "new value" if r.chosen != r.default else f"default kept (best {r.best})"
        lines.append(f"# {r.knob}: {what}, {ratio:.3f}x the default, spread "
                     f"{100 * max(r.spreads[r.best], r.spreads[r.default]):.1f}%")
        lines.append(f"{r.knob}={r.chosen}")
    return "\n".join(lines) + "\n"


def _parse(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m gemmkit.tune",
                                     description="Measures gemmkit's blocking knobs on this "
                                                 "CPU and writes the profile the library "
                                                 "reads at start.")
    parser.add_argument("--dtypes", default=",".join(DTYPES),
                        help="comma-separated, among float32,float64 (default: both)")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds to spend measuring, at most about "
                             f"(default {DEFAULT_BUDGET_S:g}; --quick: 10)")
    parser.add_argument("--out", default=None,
                        help="profile to write (default: where the library looks, "
                             "GEMMKIT_PROFILE or ~/.config/gemmkit/profile.env)")
    parser.add_argument("--dry-run", action="store_true", help="print the table, write nothing")
    parser.add_argument("--quick", action="store_true",
                        help="two candidates and one small shape per knob (a smoke run)")
    args = parser.parse_args(argv)
    args.dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    bad = [d for d in args.dtypes if d not in DTYPES]
    if bad or not args.dtypes:
        parser.error(f"--dtypes: expected float32 and/or float64, got {','.join(bad) or 'none'}")
    if args.budget is None:
        args.budget = 10.0 if args.quick else DEFAULT_BUDGET_S
    if args.budget <= 0:
        parser.error("--budget must be positive")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parse(argv)
    registry = _registry()
    missing = [name for name in (*SWEPT, *NEVER_SWEPT) if name not in registry]
    if missing:
        print(f"gemmkit.tune: this library has no knob {', '.join(missing)}", file=sys.stderr)
        return 2
    import gemmkit

    cores = gemmkit.get_num_threads()
    batches = QUICK_BATCHES if args.quick else BATCHES
    # Points measured: (candidates) x (shapes) x (dtypes), each a warm-up
    # and `batches` batches; the batch length spreads the budget over them.
    points = 0
    for sweep in SWEPT.values():
        cands, shapes = sweep.quick if args.quick and sweep.quick else (sweep.candidates,
                                                                        sweep.shapes)
        points += (len(cands) + 1) * len(shapes) * len(args.dtypes)
    top = 0.01 if args.quick else 0.05  # ~50 ms batches; a smoke run needs less
    batch_s = min(top, max(0.002, args.budget / (points * (batches + 1))))
    header = _header(args.dtypes, args.budget, args.quick)
    for line in header:
        print(line)
    print(f"batches of {1000 * batch_s:.0f} ms, {batches} per point\n", flush=True)
    # Every swept knob at its default through the setter: measurements do
    # not see GEMMKIT_<NAME> variables or an older profile.
    for name in SWEPT:
        tuning.set(name, registry[name]["default"])
    results = []
    try:
        for name, sweep in SWEPT.items():
            results.append(measure(name, sweep, registry[name]["default"], args.dtypes, batch_s,
                                   batches, args.quick, cores))
    finally:
        for name in SWEPT:
            tuning.reset(name)
    print(_table(results, args.dtypes))
    print()
    for line in _footer(registry):
        print(line)
    if args.dry_run:
        print("\n--dry-run: no profile written")
        return 0
    out = args.out or tuning.profile()["path"]
    if not out:
        print("gemmkit.tune: no profile path (GEMMKIT_PROFILE is empty and there is no home "
              "folder); pass --out", file=sys.stderr)
        return 2
    text = profile_text(results, header, tuning.profile()["this_cpu"])
    folder = os.path.dirname(os.path.abspath(out))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{out}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out)
    print(f"\nwrote {out} (a new process reads it; GEMMKIT_PROFILE= turns it off)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
