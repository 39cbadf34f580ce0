# Runs inside Pyodide on a V8 without SIMD (node --no-enable-sse4-1): the
# wheel installs and imports, and every GEMM call and dispatch_info() raise
# IsaError with the exact refusal message.
import array
import importlib.metadata

import gemmkit
from gemmkit import _pyodide

EXPECTED = ("gemmkit: the Pyodide build of gemmkit needs WebAssembly SIMD (simd128), "
            "which this engine does not support (WebAssembly.validate of a simd128 "
            "module failed)")
assert _pyodide.SIMD_REFUSAL_MESSAGE == EXPECTED
assert _pyodide.simd128_supported() is False
assert gemmkit.__version__ == importlib.metadata.version("gemmkit"), gemmkit.__version__
assert gemmkit.available_isas() == []
a = memoryview(array.array("f", [1, 2, 3, 4])).cast("B").cast("f", (2, 2))
for call in (lambda: gemmkit.gemm(a, a), gemmkit.dispatch_info, lambda: gemmkit.gemm(a, a)):
    try:
        call()
    except gemmkit.IsaError as exc:
        assert str(exc) == EXPECTED, str(exc)
    else:
        raise AssertionError("no IsaError without simd128")
print("REFUSAL-OK", EXPECTED)
