"""The Pyodide backend's Python side (python/gemmkit/_pyodide.py) on the host:
the same ctypes code over a native shared library built here from the same
C++ sources (baseline + scalar units), so the numpy paths, which Pyodide
cannot exercise offline (no numpy wheel there), run too: any strides,
read-only operands without copies, numpy results, out=c, and the numpy-free
result type."""

from __future__ import annotations

import array
import importlib
import subprocess
import sys
import types

import pytest

from wasmhelpers import BUILD, REPO, require, wasm_build

np = pytest.importorskip("numpy", reason="numpy is not installed")


@pytest.fixture(scope="module")
def host_lib(tmp_path_factory):
    """libgemmkit for the host: baseline units + the scalar target, no
    threads, built with the wasm build's source lists and flags."""
    try:
        tc = wasm_build.detect_toolchain()
    except wasm_build.BuildError as exc:
        require(False, str(exc))
    out_dir = BUILD / "test" / "host"
    out_dir.mkdir(parents=True, exist_ok=True)
    flags = [tc.cxx, "-std=c++20", "-O2", "-fPIC", "-fvisibility=hidden", "-ffp-contract=off",
             "-fno-exceptions", "-fno-rtti", "-I", str(REPO / "cpp" / "include"),
             "-I", str(REPO / "cpp" / "src"), "-DGEMMKIT_NO_THREADS=1", "-DGEMMKIT_HAVE_SCALAR=1"]
    objs = []
    for src in wasm_build.baseline_sources(REPO):
        obj = out_dir / (src.stem + ".o")
        wasm_build.compile_one(flags, src, obj)
        objs.append(str(obj))
    for src in wasm_build.target_sources(REPO, "scalar"):
        obj = out_dir / ("scalar_" + src.stem + ".o")
        wasm_build.compile_one(flags + ["-DGEMMKIT_ISA=scalar"], src, obj)
        objs.append(str(obj))
    lib = out_dir / "libgemmkit_scalar.so"
    proc = subprocess.run([tc.cxx, "-shared", "-o", str(lib), *objs], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return lib


@pytest.fixture(scope="module")
def backend(host_lib):
    """python/gemmkit/_pyodide.py loaded from the source tree as package
    ``gkhost`` (the installed gemmkit stays untouched), its _api wired to it."""
    pkg = types.ModuleType("gkhost")
    pkg.__path__ = [str(REPO / "python" / "gemmkit")]
    sys.modules["gkhost"] = pkg
    mod = importlib.import_module("gkhost._pyodide")
    sys.modules["gkhost._backend"] = types.SimpleNamespace(backend=mod)
    mod.simd128_supported = lambda: True  # no JS engine on the host
    lib = mod.Library(str(host_lib))
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
    with pytest.raises(mod.LayoutError, match="writable"):
        lib.gemm2d(a, np.ones((4, 2), np.float32), None, 1.0, 0.0, ro)
    with pytest.raises(mod.DTypeError, match="format"):
        lib.gemm2d(a.astype(np.int32), np.ones((4, 2), np.int32), None, 1.0, 0.0, None)
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
    zero_n = mod._new_result("float64", 3, 0)
    assert zero_n.shape == (3, 0) and zero_n.nbytes == 0
    assert lib.gemm2d(one, mod._new_result("float64", 1, 0), None, 1.0, 0.0, None).shape == (2, 0)
    cube = memoryview(bytearray(64)).cast("d", (2, 2, 2))
    with pytest.raises(mod.ShapeError, match="2-D"):
        lib.gemm2d(cube, b, None, 1.0, 0.0, None)


def test_dispatch_info_and_version(backend):
    mod, lib = backend
    info = lib.dispatch_info()
    assert info["backend"] == "pyodide"
    assert info["float32"]["isa"] == "scalar"  # the host library has only scalar units
    assert lib.version == wasm_build.read_version(REPO)
    assert lib.get_num_threads() == 1
