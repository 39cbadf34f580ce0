// Bindings: the pybind11 module gemmkit._native.  Conversion only: numpy
// arrays become gemmkit_operand descriptors, the C ABI's door
// (gemmkit_gemm_batched and friends) checks and computes, and a status
// becomes the exception class of gemmkit._errors.  Nothing is checked here
// that the core checks; what stays is what only this layer can see (an
// array of more than three dimensions, or strides that are not a whole
// number of elements, has no descriptor).
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <complex>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gemmkit/gemmkit.h"

namespace py = pybind11;

namespace {

[[noreturn]] void raise_status(int status, const char* message) {
  // Looked up per error (never cached in a static py::object, which would
  // outlive the interpreter).
  py::object err = py::module_::import("gemmkit._errors").attr("error_from_status")(status, message);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(err.ptr())), err.ptr());
  throw py::error_already_set();
}

void check(int status) {
  if (status != GEMMKIT_OK) raise_status(status, gemmkit_last_error());
}

// Below this many multiply-adds the GIL is kept: releasing it costs more
// than the product and no other thread could use the time.
constexpr double kReleaseGilWork = 32.0 * 32.0 * 32.0;

// numpy's dtype as a gemmkit_dtype: by kind and size (so int64 is int64
// whatever C type numpy calls it), bfloat16 by the name ml_dtypes gives it.
// Non-native byte order has no code: the core refuses it by name.
int dtype_code(const py::dtype& dt) {
  const char order = dt.byteorder();
  const uint16_t probe = 1;
  const bool little = *reinterpret_cast<const uint8_t*>(&probe) == 1;
  if (!(order == '=' || order == '|' || order == (little ? '<' : '>'))) return GEMMKIT_DTYPE_UNKNOWN;
  const py::ssize_t size = dt.itemsize();
  switch (dt.kind()) {
    case 'f':
      return size == 4 ? GEMMKIT_F32 : size == 8 ? GEMMKIT_F64 : size == 2 ? GEMMKIT_F16
                                                                           : GEMMKIT_DTYPE_UNKNOWN;
    case 'i':
      return size == 1 ? GEMMKIT_I8 : size == 2 ? GEMMKIT_I16 : size == 4 ? GEMMKIT_I32
             : size == 8 ? GEMMKIT_I64 : GEMMKIT_DTYPE_UNKNOWN;
    case 'u':
      return size == 1 ? GEMMKIT_U8 : size == 2 ? GEMMKIT_U16 : size == 4 ? GEMMKIT_U32
             : size == 8 ? GEMMKIT_U64 : GEMMKIT_DTYPE_UNKNOWN;
    case 'b':
      return GEMMKIT_BOOL;
    case 'c':
      return size == 8 ? GEMMKIT_C64 : size == 16 ? GEMMKIT_C128 : GEMMKIT_DTYPE_UNKNOWN;
    case 'V':
      if (size == 2 && py::str(dt.attr("name")).cast<std::string>() == "bfloat16") return GEMMKIT_BF16;
      return GEMMKIT_DTYPE_UNKNOWN;
    default:
      return GEMMKIT_DTYPE_UNKNOWN;
  }
}

py::array as_array(py::handle obj, const char* name) {
  if (!py::isinstance<py::array>(obj)) {
    raise_status(GEMMKIT_ERROR_DTYPE,
                 (std::string("gemmkit: ") + name + " must be a numpy array").c_str());
  }
  return py::reinterpret_borrow<py::array>(obj);
}

// A 2-D matrix, a 3-D batch, or (vector) a 1-D array as rows x 1.
gemmkit_operand operand_of(const py::array& arr, const char* name, bool vector = false) {
  gemmkit_operand op{};
  const int nd = int(arr.ndim());
  if (vector ? nd != 1 : (nd != 2 && nd != 3)) {
    raise_status(GEMMKIT_ERROR_SHAPE,
                 ("gemmkit: " + std::string(name) + (vector ? " must be 1-D" : " must be 2-D")
                  + (vector ? "" : " (or 3-D, a batch)") + ", got ndim=" + std::to_string(nd))
                     .c_str());
  }
  const py::ssize_t es = arr.itemsize();
  const py::ssize_t* st = arr.strides();
  const py::ssize_t* sh = arr.shape();
  for (int i = 0; i < nd; ++i) {
    if (es == 0 || st[i] % es) {
      raise_status(GEMMKIT_ERROR_STRIDE,
                   ("gemmkit: " + std::string(name) +
                    " has strides that are not a multiple of its element size").c_str());
    }
  }
  op.data = const_cast<void*>(arr.data());
  op.dtype = dtype_code(arr.dtype());
  op.flags = arr.writeable() ? 0 : GEMMKIT_OPERAND_READONLY;
  const int off = nd == 3 ? 1 : 0;
  op.batch = nd == 3 ? size_t(sh[0]) : 1;
  op.batch_stride = nd == 3 ? st[0] / es : 0;
  op.rows = size_t(sh[off]);
  op.rs = st[off] / es;
  op.cols = vector ? 1 : size_t(sh[off + 1]);
  op.cs = vector ? 1 : st[off + 1] / es;
  return op;
}

double work_of(const gemmkit_operand& out, size_t depth) {
  return double(out.batch) * double(out.rows) * double(out.cols) * double(depth);
}

// Runs fn with the GIL released when the product is large enough.
template <class Fn>
int call(double work, Fn&& fn) {
  if (work >= kReleaseGilWork) {
    py::gil_scoped_release release;
    return fn();
  }
  return fn();
}

// A packed right-hand side owned by Python (gemmkit.PackedRhs holds it).
// Immutable once made, so any thread may use it with the GIL released; the
// Python object is referenced by the call's arguments for its duration.
struct PackedHandle {
  gemmkit_packed_rhs* packed = nullptr;
  PackedHandle() = default;
  PackedHandle(const PackedHandle&) = delete;
  PackedHandle& operator=(const PackedHandle&) = delete;
  ~PackedHandle() { gemmkit_packed_rhs_free(packed); }
};

const gemmkit_packed_rhs* packed_of(py::handle b) {
  if (!py::isinstance<PackedHandle>(b)) return nullptr;
  return b.cast<const PackedHandle*>()->packed;
}

// (bias_kind, bias or None, activation, slope, lo, hi) as the C epilogue.
gemmkit_epilogue epilogue_of(const py::tuple& t, py::array* bias_keep) {
  gemmkit_epilogue e{};
  e.bias_kind = t[0].cast<int>();
  if (!t[1].is_none()) {
    *bias_keep = as_array(t[1], "bias");
    e.bias = operand_of(*bias_keep, "bias", true);
  }
  e.activation = t[2].cast<int>();
  e.slope = t[3].cast<double>();
  e.lo = t[4].cast<double>();
  e.hi = t[5].cast<double>();
  return e;
}

// out = act(alpha * a @ b + beta * c + bias), batched by 3-D operands.
py::object gemm(std::complex<double> alpha, py::handle a_obj, py::handle b_obj,
                std::complex<double> beta, py::handle c_obj, py::handle out_obj,
                py::handle epilogue, int flags) {
  const py::array a = as_array(a_obj, "a");
  const gemmkit_operand va = operand_of(a, "a");
  const gemmkit_packed_rhs* packed = packed_of(b_obj);
  py::array b, c;
  gemmkit_operand vb{}, vc{};
  if (!packed) {
    b = as_array(b_obj, "b");
    vb = operand_of(b, "b");
  }
  if (!c_obj.is_none()) {
    c = as_array(c_obj, "c");
    vc = operand_of(c, "c");
  }
  const py::array out = as_array(out_obj, "out");
  const gemmkit_operand vo = operand_of(out, "out");
  gemmkit_epilogue ve{};
  py::array bias;
  const bool fused = !epilogue.is_none();
  if (fused) ve = epilogue_of(py::reinterpret_borrow<py::tuple>(epilogue), &bias);
  const double al[2] = {alpha.real(), alpha.imag()}, be[2] = {beta.real(), beta.imag()};
  check(call(work_of(vo, va.cols), [&] {
    return gemmkit_gemm_batched_ex(al, &va, packed ? nullptr : &vb, packed, be,
                                   c_obj.is_none() ? nullptr : &vc, &vo,
                                   fused ? &ve : nullptr, flags);
  }));
  return py::reinterpret_borrow<py::object>(out_obj);
}

// a @ b for two 2-D arrays of one float type: the per-call fast path of
// matmul (the result is allocated here; the core checks the rest).
py::object matmul2d(py::handle a_obj, py::handle b_obj) {
  const py::array a = as_array(a_obj, "a");
  const py::array b = as_array(b_obj, "b");
  const gemmkit_operand va = operand_of(a, "a");
  const gemmkit_operand vb = operand_of(b, "b");
  py::array out(a.dtype(), std::vector<py::ssize_t>{py::ssize_t(va.rows), py::ssize_t(vb.cols)});
  const gemmkit_operand vo = operand_of(out, "out");
  check(call(work_of(vo, va.cols), [&] {
    return gemmkit_gemm_batched(1.0, &va, &vb, nullptr, 0.0, nullptr, &vo, nullptr);
  }));
  return out;
}

void gemm_requant(py::handle a_obj, py::handle b_obj, int scale_kind, py::handle scale,
                  int zero_point, int bias_kind, py::handle bias, py::handle out_obj) {
  const py::array a = as_array(a_obj, "a");
  const gemmkit_operand va = operand_of(a, "a");
  const gemmkit_packed_rhs* packed = packed_of(b_obj);
  py::array b;
  gemmkit_operand vb{};
  if (!packed) {
    b = as_array(b_obj, "b");
    vb = operand_of(b, "b");
  }
  const py::array out = as_array(out_obj, "out");
  const gemmkit_operand vo = operand_of(out, "out");
  gemmkit_requant rq{};
  rq.scale_kind = scale_kind;
  const py::array s = as_array(scale, "scale");
  rq.scale = operand_of(s, "scale", true);
  rq.zero_point = zero_point;
  rq.bias_kind = bias_kind;
  py::array bv;
  if (!bias.is_none()) {
    bv = as_array(bias, "bias");
    rq.bias = operand_of(bv, "bias", true);
  }
  check(call(work_of(vo, va.cols), [&] {
    return gemmkit_gemm_requant_batched(&va, packed ? nullptr : &vb, packed, &rq, &vo);
  }));
}

std::unique_ptr<PackedHandle> prepack_rhs(py::handle b_obj) {
  const py::array b = as_array(b_obj, "b");
  const gemmkit_operand vb = operand_of(b, "b");
  if (vb.batch != 1 || b.ndim() != 2) {
    raise_status(GEMMKIT_ERROR_SHAPE, ("gemmkit: b must be 2-D, got ndim=" +
                                       std::to_string(b.ndim())).c_str());
  }
  auto handle = std::make_unique<PackedHandle>();
  check(call(double(vb.rows) * double(vb.cols), [&] {
    return gemmkit_prepack_rhs(static_cast<gemmkit_dtype>(vb.dtype), vb.rows, vb.cols, vb.data,
                               vb.rs, vb.cs, &handle->packed);
  }));
  return handle;
}

// DLPack (dlpack.h 1.x): the structs a "dltensor" or "dltensor_versioned"
// capsule carries, as the specification lays them out (the header is not a
// build dependency for four structs).
struct DLDevice {
  int32_t device_type;  // DLDeviceType: kDLCPU = 1
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // DLDataTypeCode: kDLBfloat = 4
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: compact row-major
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr int32_t kDLCPU = 1;
constexpr uint8_t kDLBfloat = 4;
constexpr uint64_t kDLFlagReadOnly = 1;
constexpr uint64_t kDLFlagIsCopied = 2;

// A bfloat16 DLPack tensor as a numpy array of ml_dtypes.bfloat16 over the
// producer's memory (numpy.from_dlpack has no bfloat16, so gemmkit reads
// such capsules itself).  The array's base owns the managed tensor and
// calls its deleter when the array goes, which keeps the producer's memory
// alive for the array's lifetime.  Returns None when the tensor is not
// bfloat16 (numpy's refusal of it stands); raises BufferError when it is not
// in CPU memory or the capsule cannot be taken.  need_original: the array
// will be written (an out=), so a copy made by the producer is refused.
py::object array_from_dlpack(const py::capsule& capsule, bool need_original) {
  const std::string name = capsule.name() ? capsule.name() : "";
  const bool versioned = name == "dltensor_versioned";
  if (!versioned && name != "dltensor") {
    throw py::buffer_error("expected a DLPack capsule, got a capsule named '" + name +
                           "' (one already used?)");
  }
  void* managed = capsule.get_pointer();
  DLTensor* t = nullptr;
  uint64_t flags = 0;
  if (versioned) {
    auto* mt = static_cast<DLManagedTensorVersioned*>(managed);
    if (mt->version.major != 1) {
      throw py::buffer_error("DLPack version " + std::to_string(mt->version.major) +
                             " is not one gemmkit reads (1.x)");
    }
    t = &mt->dl_tensor;
    flags = mt->flags;
  } else {
    t = &static_cast<DLManagedTensor*>(managed)->dl_tensor;
  }
  if (t->device.device_type != kDLCPU) {
    throw py::buffer_error("the tensor is on DLPack device type " +
                           std::to_string(t->device.device_type) +
                           ", not in CPU memory (type 1); gemmkit computes on the CPU");
  }
  if (t->dtype.code != kDLBfloat || t->dtype.bits != 16 || t->dtype.lanes != 1) {
    return py::none();
  }
  if (need_original && (flags & kDLFlagIsCopied)) {
    throw py::buffer_error("the producer handed over a copy, so a result written there "
                           "would be lost");
  }
  if (t->ndim < 0 || t->ndim > 64) {
    throw py::buffer_error("a DLPack tensor of " + std::to_string(t->ndim) + " dimensions");
  }
  py::dtype bf16;
  try {
    bf16 = py::dtype::from_args(py::module_::import("ml_dtypes").attr("bfloat16"));
  } catch (py::error_already_set&) {
    throw py::buffer_error("a bfloat16 tensor needs the ml_dtypes package, which is not "
                           "installed");
  }
  constexpr py::ssize_t kItem = 2;
  std::vector<py::ssize_t> shape(size_t(t->ndim)), strides(size_t(t->ndim));
  py::ssize_t size = 1, step = kItem;
  for (int i = t->ndim - 1; i >= 0; --i) {
    shape[size_t(i)] = py::ssize_t(t->shape[i]);
    strides[size_t(i)] = t->strides ? py::ssize_t(t->strides[i]) * kItem : step;
    step *= shape[size_t(i)];
    size *= shape[size_t(i)];
  }
  char* data = static_cast<char*>(t->data);
  if (!data && size != 0) throw py::buffer_error("a DLPack tensor without data");
  // Taken: the producer's capsule no longer owns the tensor; this base does.
  if (PyCapsule_SetName(capsule.ptr(), versioned ? "used_dltensor_versioned" : "used_dltensor")) {
    throw py::error_already_set();
  }
  py::capsule owner = versioned ? py::capsule(managed, [](void* p) {
    auto* mt = static_cast<DLManagedTensorVersioned*>(p);
    if (mt->deleter) mt->deleter(mt);
  }) : py::capsule(managed, [](void* p) {
    auto* mt = static_cast<DLManagedTensor*>(p);
    if (mt->deleter) mt->deleter(mt);
  });
  if (size == 0) return py::array(bf16, shape);  // no memory to share
  py::array arr(bf16, shape, strides, data + t->byte_offset, owner);
  if (flags & kDLFlagReadOnly) arr.attr("setflags")(py::arg("write") = false);
  return arr;
}

std::string text_or_raise(const char* text) {
  if (!text) raise_status(GEMMKIT_ERROR_ISA, gemmkit_last_error());
  return std::string(text);
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "gemmkit native backend (C++ core with runtime ISA dispatch)";
  py::class_<PackedHandle>(m, "PackedRhsHandle",
                           "A packed right-hand side (gemmkit.PackedRhs holds one); made by "
                           "prepack_rhs")
      .def("describe_json",
           [](const PackedHandle& h) { return std::string(gemmkit_packed_rhs_describe(h.packed)); },
           "JSON: dtype, k, n, isa, kernel, bytes");
  m.def("gemm", &gemm, py::arg("alpha"), py::arg("a"), py::arg("b"), py::arg("beta"),
        py::arg("c"), py::arg("out"), py::arg("epilogue"), py::arg("flags") = 0,
        "out = act(alpha * a @ b + beta * c + bias) over 2-D or 3-D (batched) operands; b may "
        "be a PackedRhsHandle; epilogue is None or (bias_kind, bias, activation, slope, lo, hi); "
        "alpha and beta may be complex; flags: 1 conj(a), 2 conj(b)");
  m.def("matmul2d", &matmul2d, py::arg("a"), py::arg("b"), "a @ b into a new array of a's dtype");
  m.def("gemm_requant", &gemm_requant, py::arg("a"), py::arg("b"), py::arg("scale_kind"),
        py::arg("scale"), py::arg("zero_point"), py::arg("bias_kind"), py::arg("bias"),
        py::arg("out"), "requantized int8 product into out (int8 or uint8)");
  m.def("prepack_rhs", &prepack_rhs, py::arg("b"), "pack b for gemm / gemm_requant");
  m.def("array_from_dlpack", &array_from_dlpack, py::arg("capsule"), py::arg("need_original"),
        "a bfloat16 DLPack capsule as an ml_dtypes.bfloat16 array over the producer's memory "
        "(None for other dtypes)");
  m.def("codes_json", []() { return std::string(gemmkit_codes_json()); });
  m.def("dispatch_info_json", []() { return text_or_raise(gemmkit_dispatch_info_json()); });
  m.def("set_num_threads", [](std::size_t n) { check(gemmkit_set_num_threads(n)); });
  m.def("get_num_threads", []() { return gemmkit_get_num_threads(); });
  m.def("version", []() { return std::string(gemmkit_version()); });
  m.def("abi_version", []() { return gemmkit_abi_version(); });
  m.def("isa_table_json", []() { return std::string(gemmkit_isa_table_json()); });
  m.def("knobs_json", []() { return std::string(gemmkit_knobs_json()); });
  m.def("knob_set", [](const std::string& name, std::size_t value) {
    check(gemmkit_knob_set(name.c_str(), value));
  });
  m.def("knob_reset", [](const std::string& name) { check(gemmkit_knob_reset(name.c_str())); });
  m.def("profile_json", []() { return std::string(gemmkit_profile_json()); });
}
