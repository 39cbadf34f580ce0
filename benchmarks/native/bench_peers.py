"""Benchmark (not a test): gemmkit's float32/float64 matmul against every peer a
user would reach for, in one process, one thread, interleaved: numpy.matmul
(OpenBLAS), MKL's cblas_sgemm/cblas_dgemm (libmkl_rt of the pinned PyPI mkl,
sequential threading layer, through ctypes) and torch.matmul (its CPU BLAS).

    .venv/bin/pip install -r requirements-bench.txt        # once: mkl (pinned)
    .venv/bin/python benchmarks/native/bench_peers.py [--quick] [--shapes 1024,16x4096x4096]
                                                      [--samples 7] [--json PATH]

For each shape and dtype: GFLOP/s (median of interleaved samples), the ratios
gemmkit / peer, the share of the measured FMA peak (benchmarks/native/
fma_peak.c at the vector width of the ISA gemmkit dispatched), and a check of
every library's result against a float64 product within 2 k eps.  A point is
marked `*` (UNTRUSTWORTHY) when other processes used DISTURBED_SHARE of the
cores while it was measured: quote ratios from quiet runs only.  A peer that is
not installed is left out, with the reason printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from gemmkit._bench import (
    OtherLoad,
    aligned,
    cpu_model,
    disturbed,
    time_interleaved,
    within_rounding_bound,
)

HERE = Path(__file__).resolve().parent

# issue 11's targets: squares and the skinny/deep shapes
SHAPES = [(256, 256, 256), (1024, 1024, 1024), (2048, 2048, 2048),
          (16, 4096, 4096), (4096, 16, 4096), (64, 64, 16384)]
QUICK_SHAPES = [(256, 256, 256), (16, 1024, 1024)]
DTYPES = ("float32", "float64")



def _sibling(name: str):
    """benchmarks/native/<name>.py as a module: bench_gemm's FMA peak
    measurement, bench_mixed's MKL loader."""
    spec = importlib.util.spec_from_file_location(f"gemmkit_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Torch:
    def __init__(self) -> None:
        import torch

        torch.set_num_threads(1)
        self.torch = torch
        self.version = torch.__version__

    def matmul(self, a, b, out):
        ta, tb, tc = (self.torch.from_numpy(x) for x in (a, b, out))
        return lambda: self.torch.matmul(ta, tb, out=tc)


def parse_shapes(text: str) -> list[tuple[int, int, int]]:
    shapes = []
    for item in text.split(","):
        dims = [int(x) for x in item.lower().split("x")]
        if len(dims) == 1:
            dims *= 3
        if len(dims) != 3 or min(dims) < 1:
            raise argparse.ArgumentTypeError(f"bad shape {item!r}: N or MxNxK")
        shapes.append(tuple(dims))
    return shapes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="two small shapes, 3 samples")
    ap.add_argument("--shapes", type=parse_shapes, help="comma list of N or MxNxK")
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--sample-ms", type=float, default=150.0)
    ap.add_argument("--json", type=Path, help="write every sample and check here")
    args = ap.parse_args()

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import gemmkit
    import numpy as np
    from threadpoolctl import threadpool_limits

    gemmkit.set_num_threads(1)
    peers, missing = {}, []
    for name, cls in (("mkl", lambda: _sibling("bench_mixed").Mkl()), ("torch", Torch)):
        try:
            peers[name] = cls()
        except ImportError as exc:
            missing.append(f"{name}: {exc}")
    shapes = args.shapes or (QUICK_SHAPES if args.quick else SHAPES)
    samples = 3 if args.quick else args.samples
    info = gemmkit.dispatch_info()
    bench_gemm = _sibling("bench_gemm")
    with tempfile.TemporaryDirectory() as tmp:
        peak = bench_gemm.measure_peak([1], args.quick, Path(tmp))
    peak_for = bench_gemm.peak_for

    print(f"{cpu_model()}; gemmkit {gemmkit.__version__}, numpy {np.__version__}"
          + "".join(f", {n} {p.version}" for n, p in peers.items()) + "; one thread")
    for note in missing:
        print(f"  left out: {note}")
    rows = []
    rng = np.random.default_rng(0)
    with threadpool_limits(limits=1):
        for dtype in DTYPES:
            isa = info[dtype]["isa"]
            fma_peak = peak_for(peak, 1, dtype, isa)
            names = ["gemmkit", "numpy", *peers]
            print(f"\n{dtype} ({info[dtype]['kernel']}; FMA peak "
                  f"{fma_peak:.1f} GFLOP/s)" if fma_peak else f"\n{dtype}")
            print(f"{'m x n x k':>18}" + "".join(f"{n:>10}" for n in names)
                  + "".join(f"{'/' + n:>10}" for n in names[1:]) + f"{'% peak':>8}")
            for m, n, k in shapes:
                # 64-byte-aligned operands and outputs for every library
                # (_bench.aligned: some peers lose much on numpy's 16).
                a = aligned(rng.standard_normal((m, k)).astype(dtype))
                b = aligned(rng.standard_normal((k, n)).astype(dtype))
                outs = {name: aligned(np.empty((m, n), dtype)) for name in names}
                fns = {"gemmkit": lambda: gemmkit.matmul(a, b, out=outs["gemmkit"]),
                       "numpy": lambda: np.matmul(a, b, out=outs["numpy"])}
                for name, peer in peers.items():
                    fns[name] = peer.matmul(a, b, outs[name])
                with OtherLoad() as load:
                    times = time_interleaved(fns, samples, args.sample_ms / 1000.0)
                flop = 2.0 * m * n * k
                rate = {name: flop / statistics.median(t) / 1e9 for name, t in times.items()}
                correct = {name: bool(within_rounding_bound(outs[name], a, b)) for name in names}
                mark = "*" if disturbed(load.cores) else " "
                wrong = [name for name, ok in correct.items() if not ok]
                print(f"{f'{m}x{n}x{k}':>18}" + "".join(f"{rate[x]:>10.1f}" for x in names)
                      + "".join(f"{rate['gemmkit'] / rate[x]:>9.2f}x" for x in names[1:])
                      + (f"{100 * rate['gemmkit'] / fma_peak:>7.0f}%" if fma_peak else "")
                      + mark + (f"  WRONG: {', '.join(wrong)}" if wrong else ""))
                rows.append({"dtype": dtype, "m": m, "n": n, "k": k, "seconds": times,
                             "gflops": rate, "correct": correct, "other_cores": load.cores,
                             "disturbed": disturbed(load.cores), "fma_peak": fma_peak})
    print("\n* UNTRUSTWORTHY: other processes used the machine while the point was measured")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"dispatch_info": info, "peak": peak, "rows": rows,
                                         "left_out": missing}, indent=1, default=str))
    return 0 if all(all(r["correct"].values()) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
