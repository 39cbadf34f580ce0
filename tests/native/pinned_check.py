"""Child process of test_native_isa.py: a compact correctness run of whatever
kernel GEMMKIT_REQUIRE_ISA selected, over that kernel's own edge set.

Run as a script (``python tests/native/pinned_check.py``); prints one JSON
line: {"info": dispatch_info(), "cases": N, "failures": [...]}.  Exits 0 even
when cases fail so the parent can report them; any crash exits non-zero.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "api"))

import numpy as np  # noqa: E402

import gemmkit  # noqa: E402
from apihelpers import Canaried, np_check_gemm, np_layout, rand  # noqa: E402

LAYOUT_CYCLE = ("C", "F", "rev_both", "step", "T", "pad", "neg_T", "rev_rows")
OUT_CYCLE = (None,) + Canaried.OUT_LAYOUTS


def main() -> None:
    info = gemmkit.dispatch_info()
    failures = []
    cases = 0
    for dtype in ("float32", "float64"):
        mr, nr, dm = info[dtype]["mr"], info[dtype]["nr"], info[dtype]["depth_multiple"]
        # XNNPACK's edge set from the geometry: m in 1..mr+1 (and two tiles
        # plus one), n around nr and its multiples, k around depth_multiple
        # and across the cache block.
        ms = sorted({1, 2, mr - 1, mr, mr + 1, 2 * mr + 1} - {0})
        ns = sorted({1, 2, nr - 1, nr, nr + 1, 2 * nr, 3 * nr + 1} - {0})
        ks = sorted({dm, max(dm - 1, 1), dm + 1, 4 * dm, 37, 257} - {0})
        # Tall, narrow outputs (C with a few columns and many rows: the
        # orientation that keeps tiles full, and the transposing packs of a
        # depth-contiguous operand, ragged against the vector length), each
        # repeated so the layout cycle passes every layout of A.
        tall = [(4 * mr + 3, n, k) for n in sorted({2, 3, max(mr // 2, 2)}) for k in (37, 257)
                for _ in LAYOUT_CYCLE]
        rng = np.random.default_rng(0)
        shapes = [(m, n, k) for m in ms for n in ns for k in ks] + tall
        for m, n, k in shapes:
            cases += 1
            la = LAYOUT_CYCLE[cases % len(LAYOUT_CYCLE)]
            lb = LAYOUT_CYCLE[(cases // 3) % len(LAYOUT_CYCLE)]
            a = np_layout(rand(rng, (m, k), dtype), la)
            b = np_layout(rand(rng, (k, n), dtype), lb)
            alpha = (1.0, -0.5, 2.0)[cases % 3]
            beta = (0.0, 1.0, -1.5, 0.0)[cases % 4]
            c = rand(rng, (m, n), dtype)
            if beta == 0.0:
                c[...] = np.nan  # beta == 0 must not read C
            out_layout = OUT_CYCLE[cases % len(OUT_CYCLE)]
            try:
                if out_layout is None:
                    got = gemmkit.gemm(a, b, c, alpha=alpha, beta=beta)
                    problem = None
                else:
                    out = Canaried((m, n), dtype, out_layout)
                    got = gemmkit.gemm(a, b, c, alpha=alpha, beta=beta, out=out.view)
                    problem = out.outside_untouched()
                problem = problem or np_check_gemm(got, a, b, c, alpha, beta)
            except Exception as exc:  # report, keep going
                problem = f"raised {type(exc).__name__}: {exc}"
            if problem:
                failures.append(
                    f"{dtype} m={m} n={n} k={k} a={la} b={lb} out={out_layout} "
                    f"alpha={alpha} beta={beta}: {problem}"
                )
    print(json.dumps({"info": info, "cases": cases, "failures": failures[:20],
                      "n_failures": len(failures)}))


if __name__ == "__main__":
    main()
