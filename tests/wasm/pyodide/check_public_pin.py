# Runs inside Pyodide started with GEMMKIT_REQUIRE_ISA=avx512f: the public
# API refuses on every call with an IsaError naming the problem, and never
# falls back.
import array

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
assert gemmkit.available_isas() == ["simd128", "scalar"]
print("PUBLIC-PIN-OK", messages[0])
