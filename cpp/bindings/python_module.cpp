// Bindings: the pybind11 module gemmkit._native.  Conversion only: numpy
// arrays in (any strides), a gemmkit status out, mapped onto the Python
// error classes of gemmkit._errors.  All checking of shapes, strides and
// overlap happens in the C++ API (L8).
//
// gemm2d is the float32/float64 short path (element type read from the
// array).  gemm_typed, gemm_requant and prepack_rhs take gemmkit_dtype
// codes chosen by the Python front end (gemmkit._dtypes), which also checked
// that the operands have those types: bfloat16 is an ml_dtypes custom
// dtype that only Python can recognise for certain.  Here the codes are
// only cross-checked against the arrays' item sizes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

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
  return out;
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
                    " for a (supported: float32, float64, float16, bfloat16 "
                    "(ml_dtypes), int8; native byte order)");
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


// ---------------------------------------------------------------------------
// Every element type: gemm_typed, gemm_requant, prepack_rhs.

// A packed right-hand side owned by Python (gemmkit.PackedRhs holds it).
// Immutable once made, so any thread may use it with the GIL released; the
// Python object is referenced by the call's arguments for its duration.
struct PackedHandle {
  gemmkit::PackedRhs* packed = nullptr;
  int dtype = -1;  // gemmkit_dtype of the B it was made from
  PackedHandle() = default;
  PackedHandle(const PackedHandle&) = delete;
  PackedHandle& operator=(const PackedHandle&) = delete;
  ~PackedHandle() {
    if (packed) gemmkit::free_packed_rhs(packed);
  }
};

py::ssize_t code_itemsize(int code) {
  switch (code) {
    case GEMMKIT_F32:
    case GEMMKIT_I32:
      return 4;
    case GEMMKIT_F64:
      return 8;
    case GEMMKIT_F16:
    case GEMMKIT_BF16:
      return 2;
    case GEMMKIT_I8:
    case GEMMKIT_U8:
      return 1;
    default:
      raise_error(GEMMKIT_ERROR_DTYPE,
                  "gemmkit: unknown dtype code " + std::to_string(code));
  }
}

// The array's item size must be that of the code the front end chose.
py::array typed_array(py::handle obj, const char* name, int code) {
  py::array arr = as_array(obj, name);
  if (arr.itemsize() != code_itemsize(code) || !native_order(arr)) {
    raise_error(GEMMKIT_ERROR_DTYPE,
                std::string("gemmkit: ") + name + " is " + dtype_str(arr) +
                    ", not the element type this call was made for");
  }
  return arr;
}

template <class T>
gemmkit::MatrixRef<T> ref_of(const View& v) {
  return {reinterpret_cast<const T*>(v.data), v.rows, v.cols, v.rs, v.cs};
}

template <class T>
gemmkit::MatrixMut<T> mut_of(const View& v) {
  return {reinterpret_cast<T*>(v.data), v.rows, v.cols, v.rs, v.cs};
}

// alpha/beta in the accumulator type; int8 products take int32 values
// (the front end already checked; this is the C++ side of that contract).
template <class Acc>
Acc acc_scalar(double v, const char* name) {
  if constexpr (std::is_same_v<Acc, std::int32_t>) {
    if (!std::isfinite(v) || v != std::floor(v) || v < -2147483648.0 ||
        v > 2147483647.0) {
      raise_error(GEMMKIT_ERROR_VALUE,
                  std::string("gemmkit: ") + name +
                      " (for int8 inputs) must be an integer in the int32 "
                      "range, got " + std::to_string(v));
    }
    return static_cast<std::int32_t>(v);
  } else {
    return static_cast<Acc>(v);
  }
}

const PackedHandle* packed_of(py::handle b) {
  if (!py::isinstance<PackedHandle>(b)) return nullptr;
  return b.cast<const PackedHandle*>();
}

void writable(const py::array& out) {
  if (!out.writeable()) {
    raise_error(GEMMKIT_ERROR_STRIDE, "gemmkit: out is read-only");
  }
}

template <class L, class O>
void run_typed(int in, int out_code, py::handle a_obj, py::handle b_obj,
               py::handle c_obj, double alpha, double beta,
               py::handle out_obj) {
  using Acc = gemmkit::acc_t<L>;
  const py::array a = typed_array(a_obj, "a", in);
  const PackedHandle* packed = packed_of(b_obj);
  py::array b;
  if (packed) {
    if (packed->dtype != in) {
      raise_error(GEMMKIT_ERROR_DTYPE,
                  "gemmkit: the packed b holds another element type than a");
    }
  } else {
    b = typed_array(b_obj, "b", in);
  }
  const bool has_c = !c_obj.is_none();
  py::array c;
  if (has_c) c = typed_array(c_obj, "c", out_code);
  const py::array out = typed_array(out_obj, "out", out_code);
  writable(out);
  const Acc al = acc_scalar<Acc>(alpha, "alpha");
  const Acc be = acc_scalar<Acc>(beta, "beta");

  const View va = view_of(a, "a", sizeof(L));
  const View vo = view_of(out, "out", sizeof(O));
  View vb{}, vc{};
  if (!packed) vb = view_of(b, "b", sizeof(L));
  if (has_c) vc = view_of(c, "c", sizeof(O));
  const auto ra = ref_of<L>(va);
  const auto rb = ref_of<L>(vb);
  const auto rc = ref_of<O>(vc);
  const auto ro = mut_of<O>(vo);
  const gemmkit::MatrixRef<O>* pc = has_c ? &rc : nullptr;
  auto call = [&]() {
    return packed ? gemmkit::gemm_packed<L, O>(al, ra, *packed->packed, be,
                                               pc, ro)
                  : gemmkit::gemm<L, O>(al, ra, rb, be, pc, ro);
  };
  int status;
  const double work = double(vo.rows) * double(vo.cols) * double(va.cols);
  if (work >= kReleaseGilWork) {
    py::gil_scoped_release release;
    status = call();
  } else {
    status = call();
  }
  if (status != GEMMKIT_OK) raise_status(status, gemmkit::last_error());
}

constexpr int pair(int in, int out) { return in * 16 + out; }

void gemm_typed(int in, int out, py::handle a, py::handle b, py::handle c,
                double alpha, double beta, py::handle out_obj) {
  using gemmkit::bfloat16;
  using gemmkit::float16;
  switch (pair(in, out)) {
    case pair(GEMMKIT_F32, GEMMKIT_F32):
      return run_typed<float, float>(in, out, a, b, c, alpha, beta, out_obj);
    case pair(GEMMKIT_F64, GEMMKIT_F64):
      return run_typed<double, double>(in, out, a, b, c, alpha, beta,
                                       out_obj);
    case pair(GEMMKIT_F16, GEMMKIT_F16):
      return run_typed<float16, float16>(in, out, a, b, c, alpha, beta,
                                         out_obj);
    case pair(GEMMKIT_F16, GEMMKIT_F32):
      return run_typed<float16, float>(in, out, a, b, c, alpha, beta,
                                       out_obj);
    case pair(GEMMKIT_BF16, GEMMKIT_BF16):
      return run_typed<bfloat16, bfloat16>(in, out, a, b, c, alpha, beta,
                                           out_obj);
    case pair(GEMMKIT_BF16, GEMMKIT_F32):
      return run_typed<bfloat16, float>(in, out, a, b, c, alpha, beta,
                                        out_obj);
    case pair(GEMMKIT_I8, GEMMKIT_I32):
      return run_typed<std::int8_t, std::int32_t>(in, out, a, b, c, alpha,
                                                  beta, out_obj);
    default:
      raise_error(GEMMKIT_ERROR_DTYPE,
                  "gemmkit: unsupported dtype pair (codes " +
                      std::to_string(in) + " -> " + std::to_string(out) + ")");
  }
}

// A contiguous-or-strided 1-D vector of T (scale: float, bias: int32).
template <class T>
std::pair<const T*, gemmkit::index_t> vector_of(py::handle obj,
                                                const char* name,
                                                gemmkit::index_t* len) {
  const py::array arr = as_array(obj, name);
  if (arr.ndim() != 1 || arr.itemsize() != py::ssize_t(sizeof(T)) ||
      arr.strides(0) % py::ssize_t(sizeof(T))) {
    raise_error(GEMMKIT_ERROR_DTYPE,
                std::string("gemmkit: ") + name +
                    " must be a 1-D vector of 4-byte elements");
  }
  *len = arr.shape(0);
  return {static_cast<const T*>(arr.data()),
          arr.strides(0) / py::ssize_t(sizeof(T))};
}

template <class O>
void run_requant(py::handle a_obj, py::handle b_obj, int scale_kind,
                 py::handle scale, int zero_point, int bias_kind,
                 py::handle bias, py::handle out_obj, int out_code) {
  const py::array a = typed_array(a_obj, "a", GEMMKIT_I8);
  const PackedHandle* packed = packed_of(b_obj);
  py::array b;
  if (packed) {
    if (packed->dtype != GEMMKIT_I8) {
      raise_error(GEMMKIT_ERROR_DTYPE,
                  "gemmkit: gemm_requant needs an int8 packed operand");
    }
  } else {
    b = typed_array(b_obj, "b", GEMMKIT_I8);
  }
  const py::array out = typed_array(out_obj, "out", out_code);
  writable(out);
  const View va = view_of(a, "a", 1);
  const View vo = view_of(out, "out", 1);
  View vb{};
  if (!packed) vb = view_of(b, "b", 1);

  gemmkit::Requantize rq{};
  if (scale_kind < 0 || scale_kind > 2 || bias_kind < 0 || bias_kind > 2) {
    raise_error(GEMMKIT_ERROR_VALUE, "gemmkit: bad scale or bias kind");
  }
  rq.scale_kind = static_cast<gemmkit::Scale>(scale_kind);
  auto sv = vector_of<float>(scale, "scale", &rq.scale_len);
  rq.scale = sv.first;
  rq.scale_stride = sv.second;
  rq.zero_point = zero_point;
  rq.bias_kind = static_cast<gemmkit::Bias>(bias_kind);
  if (bias_kind != 0) {
    auto bv = vector_of<std::int32_t>(bias, "bias", &rq.bias_len);
    rq.bias = bv.first;
    rq.bias_stride = bv.second;
  }
  const auto ra = ref_of<std::int8_t>(va);
  const auto rb = ref_of<std::int8_t>(vb);
  const auto ro = mut_of<O>(vo);
  auto call = [&]() {
    return packed ? gemmkit::gemm_requant_packed<O>(ra, *packed->packed, rq, ro)
                  : gemmkit::gemm_requant<O>(ra, rb, rq, ro);
  };
  int status;
  const double work = double(vo.rows) * double(vo.cols) * double(va.cols);
  if (work >= kReleaseGilWork) {
    py::gil_scoped_release release;
    status = call();
  } else {
    status = call();
  }
  if (status != GEMMKIT_OK) raise_status(status, gemmkit::last_error());
}

void gemm_requant(int out, py::handle a, py::handle b, int scale_kind,
                  py::handle scale, int zero_point, int bias_kind,
                  py::handle bias, py::handle out_obj) {
  if (out == GEMMKIT_I8) {
    return run_requant<std::int8_t>(a, b, scale_kind, scale, zero_point,
                                    bias_kind, bias, out_obj, out);
  }
  if (out == GEMMKIT_U8) {
    return run_requant<std::uint8_t>(a, b, scale_kind, scale, zero_point,
                                     bias_kind, bias, out_obj, out);
  }
  raise_error(GEMMKIT_ERROR_DTYPE,
              "gemmkit: gemm_requant writes int8 or uint8 only");
}

template <class L>
std::unique_ptr<PackedHandle> run_prepack(int code, py::handle b_obj) {
  const py::array b = typed_array(b_obj, "b", code);
  const View vb = view_of(b, "b", sizeof(L));
  auto handle = std::make_unique<PackedHandle>();
  handle->dtype = code;
  int status;
  const gemmkit::MatrixRef<L> rb = ref_of<L>(vb);
  if (double(vb.rows) * double(vb.cols) >= kReleaseGilWork) {
    py::gil_scoped_release release;
    status = gemmkit::prepack_rhs<L>(rb, &handle->packed);
  } else {
    status = gemmkit::prepack_rhs<L>(rb, &handle->packed);
  }
  if (status != GEMMKIT_OK) raise_status(status, gemmkit::last_error());
  return handle;
}

std::unique_ptr<PackedHandle> prepack_rhs(int code, py::handle b) {
  switch (code) {
    case GEMMKIT_F32:
      return run_prepack<float>(code, b);
    case GEMMKIT_F64:
      return run_prepack<double>(code, b);
    case GEMMKIT_F16:
      return run_prepack<gemmkit::float16>(code, b);
    case GEMMKIT_BF16:
      return run_prepack<gemmkit::bfloat16>(code, b);
    case GEMMKIT_I8:
      return run_prepack<std::int8_t>(code, b);
    default:
      raise_error(GEMMKIT_ERROR_DTYPE,
                  "gemmkit: prepack_rhs: unsupported dtype code " +
                      std::to_string(code));
  }
}

py::dict describe(const PackedHandle& h) {
  const gemmkit::PackedRhsInfo info = gemmkit::packed_rhs_info(*h.packed);
  py::dict d;
  d["dtype"] = info.dtype;
  d["k"] = info.k;
  d["n"] = info.n;
  d["isa"] = info.isa;
  d["kernel"] = info.kernel;
  d["bytes"] = info.bytes;
  return d;
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
  py::class_<PackedHandle>(m, "PackedRhsHandle",
                           "A packed right-hand side (gemmkit.PackedRhs holds "
                           "one); made by prepack_rhs")
      .def("describe", &describe,
           "dict: dtype, k, n, isa, kernel, bytes");
  m.def("gemm_typed", &gemm_typed, py::arg("in_dtype"), py::arg("out_dtype"),
        py::arg("a"), py::arg("b"), py::arg("c"), py::arg("alpha"),
        py::arg("beta"), py::arg("out"),
        "out = alpha * a @ b + beta * c for a gemmkit_dtype pair; b may be "
        "a PackedRhsHandle");
  m.def("gemm_requant", &gemm_requant, py::arg("out_dtype"), py::arg("a"),
        py::arg("b"), py::arg("scale_kind"), py::arg("scale"),
        py::arg("zero_point"), py::arg("bias_kind"), py::arg("bias"),
        py::arg("out"), "requantized int8 product into out (int8 or uint8)");
  m.def("prepack_rhs", &prepack_rhs, py::arg("dtype"), py::arg("b"),
        "pack b for gemm_typed / gemm_requant");
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
