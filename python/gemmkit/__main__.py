"""The main job, ``python -m gemmkit``: what this machine runs, and how fast.

Prints the CPU features gemmkit detected, the dispatch table per element type
(ISA, kernel, tile mr x nr, depth_multiple) and the thread count, then times
``gemmkit.matmul`` against ``numpy.matmul`` on a few shapes and prints GFLOP/s
and the ratio. Every result is also checked against numpy's. Uses only the
public API, so it runs the same on any backend.

    python -m gemmkit [--quick] [--sizes 64,256,1x4096x4096] [--threads N]

Sizes: ``N`` is an N x N x N product; ``MxNxK`` is (M x K) @ (K x N).
Exit status: 0; 1 when a result disagrees with numpy; 2 when the dispatch
cannot run (``GEMMKIT_REQUIRE_ISA`` names an ISA this machine lacks, or an
unknown one); 3 on bad arguments.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Callable

import numpy as np

import gemmkit

DEFAULT_SIZES = "64,256,1024,1x4096x4096"
QUICK_SIZES = "64,256"
DTYPES = ("float32", "float64")
# Seconds of measurement per (shape, dtype), both libraries together. The
# default keeps the whole run near 25 s on a 2-core machine.
BUDGET_S = 3.0
QUICK_BUDGET_S = 0.15


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
            raise ValueError(f"bad size {item!r}: expected N or MxNxK with positive integers")
        m, n, k = (int(p) for p in parts)
        shapes.append((m, n, k))
    if not shapes:
        raise ValueError("no sizes given")
    return shapes


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def numpy_blas() -> str:
    """numpy's BLAS as threadpoolctl sees it (library, kernel, threads)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl not installed)"
    for lib in threadpool_info():
        if lib.get("user_api") == "blas":
            arch = lib.get("architecture") or "?"
            name = f"{lib.get('internal_api')} {lib.get('version')}"
            return f"{name} ({arch} kernel, {lib.get('num_threads')} threads)"
    return "no BLAS found by threadpoolctl"


def print_dispatch(info: dict) -> None:
    print(f"gemmkit {gemmkit.__version__} ({info.get('backend')} backend) on {cpu_model()}")
    print(f"CPU features:   {' '.join(info.get('cpu_features', [])) or '-'}")
    print(f"compiled ISAs:  {' '.join(info.get('compiled_isas', []))}")
    print(f"available ISAs: {' '.join(info.get('available_isas', []))}")
    pin = info.get("pin")
    print(f"pin:            {pin if pin else 'none (GEMMKIT_REQUIRE_ISA unset: best available)'}")
    print(f"threads:        {info.get('threads')}")
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


def print_table(rows: list[tuple[str, ...]], right_from: int = 99) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for j, r in enumerate(rows):
        cells = [
            c.rjust(w) if i >= right_from and j > 0 else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths))
        ]
        print("  ".join(cells).rstrip())


def time_pair(
    fa: Callable[[], object], fb: Callable[[], object], budget: float
) -> tuple[float, float]:
    """Median seconds per call of fa and fb, measured alternately (A, B, B, A,
    ...) so that noise from other processes hits both alike."""
    est = []
    for f in (fa, fb):
        f()  # first call: pool start, page faults, dispatch
        t0 = time.perf_counter()
        f()
        est.append(time.perf_counter() - t0)
    per_call = max(max(est), 1e-7)
    samples = int(min(15, max(3, budget / per_call / 2)))
    inner = max(1, int(budget / (2 * samples * per_call)))
    ta: list[float] = []
    tb: list[float] = []
    for i in range(samples):
        order = ((fa, ta), (fb, tb)) if i % 2 == 0 else ((fb, tb), (fa, ta))
        for f, acc in order:
            t0 = time.perf_counter()
            for _ in range(inner):
                f()
            acc.append((time.perf_counter() - t0) / inner)
    return statistics.median(ta), statistics.median(tb)


def agrees(got: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """|gemmkit - exact| <= 2 k eps (|a| @ |b|), with a float64 product as
    'exact' (its own error is far below float32's eps and 1/k of float64's
    bound for the k used here)."""
    k = a.shape[-1]
    eps = np.finfo(got.dtype).eps
    ref = a.astype(np.float64) @ b.astype(np.float64)
    bound = (
        2.0 * k * eps * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
        + np.finfo(got.dtype).tiny
    )
    return bool(np.all(np.abs(got.astype(np.float64) - ref) <= bound))


class Progress:
    """tqdm when installed; otherwise a plain counter on stderr."""

    def __init__(self, total: int) -> None:
        self.total, self.done = total, 0
        try:
            from tqdm import tqdm
        except ImportError:
            self.bar = None
        else:
            self.bar = tqdm(total=total, unit="case", file=sys.stderr, leave=False)

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


def benchmark(shapes: list[tuple[int, int, int]], budget: float, threads: int | None) -> int:
    limiter = None
    if threads is not None:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            print("note: threadpoolctl is not installed; numpy keeps its own thread count")
        else:
            limiter = threadpool_limits(limits=threads, user_api="blas")
    print()
    print(
        f"gemmkit.matmul vs numpy.matmul: gemmkit {gemmkit.get_num_threads()} threads; "
        f"numpy: {numpy_blas()}"
    )
    print(
        "(median of alternating samples; GFLOP/s = 2*m*n*k / time; "
        "'check' compares with a float64 product)"
    )
    rng = np.random.default_rng(0)
    rows = [("m x n x k", "dtype", "gemmkit GFLOP/s", "numpy GFLOP/s", "ratio", "check")]
    bad = 0
    progress = Progress(len(shapes) * len(DTYPES))
    try:
        for m, n, k in shapes:
            for dtype in DTYPES:
                a = rng.standard_normal((m, k), dtype=np.dtype(dtype).type)
                b = rng.standard_normal((k, n), dtype=np.dtype(dtype).type)
                c_gk = np.empty((m, n), dtype=dtype)
                c_np = np.empty((m, n), dtype=dtype)
                t_gk, t_np = time_pair(
                    lambda a=a, b=b, c=c_gk: gemmkit.matmul(a, b, out=c),
                    lambda a=a, b=b, c=c_np: np.matmul(a, b, out=c),
                    budget,
                )
                ok = agrees(c_gk, a, b)
                bad += not ok
                flop = 2.0 * m * n * k
                rows.append(
                    (
                        f"{m}x{n}x{k}",
                        dtype,
                        f"{flop / t_gk / 1e9:.1f}",
                        f"{flop / t_np / 1e9:.1f}",
                        f"{t_np / t_gk:.2f}x",
                        "ok" if ok else "MISMATCH",
                    )
                )
                progress.step(f"{m}x{n}x{k} {dtype}")
    finally:
        progress.close()
        if limiter is not None:
            limiter.restore_original_limits()
    print_table(rows, right_from=2)
    if bad:
        print(f"\n{bad} result(s) disagree with numpy beyond the rounding bound", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gemmkit", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help=f"a few seconds: sizes {QUICK_SIZES}, short timing"
    )
    parser.add_argument("--sizes", help=f"comma list of N or MxNxK (default {DEFAULT_SIZES})")
    parser.add_argument(
        "--threads", type=int, help="threads for gemmkit and numpy's BLAS (default: each its own)"
    )
    parser.add_argument("--no-bench", action="store_true", help="print the dispatch table only")
    args = parser.parse_args(argv)
    try:
        shapes = parse_sizes(args.sizes or (QUICK_SIZES if args.quick else DEFAULT_SIZES))
        if args.threads is not None and args.threads < 1:
            raise ValueError("--threads must be at least 1")
    except ValueError as exc:
        print(f"python -m gemmkit: {exc}", file=sys.stderr)
        return 3
    try:
        if args.threads is not None:
            gemmkit.set_num_threads(args.threads)
        info = gemmkit.dispatch_info()
    except gemmkit.IsaError as exc:
        print(exc, file=sys.stderr)
        return 2
    print_dispatch(info)
    if args.no_bench:
        return 0
    try:
        return benchmark(shapes, QUICK_BUDGET_S if args.quick else BUDGET_S, args.threads)
    except gemmkit.IsaError as exc:
        print(exc, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
