"""Test support for the shared API suite: kernel geometry, references, tolerances.

Used by tests/api (natively and under Pyodide) and by tests/native.  Imports
only the standard library and gemmkit at module level, so it loads where
numpy is missing; the numpy helpers import numpy when they are called.

The one tolerance formula of the suite lives here (CONVENTIONS 13, XNNPACK
``compute_sum_tolerance``): for C = alpha * A @ B + beta * C0 in a floating
type with machine epsilon eps,

    |got - ref| <= TOL_C * (k + 2) * (eps * (|alpha| * (|A| @ |B|) + |beta| * |C0|) + tiny)

elementwise.  A k-term dot product accumulates at most k roundings of unit
size eps / 2 (the classical gamma_k bound); the "+ 2" covers the alpha
scaling and the beta update; tiny (the smallest subnormal) bounds a
rounding in the subnormal range, where errors stop scaling with the
magnitude; TOL_C = 2 leaves room for the ordering differences of blocked and
fused kernels without hiding a wrong element (a dropped or doubled term is
of the size of |a||b|, not of eps).
"""

from __future__ import annotations

import math
import re
import struct

import gemmkit

TOL_C = 2.0
EPS = {"float32": 2.0**-23, "float64": 2.0**-52}
TINY = {"float32": 2.0**-149, "float64": 2.0**-1074}  # smallest subnormals
TYPECODE = {"float32": "f", "float64": "d"}
DTYPES = ("float32", "float64")

# Where the thread count came from (dispatch_info()["threads_source"]).
THREAD_SOURCES = ("set_num_threads", "GEMMKIT_NUM_THREADS", "OMP_NUM_THREADS", "cores")


def thread_setting() -> tuple[int, str]:
    """The thread setting as a pair (count, source): what threads() and the
    threadpoolctl controller must restore exactly."""
    info = gemmkit.dispatch_info()
    assert info["threads"] == gemmkit.get_num_threads()
    assert info["threads_source"] in THREAD_SOURCES, info["threads_source"]
    return info["threads"], info["threads_source"]


def restore_thread_setting(before: tuple[int, str]) -> None:
    """Put back a thread_setting() pair: an explicit count, or the default."""
    gemmkit.set_num_threads(before[0] if before[1] == "set_num_threads" else 0)

# GEMMKIT_REQUIRE_ISA aliases and the best-first ladder (DESIGN.md section 2).
ALIASES = {"avx2": "fma", "vnni": "avx512vnni", "bf16": "avx512bf16", "wasm": "simd128",
           "dq": "avx512dq", "relaxed": "relaxed_simd"}
ISA_ORDER = ("amx", "avx512bf16", "avx512vnni", "avx512dq", "avx512f", "fma", "neon",
             "relaxed_simd", "simd128", "scalar")
# For float32/float64 the dot-kernel ISAs resolve to the plain AVX-512F kernels.
FLOAT_ISA = {"avx512vnni": "avx512f", "avx512bf16": "avx512f", "amx": "avx512f",
             "avx512dq": "avx512f"}

# Microtile rows x cols per (dtype, ISA) from the reference design.
GEOMETRY = {
    ("float32", "avx512f"): (32, 12),
    ("float32", "fma"): (16, 6),
    ("float32", "neon"): (16, 4),
    ("float32", "relaxed_simd"): (8, 4),
    ("float32", "simd128"): (8, 4),
    ("float32", "scalar"): (4, 4),
    ("float64", "avx512f"): (16, 12),
    ("float64", "fma"): (8, 6),
    ("float64", "neon"): (8, 4),
    ("float64", "relaxed_simd"): (4, 4),
    ("float64", "simd128"): (4, 4),
    ("float64", "scalar"): (4, 4),
}
DTYPE_WORD = {"float32": "f32", "float64": "f64"}


def canonical_isa(value: str) -> str:
    """Canonical ISA name of a GEMMKIT_REQUIRE_ISA value (case, aliases)."""
    name = value.strip().lower()
    return ALIASES.get(name, name)


def float_isa(isa: str) -> str:
    """The ISA whose kernels run float32/float64 under ``isa``."""
    return FLOAT_ISA.get(isa, isa)


def kernel_name(dtype: str, isa: str) -> str:
    mr, nr = GEOMETRY[(dtype, isa)]
    return f"{DTYPE_WORD[dtype]}_gemm_{mr}x{nr}__{isa}"


def tile(dtype: str) -> tuple[int, int]:
    """(mr, nr) of the kernel gemmkit runs for ``dtype`` in this process."""
    info = gemmkit.dispatch_info()[dtype]
    return int(info["mr"]), int(info["nr"])


def resolve_dim(spec, r: int) -> int:
    """A dimension written relative to a tile size r: 7, "r", "r-1", "2r+1"."""
    if isinstance(spec, int):
        return spec
    match = re.fullmatch(r"(\d*)r([+-]\d+)?", spec)
    if match is None:
        raise ValueError(f"bad dimension spec {spec!r}")
    value = int(match.group(1) or 1) * r + int(match.group(2) or 0)
    return max(value, 1)


def error_message_ok(exc: BaseException, *keywords: str) -> str | None:
    """None if ``exc``'s message starts with "gemmkit: " and names one of the
    keywords (case-insensitive), else a description of what is wrong."""
    msg = str(exc)
    if not msg.startswith("gemmkit: "):
        return f"message does not start with 'gemmkit: ': {msg!r}"
    low = msg.lower()
    if keywords and not any(word.lower() in low for word in keywords):
        return f"message names none of {keywords}: {msg!r}"
    return None


# --------------------------------------------------------------------------
# Pure-Python reference (no numpy): exact sums via math.fsum.

def round_to(dtype: str, x: float) -> float:
    """x rounded to the operand type (gemmkit converts alpha/beta to it)."""
    if dtype == "float32":
        return struct.unpack("f", struct.pack("f", x))[0]
    return float(x)


def py_matrix(dtype: str, rows: list[list[float]], readonly: bool = False) -> memoryview:
    """A 2-D C-contiguous memoryview over an array.array (or bytes if read-only)."""
    from array import array

    m = len(rows)
    n = len(rows[0]) if m else 0
    flat = array(TYPECODE[dtype], [v for row in rows for v in row])
    raw = bytes(flat) if readonly else flat
    return memoryview(raw).cast("B").cast(TYPECODE[dtype], (m, n))


def py_values(seed: int, m: int, n: int, scale: float = 1.0) -> list[list[float]]:
    """Deterministic values in [-scale, scale] exactly representable in f32."""
    state = seed * 2654435761 % 2**32 or 1
    rows = []
    for _ in range(m):
        row = []
        for _ in range(n):
            state = (1103515245 * state + 12345) % 2**31
            row.append(scale * ((state >> 8) / 2.0**22 - 1.0))  # 23-bit grid
        rows.append(row)
    return rows


def py_check_gemm(dtype, got_rows, a_rows, b_rows, c_rows=None, alpha=1.0, beta=0.0):
    """None if got_rows matches alpha*A@B + beta*C within the tolerance
    formula, else a message naming the first bad element."""
    m = len(a_rows)
    k = len(a_rows[0]) if m else len(b_rows)
    n = len(b_rows[0]) if b_rows else len(got_rows[0]) if got_rows else 0
    al = round_to(dtype, alpha)
    be = round_to(dtype, beta)
    if len(got_rows) != m or any(len(r) != n for r in got_rows):
        return f"result shape differs from ({m}, {n})"
    eps = EPS[dtype]
    for i in range(m):
        for j in range(n):
            terms = [a_rows[i][p] * b_rows[p][j] for p in range(k)]
            ref = al * math.fsum(terms)
            mag = abs(al) * math.fsum(abs(t) for t in terms)
            if c_rows is not None and beta != 0:
                ref += be * c_rows[i][j]
                mag += abs(be * c_rows[i][j])
            tol = TOL_C * (k + 2) * (eps * mag + TINY[dtype])
            g = got_rows[i][j]
            if not (abs(g - ref) <= tol):
                return f"C[{i}][{j}] = {g!r}, expected {ref!r} (tolerance {tol:.3g})"
    return None


# --------------------------------------------------------------------------
# numpy reference: float64 for float32 operands; long double (or exact
# integers) for float64 where the product is small enough to afford it.

LONGDOUBLE_MACS = 2 * 10**7


def np_reference(a, b, c=None, alpha=1.0, beta=0.0):
    """(ref, mag, k, ref_extra) with ref = alpha*(A@B) + beta*C in a wider type
    (numpy.matmul semantics, so 1-D and batched operands work too),
    mag = |alpha|*(|A|@|B|) + |beta|*|C| in float64, and ref_extra = how many
    k*eps*mag the reference itself may be off (0 when it is wide enough)."""
    import numpy as np

    dt = a.dtype
    k = a.shape[-1]
    macs = a.size * (b.shape[-1] if b.ndim > 1 else 1)
    al = dt.type(alpha)
    be = dt.type(beta)
    extra = 0.0
    if dt == np.float32:
        hi = np.float64
    elif macs <= LONGDOUBLE_MACS and np.finfo(np.longdouble).eps < np.finfo(np.float64).eps:
        hi = np.longdouble
    else:
        # BLAS float64 reference: its own rounding is of the same size as
        # gemmkit's, so the formula gets a second k*eps*mag of room.
        hi = np.float64
        extra = 1.0
    with np.errstate(invalid="ignore", over="ignore"):
        ref = hi(al) * np.matmul(a.astype(hi), b.astype(hi))
        mag = abs(float(al)) * np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
        if c is not None and beta != 0:
            ref = ref + hi(be) * c.astype(hi)
            mag = mag + abs(float(be)) * np.abs(c).astype(np.float64)
    return np.asarray(ref), np.asarray(mag), k, extra


def np_check_gemm(got, a, b, c=None, alpha=1.0, beta=0.0):
    """None if ``got`` (numpy array) equals alpha*(A@B) + beta*C within the
    tolerance formula, else a message locating the worst element."""
    import numpy as np

    ref, mag, k, extra = np_reference(a, b, c, alpha, beta)
    got = np.asarray(got)
    if got.shape != ref.shape:
        return f"result shape {got.shape} != expected {ref.shape}"
    if got.dtype != a.dtype:
        return f"result dtype {got.dtype} != operand dtype {a.dtype}"
    if got.size == 0:
        return None
    eps = EPS[str(a.dtype)]
    tol = TOL_C * (1.0 + extra) * (k + 2) * (eps * mag + TINY[str(a.dtype)])
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(got.astype(ref.dtype) - ref).astype(np.float64)
    ok = err <= tol  # NaN in got (or ref) counts as a failure
    if np.all(ok):
        return None
    bad = np.argwhere(~ok)
    idx = tuple(int(v) for v in bad[0])
    return (
        f"{len(bad)} of {got.size} elements out of tolerance; first at {idx}: "
        f"got {got[idx]!r}, expected {float(ref[idx])!r}, tolerance {float(tol[idx]):.3g} "
        f"(k={k}, shape={got.shape})"
    )


def assert_gemm_close(got, a, b, c=None, alpha=1.0, beta=0.0):
    msg = np_check_gemm(got, a, b, c, alpha, beta)
    assert msg is None, msg


# --------------------------------------------------------------------------
# numpy operands in every layout the suite sweeps.  Unused memory of padded
# and strided buffers holds NaN, so a kernel that reads outside the view
# poisons its result.

LAYOUTS = ("C", "F", "T", "rev_rows", "rev_both", "step", "pad", "neg_T", "readonly")
# Fill of unused memory around integer operands: a kernel reading it would
# add a visible, non-zero term.
POISON_INT = 77


def next_prime(n: int) -> int:
    def is_prime(p):
        return p >= 2 and all(p % d for d in range(2, int(p**0.5) + 1))

    p = max(n, 2)
    while not is_prime(p):
        p += 1
    return p


def np_layout(values, layout: str, fill=None):
    """A new array or view with ``layout`` holding a copy of ``values`` (2-D).

    Unused memory of the padded and strided layouts holds ``fill`` (NaN by
    default; integer types need an integer, e.g. POISON_INT)."""
    import numpy as np

    r, c = values.shape
    dt = values.dtype
    nan = np.nan if fill is None else fill
    # Every layout is a fresh copy: a view of ``values`` itself would let an
    # in-place test overwrite its own reference data.
    if layout == "C":
        v = np.array(values, order="C", copy=True)
    elif layout == "F":
        v = np.array(values, order="F", copy=True)
    elif layout == "T":
        v = np.array(values.T, order="C", copy=True).T
    elif layout == "rev_rows":
        v = np.full((r, c), nan, dt)[::-1]
    elif layout == "rev_both":
        v = np.full((r, c), nan, dt)[::-1, ::-1]
    elif layout == "step":
        v = np.full((2 * r + 1, 3 * c + 2), nan, dt)[1::2, 2::3][:r, :c]
    elif layout == "pad":
        v = np.full((r, next_prime(c + 1)), nan, dt)[:, :c]
    elif layout == "neg_T":
        v = np.full((c, r), nan, dt).T[::-1]
    elif layout == "readonly":
        v = np.array(values, order="C")
        v.setflags(write=False)
        return v
    else:
        raise ValueError(layout)
    if layout in ("rev_rows", "rev_both", "step", "pad", "neg_T"):
        v[...] = values
    assert v.shape == (r, c)
    return v


def rand(rng, shape, dtype, kind="float"):
    """Random values: uniform [-1, 1), or small integers (exact products)."""
    import numpy as np

    if kind == "int":
        return rng.integers(-4, 5, size=shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


class Canaried:
    """An output window inside a larger NaN-filled buffer (matrixmultiply's
    canaries): after the call everything outside the window must still be NaN."""

    OUT_LAYOUTS = ("inner", "step", "rev_both", "F_inner", "T_step")

    def __init__(self, shape, dtype, layout="inner", fill=float("nan")):
        import numpy as np

        m, n = shape
        if layout == "inner":
            self.buf = np.full((m + 3, n + 5), fill, dtype)
            self.idx = (slice(1, 1 + m), slice(2, 2 + n))
            transpose = False
        elif layout == "step":
            self.buf = np.full((2 * m + 3, 3 * n + 4), fill, dtype)
            self.idx = (slice(1, 1 + 2 * m, 2), slice(2, 2 + 3 * n, 3))
            transpose = False
        elif layout == "rev_both":
            self.buf = np.full((m + 2, n + 2), fill, dtype)
            rows = slice(m, 0, -1) if m else slice(0, 0)
            cols = slice(n, 0, -1) if n else slice(0, 0)
            self.idx = (rows, cols)
            transpose = False
        elif layout == "F_inner":
            self.buf = np.full((m + 4, n + 3), fill, dtype, order="F")
            self.idx = (slice(2, 2 + m), slice(1, 1 + n))
            transpose = False
        elif layout == "T_step":
            self.buf = np.full((2 * n + 2, m + 3), fill, dtype)
            self.idx = (slice(1, 1 + 2 * n, 2), slice(1, 1 + m))
            transpose = True
        else:
            raise ValueError(layout)
        window = self.buf[self.idx]
        self.view = window.T if transpose else window
        self.fill_value = fill
        assert self.view.shape == (m, n), (self.view.shape, (m, n))

    def fill(self, values):
        self.view[...] = values
        return self

    def outside_untouched(self) -> str | None:
        import numpy as np

        mask = np.ones(self.buf.shape, dtype=bool)
        mask[self.idx] = False
        fill = self.fill_value
        if isinstance(fill, float) and fill != fill:  # NaN canaries
            intact = np.isnan(self.buf.astype(np.float64))
        else:
            intact = self.buf == fill
        if np.all(intact[mask]):
            return None
        bad = np.argwhere(mask & ~intact)
        return (f"{len(bad)} canaries outside the output window were overwritten, "
                f"first at {tuple(bad[0])}")


# --------------------------------------------------------------------------
# Mixed precision and int8 (issue #4): float16, bfloat16, int8 and the
# requantized outputs.  numpy and ml_dtypes are imported when called.

NARROW = ("float16", "bfloat16")
INT8 = "int8"
NEW_DTYPES = NARROW + (INT8,)
ALL_DTYPES = DTYPES + NEW_DTYPES
# Machine epsilon of the narrow types (2^(1 - precision)): the design's gate.
NARROW_EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7}
# Smallest subnormal of each output type (a rounding there is absolute).
NARROW_TINY = {"float16": 2.0**-24, "bfloat16": 2.0**-133}
# The ISA that accelerates one type with a dot kernel (first on its ladder,
# and what its pin selects), and that kernel's depth multiple.
DOT_ISA = {"bfloat16": ("avx512bf16", 2), "int8": ("avx512vnni", 4)}
# Depth multiples other than 1 (kDepthMultiple of cpp/src/kernel/dot_*.hpp):
# the dot kernels above, and int8's i16-pair dot on the ISAs without a byte
# dot product (pmaddwd, i32x4.dot_i16x8_s).
DEPTH_MULTIPLE = {("bfloat16", "avx512bf16"): 2, ("int8", "avx512vnni"): 4,
                  ("int8", "fma"): 2, ("int8", "simd128"): 2,
                  ("float16", "amx"): 32, ("bfloat16", "amx"): 32, ("int8", "amx"): 64}
# The tile kernels (Intel AMX) run float16 (split into bfloat16 parts),
# bfloat16 and int8 first where available.
TILE_DTYPES = ("float16", "bfloat16", "int8")
KERNEL_WORD = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
               "int8": "int8"}
ML_DTYPES_SKIP = "ml_dtypes is not installed (bfloat16 arrays need it)"
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def geometry(dtype: str, isa: str) -> tuple[int, int]:
    """(mr, nr) the design gives ``dtype`` on ``isa``: float16, bfloat16 and
    int8 share float32's tiles; the dot kernels are 32 x 12."""
    if dtype in DTYPES:
        return GEOMETRY[(dtype, isa)]
    if isa == "amx":
        return (32, 32)
    if isa in ("avx512bf16", "avx512vnni"):
        return (32, 12)
    return GEOMETRY[("float32", isa)]


def expected_isa(dtype: str, pin_isa: str) -> str:
    """The ISA ``dtype`` runs on under a pin (canonical name): a dot ISA
    pins its own type's dot kernel and the plain AVX-512F kernels of every
    other type."""
    dot = DOT_ISA.get(dtype, (None,))[0]
    if pin_isa == "amx":
        return "amx" if dtype in TILE_DTYPES else "avx512f"
    if pin_isa in ("avx512vnni", "avx512bf16", "avx512dq"):
        return pin_isa if pin_isa == dot else "avx512f"
    return pin_isa


def depth_multiple(dtype: str, isa: str) -> int:
    return DEPTH_MULTIPLE.get((dtype, isa), 1)


def np_dtype(name: str):
    """The numpy dtype of a gemmkit type name (bfloat16: ml_dtypes')."""
    import numpy as np

    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def f32(x: float) -> float:
    """x rounded to float32 (the accumulator of float16/bfloat16 products)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def wrap32(x):
    """Integers (Python or numpy int64, any shape) reduced to int32 modulo
    2**32, as signed values."""
    if isinstance(x, int):
        return (x + 2**31) % 2**32 - 2**31
    import numpy as np

    x = np.asarray(x, dtype=np.int64)
    return ((x + 2**31) % 2**32 - 2**31).astype(np.int64)


def np_int8_reference(a, b, c=None, alpha=1, beta=0):
    """alpha * A @ B + beta * C in int64, reduced mod 2**32 (int32 wraps):
    int64 arithmetic that overflows wraps mod 2**64, a multiple of 2**32, so
    the reduced value is exact whatever the magnitudes."""
    import numpy as np

    acc = np.matmul(a.astype(np.int64), b.astype(np.int64))
    ref = np.int64(alpha) * acc
    if c is not None and beta != 0:
        ref = ref + np.int64(beta) * c.astype(np.int64)
    return wrap32(ref)


def assert_int8_exact(got, a, b, c=None, alpha=1, beta=0):
    import numpy as np

    ref = np_int8_reference(a, b, c, alpha, beta)
    got = np.asarray(got)
    assert got.dtype == np.int32, got.dtype
    assert got.shape == ref.shape, (got.shape, ref.shape)
    bad = np.argwhere(got.astype(np.int64) != ref)
    assert bad.size == 0, (
        f"{len(bad)} of {got.size} int8 results differ; first at {tuple(bad[0])}: "
        f"got {got[tuple(bad[0])]}, expected {ref[tuple(bad[0])]}"
    )


def np_check_narrow(got, a, b, c=None, alpha=1.0, beta=0.0):
    """None if a float16/bfloat16 product (or its float32-output twin) passes,
    else a message.

    Reference: float64 from the (already rounded) inputs, alpha and beta
    rounded to float32 as gemmkit uses them.  Two gates:

    - the design's normwise gate, ||got - ref||_F <= 8 * max(k, 1) * eps *
      (|alpha| ||A||_F ||B||_F + |beta| ||C||_F) with eps 2^-10 (float16) or
      2^-7 (bfloat16);
    - elementwise, the float32 accumulation bound of the suite's formula plus
      one rounding to the output type: |got - ref| <= TOL_C * (k + 2) *
      (2^-24 * mag + 2^-149) + eps_out * |ref| + tiny_out, where eps_out and
      tiny_out are 0 for a float32 output; float16 on the tile kernels
      (split into bfloat16 parts, kernel/amx.hpp) adds TOL_C * (2 k 2^-24 +
      2^-16) * mag: three products per depth step and the left-out low x
      low term.  A dropped or doubled term is of
      the size of |a||b| and fails this one even where the normwise gate,
      loose by design, would not see it.
    """
    import numpy as np

    in_name = str(a.dtype)  # ml_dtypes' bfloat16 prints as "bfloat16"
    eps = NARROW_EPS[in_name]
    got = np.asarray(got)
    out_name = str(got.dtype)
    al, be = f32(alpha), f32(beta)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    k = a.shape[-1]
    ref = al * (a64 @ b64)
    mag = abs(al) * (np.abs(a64) @ np.abs(b64))
    cnorm = 0.0
    if c is not None and beta != 0:
        c64 = c.astype(np.float64)
        ref = ref + be * c64
        mag = mag + abs(be) * np.abs(c64)
        cnorm = float(np.linalg.norm(c64))
    if got.shape != ref.shape:
        return f"result shape {got.shape} != expected {ref.shape}"
    if got.size == 0:
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(got.astype(np.float64) - ref)
    frob = float(np.linalg.norm(err))
    gate = 8 * max(k, 1) * eps * (abs(al) * float(np.linalg.norm(a64)) * float(np.linalg.norm(b64))
                                  + abs(be) * cnorm)
    if not frob <= gate:  # NaN fails too
        return f"normwise error {frob:.3g} exceeds 8*k*eps*(|A||B| + |beta||C|) = {gate:.3g}"
    narrow_out = out_name in NARROW
    tol = TOL_C * (k + 2) * (2.0**-24 * mag + 2.0**-149)
    if in_name == "float16" and float16_runs_split():
        tol = tol + TOL_C * (2 * k * 2.0**-24 + 2.0**-16) * mag
    if narrow_out:
        tol = tol + NARROW_EPS[out_name] * np.abs(ref) + NARROW_TINY[out_name]
    ok = err <= tol
    if np.all(ok):
        return None
    bad = np.argwhere(~ok)
    idx = tuple(int(v) for v in bad[0])
    return (f"{len(bad)} of {got.size} elements out of tolerance; first at {idx}: got "
            f"{float(got[idx])!r}, expected {float(ref[idx])!r}, tolerance {float(tol[idx]):.3g}"
            f" (k={k}, {in_name} -> {out_name})")


def float16_runs_split() -> bool:
    """Whether this process runs float16 on the tile kernels, which split
    each value into bfloat16 parts (kernel/amx.hpp, AmxF16SplitFamily)."""
    return gemmkit.dispatch_info()["float16"]["isa"] == "amx"


def assert_narrow_close(got, a, b, c=None, alpha=1.0, beta=0.0):
    msg = np_check_narrow(got, a, b, c, alpha, beta)
    assert msg is None, msg


def exact_scale_parts(scale: float) -> tuple[int, int]:
    """(p, s) with scale == p / 2**s exactly (scale is a float32 value)."""
    p, q = float(scale).as_integer_ratio()
    s = q.bit_length() - 1
    assert q == 1 << s
    return p, s


def round_half_even_ratio(num: int, s: int) -> int:
    """round(num / 2**s), ties to even, in exact integer arithmetic."""
    if s == 0:
        return num
    floor = num >> s  # floor division, negative numbers included
    rem = num - (floor << s)
    half = 1 << (s - 1)
    if rem > half or (rem == half and floor & 1):
        return floor + 1
    return floor


def requant_exact(v: int, scale: float, zero_point: int, lo: int, hi: int) -> int:
    """The requantization map of one value, exactly: v is acc + bias after
    int32 wrapping, scale the float32 value actually used (exact as a binary
    fraction); clamp(zero_point + round_half_even(scale * v), lo, hi)."""
    p, s = exact_scale_parts(scale)
    t = round_half_even_ratio(v * p, s)
    return min(max(zero_point + t, lo), hi)


def np_requant_reference(a, b, scale, zero_point, bias=None, out_dtype="int8"):
    """Independent reference of gemm_requant in exact integer arithmetic.

    ``scale``: a number, or per-row (m,) / (m, 1) or per-column (1, n)
    values; ``bias``: None or int values shaped the same way.  Returns int64
    values (m, n).  Vectorized where v * p fits int64, else per element in
    Python integers."""
    import numpy as np

    lo, hi = {"int8": (-128, 127), "uint8": (0, 255)}[out_dtype]
    acc = wrap32(np.matmul(a.astype(np.int64), b.astype(np.int64)))
    m, n = acc.shape
    if bias is not None:
        bias = np.asarray(bias, dtype=np.int64)
        acc = wrap32(acc + (bias.reshape(m, 1) if bias.ndim == 1 else bias))
    sc = np.asarray(scale, dtype=np.float32)
    sc = np.broadcast_to(sc.reshape(m, 1) if sc.ndim == 1 else sc, (m, n))
    out = np.empty((m, n), dtype=np.int64)
    for value in np.unique(sc):
        mask = sc == value
        p, s = exact_scale_parts(float(value))
        v = acc[mask]
        if p.bit_length() + 32 <= 62 and s <= 62:
            num = v * np.int64(p)
            floor = num >> np.int64(s)
            rem = num - (floor << np.int64(s))
            if s == 0:
                t = num
            else:
                half = np.int64(1) << np.int64(s - 1)
                t = floor + ((rem > half) | ((rem == half) & ((floor & 1) == 1)))
            out[mask] = np.clip(t + zero_point, lo, hi)
        else:
            out[mask] = [requant_exact(int(x), float(value), zero_point, lo, hi) for x in v]
    return out


def assert_requant_exact(got, a, b, scale, zero_point, bias=None, out_dtype="int8"):
    import numpy as np

    ref = np_requant_reference(a, b, scale, zero_point, bias, out_dtype)
    got = np.asarray(got)
    assert got.dtype == np.dtype(out_dtype), got.dtype
    bad = np.argwhere(got.astype(np.int64) != ref)
    assert bad.size == 0, (
        f"{len(bad)} of {got.size} requantized values differ; first at {tuple(bad[0])}: "
        f"got {got[tuple(bad[0])]}, expected {ref[tuple(bad[0])]}"
    )


def rand_int8(rng, shape, low=-128, high=127):
    import numpy as np

    return rng.integers(low, high + 1, size=shape).astype(np.int8)


def rand_narrow(rng, shape, name):
    """Uniform [-1, 1) values rounded to float16/bfloat16."""
    import numpy as np

    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32).astype(np_dtype(name))


def matmul_slices(got, a, b):
    """(result, a, b) 2-D slices of a numpy.matmul-shaped product (1-D
    operands promoted, batches broadcast), for checking slice by slice."""
    import numpy as np

    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g = np.asarray(got)
    if a.ndim == 1:
        g = g[..., None, :]
    if b.ndim == 1:
        g = g[..., None]
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    a_b = np.broadcast_to(a2, batch + a2.shape[-2:])
    b_b = np.broadcast_to(b2, batch + b2.shape[-2:])
    for idx in np.ndindex(*batch):
        yield g[idx], a_b[idx], b_b[idx]
