"""Benchmark (not a test): gemmkit's bf16, f16 and int8 GEMM against its peers,
single thread, in one process.

What runs, per square size (default 128, 256, 512, 1024, 2048), each group
sampled interleaved so noise from other processes hits all its members:

- bf16: gemmkit bf16 (bf16 out, and the f32-output twin) vs torch's bf16
  matmul (torch.set_num_threads(1), same bf16 values) and vs gemmkit f32;
- int8: gemmkit s8 x s8 -> s32 plain vs onnxruntime MatMulInteger u8 x s8
  with B a graph input (MLAS packs B on every run), and gemmkit with
  prepack_rhs(B) vs onnxruntime with B a constant initializer (packed once);
  intra_op_num_threads=1, IO binding (no copies per run);
- f16: gemmkit f16 vs gemmkit f32, vs MKL cblas_hgemm (PyPI mkl, ctypes,
  sequential), and vs numpy's float16 matmul, which is a plain loop of about
  0.5 GFLOP/s: it is measured only at small sizes (--numpy-f16-sizes) and the
  ratio at larger sizes divides by the rate of the largest size measured
  (marked "extrapolated"; numpy's loop only slows down as operands leave the
  caches, so this understates gemmkit's lead).

Rates are also given as a percentage of the measured peak of the instruction
the kernel is built on: dot_peak.c (vdpbf16ps, vpdpbusd, vfmadd231ph and, where
the CPU has it, AMX) and fma_peak.c (vfmadd231ps), both compiled here at run
time.  gemmkit's rates are against the instruction its kernel uses (AMX
tiles where the CPU has them).  A peer above the vdpbf16ps / vpdpbusd peak is
using AMX; MKL's hgemm
above the f32 FMA peak computes in f16 (AVX512-FP16, peak f16_zmm).
--peer-isa avx512 re-runs the peers capped to the instructions gemmkit uses
(ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16 for torch, MKL_ENABLE_INSTRUCTIONS=
AVX512_E3 for MKL; onnxruntime has no such switch, so its AMX path stays).

    python benchmarks/native/bench_mixed.py [--quick] [--sizes 256,1024,2048]
        [--groups bf16,int8,f16] [--peer-isa native|avx512] [--pin ISA] [--out DIR]

Writes DIR/bench-mixed-<stamp>.json (every sample, dispatch info, versions,
the ISA each peer reported) and .png, and prints markdown tables.  Exit
status 1 when a gemmkit result is outside its error bound, 2 when a gemmkit
type could not run at all (the peers' numbers are still written).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime as _dt
import glob
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# Shared helpers (environment, FMA peak, progress), from the file next to this one.
import bench_gemm as bg

# The measurement core, shared with bench_gemm.py and `python -m gemmkit`.
from gemmkit import _bench

SIZES = [128, 256, 512, 1024, 2048]
QUICK_SIZES = [128, 256]
NUMPY_F16_SIZES = [128, 256]
GROUPS = ("bf16", "int8", "f16")
PEER_CAPS = {  # --peer-isa avx512: what gemmkit's vector kernels can use
    "ONEDNN_MAX_CPU_ISA": "AVX512_CORE_BF16",
    "MKL_ENABLE_INSTRUCTIONS": "AVX512_E3",
}
# Issue #4's targets (same run, one thread, 1024 and 2048 squares).
TARGETS = [
    ("bf16", "gemmkit bf16", "torch bf16", 1.0),
    ("bf16", "gemmkit bf16", "gemmkit f32", 1.7),
    ("int8", "gemmkit int8", "ort u8s8 B input", 1.0),
    ("int8", "gemmkit int8 prepacked", "ort u8s8 B const", 1.0),
    ("f16", "gemmkit f16", "gemmkit f32", 0.8),
    ("f16", "gemmkit f16", "mkl hgemm", 1.0),
    ("f16", "gemmkit f16", "numpy f16", 50.0),
]
TARGET_SIZES = (1024, 2048)
ARCH_GET_XCOMP_PERM = 0x1022
XTILEDATA_BIT = 1 << 18
SYS_ARCH_PRCTL = 158  # x86-64


# --------------------------------------------------------------------------
# machine: peaks, AMX permission, C-level output


def measure_dot_peak(quick: bool, workdir: Path) -> dict:
    """Compiles and runs dot_peak.c for the instructions this CPU has."""
    cc = shutil.which("gcc") or shutil.which("cc")
    flags = bg.cpu_flags()
    if cc is None or platform.machine() not in ("x86_64", "AMD64") or "avx512f" not in flags:
        return {"error": "no C compiler, not x86-64 or no AVX-512: dot peaks not measured"}
    defs = ["-DPEAK_AVX512F"]
    for cpu_flag, define in (
        ("avx512_bf16", "-DPEAK_BF16"),
        ("avx512_vnni", "-DPEAK_VNNI"),
        ("avx512_fp16", "-DPEAK_FP16"),
        ("amx_bf16", "-DPEAK_AMX"),
    ):
        if cpu_flag in flags and (define != "-DPEAK_AMX" or "amx_int8" in flags):
            defs.append(define)
    cmd = [cc, "-O2", "-pthread", "-mavx512f", *defs, str(HERE / "dot_peak.c")]
    exe = workdir / "dot_peak"
    r = subprocess.run([*cmd, "-o", str(exe)], check=False, capture_output=True, text=True)
    if r.returncode != 0:  # an old assembler: keep what it can build
        defs = [d for d in defs if d in ("-DPEAK_AVX512F", "-DPEAK_BF16", "-DPEAK_VNNI")]
        cmd = [cc, "-O2", "-pthread", "-mavx512f", *defs, str(HERE / "dot_peak.c")]
        subprocess.run([*cmd, "-o", str(exe)], check=True)
    secs, reps = ("0.05", "3") if quick else ("0.25", "7")
    out = json.loads(
        subprocess.run(
            [str(exe), "1", secs, reps], check=True, capture_output=True, text=True
        ).stdout
    )
    out["compiler_flags"] = cmd[1:-1]
    return out


def amx_permitted() -> bool | None:
    """Whether this process holds the AMX tile-data permission (a library
    that may use AMX asks for it; nothing else does)."""
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        mask = ctypes.c_uint64(0)
        if libc.syscall(SYS_ARCH_PRCTL, ARCH_GET_XCOMP_PERM, ctypes.byref(mask)) != 0:
            return None
        return bool(mask.value & XTILEDATA_BIT)
    except (OSError, AttributeError):
        return None


def capture_c_stdout(fn) -> str:
    """Runs fn with the process's file descriptor 1 sent to a file; returns
    what C code (oneDNN's and MKL's verbose modes) printed there."""
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            fn()
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        return tmp.read().decode(errors="replace")


# --------------------------------------------------------------------------
# peers: each loader returns an object or raises with the reason it is missing


class Torch:
    def __init__(self):
        import torch

        torch.set_num_threads(1)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # only settable before any parallel work
            pass
        self.torch = torch
        self.version = torch.__version__

    def bf16(self, a_bits, b_bits):
        """Operands are the very bf16 values gemmkit gets (uint16 bits)."""
        t = self.torch
        a = t.from_numpy(a_bits.view("int16")).view(t.bfloat16)
        b = t.from_numpy(b_bits.view("int16")).view(t.bfloat16)
        c = t.empty((a.shape[0], b.shape[1]), dtype=t.bfloat16)
        return (lambda: t.matmul(a, b, out=c)), (lambda: c.float().numpy())

    def isa(self) -> str:
        """oneDNN's implementation name for a bf16 matmul (e.g. brg_matmul:avx512_core_bf16)."""
        t = self.torch
        a = t.ones((64, 64), dtype=t.bfloat16)

        def run():
            with t.backends.mkldnn.verbose(t.backends.mkldnn.VERBOSE_ON):
                t.matmul(a, a)

        for line in capture_c_stdout(run).splitlines():
            parts = line.split(",")
            if ",exec," in line and "matmul" in parts:
                return parts[parts.index("matmul") + 1]
        return "not oneDNN (no verbose line)"


class Ort:
    def __init__(self):
        import onnx
        import onnxruntime as ort

        self.onnx, self.ort = onnx, ort
        self.version = f"onnxruntime {ort.__version__}, onnx {onnx.__version__}"

    def matmul_integer(self, a_u8, b_s8, b_const: bool):
        """MatMulInteger(A u8, B s8) -> s32; B an initializer or an input."""
        import numpy as np
        from onnx import TensorProto, helper, numpy_helper

        m, k = a_u8.shape
        n = b_s8.shape[1]
        inputs = [helper.make_tensor_value_info("A", TensorProto.UINT8, [m, k])]
        inits = []
        if b_const:
            inits.append(numpy_helper.from_array(b_s8, "B"))
        else:
            inputs.append(helper.make_tensor_value_info("B", TensorProto.INT8, [k, n]))
        graph = helper.make_graph(
            [helper.make_node("MatMulInteger", ["A", "B"], ["Y"])],
            "matmul_integer",
            inputs,
            [helper.make_tensor_value_info("Y", TensorProto.INT32, [m, n])],
            initializer=inits,
        )
        # opset 17 / IR 8: accepted by every onnxruntime of the last years.
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
        so = self.ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.execution_mode = self.ort.ExecutionMode.ORT_SEQUENTIAL
        sess = self.ort.InferenceSession(
            model.SerializeToString(), so, providers=["CPUExecutionProvider"]
        )
        io = sess.io_binding()
        io.bind_cpu_input("A", a_u8)
        if not b_const:
            io.bind_cpu_input("B", b_s8)
        y = self.ort.OrtValue.ortvalue_from_numpy(np.empty((m, n), np.int32))
        io.bind_ortvalue_output("Y", y)
        return (lambda: sess.run_with_iobinding(io)), (lambda: y.numpy())


class Mkl:
    def __init__(self):
        libs = sorted(glob.glob(os.path.join(sys.prefix, "lib", "libmkl_rt.so*")))
        if not libs:
            raise ImportError(f"no libmkl_rt.so in {sys.prefix}/lib (pip install mkl)")
        lib = ctypes.CDLL(libs[0])
        lib.MKL_Set_Threading_Layer.restype = ctypes.c_int
        lib.MKL_Set_Threading_Layer(1)  # MKL_THREADING_SEQUENTIAL: one thread, no OpenMP runtime
        buf = ctypes.create_string_buffer(256)
        lib.MKL_Get_Version_String(buf, len(buf))
        self.version = f"{Path(libs[0]).name}: {buf.value.decode(errors='replace')}"
        H, P, I = ctypes.c_uint16, ctypes.c_void_p, ctypes.c_int
        lib.cblas_hgemm.argtypes = [I, I, I, I, I, I, H, P, I, P, I, H, P, I]
        lib.cblas_hgemm.restype = None
        for name, real in (("cblas_sgemm", ctypes.c_float), ("cblas_dgemm", ctypes.c_double)):
            fn = getattr(lib, name)
            fn.argtypes = [I, I, I, I, I, I, real, P, I, P, I, real, P, I]
            fn.restype = None
        lib.MKL_Verbose.argtypes = [I]
        self.lib = lib

    def matmul(self, a, b, out):
        """A call computing out = a @ b in float32 or float64 (cblas_sgemm /
        cblas_dgemm; row-major, C-contiguous operands)."""
        m, k = a.shape
        n = b.shape[1]
        f = self.lib.cblas_sgemm if a.dtype.itemsize == 4 else self.lib.cblas_dgemm
        pa, pb, pc = a.ctypes.data, b.ctypes.data, out.ctypes.data
        return lambda: f(101, 111, 111, m, n, k, 1.0, pa, k, pb, n, 0.0, pc, n)

    def hgemm(self, a16, b16):
        import numpy as np

        m, k = a16.shape
        n = b16.shape[1]
        c = _bench.aligned(np.empty((m, n), np.float16))
        f = self.lib.cblas_hgemm
        pa, pb, pc = a16.ctypes.data, b16.ctypes.data, c.ctypes.data
        # Row-major, no transposes, alpha = 1.0 (0x3C00), beta = 0.
        return (lambda: f(101, 111, 111, m, n, k, 0x3C00, pa, k, pb, n, 0, pc, n)), (lambda: c)

    def isa(self) -> str:
        import numpy as np

        a = np.ones((16, 16), np.float16)
        run, _ = self.hgemm(a, a)

        def verbose():
            self.lib.MKL_Verbose(1)
            run()
            self.lib.MKL_Verbose(0)

        for line in capture_c_stdout(verbose).splitlines():
            if "architecture" in line:
                return line.split("architecture", 1)[1].split(", Lnx")[0].strip()
        return "?"


# --------------------------------------------------------------------------
# gemmkit side


def gemmkit_call(gk, a, b, out_dtype=None):
    """(run, result, used_out) for gemmkit.gemm(a, b[, out_dtype=]), writing
    into a preallocated out= when the API takes one (else a new array per
    call, which the report notes)."""
    import numpy as np

    kw = {} if out_dtype is None else {"out_dtype": out_dtype}
    first = gk.gemm(a, b, **kw)
    out = np.empty_like(first)
    # out= with out_dtype=, or out= alone (its dtype choosing the output type).
    for call_kw in ({**kw, "out": out}, {"out": out}) if kw else ({"out": out},):
        try:
            gk.gemm(a, b, **call_kw)
        except (TypeError, ValueError):
            continue
        return (lambda kw=call_kw: gk.gemm(a, b, **kw)), (lambda: out), True
    holder = [first]

    def run():
        holder[0] = gk.gemm(a, b, **kw)

    return run, (lambda: holder[0]), False


def error_units(got, ref, absab, unit: float) -> float:
    """max |got - ref| / (unit * (|A| @ |B|)) over the elements: the error in
    units of the output type's rounding, relative to the worst-case size of
    each sum.  gemmkit's bound is 1 (one output rounding) + k * 2^-24 / unit
    (f32 accumulation); an exact int8 result gives 0."""
    import numpy as np

    err = np.abs(np.asarray(got, dtype=np.float64) - ref)
    return float(np.max(err / (unit * absab + np.finfo(np.float64).tiny)))


def run_group(group, n, lib, rng, args, numpy_f16: bool) -> dict:
    """Builds the members of one group at size n; times them; checks them."""
    import ml_dtypes
    import numpy as np

    gk = lib.get("gemmkit")
    fns, results, notes, errors = {}, {}, {}, {}
    units = {}  # name -> unit roundoff of its output (0 -> exact, int)

    def add(name, make, unit):
        try:
            run, res, *rest = make()
        except Exception as exc:  # a missing API or dtype is reported, not fatal
            errors[name] = f"{type(exc).__name__}: {exc}"
            return
        fns[name], results[name], units[name] = run, res, unit
        if rest and not rest[0]:
            notes[name] = "no out=: allocates its result every call"

    # Every operand on a 64-byte boundary, for every library alike (see
    # _bench.aligned: torch's bfloat16 matmul halves from numpy's 16).
    al = _bench.aligned
    if group == "bf16":
        a32 = rng.standard_normal((n, n), dtype=np.float32)
        b32 = rng.standard_normal((n, n), dtype=np.float32)
        a, b = al(a32.astype(ml_dtypes.bfloat16)), al(b32.astype(ml_dtypes.bfloat16))
        a32, b32 = al(a.astype(np.float32)), al(b.astype(np.float32))  # the same values
        if gk:
            add("gemmkit bf16", lambda: gemmkit_call(gk, a, b), 2.0**-8)
            add("gemmkit bf16->f32", lambda: gemmkit_call(gk, a, b, np.float32), 2.0**-24)
            add("gemmkit f32", lambda: gemmkit_call(gk, a32, b32), 2.0**-24)
        if lib.get("torch"):
            add(
                "torch bf16",
                lambda: lib["torch"].bf16(a.view(np.uint16), b.view(np.uint16)),
                2.0**-8,
            )
        ref_a, ref_b = a32, b32
    elif group == "int8":
        a = al(rng.integers(-128, 128, (n, n), dtype=np.int8))
        b = al(rng.integers(-128, 128, (n, n), dtype=np.int8))
        a_u8 = al(rng.integers(0, 256, (n, n), dtype=np.uint8))
        if gk:
            add("gemmkit int8", lambda: gemmkit_call(gk, a, b), 0.0)

            def packed():
                pb = gk.prepack_rhs(b)
                return gemmkit_call(gk, a, pb)

            add("gemmkit int8 prepacked", packed, 0.0)
        if lib.get("ort"):
            add("ort u8s8 B input", lambda: lib["ort"].matmul_integer(a_u8, b, False), 0.0)
            add("ort u8s8 B const", lambda: lib["ort"].matmul_integer(a_u8, b, True), 0.0)
        ref_a, ref_b = a, b
    else:  # f16
        a = al(rng.standard_normal((n, n), dtype=np.float32).astype(np.float16))
        b = al(rng.standard_normal((n, n), dtype=np.float32).astype(np.float16))
        a32, b32 = al(a.astype(np.float32)), al(b.astype(np.float32))
        if gk:
            add("gemmkit f16", lambda: gemmkit_call(gk, a, b), 2.0**-11)
            add("gemmkit f32", lambda: gemmkit_call(gk, a32, b32), 2.0**-24)
        if lib.get("mkl"):
            add("mkl hgemm", lambda: lib["mkl"].hgemm(a, b), 2.0**-11)
        if numpy_f16:
            c16 = np.empty((n, n), np.float16)
            add("numpy f16", lambda: ((lambda: np.matmul(a, b, out=c16)), (lambda: c16)), 2.0**-11)
        ref_a, ref_b = a32, b32

    # Every member runs once before timing; its result is checked then.
    for f in fns.values():
        f()
    r64a, r64b = ref_a.astype(np.float64), ref_b.astype(np.float64)
    acc = {}
    if group == "int8":
        # Exact in float64: |sum| <= n * 128 * 128 < 2^53.
        ref = r64a @ r64b
        ref_u8 = a_u8.astype(np.float64) @ r64b
        for name, res in results.items():
            want = ref_u8 if name.startswith("ort") else ref
            exact = bool(np.array_equal(np.asarray(res(), dtype=np.float64), want))
            acc[name] = {"exact": exact, "correct": exact}
    else:
        ref = r64a @ r64b
        absab = np.abs(r64a) @ np.abs(r64b)
        for name, res in results.items():
            e = error_units(res(), ref, absab, units[name])
            bound = 2.0 * (1.0 + n * 2.0**-24 / units[name])
            acc[name] = {"error_units": e, "bound_units": bound, "correct": e <= bound}
    if args.wait_quiet > 0:
        _bench.wait_quiet(args.wait_quiet)
    with _bench.OtherLoad() as load:
        samples = _bench.time_interleaved(
            fns, args.samples, args.sample_ms / 1000.0, args.settle_ms / 1000.0
        )
    flop = 2.0 * n**3
    rows = {}
    for name, ts in samples.items():
        rows[name] = {
            "seconds": ts,
            "rate": flop / statistics.median(ts) / 1e9,
            **acc[name],
        }
        if name in notes:
            rows[name]["note"] = notes[name]
    for name, err in errors.items():
        rows[name] = {"error": err}
    return {"group": group, "n": n, "other_cpu": load.cores, "libs": rows}


# --------------------------------------------------------------------------
# report


def rate(point: dict, name: str) -> float | None:
    r = point["libs"].get(name)
    return r.get("rate") if r else None


def peak_of(report: dict, key: str) -> float | None:
    """Best run of a peak kernel (other processes can only lower a reading).
    key: a dot_peak.c kernel, or "f32" / "f32_ymm" / "f32_zmm" (fma_peak.c)."""
    if key.startswith("f32"):
        p = report["peaks"]["fma"].get("1", {})
        k = p.get(key) if key != "f32" else (p.get("f32_zmm") or p.get("f32_ymm"))
    else:
        k = report["peaks"]["dot"].get(key)
    return k["max"] if isinstance(k, dict) else None


# The instruction whose peak bounds each of gemmkit's kernels, by (dtype, isa):
# the dot kernels are bounded by their dot instruction, the widening kernels
# (bf16 and f16 widened to f32) by the f32 FMA of their vector width.
KERNEL_PEAK = {
    ("bfloat16", "avx512bf16"): ("bf16_zmm", "vdpbf16ps"),
    ("bfloat16", "avx512f"): ("f32_zmm", "f32 FMA zmm"),
    ("bfloat16", "fma"): ("f32_ymm", "f32 FMA ymm"),
    ("float16", "avx512f"): ("f32_zmm", "f32 FMA zmm"),
    ("float16", "fma"): ("f32_ymm", "f32 FMA ymm"),
    ("float32", "avx512f"): ("f32_zmm", "f32 FMA zmm"),
    ("float32", "fma"): ("f32_ymm", "f32 FMA ymm"),
    ("int8", "avx512vnni"): ("i8_zmm", "vpdpbusd"),
    ("bfloat16", "amx"): ("amx_bf16", "tdpbf16ps"),
    ("int8", "amx"): ("amx_i8", "tdpbssd"),
    # float16 split into bfloat16 parts: three tdpbf16ps per product.
    ("float16", "amx"): ("amx_bf16", "tdpbf16ps / 3"),
}
# Instructions per product of a kernel (the split float16 family runs three).
KERNEL_PEAK_DIVISOR = {("float16", "amx"): 3}


def gemmkit_peak(report: dict, dtype: str) -> tuple[float | None, str]:
    """(peak, instruction) bounding the kernel gemmkit chose for dtype."""
    isa = (report.get("dispatch_info", {}).get(dtype) or {}).get("isa")
    key, label = KERNEL_PEAK.get((dtype, isa), (None, f"no probe for {isa}"))
    peak = peak_of(report, key) if key else None
    if peak is not None:
        peak /= KERNEL_PEAK_DIVISOR.get((dtype, isa), 1)
    return peak, label


def numpy_f16_rate(report: dict, n: int) -> tuple[float | None, bool]:
    """numpy's f16 rate at n, or at the largest size measured (extrapolated)."""
    pts = [p for p in report["points"] if p["group"] == "f16" and rate(p, "numpy f16")]
    exact = next((p for p in pts if p["n"] == n), None)
    if exact:
        return rate(exact, "numpy f16"), False
    if not pts:
        return None, False
    best = max(pts, key=lambda p: p["n"])
    return rate(best, "numpy f16"), True


def markdown(report: dict) -> str:
    env = report["environment"]
    L = [
        (
            f"Measured {env['date']} on {env['cpu']}, one thread; gemmkit {env['gemmkit']} "
            f"({env['dispatch']}; GEMMKIT_REQUIRE_ISA={env['pin'] or 'unset'}); "
            f"peers: {env['peers']}"
            + (" (capped to AVX-512 by --peer-isa avx512)." if env["peer_isa"] == "avx512" else ".")
        ),
    ]
    dot = report["peaks"]["dot"]
    pk = ", ".join(f"{k} {v['max']:.1f}" for k, v in dot.items() if isinstance(v, dict))
    L.append(f"Measured peaks (best run, G(FL)OP/s, 1 thread): {pk or dot.get('error', '-')}.")
    if "amx" in dot:
        L.append(f"AMX: {dot['amx']}.")
    L.append(
        "Rates in GFLOP/s (int8: GOP/s, 2·n³ per product). `*`: other processes used at least "
        f"{_bench.DISTURBED_SHARE:.0%} of the cores while that group was measured. `(WRONG)`: a "
        "gemmkit result outside its "
        "error bound; `†`: a peer's error is larger than that bound (see Accuracy)."
    )
    L.append("")

    def cell(p, name, digits=1):
        r = p["libs"].get(name)
        if not r:
            return "-"
        if "error" in r:
            return "n/a"
        mark = ""
        if not r.get("correct", True):
            mark = " (WRONG)" if name.startswith("gemmkit") else " †"
        return f"{bg.fmt(r['rate'], digits)}{mark}"

    def ratio(p, num, den, den_rate=None, mark=""):
        x, y = rate(p, num), den_rate if den_rate is not None else rate(p, den)
        return f"{x / y:.2f}x{mark}" if x and y else "-"

    def pct(x, peak):
        return f"{100 * x / peak:.0f}%" if x and peak else "-"

    pts = {g: [p for p in report["points"] if p["group"] == g] for g in GROUPS}
    bfp, i8p, f32p = (peak_of(report, k) for k in ("bf16_zmm", "i8_zmm", "f32"))
    (gbf, gbf_l), (gi8, gi8_l), (gf16, gf16_l) = (
        gemmkit_peak(report, dt) for dt in ("bfloat16", "int8", "float16")
    )
    if pts["bf16"]:
        L += [
            (
                f"**bf16** (gemmkit kernel: {env['kernels'].get('bfloat16', '?')}; "
                f"torch: {env['isa'].get('torch', '-')})"
            ),
            "",
            (
                "| n | gemmkit bf16 | gemmkit bf16->f32 | torch bf16 | gemmkit f32 "
                "| bf16 / torch (>= 1.0) | bf16 / f32 (>= 1.7) "
                f"| gemmkit % {gbf_l} peak | torch % vdpbf16ps peak |"
            ),
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for p in pts["bf16"]:
            star = "*" if _bench.disturbed(p["other_cpu"]) else ""
            L.append(
                f"| {p['n']}{star} | {cell(p, 'gemmkit bf16')} | {cell(p, 'gemmkit bf16->f32')} | "
                f"{cell(p, 'torch bf16')} | {cell(p, 'gemmkit f32')} | "
                f"{ratio(p, 'gemmkit bf16', 'torch bf16')} | {ratio(p, 'gemmkit bf16', 'gemmkit f32')} | "
                f"{pct(rate(p, 'gemmkit bf16'), gbf)} | {pct(rate(p, 'torch bf16'), bfp)} |"
            )
        L.append("")
    if pts["int8"]:
        L += [
            (
                f"**int8** (gemmkit kernel: {env['kernels'].get('int8', '?')}; "
                f"onnxruntime: {env['isa'].get('ort', '-')})"
            ),
            "",
            (
                "| n | gemmkit s8s8 | ort u8s8 B input | ratio (>= 1.0) | gemmkit prepacked "
                "| ort u8s8 B const | ratio (>= 1.0) "
                f"| gemmkit % {gi8_l} peak | ort B const % vpdpbusd peak |"
            ),
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for p in pts["int8"]:
            star = "*" if _bench.disturbed(p["other_cpu"]) else ""
            L.append(
                f"| {p['n']}{star} | {cell(p, 'gemmkit int8')} | {cell(p, 'ort u8s8 B input')} | "
                f"{ratio(p, 'gemmkit int8', 'ort u8s8 B input')} | {cell(p, 'gemmkit int8 prepacked')} | "
                f"{cell(p, 'ort u8s8 B const')} | {ratio(p, 'gemmkit int8 prepacked', 'ort u8s8 B const')} | "
                f"{pct(rate(p, 'gemmkit int8'), gi8)} | {pct(rate(p, 'ort u8s8 B const'), i8p)} |"
            )
        L.append("")
    if pts["f16"]:
        L += [
            (
                f"**f16** (gemmkit kernel: {env['kernels'].get('float16', '?')}; "
                f"MKL: {env['isa'].get('mkl', '-')})"
            ),
            "",
            (
                "| n | gemmkit f16 | gemmkit f32 | MKL hgemm | numpy f16 | f16 / f32 (>= 0.8) "
                "| f16 / MKL (>= 1.0) | f16 / numpy (>= 50) "
                f"| gemmkit % {gf16_l} peak | MKL % f32 FMA peak |"
            ),
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for p in pts["f16"]:
            star = "*" if _bench.disturbed(p["other_cpu"]) else ""
            npr, extrap = numpy_f16_rate(report, p["n"])
            L.append(
                f"| {p['n']}{star} | {cell(p, 'gemmkit f16')} | {cell(p, 'gemmkit f32')} | "
                f"{cell(p, 'mkl hgemm')} | {cell(p, 'numpy f16', 2)} | "
                f"{ratio(p, 'gemmkit f16', 'gemmkit f32')} | {ratio(p, 'gemmkit f16', 'mkl hgemm')} | "
                f"{ratio(p, 'gemmkit f16', None, npr, ' (extrapolated)' if extrap else '')} | "
                f"{pct(rate(p, 'gemmkit f16'), gf16)} | {pct(rate(p, 'mkl hgemm'), f32p)} |"
            )
        L.append("")
    acc_rows = []
    for p in report["points"]:
        for name, r in p["libs"].items():
            if "error_units" in r:
                acc_rows.append(
                    f"| {p['group']} | {p['n']} | {name} | {r['error_units']:.3g} | {r['bound_units']:.3g} |"
                )
            elif "exact" in r:
                verdict = "exact" if r["exact"] else "NOT exact"
                acc_rows.append(f"| {p['group']} | {p['n']} | {name} | {verdict} | 0 |")
    if acc_rows:
        L += [
            (
                "Accuracy (float types: max |error| / (u · |A||B|), u the output's unit roundoff; "
                "gemmkit's bound 2·(1 + n·2⁻²⁴/u); int8 against the exact product):"
            ),
            "",
            "| group | n | library | error | bound |",
            "|---|---:|---|---:|---:|",
            *acc_rows,
            "",
        ]
    failed = [
        f"{p['group']} {p['n']} {name}: {r['error']}"
        for p in report["points"]
        for name, r in p["libs"].items()
        if "error" in r
    ]
    if failed:
        L += ["Could not run:", "", *sorted({f"- {f.split(' ', 2)[2]}" for f in failed}), ""]
    L += ["Targets (issue #4), 1024 and 2048:", ""]
    for group, num, den, want in TARGETS:
        got = []
        for n in TARGET_SIZES:
            p = next((q for q in report["points"] if q["group"] == group and q["n"] == n), None)
            if p is None:
                continue
            x = rate(p, num)
            y = numpy_f16_rate(report, n)[0] if den == "numpy f16" else rate(p, den)
            if x and y:
                got.append(f"{n}: {x / y:.2f}x")
        verdict = ""
        if got:
            vals = [float(g.split(": ")[1][:-1]) for g in got]
            verdict = " — met" if min(vals) >= want else " — NOT met"
        L.append(f"- {num} / {den} >= {want}: {', '.join(got) or 'not measured'}{verdict}")
    L.append("")
    return "\n".join(L)


def plot(report: dict, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    groups = [g for g in GROUPS if any(p["group"] == g for p in report["points"])]
    if not groups:
        return False
    fig, axes = plt.subplots(1, len(groups), figsize=(5.2 * len(groups), 4.6), squeeze=False)
    peaks = {
        "bf16": ("bf16_zmm", "vdpbf16ps peak"),
        "int8": ("i8_zmm", "vpdpbusd peak"),
        "f16": ("f32", "f32 FMA peak"),
    }
    for ax, g in zip(axes[0], groups):
        pts = [p for p in report["points"] if p["group"] == g]
        names = list(dict.fromkeys(nm for p in pts for nm, r in p["libs"].items() if "rate" in r))
        for nm in names:
            xs = [p["n"] for p in pts if rate(p, nm)]
            ax.plot(
                xs,
                [rate(p, nm) for p in pts if rate(p, nm)],
                "o-" if nm.startswith("gemmkit") else "s--",
                label=nm,
            )
        pk = peak_of(report, peaks[g][0])
        if pk:
            ax.axhline(pk, color="red", lw=0.8, alpha=0.6)
            ax.text(pts[0]["n"], pk, peaks[g][1], color="red", fontsize=7, va="bottom")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{g}, 1 thread")
        ax.set_xlabel("n (n x n x n)")
        ax.set_ylabel("GOP/s" if g == "int8" else "GFLOP/s")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    env = report["environment"]
    fig.suptitle(f"gemmkit mixed precision vs peers — {env['cpu']}, {env['date']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="sizes 128 and 256, short samples")
    ap.add_argument("--sizes", help="comma list of square sizes (default 128..2048)")
    ap.add_argument("--groups", default=",".join(GROUPS), help="comma list of bf16, int8, f16")
    ap.add_argument(
        "--numpy-f16-sizes",
        default=None,
        help="sizes at which numpy's f16 matmul is timed (default 128,256; it runs ~0.5 GFLOP/s)",
    )
    ap.add_argument(
        "--peer-isa",
        choices=("native", "avx512"),
        default="native",
        help="avx512: cap torch's oneDNN and MKL to the AVX-512 instructions gemmkit uses "
        "(no AMX, no AVX512-FP16)",
    )
    ap.add_argument(
        "--pin",
        help="GEMMKIT_REQUIRE_ISA for this run, e.g. avx512f to time the "
        "widening kernels where the dot kernels would be chosen (default: unset)",
    )
    ap.add_argument(
        "--samples", type=int, default=7, help="interleaved samples per library and point"
    )
    ap.add_argument("--sample-ms", type=float, default=30.0, help="minimum length of one sample")
    ap.add_argument("--settle-ms", type=float, default=20.0, help="pause before each sample")
    ap.add_argument(
        "--wait-quiet",
        type=float,
        default=None,
        help="seconds to wait before each group for other processes to go quiet "
        "(default 10; 0 with --quick)",
    )
    ap.add_argument("--out", default=str(HERE / "results"), help="folder for the JSON and PNG")
    args = ap.parse_args()
    if args.wait_quiet is None:
        args.wait_quiet = 0.0 if args.quick else 10.0
    if args.peer_isa == "avx512":
        # Read by oneDNN and MKL when they load, so set before the re-exec.
        for k, v in PEER_CAPS.items():
            os.environ.setdefault(k, v)
    if args.pin:
        os.environ["GEMMKIT_REQUIRE_ISA"] = args.pin
    elif not os.environ.get(bg.CLEAN_MARK):
        os.environ.pop("GEMMKIT_REQUIRE_ISA", None)  # this run is "auto" unless --pin says
    removed = bg.reexec_clean()
    sizes = (
        [int(s) for s in args.sizes.split(",")]
        if args.sizes
        else (QUICK_SIZES if args.quick else SIZES)
    )
    nf16 = {
        int(s)
        for s in (args.numpy_f16_sizes or ",".join(map(str, NUMPY_F16_SIZES))).split(",")
        if s
    }
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    for g in groups:
        if g not in GROUPS:
            raise SystemExit(f"unknown group {g!r}: expected some of {', '.join(GROUPS)}")
    if args.quick:
        args.samples = min(args.samples, 3)
        args.sample_ms = min(args.sample_ms, 20.0)

    import numpy as np
    from threadpoolctl import threadpool_limits

    print(f"{_bench.cpu_model()}; measuring the peaks ...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.wait_quiet > 0:
            _bench.wait_quiet(args.wait_quiet)
        peaks = {
            "fma": bg.measure_peak([1], args.quick, Path(tmp)),
            "dot": measure_dot_peak(args.quick, Path(tmp)),
        }
    print(
        "  "
        + ", ".join(f"{k} {v['max']:.1f}" for k, v in peaks["dot"].items() if isinstance(v, dict))
        + " G(FL)OP/s (best run)"
        + (f"; AMX: {peaks['dot']['amx']}" if "amx" in peaks["dot"] else "")
    )

    # Peers first, each on its own so that the AMX permission each asks for is seen.
    lib: dict = {}
    skipped: dict = {}
    amx_perm = {"start": amx_permitted()}
    for key, cls, need in (("ort", Ort, "int8"), ("torch", Torch, "bf16"), ("mkl", Mkl, "f16")):
        if need not in groups:
            continue
        try:
            lib[key] = cls()
        except Exception as exc:  # a missing or broken peer is reported and skipped
            skipped[key] = f"{type(exc).__name__}: {exc}"
            print(f"  {key} skipped: {skipped[key]}")
        amx_perm[f"after {key}"] = amx_permitted()
    isa = {}
    if "torch" in lib:
        isa["torch"] = lib["torch"].isa()
    if "mkl" in lib:
        isa["mkl"] = lib["mkl"].isa()
    if "ort" in lib:
        got = amx_perm.get("after ort")
        isa["ort"] = (
            "MLAS asked for AMX at load (its AMX u8s8 kernels are enabled)"
            if got and not amx_perm["start"]
            else "MLAS did not ask for AMX"
            if got is False
            else "unknown"
        )
    try:
        import gemmkit as gk

        gk.set_num_threads(1)
        di = gk.dispatch_info()
        lib["gemmkit"] = gk
        gk_version = gk.__version__
    except Exception as exc:  # the peers' side still runs and is written
        print(f"  gemmkit unavailable: {exc}")
        di, gk_version = {}, "unavailable"
    kernels = {
        dt: (
            f"{di[dt]['kernel']} (isa {di[dt]['isa']}, depth_multiple {di[dt].get('depth_multiple')})"
            if isinstance(di.get(dt), dict)
            else "not in dispatch_info"
        )
        for dt in ("bfloat16", "int8", "float16", "float32")
    }
    for dt, k in kernels.items():
        print(f"  gemmkit {dt}: {k}")
    for key, v in isa.items():
        print(f"  {key}: {v}")

    rng = np.random.default_rng(0)
    points = []
    todo = [(g, n) for n in sizes for g in groups]
    for n in sorted(nf16 - set(sizes)):
        if "f16" in groups:
            todo.insert(0, ("f16-numpy", n))
    t0 = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        for i, (g, n) in enumerate(todo):
            if g == "f16-numpy":  # numpy f16 at a size not otherwise in the run
                p = run_group("f16", n, lib, rng, args, numpy_f16=True)
            else:
                p = run_group(g, n, lib, rng, args, numpy_f16=(g == "f16" and n in nf16))
            points.append(p)
            bg.progress(i + 1, len(todo), f"{g} {n}", t0)
    print(file=sys.stderr)

    versions = {"numpy": np.__version__}
    for key, obj in lib.items():
        if key != "gemmkit":
            versions[key] = obj.version
    try:
        import ml_dtypes

        versions["ml_dtypes"] = ml_dtypes.__version__
    except ImportError:
        pass
    report = {
        "environment": {
            "date": _dt.date.today().isoformat(),
            "cpu": _bench.cpu_model(),
            "python": platform.python_version(),
            "gemmkit": gk_version,
            "dispatch": ", ".join(
                f"{dt} {di[dt]['isa']}"
                for dt in ("bfloat16", "int8", "float16", "float32")
                if isinstance(di.get(dt), dict)
            )
            or "no dispatch info",
            "kernels": kernels,
            "peers": "; ".join(f"{k} {v}" for k, v in versions.items()),
            "versions": versions,
            "isa": isa,
            "pin": os.environ.get("GEMMKIT_REQUIRE_ISA"),
            "peer_isa": args.peer_isa,
            "peer_env": {k: os.environ.get(k) for k in PEER_CAPS},
            "amx_permission": amx_perm,
            "skipped": skipped,
            "blas_env_removed": removed,
            "loadavg_end": os.getloadavg(),
            "args": vars(args),
        },
        "dispatch_info": di,
        "peaks": peaks,
        "points": sorted(points, key=lambda p: (GROUPS.index(p["group"]), p["n"])),
        "seconds": time.perf_counter() - t0,
    }
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    json_path = out_dir / f"bench-mixed-{stamp}.json"
    json_path.write_text(json.dumps(report, indent=1, default=str))
    png_path = out_dir / f"bench-mixed-{stamp}.png"
    plotted = plot(report, png_path)
    print()
    print(markdown(report))
    print(
        f"wrote {json_path}" + (f" and {png_path}" if plotted else " (no plot: matplotlib missing)")
    )
    wrong = [
        f"{p['group']} {p['n']} {nm}"
        for p in points
        for nm, r in p["libs"].items()
        if nm.startswith("gemmkit") and r.get("correct") is False
    ]
    if wrong:
        print(f"gemmkit results outside the error bound: {', '.join(wrong)}", file=sys.stderr)
        return 1
    missing = [
        f"{p['group']} {p['n']} {nm}"
        for p in points
        for nm, r in p["libs"].items()
        if nm.startswith("gemmkit") and "error" in r
    ]
    if "gemmkit" not in lib or missing:
        print("gemmkit could not run: " + (", ".join(missing) or "import failed"), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
