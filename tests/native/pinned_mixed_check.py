"""Child process of test_native_mixed.py: the mixed-precision and int8
families of whatever kernels GEMMKIT_REQUIRE_ISA selected, over each
kernel's own edge set (tile and depth-multiple boundaries).

References are computed here with numpy, independently of gemmkit:
float16/bfloat16 products in float64 from the (already rounded) inputs, held
to 8 * k * eps (plus the output's smallest subnormal); int8 products exactly in
int64 then wrapped to int32; the
requantization map in float64 (widen, one multiply by the float32 scale,
round half to even, add the zero point, clamp): bit for bit.

Prints one JSON line: {"info", "cases", "failures", "n_failures",
"digests"}; "digests" hashes every int8/requant result so the parent can
prove two pins (VNNI and widening) agree bit for bit.  Exits 0 even when
cases fail so the parent reports them; a crash exits non-zero.
"""

import hashlib
import json
import sys

import numpy as np

import gemmkit

try:
    import ml_dtypes
except ImportError:  # the bfloat16 family is then reported as not checked
    ml_dtypes = None

EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7}
# Smallest subnormal: a result that small rounds with this absolute error.
TINY = {"float16": 2.0**-24, "bfloat16": 2.0**-133}
LAYOUTS = ("C", "F", "T", "rev", "step")


def layout(x, kind):
    """The same values under another memory layout (no value changes)."""
    if kind == "C":
        return np.ascontiguousarray(x)
    if kind == "F":
        return np.asfortranarray(x)
    if kind == "T":
        return np.ascontiguousarray(x.T).T
    if kind == "rev":
        return np.ascontiguousarray(x[::-1, ::-1])[::-1, ::-1]
    big = np.zeros((x.shape[0] * 2, x.shape[1] * 3), dtype=x.dtype)
    big[::2, ::3] = x
    return big[::2, ::3]


def wrap32(x):
    return ((x.astype(np.int64) + 2**31) % 2**32 - 2**31).astype(np.int64)


def requant_reference(acc, scale, zp, lo, hi):
    t = np.rint(acc.astype(np.float64) * np.asarray(scale, np.float32).astype(np.float64))
    return np.clip(t + zp, lo, hi).astype(np.int64)


def edges(info, dtype):
    mr, nr, dm = info[dtype]["mr"], info[dtype]["nr"], info[dtype]["depth_multiple"]
    ms = sorted({1, 2, mr - 1, mr, mr + 1, 2 * mr + 1} - {0})
    ns = sorted({2, nr - 1, nr, nr + 1, 3 * nr + 1} - {0, 1})
    ks = sorted({1, dm - 1, dm, dm + 1, 4 * dm + 1, 37, 300} - {0})
    return ms, ns, ks


def check_int8(ms, ns, ks, rng, failures, h_i32, h_rq):
    """int8 -> int32 and requantized i8/u8 over ms x ns x ks; results are
    hashed into h_i32/h_rq when given.  Returns the number of cases."""
    cases = 0
    for m in ms:
        for n in ns:
            for k in ks:
                cases += 1
                lo_a = -128 if cases % 2 else -3
                a = layout(rng.integers(lo_a, 128, (m, k)).astype(np.int8), LAYOUTS[cases % 5])
                b = layout(rng.integers(-128, 128, (k, n)).astype(np.int8),
                           LAYOUTS[(cases // 5) % 5])
                acc = wrap32(a.astype(np.int64) @ b.astype(np.int64))
                try:
                    got = gemmkit.gemm(a, b)
                    if h_i32 is not None:
                        h_i32.update(got.tobytes())
                    problem = None if (got.dtype == np.int32 and np.array_equal(got, acc)) else (
                        f"int32 mismatch at {np.argwhere(got != acc)[:1].tolist()}")
                except Exception as exc:  # report, keep going
                    problem = f"raised {type(exc).__name__}: {exc}"
                if problem:
                    failures.append(f"int8 m={m} n={n} k={k}: {problem}")
                for out_dtype, lo, hi in ((np.int8, -128, 127), (np.uint8, 0, 255)):
                    scale = np.float32(rng.choice([0.5, 0.25, 1 / 64, 3e-3]))
                    zp = int(rng.integers(lo, hi + 1))
                    bias = rng.integers(-5000, 5000, m).astype(np.int32)
                    want = requant_reference(wrap32(acc + bias[:, None]), scale, zp, lo, hi)
                    try:
                        got = gemmkit.gemm_requant(a, b, scale=float(scale), zero_point=zp,
                                                   bias=bias, out_dtype=out_dtype)
                        if h_rq is not None:
                            h_rq.update(got.tobytes())
                        problem = None if np.array_equal(got.astype(np.int64), want) else (
                            f"requant mismatch at {np.argwhere(got != want)[:1].tolist()}")
                    except Exception as exc:
                        problem = f"raised {type(exc).__name__}: {exc}"
                    if problem:
                        failures.append(
                            f"requant {np.dtype(out_dtype)} m={m} n={n} k={k}: {problem}")
    return cases


def main() -> None:
    info = gemmkit.dispatch_info()
    rng = np.random.default_rng(7)
    failures = []
    cases = 0
    digests = {}
    floats = ["float16"] + (["bfloat16"] if ml_dtypes is not None else [])
    for name in floats:
        dt = np.float16 if name == "float16" else ml_dtypes.bfloat16
        ms, ns, ks = edges(info, name)
        for m in ms:
            for n in ns:
                for k in ks:
                    cases += 1
                    a = layout(rng.standard_normal((m, k)).astype(dt), LAYOUTS[cases % 5])
                    b = layout(rng.standard_normal((k, n)).astype(dt), LAYOUTS[(cases // 5) % 5])
                    c = rng.standard_normal((m, n)).astype(dt)
                    alpha, beta = (1.0, 0.0) if cases % 3 else (-0.5, 1.5)
                    a64, b64, c64 = (x.astype(np.float64) for x in (a, b, c))
                    ref = alpha * (a64 @ b64) + beta * c64
                    bound = 8 * max(k, 1) * EPS[name] * (
                        np.abs(alpha) * (np.abs(a64) @ np.abs(b64)) + abs(beta) * np.abs(c64)
                    ) + TINY[name]
                    for out_dtype in (None, np.float32):
                        # c has the output's type (the f32 twin reads an f32 c).
                        c_in = c if out_dtype is None else c.astype(np.float32)
                        try:
                            got = gemmkit.gemm(a, b, c_in, alpha=alpha, beta=beta,
                                               out_dtype=out_dtype)
                            want_dtype = np.dtype(dt if out_dtype is None else np.float32)
                            if got.dtype != want_dtype:
                                problem = f"result dtype {got.dtype}, expected {want_dtype}"
                            else:
                                err = np.abs(got.astype(np.float64) - ref)
                                bad = np.argwhere(err > bound)
                                problem = (
                                    f"{len(bad)} elements outside 8*k*eps, first {bad[0]}: "
                                    f"got {got[tuple(bad[0])]} want {ref[tuple(bad[0])]}"
                                    if len(bad) else None
                                )
                        except Exception as exc:  # report, keep going
                            problem = f"raised {type(exc).__name__}: {exc}"
                        if problem:
                            failures.append(f"{name} out={out_dtype} m={m} n={n} k={k}: {problem}")

    # Products large in both dimensions (avx512f runs them on its square
    # tile, dispatch/gemm-inl.hpp; a prepacked B runs the main tile): within
    # the bound, and the same bits as the prepacked call under every pin.
    for name in floats:
        dt = np.float16 if name == "float16" else ml_dtypes.bfloat16
        for m, n, k in ((150, 401, 300), (40, 520, 77)):
            cases += 1
            a = rng.standard_normal((m, k)).astype(dt)
            b = rng.standard_normal((k, n)).astype(dt)
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            bound = 8 * k * EPS[name] * (np.abs(a64) @ np.abs(b64)) + TINY[name]
            try:
                got = gemmkit.gemm(a, b)
                err = np.abs(got.astype(np.float64) - a64 @ b64)
                if (err > bound).any():
                    problem = f"{int((err > bound).sum())} elements outside 8*k*eps"
                elif got.tobytes() != gemmkit.gemm(a, gemmkit.prepack_rhs(b)).tobytes():
                    problem = "bits differ from gemm(a, prepack_rhs(b))"
                else:
                    problem = None
            except Exception as exc:  # report, keep going
                problem = f"raised {type(exc).__name__}: {exc}"
            if problem:
                failures.append(f"{name} m={m} n={n} k={k}: {problem}")

    # The kernel's own edge set, then a fixed one (the same under every pin,
    # so the digests compare across pins).
    h_i32, h_rq = hashlib.sha256(), hashlib.sha256()
    cases += check_int8(*edges(info, "int8"), rng, failures, None, None)
    fixed = ([1, 2, 15, 16, 17, 31, 32, 33, 65], [2, 5, 6, 7, 11, 12, 13, 37],
             [1, 2, 3, 4, 5, 7, 8, 9, 37, 300])
    cases += check_int8(*fixed, np.random.default_rng(99), failures, h_i32, h_rq)
    digests["int8"] = h_i32.hexdigest()
    digests["requant"] = h_rq.hexdigest()
    print(json.dumps({"info": info, "cases": cases, "failures": failures[:20],
                      "n_failures": len(failures), "digests": digests,
                      "bfloat16_checked": ml_dtypes is not None}))


if __name__ == "__main__":
    sys.exit(main())
