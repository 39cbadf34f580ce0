# Runs inside Pyodide where the engine cannot run what gemmkit is asked for:
# on a V8 without SIMD (node --no-enable-sse4-1), or with
# GEMMKIT_REQUIRE_ISA=relaxed_simd (or relaxed) on a V8 without relaxed SIMD
# (node 20 as it comes).  The wheel installs and imports, every GEMM call and
# dispatch_info() raise IsaError with the exact refusal message, and
# available_isas() still says what the engine runs.
import array
import importlib.metadata
import os

import gemmkit
from gemmkit import _pyodide

relaxed_pin = os.environ.get("GEMMKIT_REQUIRE_ISA", "").strip().lower() in ("relaxed_simd",
                                                                          "relaxed")
if relaxed_pin:
    EXPECTED = ("gemmkit: relaxed_simd (GEMMKIT_REQUIRE_ISA=relaxed_simd) needs WebAssembly "
                "relaxed SIMD, which this engine does not support (WebAssembly.validate of a "
                "relaxed-SIMD module, f32x4.relaxed_madd, failed); GEMMKIT_REQUIRE_ISA=auto "
                "or simd128 runs the simd128 build")
    assert _pyodide.RELAXED_SIMD_REFUSAL_MESSAGE == EXPECTED
    assert _pyodide.simd128_supported() is True
    assert _pyodide.relaxed_simd_supported() is False
    # The wheel holds the relaxed module: the refusal is the engine's.
    assert os.path.exists(os.path.join(os.path.dirname(_pyodide.__file__),
                                       _pyodide.RELAXED_MODULE_FILE))
    assert gemmkit.available_isas() == ["simd128", "scalar"], gemmkit.available_isas()
else:
    EXPECTED = ("gemmkit: the Pyodide build of gemmkit needs WebAssembly SIMD (simd128), "
                "which this engine does not support (WebAssembly.validate of a simd128 "
                "module failed)")
    assert _pyodide.SIMD_REFUSAL_MESSAGE == EXPECTED
    assert _pyodide.simd128_supported() is False
    assert _pyodide.relaxed_simd_supported() is False
    assert gemmkit.available_isas() == []
assert gemmkit.__version__ == importlib.metadata.version("gemmkit"), gemmkit.__version__
a = memoryview(array.array("f", [1, 2, 3, 4])).cast("B").cast("f", (2, 2))
for call in (lambda: gemmkit.gemm(a, a), gemmkit.dispatch_info, lambda: gemmkit.gemm(a, a)):
    try:
        call()
    except gemmkit.IsaError as exc:
        assert str(exc) == EXPECTED, str(exc)
    else:
        raise AssertionError("no IsaError")
print("REFUSAL-OK", EXPECTED)
