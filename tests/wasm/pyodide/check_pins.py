# Runs inside Pyodide: GEMMKIT_REQUIRE_ISA under the Pyodide backend.  Each
# pin gets a fresh copy of the side module (its own statics, so its own
# reading of the variable, which the core takes once, before its first GEMM).
import array
import os
import shutil

import gemmkit
from gemmkit import _pyodide

SRC = os.path.join(os.path.dirname(_pyodide.__file__), "_gemmkit_simd128.wasm")


def operands():
    a = memoryview(array.array("f", [1, 2, 3, 4, 5, 6])).cast("B").cast("f", (2, 3))
    b = memoryview(array.array("f", [1, 0, 0, 1, 1, 1])).cast("B").cast("f", (3, 2))
    return a, b


def fresh(i, value):
    path = f"/tmp/gemmkit_pin_{i}.wasm"
    shutil.copyfile(SRC, path)
    if value is None:
        os.environ.pop("GEMMKIT_REQUIRE_ISA", None)
    else:
        os.environ["GEMMKIT_REQUIRE_ISA"] = value
    return _pyodide.Library(path)


RUNS = [(None, "simd128"), ("", "simd128"), ("auto", "simd128"), ("simd128", "simd128"),
        ("WASM", "simd128"), (" Scalar ", "scalar")]
REFUSED = [("avx512f", "avx512f"), ("fma", "fma"), ("avx2", "fma"), ("neon", "neon"),
           ("vnni", "avx512vnni"), ("bf16", "avx512bf16"), ("foo", "unknown value 'foo'")]
i = 0
for value, isa in RUNS:
    lib = fresh(i, value)
    i += 1
    info = lib.dispatch_info()
    assert info["float32"]["isa"] == isa and info["float64"]["isa"] == isa, (value, info)
    a, b = operands()
    got = lib.gemm2d(a, b, None, 1.0, 0.0, None).tolist()
    assert got == [[4.0, 5.0], [10.0, 11.0]], (value, got)
    print(f"pin {value!r}: {info['float32']['kernel']}, {info['float64']['kernel']}")
for value, needle in REFUSED:
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
            raise AssertionError(f"dispatch_info() with GEMMKIT_REQUIRE_ISA={value} did not refuse")
    print(f"pin {value!r} refused: {msg}")
print("PINS-OK")
