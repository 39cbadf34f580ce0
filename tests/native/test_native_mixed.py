"""Native suite for the mixed-precision and int8 families (issue #4).

- Every ISA this machine runs is pinned in a subprocess that checks float16,
  bfloat16, int8 and requantized outputs over that kernel's edge set
  (pinned_mixed_check.py) and reports which kernel ran.
- The VNNI and AMX int8 kernels are bit-identical to the widening int8 kernel
  (and so to exact int32 arithmetic): same digests as under the avx512f pin.
- The deep-K twin (depth slices through an f32/int32 scratch) is byte-identical
  to the single-panel result for beta in {0, 1}: forced on and off with
  GEMMKIT_DEEP_KC_BYTES in two processes.
- Results are bit-identical for one and two threads.
"""

import json

import numpy as np
import pytest

from nativehelpers import ALL_ISAS, HERE, canonical_isa, clean_env, missing_for, run_json, serving_isa

import gemmkit

PINNED_MIXED = str(HERE / "pinned_mixed_check.py")

# What each pin must run, per family (DESIGN.md, dispatch ladders).
DOT_ISA = {"int8": "avx512vnni", "bfloat16": "avx512bf16"}
DEPTH_MULTIPLE = {"avx512vnni": 4, "avx512bf16": 2}
# The tile kernels (amx) run float16 (split into bfloat16 parts), bfloat16
# and int8.
TILE_DEPTH_MULTIPLE = {"float16": 32, "bfloat16": 32, "int8": 64}
# int8 on AVX2 (and simd128) runs the exact i16-pair dot kernel (vpmaddwd).
PAIR_DOT_INT8 = {"fma": 2}


def _depth_multiple(isa, dtype):
    if isa == "amx":
        return TILE_DEPTH_MULTIPLE[dtype]
    if dtype == "int8" and isa in PAIR_DOT_INT8:
        return PAIR_DOT_INT8[isa]
    return DEPTH_MULTIPLE.get(isa, 1) if DOT_ISA.get(dtype) == isa else 1


def _runnable(isa):
    if isa not in gemmkit.dispatch_info()["compiled_isas"]:
        return False, f"{isa} is not compiled into this build"
    missing = missing_for(isa)
    if missing is None:
        return False, "cannot read /proc/cpuinfo"
    if missing:
        return False, f"this machine lacks {', '.join(missing)}"
    return True, ""


def _pinned(isa):
    ok, reason = _runnable(isa)
    if not ok:
        pytest.skip(f"cannot pin {isa}: {reason} (its refusal is tested in test_native_isa.py)")
    return run_json([PINNED_MIXED], clean_env(GEMMKIT_REQUIRE_ISA=isa), timeout=600)


@pytest.mark.parametrize("isa", ALL_ISAS)
def test_pinned_mixed_families(isa):
    report = _pinned(isa)
    info = report["info"]
    assert canonical_isa(info["pin"]) == isa
    for dtype in ("float16", "bfloat16", "int8"):
        want = serving_isa(isa, dtype)
        assert info[dtype]["isa"] == want, f"pin {isa} ran {info[dtype]['isa']} for {dtype}"
        assert info[dtype]["depth_multiple"] == _depth_multiple(want, dtype), info[dtype]
    assert report["bfloat16_checked"], "ml_dtypes is a test dependency (requirements-test.txt)"
    assert report["cases"] > 200
    assert report["n_failures"] == 0, "\n".join(report["failures"])


def _intel():
    try:
        with open("/proc/cpuinfo") as f:
            return "GenuineIntel" in f.read()
    except OSError:
        return False


def test_auto_selects_dot_kernels_where_available():
    # vdpbf16ps issues at half the FMA rate on Intel cores, so auto keeps
    # bf16 on the widening kernel there (the avx512bf16 pin still selects
    # the dot kernel: test_pinned_mixed_families).
    info = gemmkit.dispatch_info()
    if "amx" in info["available_isas"]:
        assert info["float16"]["isa"] == "amx", info["float16"]
    for dtype, dot in DOT_ISA.items():
        if "amx" in info["available_isas"]:
            assert info[dtype]["isa"] == "amx", info[dtype]
        elif dot == "avx512bf16" and _intel():
            assert info[dtype]["isa"] == info["float32"]["isa"]
        elif dot in info["available_isas"]:
            assert info[dtype]["isa"] == dot and info[dtype]["depth_multiple"] == DEPTH_MULTIPLE[dot]
        else:
            assert info[dtype]["isa"] == info["float32"]["isa"]


@pytest.mark.parametrize("dot", ["avx512vnni", "amx"])
def test_int8_dot_kernels_are_bit_identical_to_widening(dot):
    for isa in (dot, "avx512f"):
        ok, reason = _runnable(isa)
        if not ok:
            pytest.skip(f"cannot compare {dot} with widening here: {reason}")
    fast = _pinned(dot)
    widen = _pinned("avx512f")
    assert fast["info"]["int8"]["isa"] == dot
    assert widen["info"]["int8"]["isa"] == "avx512f"
    assert fast["n_failures"] == 0 and widen["n_failures"] == 0
    assert fast["digests"] == widen["digests"]


TWIN_SCRIPT = """
import hashlib, json, sys
import numpy as np, gemmkit, ml_dtypes
threads = int(sys.argv[1])
gemmkit.set_num_threads(threads)
rng = np.random.default_rng(3)
digest = {}
for name, dt in (("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
    for m, n, k in ((67, 29, 2500), (5, 130, 3001)):
        a = rng.standard_normal((m, k)).astype(dt)
        b = rng.standard_normal((k, n)).astype(dt)
        c = rng.standard_normal((m, n)).astype(dt)
        h = hashlib.sha256()
        for beta in (0.0, 1.0):
            h.update(gemmkit.gemm(a, b, c, beta=beta).tobytes())
            h.update(gemmkit.gemm(np.asfortranarray(a), b, c, beta=beta).tobytes())
        digest[f"{name} {m}x{n}x{k}"] = h.hexdigest()
a = rng.integers(-128, 128, (40, 2600)).astype(np.int8)
b = rng.integers(-128, 128, (2600, 33)).astype(np.int8)
digest["requant"] = hashlib.sha256(
    gemmkit.gemm_requant(a, b, scale=1e-4, zero_point=3).tobytes()).hexdigest()
print(json.dumps(digest))
"""


@pytest.mark.parametrize("isa", ["auto", "avx512f", "avx512bf16", "scalar"])
def test_deep_k_twin_is_byte_identical(isa):
    if isa != "auto":
        ok, reason = _runnable(isa)
        if not ok:
            pytest.skip(f"cannot pin {isa}: {reason}")
    pin = None if isa == "auto" else isa
    single = run_json(["-c", TWIN_SCRIPT, "1"],
                      clean_env(GEMMKIT_REQUIRE_ISA=pin, GEMMKIT_DEEP_KC_BYTES=str(2**60)))
    twin = run_json(["-c", TWIN_SCRIPT, "1"],
                    clean_env(GEMMKIT_REQUIRE_ISA=pin, GEMMKIT_DEEP_KC_BYTES="1"))
    twin2 = run_json(["-c", TWIN_SCRIPT, "2"],
                     clean_env(GEMMKIT_REQUIRE_ISA=pin, GEMMKIT_DEEP_KC_BYTES="1"))
    assert single == twin, json.dumps([single, twin], indent=1)
    assert twin == twin2


def test_mixed_results_do_not_depend_on_thread_count():
    rng = np.random.default_rng(11)
    a = rng.integers(-128, 128, (300, 257)).astype(np.int8)
    b = rng.integers(-128, 128, (257, 301)).astype(np.int8)
    af = rng.standard_normal((300, 257)).astype(np.float16)
    bf = rng.standard_normal((257, 301)).astype(np.float16)
    results = []
    try:
        for threads in (1, 2):
            gemmkit.set_num_threads(threads)
            results.append((gemmkit.gemm(a, b), gemmkit.gemm(af, bf),
                            gemmkit.gemm_requant(a, b, scale=0.01, zero_point=0)))
    finally:
        gemmkit.set_num_threads(0)
    for x, y in zip(*results):
        assert x.tobytes() == y.tobytes()


def _with_stride(x, ld):
    """x's values in a view whose rows lie ld elements apart."""
    wide = np.zeros((x.shape[0], ld), dtype=x.dtype)
    wide[:, : x.shape[1]] = x
    return wide[:, : x.shape[1]]


@pytest.mark.parametrize("threads", [1, 2])
def test_tile_columns_read_in_place_equal_packed_bitwise(threads):
    # The tile families read a row-major A's rows in place (as the kernel's B
    # columns) where they lie under 1 KiB apart and the depth is whole
    # chunks, and pack them otherwise; both must give the same bits, for
    # every output form.  The packed twin is the same A as a view of a wider
    # array (rows 1 KiB and more apart).
    if "amx" not in gemmkit.dispatch_info()["available_isas"]:
        pytest.skip("no AMX on this machine: the tile families do not run here")
    import ml_dtypes

    rng = np.random.default_rng(29)
    cases = {
        ml_dtypes.bfloat16: ((70, 45, 32), (33, 100, 96), (256, 96, 384), (5, 300, 448)),
        np.int8: ((70, 45, 64), (33, 100, 256), (64, 64, 512), (5, 300, 960)),
    }
    gemmkit.set_num_threads(threads)
    try:
        for dt, shapes in cases.items():
            for m, n, k in shapes:
                if dt is np.int8:
                    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
                    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
                else:
                    a = rng.standard_normal((m, k)).astype(dt)
                    b = rng.standard_normal((k, n)).astype(dt)
                packed_a = _with_stride(a, 1024)
                assert packed_a.strides[0] >= 1024 > a.strides[0]

                def forms(x):
                    if dt is np.int8:
                        yield gemmkit.gemm(x, b)
                        yield gemmkit.gemm(x, gemmkit.prepack_rhs(b))
                        yield gemmkit.gemm_requant(x, b, scale=0.003, zero_point=-5)
                        return
                    c = rng.standard_normal((m, n)).astype(np.float32)
                    bias = np.linspace(-1, 1, n).astype(np.float32)
                    yield gemmkit.gemm(x, b)
                    yield gemmkit.gemm(x, b, out_dtype=np.float32)
                    yield gemmkit.gemm(x, gemmkit.prepack_rhs(b), out_dtype=np.float32)
                    yield gemmkit.gemm(x, b, c.copy(), alpha=0.5, beta=1.0, out_dtype=np.float32)
                    yield gemmkit.gemm(x, b, out_dtype=np.float32, bias=bias, activation="relu")

                rng_state = rng.bit_generator.state
                in_place = list(forms(a))
                rng.bit_generator.state = rng_state
                packed = list(forms(packed_a))
                for i, (x, y) in enumerate(zip(in_place, packed)):
                    assert x.dtype == y.dtype
                    assert x.tobytes() == y.tobytes(), f"{np.dtype(dt).name} {m}x{n}x{k} form {i}"
    finally:
        gemmkit.set_num_threads(0)
