"""Inside Pyodide through pytest-pyodide's ``@run_in_pyodide``: gemmkit's
wheel installed from the dist dir's lock (``packages=["gemmkit"]``), its
dispatch table, the GEMMKIT_REQUIRE_ISA pins of the Pyodide backend, and the
public API's refusal of a pin wasm cannot run.

Run by tools/test-all.sh on node and on Chromium:
    pytest tests/pyodide --runtime node --dist-dir build/pyodide-dist -p pyodide_plugin
(tests/pyodide on PYTHONPATH; ``--runtime chrome --runner playwright`` for Chromium).
"""

from pytest_pyodide import run_in_pyodide


@run_in_pyodide(packages=["gemmkit"])
def test_dispatch_table_names_every_family(selenium):
    import gemmkit
    from gemmkit import _pyodide

    info = gemmkit.dispatch_info()
    # relaxed_simd is available where the engine runs it (Chromium), never
    # the default (an opt-in: _pyodide.PREFER_RELAXED_SIMD).
    relaxed = ["relaxed_simd"] if _pyodide.relaxed_simd_supported() else []
    assert info["backend"] == "pyodide"
    assert info["available_isas"] == relaxed + ["simd128", "scalar"], info["available_isas"]
    want = {"float32": "f32_gemm_8x4", "float64": "f64_gemm_4x4", "int8": "int8_gemm_8x4",
            "int32": "i32_gemm_8x4", "int64": "i64_gemm_4x4", "complex64": "c64_gemm_4x3",
            "complex128": "c128_gemm_2x3", "bool": "bool_gemm_8x4"}
    for dtype, kernel in want.items():
        assert info[dtype]["isa"] == "simd128", (dtype, info[dtype])
        assert info[dtype]["kernel"] == f"{kernel}__simd128", (dtype, info[dtype])


@run_in_pyodide(packages=["gemmkit"])
def test_every_pin_of_the_pyodide_backend(selenium):
    # Each pin gets a fresh copy of the side module: its own statics, so its
    # own reading of the variable, which the core takes once.
    import array
    import os
    import shutil

    import gemmkit
    from gemmkit import _pyodide

    def fresh(i, value, module=_pyodide.SIMD128_MODULE_FILE):
        path = f"/tmp/gemmkit_pin_{i}.wasm"
        shutil.copyfile(os.path.join(os.path.dirname(_pyodide.__file__), module), path)
        if value is None:
            os.environ.pop("GEMMKIT_REQUIRE_ISA", None)
        else:
            os.environ["GEMMKIT_REQUIRE_ISA"] = value
        return _pyodide.Library(path)

    def operands():
        a = memoryview(array.array("f", [1, 2, 3, 4, 5, 6])).cast("B").cast("f", (2, 3))
        b = memoryview(array.array("f", [1, 0, 0, 1, 1, 1])).cast("B").cast("f", (3, 2))
        return a, b

    runs = [(None, "simd128"), ("", "simd128"), ("auto", "simd128"), ("simd128", "simd128"),
            ("WASM", "simd128"), (" Scalar ", "scalar")]
    refused = [("avx512f", "avx512f"), ("fma", "fma"), ("avx2", "fma"), ("neon", "neon"),
               ("vnni", "avx512vnni"), ("bf16", "avx512bf16"), ("dq", "avx512dq"),
               ("foo", "unknown value 'foo'"),
               ("relaxed_simd", "compiled without the relaxed_simd kernels")]
    # The relaxed module, where the engine runs it: its pins, and its
    # default (relaxed_simd for float32; complex64 on its base, simd128).
    relaxed_runs = [(None, "relaxed_simd", "simd128"), ("Relaxed", "relaxed_simd", "simd128"),
                    ("simd128", "simd128", "simd128"), ("scalar", "scalar", "scalar")]
    i = 0
    if _pyodide.relaxed_simd_supported():
        for value, isa, complex_isa in relaxed_runs:
            lib = fresh(i, value, _pyodide.RELAXED_MODULE_FILE)
            i += 1
            info = lib.dispatch_info()
            assert info["float32"]["isa"] == isa and info["float64"]["isa"] == isa, (value, info)
            assert info["complex64"]["isa"] == complex_isa, (value, info)
            a, b = operands()
            assert lib.gemm2d(a, b, None, 1.0, 0.0, None).tolist() == [[4.0, 5.0], [10.0, 11.0]]
    for value, isa in runs:
        lib = fresh(i, value)
        i += 1
        info = lib.dispatch_info()
        assert info["float32"]["isa"] == isa and info["complex64"]["isa"] == isa, (value, info)
        a, b = operands()
        assert lib.gemm2d(a, b, None, 1.0, 0.0, None).tolist() == [[4.0, 5.0], [10.0, 11.0]]
    for value, needle in refused:
        lib = fresh(i, value)
        i += 1
        for _ in range(2):  # every call refuses, not only the first
            a, b = operands()
            try:
                lib.gemm2d(a, b, None, 1.0, 0.0, None)
            except gemmkit.IsaError as exc:
                msg = str(exc)
            else:
                raise AssertionError(f"GEMMKIT_REQUIRE_ISA={value} did not refuse")
            assert msg.startswith("gemmkit: ") and needle in msg, msg
            try:
                lib.dispatch_info()
            except gemmkit.IsaError as exc:
                assert str(exc) == msg, (str(exc), msg)
            else:
                raise AssertionError(f"dispatch_info() with {value} did not refuse")
    os.environ.pop("GEMMKIT_REQUIRE_ISA", None)


@run_in_pyodide(packages=["gemmkit"])
def test_public_api_refuses_an_x86_pin(selenium_standalone):
    # A fresh Pyodide: the pin is set before gemmkit's first GEMM.
    import array
    import os

    os.environ["GEMMKIT_REQUIRE_ISA"] = "avx512f"
    import gemmkit

    a = memoryview(array.array("d", [1, 2, 3, 4])).cast("B").cast("d", (2, 2))
    messages = []
    for call in (lambda: gemmkit.gemm(a, a), gemmkit.dispatch_info, lambda: gemmkit.matmul(a, a)):
        for _ in range(2):
            try:
                call()
            except gemmkit.IsaError as exc:
                assert isinstance(exc, RuntimeError)
                messages.append(str(exc))
            else:
                raise AssertionError("no IsaError")
    assert len(set(messages)) == 1, messages
    assert "avx512f" in messages[0] and "wasm32" in messages[0], messages[0]
    from gemmkit import _pyodide

    relaxed = ["relaxed_simd"] if _pyodide.relaxed_simd_supported() else []
    assert gemmkit.available_isas() == relaxed + ["simd128", "scalar"]


@run_in_pyodide(packages=["gemmkit"])
def test_complex_and_integers_through_the_c_abi(selenium):
    # No object here exports a complex buffer without numpy ('Zf' cannot be
    # made by struct, array or memoryview.cast), so complex goes through
    # the Library's raw entry with float32 pairs viewed as complex64.
    import array

    import gemmkit

    q = memoryview(array.array("q", [2**62, 3, -1, 5])).cast("B").cast("q", (2, 2))
    got = gemmkit.matmul(q, q).tolist()
    wrap = lambda v: (v + 2**63) % 2**64 - 2**63
    assert got == [[wrap(2**124 - 3), wrap(3 * 2**62 + 15)], [wrap(-(2**62) - 5), wrap(-3 + 25)]]


@run_in_pyodide(packages=["gemmkit"])
def test_plain_products_take_the_call_module(selenium):
    # gemmkit._pyodide_call, the wheel's extension module, runs the plain
    # products: same results and errors as the general path it bypasses.
    import array
    import random

    import gemmkit
    from gemmkit import _pyodide, _pyodide_call

    assert _pyodide_call.__file__.endswith("_pyodide_call.abi3.so"), _pyodide_call.__file__
    assert _pyodide._call_gemm is _pyodide_call.gemm
    lib = _pyodide._library()
    rng = random.Random(5)

    def mat(code, rows, cols):
        values = array.array(code, [rng.uniform(-1, 1) for _ in range(rows * cols)])
        return memoryview(values).cast("B").cast(code, (rows, cols))

    def outcome(call):
        try:
            return "ok", call().tolist()
        except gemmkit.GemmkitError as exc:
            return type(exc).__name__, str(exc)

    for code in ("f", "d"):
        a, b, c = mat(code, 13, 17), mat(code, 17, 11), mat(code, 13, 11)
        out = mat(code, 13, 11)
        assert _pyodide_call.gemm(lib._entry, 1.0, a, b, 0.0, None, out) == 0
        halves = memoryview(bytearray(2 * 13 * 11)).cast("e", (13, 11))  # float16
        assert _pyodide_call.gemm(lib._entry, 1.0, a, b, 0.0, None, halves) == -1
        assert _pyodide_call.gemm(lib._entry, 1.0, a, a, 0.0, None, out) > 0  # the core's status
        calls = [
            lambda: gemmkit.gemm(a, b),
            lambda: gemmkit.gemm(a, b, c, alpha=0.5, beta=-2.0),
            lambda: gemmkit.gemm(a, b, out=mat(code, 13, 11)[::-1]),
            lambda: gemmkit.gemm(a, a),
            lambda: gemmkit.gemm(a, b, out=mat(code, 11, 13)),
            lambda: gemmkit.gemm(a, b, out=mat("f" if code == "d" else "d", 13, 11)),
        ]
        through_call = [outcome(call) for call in calls]
        real = _pyodide._call_gemm
        _pyodide._call_gemm = lambda *args: -1  # every product declined
        try:
            general = [outcome(call) for call in calls]
        finally:
            _pyodide._call_gemm = real
        assert through_call == general, code
        assert [kind for kind, _ in through_call] == ["ok"] * 3 + ["ShapeError"] * 2 + [
            "DTypeError"], through_call
