// benchmarks/native/amx_loop_probe.cpp compiled as an amx unit (named after
// its ISA, as every per-ISA unit of the tests is, so the object checks of
// tests/native/test_native_objects.py know it needs AMX).  Built, not run:
// it is a benchmark; building it here keeps it in step with
// cpp/src/kernel/amx.hpp.
#include "../../../benchmarks/native/amx_loop_probe.cpp"
