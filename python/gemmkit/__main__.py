"""The main job, ``python -m gemmkit``; ``python -m gemmkit --help`` says
what it does (:data:`DESCRIPTION`), its options, examples and exit codes.

It uses only the public API plus the measurement core in ``gemmkit._bench``
(shared with benchmarks/native), so it runs the same on every backend.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import textwrap
import time
from typing import Callable

import gemmkit
from gemmkit import _bench

DEFAULT_SIZES = "64,256,1024,1x4096x4096"
QUICK_SIZES = "64,256"
DTYPES = ("float32", "float64")

# Timing per (shape, dtype): `samples` samples per library, alternating,
# within about `budget_s` seconds for both together.  The default keeps the
# whole run near 25 s on a 2-core machine, --quick near 3 s.
FULL = {"samples": 9, "budget_s": 3.0, "settle_s": 0.1}
QUICK = {"samples": 7, "budget_s": 0.6, "settle_s": 0.02}
MIN_SAMPLES = 5  # fewer leave no meaningful interquartile range
MIN_SAMPLE_S = 0.01
# A ratio is untrustworthy when other processes used this share of the
# cores while it was measured (benchmarks/ mark such points too) ...
MAX_LOAD_PERCENT = 100.0 * _bench.DISTURBED_SHARE
# ... or when its per-sample ratios scatter this much (IQR over median).
MAX_SPREAD_PERCENT = 10.0
# Ratios this close to 1 read "about the same speed", not a winner.
SAME_SPEED_BAND = 0.05
HELP_WIDTH = 79
OUTPUT_WIDTH = 100

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_PIN = 0, 1, 2, 3
EXIT_CODES = (
    (
        EXIT_OK,
        (
            "success: every result agreed with numpy (untrustworthy timings do not change "
            "the status; they are marked in the output)"
        ),
    ),
    (
        EXIT_MISMATCH,
        (
            "a gemmkit result disagreed with numpy beyond the rounding bound, or the run "
            "could not finish (numpy missing; an unexpected error, printed with its traceback)"
        ),
    ),
    (EXIT_USAGE, "usage error: an unknown option or a bad value (argparse's convention)"),
    (
        EXIT_PIN,
        (
            "GEMMKIT_REQUIRE_ISA names an ISA that is unknown or that this machine (or this "
            "build) cannot run; pins never fall back"
        ),
    ),
)

DESCRIPTION = "\n\n".join(
    textwrap.fill(" ".join(paragraph.split()), HELP_WIDTH)
    for paragraph in (
        "Shows what gemmkit runs on this machine and how fast it is.",
        """It prints the CPU features gemmkit detected and, for each element type, the
        instruction set (ISA) and kernel its matrix products use. Then it times
        gemmkit.matmul against numpy.matmul on a few shapes in float32 and float64,
        prints both speeds in GFLOP/s (billions of floating-point operations per
        second, 2*m*n*k per product; higher is faster), says which library was
        faster and by how much, and checks every gemmkit result against numpy
        (within the rounding bound 2*k*eps).""",
        f"""The two libraries are timed in alternating samples and compared by their
        medians. A ratio is marked UNTRUSTWORTHY, with the reason, when other
        programs used {MAX_LOAD_PERCENT:.0f}% or more of the machine's cores while it was
        measured, or when its samples disagree by more than
        {MAX_SPREAD_PERCENT:.0f}%: rerun on a quiet machine before quoting it. The
        default run takes about 25 seconds on 2 cores; --quick takes a few.""",
        """Sizes: N means an N x N matrix times an N x N matrix; MxNxK means an
        M x K matrix times a K x N matrix (so 1x4096x4096 is a vector times a
        matrix).""",
    )
)


def _epilog() -> str:
    examples = (
        ("python -m gemmkit", "the full run (about 25 s)"),
        ("python -m gemmkit --quick", "a few seconds: small shapes, short timing"),
        ("python -m gemmkit --sizes 512,1x4096x4096 --threads 1", "your shapes, one thread"),
        ("python -m gemmkit --no-bench", "the dispatch table only"),
        ("python -m gemmkit --quick --json > report.json", "machine-readable output"),
        ("GEMMKIT_REQUIRE_ISA=fma python -m gemmkit --quick", "the fma kernels (or exit 3)"),
    )
    lines = ["examples:"]
    lines += [f"  {cmd}\n      {what}" for cmd, what in examples]
    lines += ["", "exit status:"]
    lines += [
        textwrap.fill(text, HELP_WIDTH, initial_indent=f"  {code}  ", subsequent_indent="     ")
        for code, text in EXIT_CODES
    ]
    lines += [
        "",
        "environment:",
        "  GEMMKIT_REQUIRE_ISA  run one ISA's kernels (e.g. scalar, fma, avx512f, neon)",
        "                       instead of the best this machine runs",
        "  GEMMKIT_NUM_THREADS  gemmkit's thread count when --threads is not given",
        "                       (unset: OMP_NUM_THREADS, then one thread per core)",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------
# arguments


def parse_sizes(text: str) -> list[tuple[int, int, int]]:
    """'64,1x4096x4096' -> [(64, 64, 64), (1, 4096, 4096)] as (m, n, k)."""
    shapes = []
    for item in text.split(","):
        item = item.strip().lower()
        if not item:
            continue
        parts = item.split("x")
        if len(parts) == 1:
            parts = parts * 3
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise argparse.ArgumentTypeError(
                f"bad size {item!r}: expected N or MxNxK with positive integers"
            )
        m, n, k = (int(p) for p in parts)
        shapes.append((m, n, k))
    if not shapes:
        raise argparse.ArgumentTypeError("no sizes given")
    return shapes


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage, got {text!r}") from None
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m gemmkit",
        description=DESCRIPTION,
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a run of a few seconds: sizes {QUICK_SIZES}, short timing",
    )
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        metavar="LIST",
        help=f"comma-separated shapes to time, each N or MxNxK (default {DEFAULT_SIZES})",
    )
    parser.add_argument(
        "--threads",
        type=_positive_int,
        metavar="N",
        help="threads for gemmkit and for numpy's BLAS (default: each library's own "
        "setting; numpy's is limited through threadpoolctl when installed)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object with everything the text shows (and nothing else "
        "on standard output); progress goes to standard error",
    )
    parser.add_argument(
        "--no-bench",
        action="store_true",
        help="print the machine and dispatch information only; time nothing",
    )
    parser.add_argument(
        "--max-load",
        type=_percent,
        default=MAX_LOAD_PERCENT,
        metavar="PERCENT",
        help="mark a ratio untrustworthy when other processes used at least this share "
        f"of the cores while it was measured (default {MAX_LOAD_PERCENT:.0f})",
    )
    parser.add_argument(
        "--max-spread",
        type=_percent,
        default=MAX_SPREAD_PERCENT,
        metavar="PERCENT",
        help="mark a ratio untrustworthy when its per-sample ratios spread more than this "
        "(interquartile range over median, in percent; default "
        f"{MAX_SPREAD_PERCENT:.0f})",
    )
    return parser


# --------------------------------------------------------------------------
# words


def plural(count: int, noun: str) -> str:
    """plural(1, 'thread') -> '1 thread'; plural(2, 'thread') -> '2 threads'."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def direction(ratio: float) -> tuple[str, str]:
    """(short word, sentence) for ratio = gemmkit's speed / numpy's."""
    if abs(ratio - 1.0) <= SAME_SPEED_BAND:
        return "about the same", f"about the same speed (within {SAME_SPEED_BAND:.0%})"
    if ratio > 1.0:
        return "gemmkit faster", f"gemmkit is {ratio:.2f}x faster than numpy"
    return "numpy faster", f"numpy is {1.0 / ratio:.2f}x faster than gemmkit"


def blas_summary(libs: list[dict] | None) -> str:
    if libs is None:
        return "unknown (install threadpoolctl to see numpy's BLAS)"
    if not libs:
        return "no BLAS library found by threadpoolctl"
    parts = []
    for lib in libs:
        name = f"{lib.get('internal_api', '?')} {lib.get('version') or ''}".strip()
        extra = []
        if lib.get("architecture"):
            extra.append(f"{lib['architecture']} kernel")
        if isinstance(lib.get("num_threads"), int):
            extra.append(plural(lib["num_threads"], "thread"))
        parts.append(f"{name} ({', '.join(extra)})" if extra else name)
    return "; ".join(parts)


def untrustworthy_reasons(
    load_share: float, spread: float, n_cores: int, max_load: float, max_spread: float
) -> list[str]:
    """Why a ratio cannot be trusted, in plain words; [] when it can.
    load_share: other processes' cores over ours (nan: unknown);
    spread: ratio_spread of the samples (nan: too few)."""
    reasons = []
    if not math.isnan(load_share) and 100.0 * load_share >= max_load:
        reasons.append(
            f"other processes used {100.0 * load_share:.0f}% of the "
            f"{plural(n_cores, 'core')} while it was measured (limit {max_load:.0f}%)"
        )
    if math.isnan(spread) or 100.0 * spread > max_spread:
        what = "too few samples" if math.isnan(spread) else f"{100.0 * spread:.0f}%"
        reasons.append(
            f"its samples disagree: their ratios spread {what} "
            f"(interquartile range / median; limit {max_spread:.0f}%)"
        )
    return reasons


# --------------------------------------------------------------------------
# measuring


class Progress:
    """tqdm on standard error when installed; otherwise a plain counter there."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        try:
            from tqdm import tqdm
        except ImportError:
            self.bar = None
        else:
            self.bar = tqdm(total=total, unit="point", file=sys.stderr, leave=False)

    def step(self, label: str) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(label)
            self.bar.update(1)
        else:
            print(f"[{self.done}/{self.total}] {label}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _one_call_s(f: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def measure_point(
    np,
    rng,
    m: int,
    n: int,
    k: int,
    dtype: str,
    plan: dict,
    settle_s: float,
    max_load: float,
    max_spread: float,
) -> dict:
    """Times gemmkit.matmul against numpy.matmul on one shape and dtype,
    checks gemmkit's result and judges the ratio."""
    a = rng.standard_normal((m, k), dtype=np.dtype(dtype).type)
    b = rng.standard_normal((k, n), dtype=np.dtype(dtype).type)
    c_gk = np.empty((m, n), dtype=dtype)
    c_np = np.empty((m, n), dtype=dtype)
    fns = {
        "gemmkit": lambda: gemmkit.matmul(a, b, out=c_gk),
        "numpy": lambda: np.matmul(a, b, out=c_np),
    }
    # One call each (also starts thread pools) sizes the samples: a slow
    # shape gets fewer of them rather than a run of minutes.
    per_call = max(_one_call_s(f) for f in fns.values())
    per_sample = plan["budget_s"] / (2 * plan["samples"])
    samples = plan["samples"]
    if per_call + settle_s > per_sample:
        samples = max(MIN_SAMPLES, int(plan["budget_s"] / (2 * (per_call + settle_s))))
    sample_s = max(MIN_SAMPLE_S, per_sample - settle_s)
    with _bench.OtherLoad() as load:
        times = _bench.time_interleaved(fns, samples, sample_s, settle_s)
    correct = _bench.within_rounding_bound(c_gk, a, b)
    t_gk, t_np = statistics.median(times["gemmkit"]), statistics.median(times["numpy"])
    flop = 2.0 * m * n * k
    ratio = t_np / t_gk  # gemmkit's speed over numpy's
    spread = _bench.ratio_spread(times["gemmkit"], times["numpy"])
    reasons = untrustworthy_reasons(load.share, spread, _bench.cores(), max_load, max_spread)
    word, sentence = direction(ratio)
    return {
        "shape": f"{m}x{n}x{k}",
        "m": m,
        "n": n,
        "k": k,
        "dtype": dtype,
        "gemmkit_gflops": flop / t_gk / 1e9,
        "numpy_gflops": flop / t_np / 1e9,
        "ratio": ratio,
        "direction": word,
        "verdict": sentence,
        "samples": samples,
        "other_load_percent": None if math.isnan(load.share) else 100.0 * load.share,
        "spread_percent": None if math.isnan(spread) else 100.0 * spread,
        "trustworthy": not reasons,
        "untrustworthy_because": reasons,
        "correct": correct,
        "check": "ok" if correct else "MISMATCH",
    }


def benchmark(
    shapes: list[tuple[int, int, int]],
    plan: dict,
    threads: int | None,
    max_load: float,
    max_spread: float,
    notes: list[str],
) -> dict:
    import numpy as np  # main() has checked that it imports

    limiter = None
    if threads is not None:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            notes.append("threadpoolctl is not installed: numpy keeps its own thread count")
        else:
            limiter = threadpool_limits(limits=threads, user_api="blas")
    try:
        blas = _bench.blas_libraries()
        blas_threads = [lib.get("num_threads") for lib in (blas or [])]
        numpy_threads = max((t for t in blas_threads if isinstance(t, int)), default=None)
        gk_threads = gemmkit.get_num_threads()
        # Let the other library's spinning workers go idle before each
        # sample whenever either side runs more than one thread.
        parallel = gk_threads > 1 or (numpy_threads or _bench.cores()) > 1
        settle_s = plan["settle_s"] if parallel else 0.0
        for var in _bench.OPENBLAS_OVERRIDES:
            if os.environ.get(var):
                notes.append(
                    f"{var}={os.environ[var]} is set: numpy's OpenBLAS may be slower "
                    "than it would be without it"
                )
        if math.isnan(_bench.cpu_seconds()[0]):
            notes.append(
                "other processes' load cannot be measured on this platform: only the "
                "spread of the samples was judged"
            )
        rng = np.random.default_rng(0)
        points = []
        progress = Progress(len(shapes) * len(DTYPES))
        try:
            for m, n, k in shapes:
                for dtype in DTYPES:
                    points.append(
                        measure_point(np, rng, m, n, k, dtype, plan, settle_s, max_load, max_spread)
                    )
                    progress.step(f"{m}x{n}x{k} {dtype}")
        finally:
            progress.close()
    finally:
        if limiter is not None:
            limiter.restore_original_limits()
    return {
        "gemmkit_threads": gk_threads,
        "numpy": {"version": np.__version__, "blas": blas, "summary": blas_summary(blas)},
        "method": {
            "samples_per_library": plan["samples"],
            "settle_seconds": settle_s,
            "max_load_percent": max_load,
            "max_spread_percent": max_spread,
            "load_measured": not math.isnan(_bench.cpu_seconds()[0]),
        },
        "points": points,
        "mismatches": sum(not p["correct"] for p in points),
        "untrustworthy": sum(not p["trustworthy"] for p in points),
    }


# --------------------------------------------------------------------------
# text


def say(text: str) -> None:
    """Prose, wrapped to OUTPUT_WIDTH with a hanging indent."""
    print(textwrap.fill(text, OUTPUT_WIDTH, subsequent_indent="    "))


def print_table(rows: list[tuple[str, ...]], right: tuple[int, ...] = ()) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for j, r in enumerate(rows):
        cells = [
            c.rjust(w) if i in right and j > 0 else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths))
        ]
        print("  ".join(cells).rstrip())


def print_dispatch(report: dict) -> None:
    info = report["dispatch_info"]
    print(
        f"gemmkit {report['gemmkit']} ({info.get('backend')} backend) on "
        f"{report['machine']['cpu']}, {plural(report['machine']['cores'], 'core')}"
    )
    print(f"CPU features:   {' '.join(info.get('cpu_features', [])) or '-'}")
    print(f"compiled ISAs:  {' '.join(info.get('compiled_isas', []))}")
    print(f"available ISAs: {' '.join(info.get('available_isas', []))}")
    pin = info.get("pin")
    print(f"pin:            {pin if pin else 'none (GEMMKIT_REQUIRE_ISA unset: best available)'}")
    source = info.get("threads_source")
    print(f"threads:        {info.get('threads')}" + (f" (source: {source})" if source else ""))
    print()
    rows = [("dtype", "isa", "kernel", "mr", "nr", "depth_multiple")]
    for key, d in info.items():
        if isinstance(d, dict) and "isa" in d:
            rows.append(
                (
                    key,
                    str(d["isa"]),
                    str(d.get("kernel", "-")),
                    str(d.get("mr", "-")),
                    str(d.get("nr", "-")),
                    str(d.get("depth_multiple", "-")),
                )
            )
    print_table(rows)


def print_benchmark(bench: dict, notes: list[str]) -> None:
    method = bench["method"]
    print()
    print("gemmkit.matmul against numpy.matmul")
    print(f"  gemmkit: {plural(bench['gemmkit_threads'], 'thread')}")
    print(f"  numpy:   {bench['numpy']['version']} with {bench['numpy']['summary']}")
    print("Speeds in GFLOP/s (2*m*n*k / time; higher is faster): medians of alternating samples.")
    print("ratio = gemmkit's speed / numpy's: above 1, gemmkit is faster.")
    print("check: gemmkit's result against a float64 product, within 2*k*eps*(|a| @ |b|).")
    print()
    rows = [
        ("m x n x k", "dtype", "gemmkit", "numpy", "ratio", "which is faster", "check", "trust")
    ]
    footnotes = []
    for p in bench["points"]:
        trust = "ok"
        if not p["trustworthy"]:
            footnotes.append(p)
            trust = f"UNTRUSTWORTHY [{len(footnotes)}]"
        rows.append(
            (
                p["shape"],
                p["dtype"],
                f"{p['gemmkit_gflops']:.1f}",
                f"{p['numpy_gflops']:.1f}",
                f"{p['ratio']:.2f}x",
                p["verdict"],
                p["check"],
                trust,
            )
        )
    print_table(rows, right=(2, 3, 4))
    for i, p in enumerate(footnotes, 1):
        say(f"[{i}] {p['shape']} {p['dtype']}: " + "; ".join(p["untrustworthy_because"]))
    for note in notes:
        say(f"note: {note}")
    print()
    total = len(bench["points"])
    if bench["mismatches"]:
        say(
            f"{bench['mismatches']} of {plural(total, 'result')} DISAGREE with numpy beyond "
            "the rounding bound."
        )
    else:
        print(f"All {plural(total, 'result')} agree with numpy.")
    if bench["untrustworthy"]:
        say(
            f"{bench['untrustworthy']} of {plural(total, 'ratio')} untrustworthy (see above): "
            "rerun on a quiet machine before quoting them."
        )
    elif method["load_measured"]:
        say(
            f"Every ratio is within the limits: other processes' load below "
            f"{method['max_load_percent']:g}% of the cores, spread at most "
            f"{method['max_spread_percent']:g}%."
        )
    else:
        say(
            f"Every ratio's spread is at most {method['max_spread_percent']:g}% "
            "(other processes' load cannot be measured here)."
        )


# --------------------------------------------------------------------------


def _fail(code: int, message: str, as_json: bool) -> int:
    print(message, file=sys.stderr)
    if as_json:
        print(json.dumps({"error": message, "exit_status": code}))
    return code


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)  # a usage error exits 2 here
    shapes = args.sizes or parse_sizes(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    notes: list[str] = []
    try:
        if args.threads is not None:
            gemmkit.set_num_threads(args.threads)
        info = gemmkit.dispatch_info()
        report = {
            "gemmkit": gemmkit.__version__,
            "machine": {"cpu": _bench.cpu_model(), "cores": _bench.cores()},
            "dispatch_info": info,
        }
        if not args.json:
            print_dispatch(report)
            sys.stdout.flush()
        bench = None
        if not args.no_bench:
            try:
                import numpy  # noqa: F401
            except ImportError:
                return _fail(
                    EXIT_MISMATCH,
                    "python -m gemmkit: the benchmark compares with "
                    "numpy, which is not installed (--no-bench needs no numpy)",
                    args.json,
                )
            bench = benchmark(
                shapes,
                QUICK if args.quick else FULL,
                args.threads,
                args.max_load,
                args.max_spread,
                notes,
            )
    except gemmkit.IsaError as exc:
        return _fail(EXIT_PIN, str(exc), args.json)
    status = EXIT_MISMATCH if bench and bench["mismatches"] else EXIT_OK
    report.update({"benchmark": bench, "notes": notes, "exit_status": status})
    if args.json:
        print(json.dumps(report, indent=1, default=str))
    elif bench is not None:
        print_benchmark(bench, notes)
    return status


if __name__ == "__main__":
    sys.exit(main())
