// Bindings: the pybind11 module gemmkit._native.  Conversion only: numpy
// arrays in (any strides), a gemmkit status out, mapped onto the Python
// error classes of gemmkit._errors.  All checking of shapes, strides and
// overlap happens in the C++ API (L8).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

#include "gemmkit/gemmkit.h"
#include "gemmkit/gemmkit.hpp"

namespace py = pybind11;

namespace {

// Error classes of gemmkit._errors, indexed by gemmkit_status.
py::object g_error_from_status;

[[noreturn]] void raise_status(int status, const char* message) {
  py::object err = g_error_from_status(status, message);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
  throw py::error_already_set();
}

[[noreturn]] void raise_error(int status, const std::string& message) {
  raise_status(status, message.c_str());
}

// Below this many multiply-adds the GIL is kept: releasing it costs more
// than the product and no other thread could use the time.
constexpr double kReleaseGilWork = 32.0 * 32.0 * 32.0;

struct View {
  char* data;
  gemmkit::index_t rows, cols, rs, cs;
};

View view_of(const py::array& arr, const char* name, py::ssize_t itemsize) {
  if (arr.ndim() != 2) {
    raise_error(GEMMKIT_ERROR_SHAPE,
                std::string("gemmkit: ") + name + " must be 2-D, got ndim=" +
                    std::to_string(arr.ndim()));
  }
  const py::ssize_t* st = arr.strides();
  if (st[0] % itemsize || st[1] % itemsize) {
    raise_error(GEMMKIT_ERROR_STRIDE,
                std::string("gemmkit: ") + name +
                    " has strides that are not a multiple of its element size");
  }
  return View{static_cast<char*>(const_cast<void*>(arr.data())), arr.shape(0),
              arr.shape(1), st[0] / itemsize, st[1] / itemsize};
}

const char* dtype_word(int num) {
  switch (num) {
    case py::detail::npy_api::NPY_FLOAT_:
      return "float32";
    case py::detail::npy_api::NPY_DOUBLE_:
      return "float64";
    default:
      return nullptr;
  }
}

// '>' on a little-endian host (or '<' on a big-endian one) means the bytes
// would need swapping: refused rather than silently misread.
bool native_order(const py::array& arr) {
  const char order = arr.dtype().byteorder();
  const uint16_t probe = 1;
  const bool little = *reinterpret_cast<const uint8_t*>(&probe) == 1;
  return order == '=' || order == '|' || order == (little ? '<' : '>');
}

std::string dtype_str(const py::array& arr) {
  return py::str(arr.dtype()).cast<std::string>();
}

template <class T>
py::object run_gemm(const py::array& a, const py::array& b,
                    const py::array* c, double alpha, double beta,
                    py::object out_obj) {
  constexpr py::ssize_t es = sizeof(T);
  const View va = view_of(a, "a", es);
  const View vb = view_of(b, "b", es);
  View vc{};
  if (c) vc = view_of(*c, "c", es);
  py::array out;
  if (out_obj.is_none()) {
    if (va.cols != vb.rows) {
      // Report the mismatch before allocating anything.
      raise_error(GEMMKIT_ERROR_SHAPE,
                  "gemmkit: shape mismatch: a is " + std::to_string(va.rows) +
                      "x" + std::to_string(va.cols) + " but b is " +
                      std::to_string(vb.rows) + "x" + std::to_string(vb.cols) +
                      " (a.cols != b.rows)");
    }
    out = py::array_t<T>({va.rows, vb.cols});
  } else {
    out = py::reinterpret_borrow<py::array>(out_obj);
    if (!out.writeable()) {
      raise_error(GEMMKIT_ERROR_STRIDE, "gemmkit: out is read-only");
    }
  }
  const View vo = view_of(out, "out", es);
  const gemmkit::MatrixRef<T> ra{reinterpret_cast<const T*>(va.data), va.rows,
                                 va.cols, va.rs, va.cs};
  const gemmkit::MatrixRef<T> rb{reinterpret_cast<const T*>(vb.data), vb.rows,
                                 vb.cols, vb.rs, vb.cs};
  const gemmkit::MatrixRef<T> rc{reinterpret_cast<const T*>(vc.data), vc.rows,
                                 vc.cols, vc.rs, vc.cs};
  const gemmkit::MatrixMut<T> ro{reinterpret_cast<T*>(vo.data), vo.rows,
                                 vo.cols, vo.rs, vo.cs};
  int status;
  const double work = double(va.rows) * double(va.cols) * double(vb.cols);
  if (work >= kReleaseGilWork) {
    py::gil_scoped_release release;
    status = gemmkit::gemm<T>(T(alpha), ra, rb, T(beta), c ? &rc : nullptr, ro);
  } else {
    status = gemmkit::gemm<T>(T(alpha), ra, rb, T(beta), c ? &rc : nullptr, ro);
  }
  if (status != GEMMKIT_OK) raise_status(status, gemmkit::last_error());
  return std::move(out);
}

py::array as_array(py::handle obj, const char* name) {
  if (!py::isinstance<py::array>(obj)) {
    raise_error(GEMMKIT_ERROR_DTYPE,
                std::string("gemmkit: ") + name + " must be a numpy array");
  }
  return py::reinterpret_borrow<py::array>(obj);
}

py::object gemm2d(py::handle a_obj, py::handle b_obj, py::handle c_obj,
                  double alpha, double beta, py::object out) {
  const py::array a = as_array(a_obj, "a");
  const py::array b = as_array(b_obj, "b");
  py::array c;
  const bool has_c = !c_obj.is_none();
  if (has_c) c = as_array(c_obj, "c");
  if (!out.is_none()) as_array(out, "out");

  const int num = a.dtype().num();
  const char* word = dtype_word(num);
  if (!word || !native_order(a)) {
    raise_error(GEMMKIT_ERROR_DTYPE,
                "gemmkit: unsupported dtype " + dtype_str(a) +
                    " (supported: float32, float64 in native byte order)");
  }
  auto same = [&](const py::array& x, const char* name) {
    if (x.dtype().num() != num || !native_order(x)) {
      raise_error(GEMMKIT_ERROR_DTYPE,
                  std::string("gemmkit: dtype mismatch: a is ") + word +
                      " but " + name + " is " + dtype_str(x) +
                      " (gemmkit does not convert; cast explicitly)");
    }
  };
  same(b, "b");
  if (has_c) same(c, "c");
  if (!out.is_none()) same(py::reinterpret_borrow<py::array>(out), "out");

  if (num == py::detail::npy_api::NPY_FLOAT_) {
    return run_gemm<float>(a, b, has_c ? &c : nullptr, alpha, beta, out);
  }
  return run_gemm<double>(a, b, has_c ? &c : nullptr, alpha, beta, out);
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "gemmkit native backend (C++ core with runtime ISA dispatch)";
  g_error_from_status = py::module_::import("gemmkit._errors").attr("error_from_status");
  // Keep the reference alive for the life of the interpreter.
  m.attr("_error_from_status") = g_error_from_status;

  m.def("gemm2d", &gemm2d, py::arg("a"), py::arg("b"), py::arg("c"),
        py::arg("alpha"), py::arg("beta"), py::arg("out"),
        "out = alpha * a @ b + beta * c for 2-D float32/float64 arrays");
  m.def("dispatch_info_json", []() {
    const char* info = gemmkit::dispatch_info_json();
    if (!info) raise_status(GEMMKIT_ERROR_ISA, gemmkit::last_error());
    return std::string(info);
  });
  m.def("set_num_threads", [](std::size_t n) { gemmkit::set_num_threads(n); });
  m.def("get_num_threads", []() { return gemmkit::get_num_threads(); });
  m.def("version", []() { return std::string(gemmkit::version()); });
  m.def("abi_version", []() { return gemmkit_abi_version(); });
}
