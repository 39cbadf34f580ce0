"""Measurement core shared by ``python -m gemmkit`` and benchmarks/native.

One implementation of how gemmkit times itself against another library:

- :func:`time_interleaved`: every contender is warmed up, then sampled in
  turn (A B, B A, A B, ...; each sample a loop of calls lasting at least
  ``sample_s``), so drift and noise from other processes hit all alike and
  the medians compare like with like;
- :class:`OtherLoad`: the CPU that *other* processes used while a block ran
  (the machine's busy time from ``/proc/stat`` minus this process's own),
  in cores and as a share of this process's cores; ``nan`` where the
  platform has no ``/proc/stat`` (macOS, Windows, Pyodide), never an error;
- :func:`ratio_spread`: how much the per-sample ratios of two contenders
  scatter (interquartile range over median);
- :func:`within_rounding_bound`: a result checked against a float64 product
  with the classical bound ``2 k eps (|a| @ |b|)``;
- :func:`aligned`: operands on 64-byte boundaries for every contender.

Private: the benchmarks run against the installed package and import this
module, so the main job and the published tables share every definition.
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import time
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from typing_extensions import Self

# The kernel's machine-wide CPU accounting (Linux); a module variable so a
# test can point it at a missing file and see the "unknown" path.
PROC_STAT = "/proc/stat"
# Other processes using at least this share of our cores mark a measurement
# as disturbed: on a 2-core machine 0.3 cores, about one busy browser tab.
DISTURBED_SHARE = 0.15
# Environment variables that some machines set to keep old OpenBLAS builds
# safe and that slow a current numpy (benchmarks/native/bench_gemm.py runs
# without them; the main job says when they are set).
OPENBLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
# Warm-up per contender before sampling: at least two calls and this long
# (first calls start thread pools, fault pages in, resolve the dispatch).
WARMUP_S = 0.05


def cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cpu_model() -> str:
    """The CPU's marketing name, or the machine type where it is not known."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def cpu_seconds() -> tuple[float, float]:
    """(busy CPU seconds of the whole machine, CPU seconds of this process).

    The first is ``nan`` where ``/proc/stat`` cannot be read.  This
    process's seconds include its reaped children (a compiler or helper it
    ran is not "other" load).
    """
    try:
        with open(PROC_STAT, encoding="ascii") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
        # user nice system idle iowait irq softirq steal: steal is the
        # hypervisor's, not another process's, so it is left out.
        busy = (v[0] + v[1] + v[2] + v[5] + v[6]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        busy = float("nan")
    try:
        t = os.times()
        own = t.user + t.system + t.children_user + t.children_system
    except (OSError, AttributeError):
        own = float("nan")
    return busy, own


def other_cpu(before: tuple[float, float], after: tuple[float, float], wall: float) -> float:
    """Cores used by other processes between two :func:`cpu_seconds`
    readings ``wall`` seconds apart; ``nan`` when unknown."""
    other = (after[0] - before[0]) - (after[1] - before[1])
    if math.isnan(other):
        return float("nan")
    return max(0.0, other / max(wall, 1e-9))


class OtherLoad:
    """The load other processes put on the machine while a block ran::

    with OtherLoad() as load:
        ...
    load.cores   # cores they used (nan when unknown)
    load.share   # the same over this process's cores
    """

    def __init__(self) -> None:
        self.cores = float("nan")
        self.share = float("nan")

    def __enter__(self) -> Self:
        self._before = cpu_seconds()
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cores = other_cpu(self._before, cpu_seconds(), time.perf_counter() - self._t0)
        self.share = self.cores / cores()

    @property
    def known(self) -> bool:
        return not math.isnan(self.cores)


def disturbed(other_cores: float, n_cores: int | None = None) -> bool:
    """Whether ``other_cores`` (from :func:`other_cpu`) reach
    :data:`DISTURBED_SHARE` of ``n_cores`` (default: this process's);
    an unknown load is not marked."""
    return other_cores >= DISTURBED_SHARE * (n_cores or cores())


def wait_quiet(limit_s: float, threshold: float = 0.25) -> float:
    """Waits (at most ``limit_s``) until other processes use fewer than
    ``threshold`` cores; returns the last reading (``nan``, at once, where
    the load cannot be measured)."""
    deadline = time.perf_counter() + limit_s
    while True:
        b0, t0 = cpu_seconds(), time.perf_counter()
        if math.isnan(b0[0]):
            return float("nan")
        time.sleep(0.25)
        busy = other_cpu(b0, cpu_seconds(), time.perf_counter() - t0)
        if busy < threshold or time.perf_counter() >= deadline:
            return busy


def time_interleaved(
    fns: dict[str, Callable[[], object]], samples: int, sample_s: float, settle_s: float = 0.0
) -> dict[str, list[float]]:
    """Seconds per call of every function in ``fns``, ``samples`` each,
    sampled in turn (A B C, C B A, A B C, ...).

    Each sample is a loop of calls lasting at least ``sample_s`` (the count
    fixed per function after its warm-up), so sample ``i`` of every function
    was taken at about the same moment.  ``settle_s``: a pause before every
    sample.  OpenBLAS's idle workers spin for a while after each call (a
    2-thread gemmkit call right after a 2-thread numpy call ran at 1 core's
    speed, 0.5 s later at full speed), which would hand whichever library
    runs next a machine with a core busy; multi-thread measurements
    therefore let the previous library's threads go idle first.
    """
    inner = {}
    for name, f in fns.items():
        t0 = time.perf_counter()
        n = 0
        while n < 2 or time.perf_counter() - t0 < WARMUP_S:
            f()
            n += 1
        inner[name] = max(1, int(sample_s / max((time.perf_counter() - t0) / n, 1e-9)))
    out: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for i in range(samples):
        for name in names if i % 2 == 0 else names[::-1]:
            if settle_s:
                time.sleep(settle_s)
            f = fns[name]
            t0 = time.perf_counter()
            for _ in range(inner[name]):
                f()
            out[name].append((time.perf_counter() - t0) / inner[name])
    return out


def time_alternating(
    fa: Callable[[], object],
    fb: Callable[[], object],
    samples: int,
    sample_s: float,
    settle_s: float = 0.0,
) -> tuple[list[float], list[float]]:
    """:func:`time_interleaved` of two functions: (fa's samples, fb's)."""
    got = time_interleaved({"a": fa, "b": fb}, samples, sample_s, settle_s)
    return got["a"], got["b"]


def ratio_spread(ta: list[float], tb: list[float]) -> float:
    """Interquartile range over median of the per-sample ratios tb[i] / ta[i]
    (samples taken side by side by :func:`time_interleaved`): 0.1 means the
    middle half of the ratios lies within a band 10% of their median wide.
    ``nan`` with fewer than two samples."""
    ratios = [b / a for a, b in zip(ta, tb) if a > 0]
    if len(ratios) < 2:
        return float("nan")
    q1, _, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    return (q3 - q1) / statistics.median(ratios)


def aligned(x, align: int = 64):
    """A copy of array ``x`` whose data starts on an ``align``-byte boundary,
    as a library's own allocator would place it.  numpy aligns large arrays
    to 16 bytes only, and some peers lose much on that: torch's bfloat16
    matmul (oneDNN, AMX) ran at half speed from 16-byte-aligned operands
    (measured on a Xeon with AMX, 2026-12-05: 2048^3 700-720 GFLOP/s against
    1300-1360 aligned), while gemmkit's packing does not care.  Benchmarks
    hand every contender the same aligned operands."""
    import numpy as np

    x = np.asarray(x)
    raw = np.empty(x.nbytes + align, dtype=np.uint8)
    start = (-raw.ctypes.data) % align
    out = raw[start : start + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


def within_rounding_bound(got, a, b) -> bool:
    """``|got - a @ b| <= 2 k eps (|a| @ |b|) + tiny`` elementwise, the exact
    product taken in float64 (its own error is far below float32's eps, and
    1/k of float64's bound for the depths measured here); eps and tiny are
    those of ``got``'s dtype."""
    import numpy as np

    k = a.shape[-1]
    eps = np.finfo(got.dtype).eps
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = 2.0 * k * eps * (np.abs(a64) @ np.abs(b64)) + np.finfo(got.dtype).tiny
    return bool(np.all(np.abs(got.astype(np.float64) - a64 @ b64) <= bound))


def blas_libraries() -> list[dict] | None:
    """threadpoolctl's records of the BLAS libraries loaded in this process
    (numpy's among them); ``None`` when threadpoolctl is not installed or
    cannot inspect this platform."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    try:
        info = threadpool_info()
    except Exception:  # noqa: BLE001 -- a platform it cannot inspect: unknown, not fatal
        return None
    return [lib for lib in info if lib.get("user_api") == "blas"]
