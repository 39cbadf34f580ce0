"""The Pyodide backend's Python side (python/gemmkit/_pyodide.py) on the host:
the same ctypes code over a native shared library built here from the same
C++ sources (baseline + scalar units), so the numpy paths, which Pyodide
cannot exercise offline (no numpy wheel there), run too: any strides,
read-only operands without copies, numpy results, out=c, and the numpy-free
result type.  The front end (gemmkit._api) is wired to it as well, to check
the float16/bfloat16/int8/requant/prepack paths through the C ABI (bfloat16
from ml_dtypes arrays, exported without a buffer format), the same paths
with numpy hidden, and that every refusal reads exactly as natively."""

from __future__ import annotations

import array
import ctypes
import gc
import importlib
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from wasmhelpers import BUILD, REPO, require, wasm_build

np = pytest.importorskip("numpy", reason="numpy is not installed")


def _up_to_date(obj: Path, dep: Path, stamp: Path, cmd: list[str]) -> bool:
    if not (obj.exists() and dep.exists() and stamp.exists()):
        return False
    if stamp.read_text() != "\0".join(cmd):
        return False
    _, _, deps = dep.read_text().replace("\\\n", " ").partition(":")
    try:
        return all(os.stat(p).st_mtime <= obj.stat().st_mtime
                   for p in re.split(r"(?<!\\)\s+", deps) if p)
    except OSError:
        return False


def _compile(cmd: list[str], src: str, obj: Path) -> None:
    """``cmd -c src -o obj``, unless obj is newer than every file its last
    compile read (its depfile) and was made by the same command."""
    dep, stamp = obj.with_suffix(".d"), obj.with_suffix(".flags")
    full = [*cmd, "-c", src, "-o", str(obj)]
    if _up_to_date(obj, dep, stamp, full):
        return
    proc = subprocess.run([*full, "-MMD", "-MF", str(dep)], capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(full)}\n{proc.stderr}"
    stamp.write_text("\0".join(full))


@pytest.fixture(scope="module")
def host_lib(tmp_path_factory):
    """libgemmkit for the host: baseline units + the scalar target, no
    threads, built from the wasm build's source lists (its CMake
    configuration's gemmkit-wasm-modules.json) with the host's clang."""
    try:
        tc = wasm_build.detect_toolchain()
        sources = wasm_build.configure(REPO, BUILD)["sources"]
    except wasm_build.BuildError as exc:
        require(False, str(exc))
    out_dir = BUILD / "test" / "host"
    out_dir.mkdir(parents=True, exist_ok=True)
    flags = [tc.cxx, "-std=c++20", "-O2", "-fPIC", "-fvisibility=hidden", "-ffp-contract=off",
             "-fno-exceptions", "-fno-rtti", "-I", str(REPO / "cpp" / "include"),
             "-I", str(REPO / "cpp" / "src"), "-DGEMMKIT_NO_THREADS=1", "-DGEMMKIT_HAVE_SCALAR=1"]
    objs = []
    for src in sources["baseline"]:
        obj = out_dir / (Path(src).stem + ".o")
        _compile(flags, src, obj)
        objs.append(str(obj))
    for src in sources["scalar"]:
        obj = out_dir / ("scalar_" + Path(src).stem + ".o")
        _compile(flags + ["-DGEMMKIT_ISA=scalar"], src, obj)
        objs.append(str(obj))
    lib = out_dir / "libgemmkit_scalar.so"
    proc = subprocess.run([tc.cxx, "-shared", "-o", str(lib), *objs], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return lib


@pytest.fixture(scope="module")
def host_call_module():
    """The folder of gemmkit._pyodide_call built for the host Python from the
    same source and the same stable-ABI header as for Pyodide: so the
    extension runs here against the general path (numpy operands included),
    and the header's declarations are proven against a real CPython."""
    try:
        tc = wasm_build.detect_toolchain()
    except wasm_build.BuildError as exc:
        require(False, str(exc))
    out_dir = BUILD / "test" / "host" / "call"
    out_dir.mkdir(parents=True, exist_ok=True)
    obj = out_dir / "pyodide_call.o"
    _compile([tc.cxx, "-std=c++20", "-O2", "-fPIC", "-fvisibility=hidden", "-fno-exceptions",
              "-fno-rtti", "-Wall", "-Wextra", "-Werror", "-I", str(REPO / "cpp" / "include")],
             str(REPO / "cpp" / "bindings" / "pyodide_call.cpp"), obj)
    so = out_dir / "_pyodide_call.abi3.so"
    proc = subprocess.run([tc.cxx, "-shared", "-o", str(so), str(obj)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out_dir


@pytest.fixture(scope="module")
def backend(host_lib, host_call_module):
    """python/gemmkit/_pyodide.py loaded from the source tree as package
    ``gkhost`` (the installed gemmkit stays untouched), its _api wired to it,
    its _pyodide_call the host build."""
    pkg = types.ModuleType("gkhost")
    pkg.__path__ = [str(REPO / "python" / "gemmkit"), str(host_call_module)]
    sys.modules["gkhost"] = pkg
    mod = importlib.import_module("gkhost._pyodide")
    sys.modules["gkhost._backend"] = types.SimpleNamespace(backend=mod)
    mod.simd128_supported = lambda: True  # no JS engine on the host
    lib = mod.Library(str(host_lib))
    # The module read its tables at import, before the host library could
    # load: take them from the library now, as a loaded module does.
    mod.CODES = lib.codes
    mod.install_status_codes(lib.codes["status"])
    yield mod, lib
    for name in [n for n in sys.modules if n == "gkhost" or n.startswith("gkhost.")]:
        del sys.modules[name]


def reference(a, b, c=None, alpha=1.0, beta=0.0):
    ref = alpha * (a.astype(np.float64) @ b.astype(np.float64))
    mag = abs(alpha) * (abs(a.astype(np.float64)) @ abs(b.astype(np.float64)))
    if c is not None and beta != 0:
        ref += beta * c.astype(np.float64)
        mag += abs(beta) * abs(c.astype(np.float64))
    return ref, mag


def assert_close(got, a, b, c=None, alpha=1.0, beta=0.0):
    ref, mag = reference(a, b, c, alpha, beta)
    eps = np.finfo(a.dtype).eps
    tol = 2 * (a.shape[1] + 2) * eps * mag
    assert np.all(np.abs(got.astype(np.float64) - ref) <= tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["C", "F", "T", "neg", "strided"])
def test_numpy_layouts_without_copies(backend, dtype, layout):
    _, lib = backend
    rng = np.random.default_rng(7)
    base_a = rng.standard_normal((22, 34)).astype(dtype)
    base_b = rng.standard_normal((34, 18)).astype(dtype)
    a, b = {
        "C": (base_a[:11, :17], base_b[:17, :9]),
        "F": (np.asfortranarray(base_a[:11, :17]), np.asfortranarray(base_b[:17, :9])),
        "T": (base_a.T[:17, :11].T, base_b.T[:9, :17].T),
        "neg": (base_a[::-1, ::-1][:11, :17], base_b[::-1][:17, :9]),
        "strided": (base_a[::2, ::2], base_b[::2, ::2]),
    }[layout]
    a.flags.writeable = False  # read-only operands are exported, not copied
    got = lib.gemm2d(a, b, None, 1.0, 0.0, None)
    assert isinstance(got, np.ndarray) and got.dtype == dtype and got.flags.c_contiguous
    assert got.shape == (a.shape[0], b.shape[1])
    assert_close(got, a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numpy_out_is_c_in_place_and_beta_zero(backend, dtype):
    _, lib = backend
    rng = np.random.default_rng(8)
    a = rng.standard_normal((9, 5)).astype(dtype)
    b = rng.standard_normal((5, 7)).astype(dtype)
    c = rng.standard_normal((9, 7)).astype(dtype)
    c0 = c.copy()
    res = lib.gemm2d(a, b, c, 1.5, -0.5, c)
    assert res is c
    assert_close(c, a, b, c0, 1.5, -0.5)
    nan_c = np.full((9, 7), np.nan, dtype=dtype)
    assert_close(lib.gemm2d(a, b, nan_c, 1.0, 0.0, None), a, b)
    view_out = np.zeros((18, 14), dtype=dtype)[::2, ::2]
    assert lib.gemm2d(a, b, None, 1.0, 0.0, view_out) is view_out
    assert_close(view_out, a, b)


def test_numpy_errors(backend):
    mod, lib = backend
    a = np.ones((3, 4), np.float32)
    with pytest.raises(mod.DTypeError, match="float64"):
        lib.gemm2d(a, np.ones((4, 2), np.float64), None, 1.0, 0.0, None)
    with pytest.raises(mod.ShapeError):
        lib.gemm2d(a, np.ones((5, 2), np.float32), None, 1.0, 0.0, None)
    ro = np.zeros((3, 2), np.float32)
    ro.flags.writeable = False
    with pytest.raises(mod.LayoutError, match="read-only"):
        lib.gemm2d(a, np.ones((4, 2), np.float32), None, 1.0, 0.0, ro)
    with pytest.raises(mod.DTypeError, match="int32"):  # gemm converts nothing
        lib.gemm2d(a.astype(np.int32), np.ones((4, 2), np.int64), None, 1.0, 0.0, None)
    got = lib.gemm2d(a.astype(np.int32), np.ones((4, 2), np.int32), None, 1.0, 0.0, None)
    assert got.dtype == np.int32 and (got == a.astype(np.int32) @ np.ones((4, 2), np.int32)).all()
    with pytest.raises(mod.DTypeError, match="buffer-protocol"):
        lib.gemm2d([[1.0]], [[1.0]], None, 1.0, 0.0, None)


def test_buffers_without_numpy(backend, monkeypatch):
    mod, lib = backend
    monkeypatch.setattr(mod, "_np", lambda: None)
    a = memoryview(bytes(array.array("d", [1, 2, 3, 4, 5, 6]))).cast("d", (2, 3))  # read-only
    b = memoryview(array.array("d", [1, 0, 0, 1, 1, 1])).cast("B").cast("d", (3, 2))
    got = lib.gemm2d(a, b, None, 1.0, 0.0, None)
    assert isinstance(got, memoryview) and got.format == "d" and got.c_contiguous
    assert isinstance(got.obj, bytearray)
    assert got.tolist() == [[4.0, 5.0], [10.0, 11.0]]
    # Empty results keep their shape.
    empty_m = memoryview(bytearray(8)).cast("d", (1, 1))[0:0]
    assert lib.gemm2d(empty_m, memoryview(bytearray(16)).cast("d", (1, 2)), None, 1.0, 0.0,
                      None).shape == (0, 2)
    one = memoryview(bytearray(16)).cast("d", (2, 1))
    zero_n = mod.buffer_result("d", 8, 3, 0)
    assert zero_n.shape == (3, 0) and zero_n.nbytes == 0
    assert lib.gemm2d(one, mod.buffer_result("d", 8, 1, 0), None, 1.0, 0.0, None).shape == (2, 0)
    cube = memoryview(bytearray(64)).cast("d", (2, 2, 2))
    with pytest.raises(mod.ShapeError, match="batch"):  # a 3-D operand is a batch
        lib.gemm2d(cube, b, None, 1.0, 0.0, None)


def test_dispatch_info_and_version(backend):
    mod, lib = backend
    info = lib.dispatch_info()
    assert info["backend"] == "pyodide"
    assert info["float32"]["isa"] == "scalar"  # the host library has only scalar units
    assert lib.version == wasm_build.read_version(REPO)
    assert lib.get_num_threads() == 1


# --------------------------------------------------------------------------
# The front end over this backend: float16, bfloat16, int8, requant, prepack

@pytest.fixture()
def front(backend):
    """gkhost._api (the public functions) over the host library."""
    mod, lib = backend
    mod._default = lib  # the module-level backend functions use this library
    api = importlib.import_module("gkhost._api")
    yield api, mod, lib
    mod._default = None


def _ml_dtypes():
    return pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")


def test_front_end_new_types(front):
    api, _, _ = front
    import gemmkit  # the native build: the same results bit for bit (both run
    # the scalar map for requant and exact int8; floats are compared by gate)

    rng = np.random.default_rng(3)
    a8 = rng.integers(-128, 128, (7, 33)).astype(np.int8)
    b8 = rng.integers(-128, 128, (33, 5)).astype(np.int8)
    c32 = rng.integers(-(2**31), 2**31, (7, 5)).astype(np.int32)
    want = ((3 * (a8.astype(np.int64) @ b8.astype(np.int64)) - 2 * c32.astype(np.int64)
             + 2**31) % 2**32 - 2**31)
    got = api.gemm(a8, b8.T.copy().T, c32, alpha=3, beta=-2)
    assert got.dtype == np.int32 and np.array_equal(got, want)
    packed = api.prepack_rhs(b8)
    assert packed.isa == "scalar" and packed.kernel == "int8_gemm_4x4__scalar"
    assert np.array_equal(api.gemm(a8, packed, c32, alpha=3, beta=-2), want)
    scale = rng.uniform(1e-3, 1e-2, (1, 5)).astype(np.float32)
    bias = rng.integers(-500, 500, 7).astype(np.int32)
    for out_dtype in (np.int8, np.uint8):
        q = api.gemm_requant(a8, packed, scale=scale, zero_point=7, bias=bias,
                             out_dtype=out_dtype)
        assert q.dtype == out_dtype
        assert np.array_equal(q, gemmkit.gemm_requant(a8, b8, scale=scale, zero_point=7,
                                                      bias=bias, out_dtype=out_dtype))
    ml_dtypes = _ml_dtypes()
    for dt in (np.float16, ml_dtypes.bfloat16):
        a = rng.uniform(-1, 1, (6, 40)).astype(dt)
        b = rng.uniform(-1, 1, (40, 9)).astype(dt)[::-1]
        ref = a.astype(np.float64) @ b.astype(np.float64)
        got = api.gemm(a, b)
        assert got.dtype == dt
        assert np.all(np.abs(got.astype(np.float64) - ref) <= 2.0**-6 * (np.abs(ref) + 1))
        twin = api.gemm(a, api.prepack_rhs(b), out_dtype=np.float32)
        assert twin.dtype == np.float32
        assert np.array_equal(twin.astype(dt).view(np.uint16), got.view(np.uint16))
    with pytest.raises(api.DTypeError, match="bfloat16"):
        api.gemm(np.ones((2, 2), np.float16), np.ones((2, 2), ml_dtypes.bfloat16))


def test_packed_handles(front, backend):
    api, mod, lib = front
    freed = []
    real = lib._abi("gemmkit_packed_rhs_free")
    lib._generic["gemmkit_packed_rhs_free"] = lambda ptr: (freed.append(ptr), real(ptr))
    try:
        packed = api.prepack_rhs(np.ones((3, 4), np.float32))
        ptr = packed._handle.ptr
        del packed
        gc.collect()
        assert freed == [ptr]
    finally:
        lib._generic["gemmkit_packed_rhs_free"] = real
    # A handle of another loaded module is refused, not dereferenced.
    other = mod.Library(lib.path)
    handle, _ = other.prepack_rhs(np.ones((3, 4), np.float32))
    with pytest.raises(mod.ArgumentError, match="another loaded"):
        lib.gemm(1.0, np.ones((2, 3), np.float32), handle, 0.0, None,
                 np.zeros((2, 4), np.float32), None)


@pytest.fixture()
def no_numpy(front, monkeypatch):
    """The front end and backend with numpy hidden, as under Pyodide without
    a numpy wheel."""
    api, mod, lib = front
    dtypes = importlib.import_module("gkhost._dtypes")
    requant = importlib.import_module("gkhost._requant")
    packed = importlib.import_module("gkhost._packed")
    for m, name, value in ((api, "_np", None), (api, "_ndarray", None), (api, "_F32", None),
                           (api, "_F64", None), (dtypes, "_np", None), (requant, "_np", None),
                           (packed, "_np", None), (mod, "_np", lambda: None)):
        monkeypatch.setattr(m, name, value)
    return api, mod


def _mv(code, rows):
    m, n = len(rows), len(rows[0])
    return memoryview(array.array(code, [v for r in rows for v in r])).cast("B").cast(code, (m, n))


def test_without_numpy(no_numpy):
    api, mod = no_numpy
    a = _mv("b", [[1, -2, 3], [-4, 5, -6]])
    b = _mv("b", [[7, -8], [9, 10], [-11, 12]])
    got = api.gemm(a, b)
    assert isinstance(got, memoryview) and got.format == "i"
    assert got.tolist() == [[-44, 8], [83, 10]]
    c = _mv("i", [[1, 2], [3, 4]])
    assert api.gemm(a, b, c, alpha=2, beta=-1, out=c) is c
    assert c.tolist() == [[-89, 14], [163, 16]]
    assert api.matmul(a, b).tolist() == [[-44, 8], [83, 10]]
    packed = api.prepack_rhs(b)
    assert packed.dtype == "int8" and packed.shape == (3, 2)
    assert api.gemm(a, packed).tolist() == [[-44, 8], [83, 10]]
    q = api.gemm_requant(a, packed, scale=[0.5, 0.25], zero_point=100, bias=[[1, 1]],
                         out_dtype="uint8")
    assert q.format == "B" and q.tolist() == [[78, 104], [121, 103]]
    q = api.gemm_requant(a, b, scale=_mv("f", [[0.5, 0.5]]), zero_point=0)
    assert q.format == "b" and q.tolist() == [[-22, 4], [42, 5]]
    empty = api.gemm(_mv("b", [[1], [2]]), api._dt.buffer_result("int8", 1, 0))
    assert empty.shape == (2, 0) and empty.nbytes == 0
    # Scales and biases sharing memory with out are refused.
    store = array.array("f", [0.5] * 8)
    out = memoryview(store).cast("B")[:4].cast("b", (2, 2))
    errors = importlib.import_module("gkhost._errors")
    with pytest.raises(errors.OverlapError, match="scale"):
        api.gemm_requant(a, b, scale=memoryview(store)[:2], zero_point=0, out=out)
    if sys.version_info >= (3, 12):
        h = memoryview(array.array("H", [0x3C00, 0x4000, 0x4200, 0x4400])).cast("B").cast(
            "e", (2, 2))
        assert api.gemm(h, h).tolist() == [[7.0, 10.0], [15.0, 22.0]]
        assert api.gemm(h, h, out_dtype="float32").format == "f"


# Calls refused the same way by both backends: (call, args, kwargs).
def _refusals(np_):
    f16 = np_.ones((3, 4), np_.float16)
    i8 = np_.ones((3, 4), np_.int8)
    i8b = np_.ones((4, 5), np_.int8)
    return [
        ("gemm", (f16, np_.ones((4, 2), np_.float32)), {}),
        ("gemm", (np_.ones((3, 4), np_.uint8), np_.ones((4, 2), np_.int8)), {}),
        ("gemm", (f16, np_.ones((4, 2), np_.float16)), {"out_dtype": np_.float64}),
        ("gemm", (i8, i8b), {"out_dtype": "int16"}),
        ("gemm", (np_.ones((3, 4), np_.int16), np_.ones((4, 2), np_.int16)), {"alpha": 0.5}),
        ("gemm", (np_.ones((3, 4), np_.complex64), np_.ones((4, 2), np_.complex64)),
         {"activation": "relu"}),
        ("gemm", (np_.ones((3, 4), np_.bool_), np_.ones((4, 2), np_.bool_)), {"alpha": 2}),
        ("gemm", (i8, i8b), {"alpha": 0.5}),
        ("gemm", (i8, i8b), {"beta": 2**31}),
        ("gemm", (i8, np_.ones((5, 5), np_.int8)), {}),
        ("gemm", (f16, np_.ones((4, 2), np_.float16), np_.ones((3, 2), np_.float32)),
         {"beta": 1.0}),
        ("gemm", (i8, i8b), {"out": np_.zeros((3, 5), np_.int64)}),
        ("gemm", (i8, i8b), {"out": np_.zeros((5, 3), np_.int32)}),
        ("gemm_requant", (i8, i8b), {"scale": 0.0, "zero_point": 0}),
        ("gemm_requant", (i8, i8b), {"scale": np_.array([0.5, -1.0, 0.5], np_.float32),
                                     "zero_point": 0}),
        ("gemm_requant", (i8, i8b), {"scale": np_.ones(5), "zero_point": 0}),
        ("gemm_requant", (i8, i8b), {"scale": 1.0, "zero_point": 128}),
        ("gemm_requant", (i8, i8b), {"scale": 1.0, "zero_point": -1, "out_dtype": "uint8"}),
        ("gemm_requant", (i8, i8b), {"scale": 1.0, "zero_point": 0, "bias": np_.ones(4)}),
        ("gemm_requant", (i8, i8b), {"scale": 1.0, "zero_point": 0,
                                     "bias": np_.ones(3, np_.float64)}),
        ("gemm_requant", (i8, i8b), {"scale": 1.0, "zero_point": 0, "out_dtype": "int32"}),
        ("gemm_requant", (f16, np_.ones((4, 2), np_.float16)), {"scale": 1.0,
                                                                "zero_point": 0}),
        ("prepack_rhs", (np_.ones(4, np_.float32),), {}),
        ("prepack_rhs", (np_.ones((2, 2), np_.int64),), {}),
    ]


def test_refusals_read_as_natively(front):
    api, _, _ = front
    import gemmkit

    for i, (name, args, kwargs) in enumerate(_refusals(np)):
        outcomes = []
        for impl in (gemmkit, api):
            try:
                getattr(impl, name)(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - compared below
                outcomes.append((type(exc).__name__, str(exc)))
            else:
                outcomes.append(None)
        assert outcomes[0] is not None, (i, name, kwargs)
        assert outcomes[0] == outcomes[1], (i, name, kwargs, outcomes)


# --------------------------------------------------------------------------
# gemmkit._pyodide_call: a plain product's one call

# gemmkit_gemm_batched_ex's C type, for a recorder standing in for it.
_ENTRY = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_void_p] * 8, ctypes.c_int)


def _recorded(mod, args, status=0):
    """(status, calls) of _pyodide_call.gemm(entry, *args) where entry
    records each call (alpha, beta, the raw operands a, b, c, out, and
    packed_b, epilogue and flags) and returns ``status``."""
    calls = []

    def record(alpha, a, b, packed, beta, c, out, epilogue, flags):
        def op(p):
            return None if p is None else bytes(mod._Operand.from_address(p))
        pair = ctypes.c_double * 2
        calls.append((list(pair.from_address(alpha)), list(pair.from_address(beta)),
                      op(a), op(b), op(c), op(out), packed, epilogue, flags))
        return status

    entry = _ENTRY(record)
    return mod._call_gemm(ctypes.cast(entry, ctypes.c_void_p).value, *args), calls


def _plain_cases():
    f = array.array("f", range(6))
    ro = np.arange(6, dtype=np.float32).reshape(2, 3)
    ro.flags.writeable = False
    return [
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.ones((5, 2)),
        memoryview(f).cast("B").cast("f", (2, 3)),
        memoryview(array.array("d", range(4))).cast("B").cast("d", (4, 1)),
        np.ones((1, 3), np.float32)[:, :],
        np.lib.stride_tricks.as_strided(np.ones(4), (1, 4), (800, 8)),  # a row's stride is free
        np.asfortranarray(np.ones((3, 4), np.float32)),
        np.ones((3, 6))[::-1, ::2],                                    # negative, strided
        np.ones((3, 3), np.float32).view(np.recarray),                 # a subclass exports too
        ro,                                                            # read-only (not as out)
    ]


def test_call_module_passes_the_descriptors_of_the_general_path(backend):
    mod, lib = backend
    cases = _plain_cases()
    codes = lib.codes["dtypes"]
    for i in range(len(cases)):
        a, b, c = (cases[(i + j) % len(cases)] for j in range(3))
        out = cases[(i + 3) % len(cases)]
        if memoryview(out).readonly:  # out must be writable
            out = cases[0]
        for with_c in (False, True):
            status, calls = _recorded(mod, (1.5, a, b, -0.25, c if with_c else None, out), 7)
            assert status == 7, i  # the entry's status, as it returned it
            (alpha, beta, *ops, packed, epilogue, flags), = calls
            assert alpha == [1.5, 0.0] and beta == [-0.25, 0.0]
            assert (packed, epilogue, flags) == (None, None, 0)
            assert (ops[2] is None) == (not with_c)
            for x, got, writable in ((a, ops[0], False), (b, ops[1], False),
                                     (c, ops[2], False), (out, ops[3], True)):
                if got is None:
                    continue
                view = mod._View("x", x, codes, writable=writable)
                try:
                    assert got == bytes(view.op), (i, with_c)
                finally:
                    view.release()


def test_call_module_leaves_the_rest_to_the_general_path(backend):
    mod, _ = backend
    ro = np.ones((3, 3), np.float32)
    ro.flags.writeable = False
    released = memoryview(array.array("f", [1.0] * 9)).cast("B").cast("f", (3, 3))
    released.release()
    declined = [
        np.ones((3, 3), np.float16),                         # another type
        np.ones((3, 3), np.int32),
        np.ones((3, 3), ">f4"),                              # another byte order
        np.ones((0, 3), np.float32),                         # empty
        np.ones((3, 0), np.float64),
        np.ones((1, 3, 3), np.float32),                      # a batch
        np.ones(3, np.float32),                              # a vector
        released,
        bytearray(36),
        [[1.0] * 3] * 3,
        None,
    ]
    good = np.ones((3, 3), np.float32)
    for i, x in enumerate(declined):
        cases = [(x, good, None, good), (good, x, None, good), (good, good, None, x)]
        if x is not None:
            cases.append((good, good, x, good))
        for a, b, c, out in cases:
            assert _recorded(mod, (1.0, a, b, 0.0, c, out)) == (-1, []), i
    for out in (ro, memoryview(bytes(36)).cast("f", (3, 3))):  # read-only out
        assert _recorded(mod, (1.0, good, good, 0.0, None, out)) == (-1, [])
    for scalar in (1, 1j, np.float64(1.0), np.float32(1.0), np.complex128(1.0), True):
        assert _recorded(mod, (scalar, good, good, 0.0, None, good)) == (-1, []), scalar
        assert _recorded(mod, (1.0, good, good, scalar, None, good)) == (-1, []), scalar
    with pytest.raises(TypeError):
        mod._call_gemm(0, 1.0, good, good, 0.0, None)
    with pytest.raises(TypeError):
        mod._call_gemm("entry", 1.0, good, good, 0.0, None, good)


def _outcome(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - compared by the caller
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_call_module_results_and_errors_match_the_general_path(backend, dtype, monkeypatch):
    mod, lib = backend
    calls = []
    real = mod._call_gemm
    rng = np.random.default_rng(11)
    a = rng.standard_normal((7, 5)).astype(dtype)
    b = rng.standard_normal((5, 6)).astype(dtype)
    c = rng.standard_normal((7, 6)).astype(dtype)
    results = []
    for general in (False, True):  # general: the call module declines everything
        monkeypatch.setattr(mod, "_call_gemm", lambda *args: calls.append(
            general) or (-1 if general else real(*args)))
        out, cc = np.full((7, 6), np.nan, dtype), c.copy()
        lib.gemm(1.0, a, b, 0.0, None, out, None)
        lib.gemm(-0.5, a, b, 2.0, cc, cc, None)  # c is out: in place
        fo = np.zeros((7, 6), dtype, order="F")
        lib.gemm(1.0, a.T.copy().T, b[::-1][::-1], 0.0, None, fo, None)
        store = np.zeros((7, 8), dtype)
        other = "float64" if dtype == "float32" else "float32"
        errors = [_outcome(call) for call in (
            lambda: lib.gemm(1.0, a, a, 0.0, None, np.zeros((7, 5), dtype), None),
            lambda: lib.gemm(1.0, a, b.astype(other), 0.0, None, out, None),
            lambda: lib.gemm(1.0, a, b, 0.0, None, np.zeros((6, 7), dtype), None),
            lambda: lib.gemm(1.0, store[:, :5], b, 0.0, None, store[:, 2:], None),
            lambda: lib.gemm(1.0, a, b, 1.0, np.zeros((2, 6), dtype), out, None),
            lambda: lib.gemm(1.0, a, b, 0.0, None, out[:, ::-1][:, ::-1][::1, :5], None),
        )]
        results.append((out, cc, fo, errors))
        monkeypatch.undo()
    (out0, cc0, fo0, err0), (out1, cc1, fo1, err1) = results
    assert calls == [False] * 9 + [True] * 9  # every product was offered to it
    assert_close(out0, a, b)
    assert_close(cc0, a, b, c, -0.5, 2.0)
    assert np.array_equal(out0, out1) and np.array_equal(cc0, cc1) and np.array_equal(fo0, fo1)
    assert_close(fo0, a, b)
    assert all(e is not None for e in err0), err0
    assert err0 == err1


# --------------------------------------------------------------------------
# Choosing the side module: GEMMKIT_REQUIRE_ISA, the engine's probes, the
# wheel's files

@pytest.fixture()
def chooser(backend, tmp_path, monkeypatch):
    """_pyodide with its module folder at tmp_path, the engine's answers set
    by the test: choose(pin, simd128=..., relaxed=..., files=...)."""
    mod, _ = backend
    monkeypatch.setattr(mod, "_MODULE_DIR", str(tmp_path))

    def choose(pin, simd128=True, relaxed=False, files=("simd128", "relaxed"), prefer=True):
        for f in tmp_path.iterdir():
            f.unlink()
        for name in files:
            (tmp_path / {"simd128": mod.SIMD128_MODULE_FILE,
                         "relaxed": mod.RELAXED_MODULE_FILE}[name]).write_bytes(b"")
        monkeypatch.setattr(mod, "simd128_supported", lambda: simd128)
        monkeypatch.setattr(mod, "relaxed_simd_supported", lambda: relaxed and simd128)
        monkeypatch.setattr(mod, "PREFER_RELAXED_SIMD", prefer)
        if pin is None:
            monkeypatch.delenv("GEMMKIT_REQUIRE_ISA", raising=False)
        else:
            monkeypatch.setenv("GEMMKIT_REQUIRE_ISA", pin)
        try:
            return mod.os.path.basename(mod.module_path())
        except mod.IsaError as exc:
            return str(exc)

    return mod, choose


def test_module_choice(chooser):
    mod, choose = chooser
    simd, relaxed = mod.SIMD128_MODULE_FILE, mod.RELAXED_MODULE_FILE
    for pin in (None, "", "auto", " AUTO "):
        assert choose(pin, relaxed=True) == relaxed, pin
        assert choose(pin) == simd, pin
        assert choose(pin, relaxed=True, prefer=False) == simd, pin
        assert choose(pin, relaxed=True, files=("simd128",)) == simd, pin  # an older wheel
        assert choose(pin, simd128=False) == mod.SIMD_REFUSAL_MESSAGE, pin
    for pin in ("relaxed_simd", "relaxed", "Relaxed_SIMD "):
        assert choose(pin, relaxed=True) == relaxed, pin
        assert choose(pin, relaxed=True, prefer=False) == relaxed, pin
        assert choose(pin) == mod.RELAXED_SIMD_REFUSAL_MESSAGE, pin
        assert choose(pin, simd128=False) == mod.RELAXED_SIMD_REFUSAL_MESSAGE, pin
        assert choose(pin, relaxed=True, files=("simd128",)) == \
            mod.RELAXED_MODULE_MISSING_MESSAGE, pin
    for pin in ("simd128", "wasm", "scalar", "fma", "nonsense"):  # the module judges these
        assert choose(pin, relaxed=True) == simd, pin
        assert choose(pin) == simd, pin
        assert choose(pin, simd128=False) == mod.SIMD_REFUSAL_MESSAGE, pin
    assert "relaxed SIMD" in mod.RELAXED_SIMD_REFUSAL_MESSAGE
    assert "WebAssembly.validate" in mod.RELAXED_SIMD_REFUSAL_MESSAGE
    assert mod.RELAXED_MODULE_FILE in mod.RELAXED_MODULE_MISSING_MESSAGE


@pytest.fixture()
def wheel_dir(backend, host_lib, tmp_path, monkeypatch):
    """The host library copied under both side-module names into a folder
    the backend opens them from (each copy a library instance of its own),
    no module loaded yet, GEMMKIT_REQUIRE_ISA unset."""
    mod, _ = backend
    for name in (mod.SIMD128_MODULE_FILE, mod.RELAXED_MODULE_FILE):
        shutil.copyfile(host_lib, tmp_path / name)
    monkeypatch.setattr(mod, "_MODULE_DIR", str(tmp_path))
    monkeypatch.setattr(mod, "_default", None)
    monkeypatch.setattr(mod, "_default_error", None)
    monkeypatch.setattr(mod, "_table", None)
    monkeypatch.delenv("GEMMKIT_REQUIRE_ISA", raising=False)
    return mod, tmp_path


def test_loaded_module_and_isas(wheel_dir, monkeypatch):
    mod, folder = wheel_dir
    monkeypatch.setattr(mod, "relaxed_simd_supported", lambda: True)
    # By default relaxed SIMD is an opt-in: auto opens the simd128 module.
    assert mod.PREFER_RELAXED_SIMD is False
    assert mod._library().path == str(folder / mod.SIMD128_MODULE_FILE)
    monkeypatch.setattr(mod, "_default", None)
    monkeypatch.setattr(mod, "PREFER_RELAXED_SIMD", True)
    lib = mod._library()
    assert lib.path == str(folder / mod.RELAXED_MODULE_FILE)
    # The host library's table has only scalar; the relaxed module ran.
    assert mod.available_isas() == ["relaxed_simd", "scalar"]
    info = mod.dispatch_info()
    assert info["available_isas"] == ["relaxed_simd", "scalar"]
    assert info["compiled_isas"][0] == "relaxed_simd"
    a = np.ones((2, 3), np.float32)
    assert (mod.gemm(1.0, a, a.T.copy(), 0.0, None, np.zeros((2, 2), np.float32), None)
            == 3).all()
    # Pinned to scalar (the host library runs no simd128) on the same
    # engine: the simd128 module, and relaxed_simd is still what the engine
    # could run.
    monkeypatch.setattr(mod, "_default", None)
    monkeypatch.setenv("GEMMKIT_REQUIRE_ISA", "scalar")
    assert mod._library().path == str(folder / mod.SIMD128_MODULE_FILE)
    assert mod.available_isas() == ["relaxed_simd", "scalar"]
    # Without relaxed SIMD in the engine nothing names it.
    monkeypatch.setattr(mod, "relaxed_simd_supported", lambda: False)
    assert mod.available_isas() == ["scalar"]
    assert mod.dispatch_info()["available_isas"] == ["scalar"]
    assert "relaxed_simd" not in mod.dispatch_info()["compiled_isas"]


def test_relaxed_pin_refuses_without_relaxed_simd(wheel_dir, monkeypatch):
    mod, folder = wheel_dir
    monkeypatch.setattr(mod, "relaxed_simd_supported", lambda: False)
    monkeypatch.setenv("GEMMKIT_REQUIRE_ISA", "relaxed")
    a = np.ones((2, 2), np.float32)
    for call in (lambda: mod.gemm(1.0, a, a, 0.0, None, np.zeros((2, 2), np.float32), None),
                 mod.dispatch_info, lambda: mod.matmul2d(a, a)):
        with pytest.raises(mod.IsaError) as info:
            call()
        assert str(info.value) == mod.RELAXED_SIMD_REFUSAL_MESSAGE
    # What the engine runs is still reported, from the simd128 module's table.
    assert mod.available_isas() == ["scalar"]
    # Opening the relaxed module by hand refuses the same way.
    with pytest.raises(mod.IsaError, match="relaxed SIMD"):
        mod.Library(str(folder / mod.RELAXED_MODULE_FILE))


def test_relaxed_pin_refuses_an_older_wheel(wheel_dir, monkeypatch):
    mod, folder = wheel_dir
    (folder / mod.RELAXED_MODULE_FILE).unlink()
    monkeypatch.setattr(mod, "relaxed_simd_supported", lambda: True)
    monkeypatch.setenv("GEMMKIT_REQUIRE_ISA", "relaxed_simd")
    with pytest.raises(mod.IsaError) as info:
        mod.dispatch_info()
    assert str(info.value) == mod.RELAXED_MODULE_MISSING_MESSAGE
    assert mod.available_isas() == ["scalar"]
    monkeypatch.setattr(mod, "_default_error", None)
    monkeypatch.delenv("GEMMKIT_REQUIRE_ISA")
    assert mod._library().path == str(folder / mod.SIMD128_MODULE_FILE)  # auto falls back


def _front_calls(api, mv, arr):
    """Plain gemm calls (the front end's shortcut) and their near misses,
    each returning what the caller sees (or raising)."""
    a, b = arr("float32", [[1, -2, 3], [-4, 5, -6]]), arr("float32", [[7, -8], [9, 10], [-11, 12]])
    ad, bd = arr("float64", [[1, 2], [3, 4]]), arr("float64", [[0.5, 1], [2, -1]])
    ai, bi = arr("int8", [[1, -2], [3, 4]]), arr("int8", [[5, 6], [-7, 8]])
    released = arr("float32", [[1, 2], [3, 4]])
    if mv:
        released.release()
    else:
        released = None

    def tolist(x):
        return x.tolist() if hasattr(x, "tolist") else x

    def into(out, **kw):
        return lambda: (lambda got: (got is out, tolist(out)))(
            api.gemm(kw.pop("a", a), kw.pop("b", b), out=out, **kw))

    return [
        lambda: tolist(api.gemm(a, b)),
        lambda: tolist(api.gemm(a, b, alpha=-0.5, beta=3.0)),
        lambda: tolist(api.gemm(ad, bd, alpha=2.0)),
        lambda: tolist(api.gemm(ai, bi)),
        into(arr("float32", [[0, 0], [0, 0]])),
        into(arr("float64", [[0, 0], [0, 0]])),        # a dtype mismatch of out
        into(arr("float32", [[0, 0, 0], [0, 0, 0]])),  # a shape mismatch of out
        lambda: tolist(api.gemm(a, a)),                # k disagrees
        lambda: tolist(api.gemm(a, bd)),               # a type pair gemm lacks
        lambda: tolist(api.gemm(arr("float32", [1, 2]), b)),  # not 2-D
        lambda: tolist(api.gemm(a, b, alpha=True)),    # not a float: the general path
        *([lambda: tolist(api.gemm(a, released))] if released is not None else []),
        lambda: tolist(api.gemm(ai, bi, alpha=1.5)),   # the core's int8 domain
    ]


@pytest.mark.parametrize("numpy_present", [True, False])
def test_front_end_shortcut_matches_the_general_path(front, monkeypatch, numpy_present):
    """gemm's shortcut for plain products (_api._plain_gemm) gives every
    call the results and errors of the general path, and takes the plain
    calls of both operand kinds."""
    api, mod, lib = front
    if numpy_present:
        def arr(dtype, rows):
            return np.array(rows, dtype=dtype)
    else:
        dtypes = importlib.import_module("gkhost._dtypes")
        requant = importlib.import_module("gkhost._requant")
        packed = importlib.import_module("gkhost._packed")
        for m, name, value in ((api, "_np", None), (api, "_ndarray", None), (api, "_F32", None),
                               (api, "_F64", None), (dtypes, "_np", None),
                               (requant, "_np", None), (packed, "_np", None),
                               (mod, "_np", lambda: None)):
            monkeypatch.setattr(m, name, value)

        def arr(dtype, rows):
            code = {"float32": "f", "float64": "d", "int8": "b"}[dtype]
            if not isinstance(rows[0], list):
                return memoryview(array.array(code, rows))
            return _mv(code, rows)
    shortcut, taken = api._plain_gemm, []

    def counted(*args):
        got = shortcut(*args)
        taken.append(got is not None)
        return got

    outcomes = []
    for plain in (counted, lambda *args: None):
        monkeypatch.setattr(api, "_plain_gemm", plain)
        outcomes.append([(_outcome(call), _result(call)) for call in
                         _front_calls(api, not numpy_present, arr)])
    assert outcomes[0] == outcomes[1]
    # The four new results and the matching out went through the shortcut
    # (each call runs twice: for its outcome and for its result); the int8
    # call the core refuses raised inside it, the rest fell back.
    assert sum(taken) == 10, taken
    assert all(err is not None for err, _ in outcomes[0][5:]), outcomes[0]


def _result(call):
    try:
        return call()
    except Exception:  # noqa: BLE001 - its outcome is compared by _outcome
        return None
