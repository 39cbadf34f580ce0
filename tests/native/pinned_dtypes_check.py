"""Child process of test_native_dtypes.py: the exact integer, bool and
complex families of whatever kernel GEMMKIT_REQUIRE_ISA selected, over that
kernel's own edge set, against independent references.

Integers and bool are checked bit for bit against exact Python integers
(object arrays), wrapped to the result type at the end; complex against
clongdouble (80-bit here) within 16 * k * eps of the component type, with
complex alpha and beta and every conj_a / conj_b combination.

Run as a script; prints one JSON line {"info", "cases", "failures",
"n_failures"}; exits 0 even when cases fail so the parent reports them.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "api"))

import gemmkit
import numpy as np
from apihelpers import np_layout

INTEGERS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
# dispatch_info()'s key for the kernel each dtype runs (one per width).
KERNEL_KEY = {"int8": "uint8", "uint8": "uint8", "int16": "int16", "uint16": "int16",
              "int32": "int32", "uint32": "int32", "int64": "int64", "uint64": "int64",
              "bool": "bool", "complex64": "complex64", "complex128": "complex128"}
LAYOUTS = ("C", "F", "rev_both", "step", "T", "pad", "neg_T", "rev_rows")


def wrap(values, dtype):
    """Exact Python integers (object array) as ``dtype``: modulo 2**bits."""
    info = np.iinfo(dtype)
    span = 2 ** info.bits
    flat = [((int(v) - info.min) % span) + info.min for v in values.ravel()]
    return np.array(flat, dtype=dtype).reshape(values.shape)


def integer_values(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def shapes(info_key, info):
    d = info[info_key]
    mr, nr = d["mr"], d["nr"]
    ms = sorted({1, 2, mr - 1, mr, mr + 1, 2 * mr + 1} - {0})
    ns = sorted({1, 2, nr - 1, nr, nr + 1, 2 * nr + 1} - {0})
    # bool packs 32 depth steps to a word and takes the depth in slices of
    # about 8192 steps (kernel/bool_bits.hpp): ragged words, and three slices.
    ks = (1, 31, 33, 257, 20000) if info_key == "bool" else (1, 2, 7, 64, 257)
    return [(m, n, ks[(i + j) % len(ks)]) for i, m in enumerate(ms) for j, n in enumerate(ns)]


def integer_cases(info, failures):
    rng = np.random.default_rng(1)
    cases = 0
    for dtype in INTEGERS + ("bool",):
        for m, n, k in shapes(KERNEL_KEY[dtype], info):
            cases += 1
            la, lb = LAYOUTS[cases % len(LAYOUTS)], LAYOUTS[(cases // 3) % len(LAYOUTS)]
            if dtype == "bool":
                a0 = rng.random((m, k)) < 0.3
                b0 = rng.random((k, n)) < 0.1
                ref = (a0.astype(np.int64) @ b0.astype(np.int64)) != 0  # exact counts
                alpha = beta = None
                c0 = None
            else:
                a0, b0 = integer_values(rng, (m, k), dtype), integer_values(rng, (k, n), dtype)
                c0 = integer_values(rng, (m, n), dtype)
                alpha, beta = ((1, 0), (-3, 2), (7, -1))[cases % 3]
                exact = alpha * (a0.astype(object) @ b0.astype(object)) + beta * c0.astype(object)
                ref = wrap(exact, dtype)
            a = np_layout(a0, la, fill=a0.dtype.type(1))
            b = np_layout(b0, lb, fill=b0.dtype.type(1))
            try:
                if alpha is None:
                    got = gemmkit.matmul(a, b)
                else:
                    got = gemmkit.gemm(a, b, c0, alpha=alpha, beta=beta, out_dtype=dtype)
                problem = None
                if got.dtype != np.dtype(dtype):
                    problem = f"result dtype {got.dtype}"
                elif not np.array_equal(got, ref):
                    bad = np.argwhere(got != ref)[0]
                    problem = (f"{int((got != ref).sum())} wrong, first at {tuple(bad)}: "
                               f"got {got[tuple(bad)]}, expected {ref[tuple(bad)]}")
            except Exception as exc:  # noqa: BLE001 - report, keep going
                problem = f"raised {type(exc).__name__}: {exc}"
            if problem:
                failures.append(f"{dtype} m={m} n={n} k={k} a={la} b={lb} alpha={alpha} "
                                f"beta={beta}: {problem}")
    return cases


def complex_cases(info, failures):
    rng = np.random.default_rng(2)
    cases = 0
    for dtype in ("complex64", "complex128"):
        eps = float(np.finfo(dtype).eps)
        for m, n, k in shapes(dtype, info):
            cases += 1
            la, lb = LAYOUTS[cases % len(LAYOUTS)], LAYOUTS[(cases // 3) % len(LAYOUTS)]

            def rc(shape, dtype=dtype):
                return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)

            a0, b0, c0 = rc((m, k)), rc((k, n)), rc((m, n))
            conj_a, conj_b = bool(cases & 1), bool(cases & 2)
            alpha = (1, 0.5 - 2j, -1j)[cases % 3]
            beta = (0, 1, 2 + 1j, 0)[cases % 4]
            wide = np.clongdouble
            ra = np.conj(a0) if conj_a else a0
            rb = np.conj(b0) if conj_b else b0
            ref = wide(alpha) * (ra.astype(wide) @ rb.astype(wide)) + wide(beta) * c0.astype(wide)
            # 16 k eps of |alpha| |A| |B| + |beta| |C| (complex: each product
            # is two real ones and a sum).
            scale = abs(alpha) * (np.abs(a0).astype(np.longdouble) @ np.abs(b0)) + abs(beta) * np.abs(c0)
            tol = 16 * (k + 2) * eps * scale + 1e-300
            a = np_layout(a0, la, fill=np.nan)
            b = np_layout(b0, lb, fill=np.nan)
            try:
                got = gemmkit.gemm(a, b, c0, alpha=alpha, beta=beta, conj_a=conj_a, conj_b=conj_b)
                err = np.abs(got.astype(wide) - ref)
                problem = None if got.dtype == np.dtype(dtype) and (err <= tol).all() else (
                    f"dtype {got.dtype}, max error {float(err.max()):.3g} (tolerance "
                    f"{float(tol.min()):.3g} at the tightest)")
            except Exception as exc:  # noqa: BLE001 - report, keep going
                problem = f"raised {type(exc).__name__}: {exc}"
            if problem:
                failures.append(f"{dtype} m={m} n={n} k={k} a={la} b={lb} alpha={alpha} "
                                f"beta={beta} conj=({conj_a}, {conj_b}): {problem}")
    return cases


def main() -> None:
    info = gemmkit.dispatch_info()
    failures = []
    cases = integer_cases(info, failures) + complex_cases(info, failures)
    print(json.dumps({"info": info, "cases": cases, "failures": failures[:20],
                      "n_failures": len(failures)}))


if __name__ == "__main__":
    main()
