// gemmkit._pyodide_call: Pyodide's one call per plain product.  Inside
// Pyodide a ctypes call costs about 0.3 us and each converted argument
// 0.15-0.3 us more, and the Python that reads an operand's buffer costs more
// than that, so a small product paid several times its arithmetic in
// overhead.  The plain products of gemmkit._pyodide (float32/float64, no
// epilogue) go through this extension module instead: one Python-level call
// that reads the buffers and calls the loaded side module's
// gemmkit_gemm_batched_ex through the address ctypes found for it (Pyodide's
// modules share one function table, so the ISA modules stay ctypes
// libraries and this module is ISA-free).  Anything but the plain case is
// left to the general path, which then says what is wrong: this module
// refuses nothing.
//
// Built for Pyodide by wasm/CMakeLists.txt, and for the host by
// tests/wasm/test_pyodide_backend_host.py, which runs it there against
// gemmkit._pyodide's general path; both against python_stable_abi.h.
#include <stdint.h>

#include "gemmkit/gemmkit.h"
#include "python_stable_abi.h"

namespace {

using BatchedEx = decltype(&gemmkit_gemm_batched_ex);

// What gemm returns where the operands are not for this path.
constexpr long kNotHandled = -1;

// One exported operand: its buffer, held until the call is over.
struct Export {
  Py_buffer view{};
  bool held = false;
  ~Export() {
    if (held) PyBuffer_Release(&view);
  }
};

// The gemmkit_operand of a 2-D float32 or float64 buffer, as
// gemmkit._pyodide._View describes it; false for anything else.
bool describe(PyObject* obj, bool writable, Export& e, gemmkit_operand& op) {
  const int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(obj, &e.view, flags) != 0) {
    PyErr_Clear();
    return false;
  }
  e.held = true;
  const Py_buffer& b = e.view;
  const char* f = b.format;
  if (f == nullptr || f[0] == '\0' || f[1] != '\0' || b.ndim != 2 || b.suboffsets != nullptr)
    return false;
  if (f[0] == 'f' && b.itemsize == 4) {
    op.dtype = GEMMKIT_F32;
  } else if (f[0] == 'd' && b.itemsize == 8) {
    op.dtype = GEMMKIT_F64;
  } else {
    return false;
  }
  const Py_ssize_t size = b.itemsize;
  if (b.shape[0] == 0 || b.shape[1] == 0 || b.strides[0] % size || b.strides[1] % size)
    return false;
  op.data = b.buf;
  op.flags = 0;
  op.batch = 1;
  op.rows = static_cast<size_t>(b.shape[0]);
  op.cols = static_cast<size_t>(b.shape[1]);
  op.batch_stride = 0;
  op.rs = b.strides[0] / size;
  op.cs = b.strides[1] / size;
  return true;
}

// gemm(entry, alpha, a, b, beta, c, out) -> status: out = alpha*a@b +
// beta*c (c None: no c) through the gemmkit_gemm_batched_ex at address
// `entry`; -1 when a scalar is not a float or an operand is not a
// non-empty 2-D float32/float64 buffer (out writable).
PyObject* gemm(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 7) {
    PyErr_SetString(PyExc_TypeError, "gemm takes 7 arguments");
    return nullptr;
  }
  auto entry = reinterpret_cast<BatchedEx>(PyLong_AsVoidPtr(args[0]));
  if (entry == nullptr) {
    if (PyErr_Occurred() == nullptr) PyErr_SetString(PyExc_TypeError, "gemm: entry is 0");
    return nullptr;
  }
  // Exactly float, as PyFloat_CheckExact: a subclass or a numpy scalar
  // (a complex one's __float__ drops its imaginary part) takes the
  // general path.
  if (args[1]->ob_type != &PyFloat_Type || args[4]->ob_type != &PyFloat_Type)
    return PyLong_FromLong(kNotHandled);
  const double alpha[2] = {PyFloat_AsDouble(args[1]), 0.0};
  const double beta[2] = {PyFloat_AsDouble(args[4]), 0.0};
  PyObject* const none = &_Py_NoneStruct;
  const bool has_c = args[5] != none;
  Export ea, eb, ec, eo;
  gemmkit_operand a, b, c, out;
  if (!describe(args[2], false, ea, a) || !describe(args[3], false, eb, b) ||
      (has_c && !describe(args[5], false, ec, c)) || !describe(args[6], true, eo, out))
    return PyLong_FromLong(kNotHandled);
  return PyLong_FromLong(
      entry(alpha, &a, &b, nullptr, beta, has_c ? &c : nullptr, &out, nullptr, 0));
}

PyMethodDef methods[] = {
    {"gemm", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(gemm)), METH_FASTCALL,
     "gemm(entry, alpha, a, b, beta, c, out) -> status, or -1: not a plain product"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {
    GEMMKIT_PyModuleDef_HEAD_INIT,
    "gemmkit._pyodide_call",
    "One C call per plain product for gemmkit._pyodide.",
    0,
    methods,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) PyObject* PyInit__pyodide_call(void) {
  return PyModuleDef_Init(&module);
}
