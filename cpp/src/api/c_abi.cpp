// L8 api: the extern "C" surface (gemmkit.h) over the C++ API, and the
// dispatch report shared by every front end.
//
// The generic entries (gemmkit_gemm, gemmkit_gemm_requant, the prepacked
// ones) map a gemmkit_dtype pair onto one instantiation of the C++
// templates; everything else (shapes, strides, overlap, scale and zero-point
// domains) is checked by the C++ API they call.  Checked here: the dtype
// pair, the scale/bias kinds, and that alpha/beta of an int8 product are
// integers in int32 range (the C ABI carries them as double).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "api/error.hpp"
#include "api/packed_handle.hpp"
#include "cache/cache_info.hpp"
#include "dispatch/isa.hpp"
#include "dispatch/select.hpp"
#include "gemmkit/gemmkit.h"
#include "gemmkit/gemmkit.hpp"
#include "gemmkit/version.h"
#include "tuning/tuning.hpp"


namespace gemmkit {

namespace {

template <class T>
int c_gemm(size_t m, size_t n, size_t k, T alpha, const T* a, ptrdiff_t rs_a,
           ptrdiff_t cs_a, const T* b, ptrdiff_t rs_b, ptrdiff_t cs_b, T beta,
           const T* c_in, ptrdiff_t rs_ci, ptrdiff_t cs_ci, T* c_out,
           ptrdiff_t rs_co, ptrdiff_t cs_co) {
  const size_t limit = static_cast<size_t>(PTRDIFF_MAX);
  if (m > limit || n > limit || k > limit) {
    return api::fail(GEMMKIT_ERROR_SHAPE, "gemmkit: dimension too large");
  }
  const MatrixRef<T> va{a, index_t(m), index_t(k), rs_a, cs_a};
  const MatrixRef<T> vb{b, index_t(k), index_t(n), rs_b, cs_b};
  const MatrixRef<T> vci{c_in, index_t(m), index_t(n), rs_ci, cs_ci};
  const MatrixMut<T> vco{c_out, index_t(m), index_t(n), rs_co, cs_co};
  return gemm<T>(alpha, va, vb, beta, c_in ? &vci : nullptr, vco, nullptr);
}


const char* dtype_name(int d) {
  switch (d) {
    case GEMMKIT_F32:
      return "float32";
    case GEMMKIT_F64:
      return "float64";
    case GEMMKIT_F16:
      return "float16";
    case GEMMKIT_BF16:
      return "bfloat16";
    case GEMMKIT_I8:
      return "int8";
    case GEMMKIT_I32:
      return "int32";
    case GEMMKIT_U8:
      return "uint8";
    default:
      return "unknown";
  }
}

constexpr int pair(int in, int out) { return in * 16 + out; }

constexpr const char* kPairs =
    "float32->float32, float64->float64, float16->float16, float16->float32, "
    "bfloat16->bfloat16, bfloat16->float32, int8->int32";

int bad_pair(int in, int out) {
  return api::fail(GEMMKIT_ERROR_DTYPE,
                   "gemmkit: unsupported dtype pair: %s (%d) inputs with a %s "
                   "(%d) output (supported pairs: %s)",
                   dtype_name(in), in, dtype_name(out), out, kPairs);
}

int check_dims(size_t m, size_t n, size_t k) {
  const size_t limit = static_cast<size_t>(PTRDIFF_MAX);
  if (m > limit || n > limit || k > limit) {
    return api::fail(GEMMKIT_ERROR_SHAPE, "gemmkit: dimension too large");
  }
  return GEMMKIT_OK;
}

// alpha/beta in the accumulator type.  int8 products take int32 values: a
// double that is not an integer in range is refused, never rounded.
template <class Acc>
int to_acc(double v, const char* name, Acc* out) {
  if constexpr (std::is_same_v<Acc, std::int32_t>) {
    if (!std::isfinite(v) || v != std::floor(v) || v < -2147483648.0 ||
        v > 2147483647.0) {
      return api::fail(GEMMKIT_ERROR_VALUE,
                       "gemmkit: %s (for int8 inputs) must be an integer in "
                       "the int32 range, got %.17g",
                       name, v);
    }
    *out = static_cast<std::int32_t>(v);
  } else {
    *out = static_cast<Acc>(v);
  }
  return GEMMKIT_OK;
}

// One (L, O) instantiation of gemm (b != nullptr) or gemm_packed.
template <class L, class O>
int typed_gemm(size_t m, size_t n, size_t k, double alpha, const void* a,
               ptrdiff_t rs_a, ptrdiff_t cs_a, const void* b, ptrdiff_t rs_b,
               ptrdiff_t cs_b, const PackedRhs* packed, double beta,
               const void* c_in, ptrdiff_t rs_ci, ptrdiff_t cs_ci,
               void* c_out, ptrdiff_t rs_co, ptrdiff_t cs_co) {
  using Acc = acc_t<L>;
  Acc al, be;
  int st;
  if ((st = to_acc<Acc>(alpha, "alpha", &al)) ||
      (st = to_acc<Acc>(beta, "beta", &be)))
    return st;
  const MatrixRef<L> va{static_cast<const L*>(a), index_t(m), index_t(k),
                        rs_a, cs_a};
  const MatrixRef<O> vci{static_cast<const O*>(c_in), index_t(m), index_t(n),
                         rs_ci, cs_ci};
  const MatrixMut<O> vco{static_cast<O*>(c_out), index_t(m), index_t(n), rs_co,
                         cs_co};
  const MatrixRef<O>* pci = c_in ? &vci : nullptr;
  if (packed) return gemm_packed<L, O>(al, va, *packed, be, pci, vco);
  const MatrixRef<L> vb{static_cast<const L*>(b), index_t(k), index_t(n),
                        rs_b, cs_b};
  return gemm<L, O>(al, va, vb, be, pci, vco);
}

int any_gemm(int in, int out, size_t m, size_t n, size_t k, double alpha,
             const void* a, ptrdiff_t rs_a, ptrdiff_t cs_a, const void* b,
             ptrdiff_t rs_b, ptrdiff_t cs_b, const PackedRhs* packed,
             double beta, const void* c_in, ptrdiff_t rs_ci, ptrdiff_t cs_ci,
             void* c_out, ptrdiff_t rs_co, ptrdiff_t cs_co) {
  if (int st = check_dims(m, n, k)) return st;
#define GEMMKIT_TYPED(L, O)                                                 \
  typed_gemm<L, O>(m, n, k, alpha, a, rs_a, cs_a, b, rs_b, cs_b, packed,   \
                   beta, c_in, rs_ci, cs_ci, c_out, rs_co, cs_co)
  switch (pair(in, out)) {
    case pair(GEMMKIT_F32, GEMMKIT_F32):
      return GEMMKIT_TYPED(float, float);
    case pair(GEMMKIT_F64, GEMMKIT_F64):
      return GEMMKIT_TYPED(double, double);
    case pair(GEMMKIT_F16, GEMMKIT_F16):
      return GEMMKIT_TYPED(float16, float16);
    case pair(GEMMKIT_F16, GEMMKIT_F32):
      return GEMMKIT_TYPED(float16, float);
    case pair(GEMMKIT_BF16, GEMMKIT_BF16):
      return GEMMKIT_TYPED(bfloat16, bfloat16);
    case pair(GEMMKIT_BF16, GEMMKIT_F32):
      return GEMMKIT_TYPED(bfloat16, float);
    case pair(GEMMKIT_I8, GEMMKIT_I32):
      return GEMMKIT_TYPED(std::int8_t, std::int32_t);
    default:
      return bad_pair(in, out);
  }
#undef GEMMKIT_TYPED
}

// The C ABI's scale/bias description as a Requantize (lengths from kinds).
int requantize_of(size_t m, size_t n, int scale_kind, const float* scale,
                  ptrdiff_t scale_stride, int zero_point, int bias_kind,
                  const int* bias, ptrdiff_t bias_stride, Requantize* rq) {
  if (scale_kind < 0 || scale_kind > 2)
    return api::fail(GEMMKIT_ERROR_VALUE,
                     "gemmkit: scale_kind must be 0 (per tensor), 1 (per row) "
                     "or 2 (per column), got %d",
                     scale_kind);
  if (bias_kind < 0 || bias_kind > 2)
    return api::fail(GEMMKIT_ERROR_VALUE,
                     "gemmkit: bias_kind must be 0 (none), 1 (per row) or 2 "
                     "(per column), got %d",
                     bias_kind);
  if (!scale)
    return api::fail(GEMMKIT_ERROR_VALUE, "gemmkit: scale is NULL");
  if (bias_kind != 0 && !bias)
    return api::fail(GEMMKIT_ERROR_VALUE,
                     "gemmkit: bias is NULL but bias_kind is %d", bias_kind);
  static_assert(sizeof(int) == sizeof(std::int32_t), "int must be 32 bits");
  const index_t lens[3] = {1, index_t(m), index_t(n)};
  rq->scale_kind = static_cast<Scale>(scale_kind);
  rq->scale = scale;
  rq->scale_len = lens[scale_kind];
  rq->scale_stride = scale_stride;
  rq->zero_point = zero_point;
  rq->bias_kind = static_cast<Bias>(bias_kind);
  rq->bias = reinterpret_cast<const std::int32_t*>(bias);
  rq->bias_len = bias_kind ? lens[bias_kind] : 0;
  rq->bias_stride = bias_stride;
  return GEMMKIT_OK;
}

int any_requant(int out, size_t m, size_t n, size_t k, const signed char* a,
                ptrdiff_t rs_a, ptrdiff_t cs_a, const signed char* b,
                ptrdiff_t rs_b, ptrdiff_t cs_b, const PackedRhs* packed,
                int scale_kind, const float* scale, ptrdiff_t scale_stride,
                int zero_point, int bias_kind, const int* bias,
                ptrdiff_t bias_stride, void* c_out, ptrdiff_t rs_co,
                ptrdiff_t cs_co) {
  if (int st = check_dims(m, n, k)) return st;
  if (out != GEMMKIT_I8 && out != GEMMKIT_U8)
    return api::fail(GEMMKIT_ERROR_DTYPE,
                     "gemmkit: gemm_requant writes int8 or uint8, not %s (%d)",
                     dtype_name(out), out);
  Requantize rq{};
  if (int st = requantize_of(m, n, scale_kind, scale, scale_stride, zero_point,
                             bias_kind, bias, bias_stride, &rq))
    return st;
  const MatrixRef<std::int8_t> va{reinterpret_cast<const std::int8_t*>(a),
                                  index_t(m), index_t(k), rs_a, cs_a};
  const MatrixRef<std::int8_t> vb{reinterpret_cast<const std::int8_t*>(b),
                                  index_t(k), index_t(n), rs_b, cs_b};
  if (out == GEMMKIT_I8) {
    const MatrixMut<std::int8_t> vo{static_cast<std::int8_t*>(c_out),
                                    index_t(m), index_t(n), rs_co, cs_co};
    return packed ? gemm_requant_packed<std::int8_t>(va, *packed, rq, vo)
                  : gemm_requant<std::int8_t>(va, vb, rq, vo);
  }
  const MatrixMut<std::uint8_t> vo{static_cast<std::uint8_t*>(c_out),
                                   index_t(m), index_t(n), rs_co, cs_co};
  return packed ? gemm_requant_packed<std::uint8_t>(va, *packed, rq, vo)
                : gemm_requant<std::uint8_t>(va, vb, rq, vo);
}

int null_packed() {
  return api::fail(GEMMKIT_ERROR_VALUE, "gemmkit: the packed operand is NULL");
}

template <class L>
int prepack(size_t k, size_t n, const void* b, ptrdiff_t rs_b, ptrdiff_t cs_b,
            PackedRhs** out) {
  const MatrixRef<L> vb{static_cast<const L*>(b), index_t(k), index_t(n), rs_b,
                        cs_b};
  return prepack_rhs<L>(vb, out);
}

template <class T>
void append_family(char* buf, size_t size, const char* dtype,
                   const dispatch::Selection<T>& s) {
  const size_t len = std::strlen(buf);
  if (s.status != GEMMKIT_OK) {
    // This type alone cannot run (e.g. a float16 pin to fma without F16C):
    // its GEMMs raise the selection's error; the report says null.
    std::snprintf(buf + len, size - len, ",\"%s\":null", dtype);
    return;
  }
  std::snprintf(buf + len, size - len,
                ",\"%s\":{\"isa\":\"%s\",\"kernel\":\"%s\",\"mr\":%d,"
                "\"nr\":%d,\"depth_multiple\":%d}",
                dtype, s.desc.isa, s.kernel, s.desc.mr, s.desc.nr,
                s.desc.depth_multiple);
}

// Built on every call (cheap) so set_num_threads() shows up.
thread_local char g_info[4096];

}  // namespace

const char* dispatch_info_json() {
  const auto& f32 = dispatch::select_f32();
  const auto& f64 = dispatch::select_f64();
  if (f32.status != GEMMKIT_OK) {
    api::fail(f32.status, "%s", f32.error);
    return nullptr;
  }
  char features[512];
  dispatch::format_cpu_features(features, sizeof features);
  char compiled[256] = "", usable[256] = "";
  char why[200];
  // Best first: the registry's rows read backwards (isa_registry.def).
  for (int i = int(dispatch::Isa::count) - 1; i >= 0; --i) {
    const dispatch::Isa isa = dispatch::kIsaRows[i].isa;
    if (dispatch::isa_compiled(isa)) {
      const size_t len = std::strlen(compiled);
      std::snprintf(compiled + len, sizeof compiled - len, "%s\"%s\"",
                    len ? "," : "", dispatch::isa_name(isa));
    }
    if (dispatch::isa_usable(isa, why, sizeof why)) {
      const size_t len = std::strlen(usable);
      std::snprintf(usable + len, sizeof usable - len, "%s\"%s\"",
                    len ? "," : "", dispatch::isa_name(isa));
    }
  }
  // Feature list as a JSON array.
  char feature_json[640] = "";
  {
    size_t out = 0;
    const char* p = features;
    while (*p && out + 40 < sizeof feature_json) {
      const char* end = std::strchr(p, ',');
      const size_t n = end ? size_t(end - p) : std::strlen(p);
      out += std::snprintf(feature_json + out, sizeof feature_json - out,
                           "%s\"%.*s\"", out ? "," : "", int(n), p);
      p += n;
      if (*p == ',') ++p;
    }
  }
  const dispatch::Pin& pin = dispatch::pin();
  const cache::CacheInfo& cache = cache::info();
  std::snprintf(
      g_info, sizeof g_info,
      "{\"version\":\"%s\",\"threads\":%d,\"pin\":%s%s%s,"
      "\"cpu_features\":[%s],\"compiled_isas\":[%s],\"available_isas\":[%s],"
      "\"cache\":{\"l1d\":%zu,\"l2\":%zu,\"l3\":%zu,\"source\":\"%s\"}",
      GEMMKIT_VERSION_STRING, tuning::max_threads(), pin.is_auto ? "" : "\"",
      pin.is_auto ? "null" : pin.value, pin.is_auto ? "" : "\"", feature_json,
      compiled, usable, cache.l1d, cache.l2, cache.l3, cache.source);
  append_family(g_info, sizeof g_info, "float32", f32);
  append_family(g_info, sizeof g_info, "float64", f64);
  append_family(g_info, sizeof g_info, "float16", dispatch::select<float16>());
  append_family(g_info, sizeof g_info, "bfloat16",
                dispatch::select<bfloat16>());
  append_family(g_info, sizeof g_info, "int8", dispatch::select<std::int8_t>());
  const size_t len = std::strlen(g_info);
  std::snprintf(g_info + len, sizeof g_info - len, "}");
  return g_info;
}

namespace {

// Every registry row, whatever this build holds, so a front end can name
// any pin: [{"name","arch","aliases":[...],"features":[...]}, ...].
const char* isa_table_json() {
  struct Table {
    char json[4096];
  };
  static const Table table = [] {
    Table t{};
    const size_t size = sizeof t.json;
    auto words = [&](const char* key, const char* list) {
      size_t len = std::strlen(t.json);
      std::snprintf(t.json + len, size - len, ",\"%s\":[", key);
      bool first = true;
      dispatch::for_each_word(list, [&](const char* b, const char* e) {
        len = std::strlen(t.json);
        std::snprintf(t.json + len, size - len, "%s\"%.*s\"", first ? "" : ",",
                      int(e - b), b);
        first = false;
      });
      len = std::strlen(t.json);
      std::snprintf(t.json + len, size - len, "]");
    };
    for (const dispatch::IsaRow& row : dispatch::kIsaRows) {
      size_t len = std::strlen(t.json);
      std::snprintf(t.json + len, size - len, "%s{\"name\":\"%s\",\"arch\":\"%s\"",
                    len ? "," : "[", row.name, row.arch);
      words("aliases", row.aliases);
      words("features", row.features);
      len = std::strlen(t.json);
      std::snprintf(t.json + len, size - len, "}");
    }
    const size_t len = std::strlen(t.json);
    std::snprintf(t.json + len, size - len, "]");
    return t;
  }();
  return table.json;
}

}  // namespace

}  // namespace gemmkit

extern "C" {

GEMMKIT_API int gemmkit_abi_version(void) { return GEMMKIT_ABI_VERSION; }

GEMMKIT_API const char* gemmkit_version(void) { return GEMMKIT_VERSION_STRING; }

GEMMKIT_API const char* gemmkit_last_error(void) { return gemmkit::last_error(); }

GEMMKIT_API int gemmkit_sgemm(size_t m, size_t n, size_t k, float alpha,
                              const float* a, ptrdiff_t rs_a, ptrdiff_t cs_a,
                              const float* b, ptrdiff_t rs_b, ptrdiff_t cs_b,
                              float beta, const float* c_in, ptrdiff_t rs_ci,
                              ptrdiff_t cs_ci, float* c_out, ptrdiff_t rs_co,
                              ptrdiff_t cs_co) {
  return gemmkit::c_gemm<float>(m, n, k, alpha, a, rs_a, cs_a, b, rs_b, cs_b,
                                beta, c_in, rs_ci, cs_ci, c_out, rs_co, cs_co);
}

GEMMKIT_API int gemmkit_dgemm(size_t m, size_t n, size_t k, double alpha,
                              const double* a, ptrdiff_t rs_a, ptrdiff_t cs_a,
                              const double* b, ptrdiff_t rs_b, ptrdiff_t cs_b,
                              double beta, const double* c_in, ptrdiff_t rs_ci,
                              ptrdiff_t cs_ci, double* c_out, ptrdiff_t rs_co,
                              ptrdiff_t cs_co) {
  return gemmkit::c_gemm<double>(m, n, k, alpha, a, rs_a, cs_a, b, rs_b, cs_b,
                                 beta, c_in, rs_ci, cs_ci, c_out, rs_co, cs_co);
}

GEMMKIT_API int gemmkit_gemm(gemmkit_dtype in, gemmkit_dtype out, size_t m,
                             size_t n, size_t k, double alpha, const void* a,
                             ptrdiff_t rs_a, ptrdiff_t cs_a, const void* b,
                             ptrdiff_t rs_b, ptrdiff_t cs_b, double beta,
                             const void* c_in, ptrdiff_t rs_ci,
                             ptrdiff_t cs_ci, void* c_out, ptrdiff_t rs_co,
                             ptrdiff_t cs_co) {
  return gemmkit::any_gemm(in, out, m, n, k, alpha, a, rs_a, cs_a, b, rs_b,
                           cs_b, nullptr, beta, c_in, rs_ci, cs_ci, c_out,
                           rs_co, cs_co);
}

GEMMKIT_API int gemmkit_gemm_requant(
    gemmkit_dtype out, size_t m, size_t n, size_t k, const signed char* a,
    ptrdiff_t rs_a, ptrdiff_t cs_a, const signed char* b, ptrdiff_t rs_b,
    ptrdiff_t cs_b, int scale_kind, const float* scale, ptrdiff_t scale_stride,
    int zero_point, int bias_kind, const int* bias, ptrdiff_t bias_stride,
    void* c_out, ptrdiff_t rs_co, ptrdiff_t cs_co) {
  return gemmkit::any_requant(out, m, n, k, a, rs_a, cs_a, b, rs_b, cs_b,
                              nullptr, scale_kind, scale, scale_stride,
                              zero_point, bias_kind, bias, bias_stride, c_out,
                              rs_co, cs_co);
}

GEMMKIT_API int gemmkit_prepack_rhs(gemmkit_dtype in, size_t k, size_t n,
                                    const void* b, ptrdiff_t rs_b,
                                    ptrdiff_t cs_b, gemmkit_packed_rhs** out) {
  using namespace gemmkit;
  if (!out) return api::fail(GEMMKIT_ERROR_VALUE, "gemmkit: out is NULL");
  *out = nullptr;
  if (int st = check_dims(k, n, 0)) return st;
  PackedRhs* packed = nullptr;
  int st;
  switch (in) {
    case GEMMKIT_F32:
      st = prepack<float>(k, n, b, rs_b, cs_b, &packed);
      break;
    case GEMMKIT_F64:
      st = prepack<double>(k, n, b, rs_b, cs_b, &packed);
      break;
    case GEMMKIT_F16:
      st = prepack<float16>(k, n, b, rs_b, cs_b, &packed);
      break;
    case GEMMKIT_BF16:
      st = prepack<bfloat16>(k, n, b, rs_b, cs_b, &packed);
      break;
    case GEMMKIT_I8:
      st = prepack<std::int8_t>(k, n, b, rs_b, cs_b, &packed);
      break;
    default:
      return api::fail(GEMMKIT_ERROR_DTYPE,
                       "gemmkit: prepack_rhs: unsupported dtype %s (%d) "
                       "(supported: float32, float64, float16, bfloat16, int8)",
                       dtype_name(in), int(in));
  }
  if (st != GEMMKIT_OK) return st;
  // malloc, not new: the wasm side module may import only C functions from
  // Pyodide's main module (no C++ runtime; see wasm/build.py).
  auto* handle =
      static_cast<gemmkit_packed_rhs*>(std::calloc(1, sizeof(gemmkit_packed_rhs)));
  if (!handle) {
    free_packed_rhs(packed);
    return api::fail(GEMMKIT_ERROR_ALLOC,
                     "gemmkit: could not allocate the packed operand handle");
  }
  handle->packed = packed;
  handle->dtype = in;
  handle->k = k;
  handle->n = n;
  const PackedRhsInfo info = packed_rhs_info(*packed);
  std::snprintf(handle->json, sizeof handle->json,
                "{\"dtype\":\"%s\",\"k\":%td,\"n\":%td,\"isa\":\"%s\","
                "\"kernel\":\"%s\",\"bytes\":%zu}",
                info.dtype, info.k, info.n, info.isa, info.kernel, info.bytes);
  *out = handle;
  return GEMMKIT_OK;
}

GEMMKIT_API void gemmkit_packed_rhs_free(gemmkit_packed_rhs* packed) {
  if (!packed) return;
  gemmkit::free_packed_rhs(packed->packed);
  std::free(packed);
}

GEMMKIT_API const char* gemmkit_packed_rhs_describe(
    const gemmkit_packed_rhs* packed) {
  return packed ? packed->json : "{}";
}

GEMMKIT_API int gemmkit_gemm_packed(gemmkit_dtype out, size_t m, double alpha,
                                    const void* a, ptrdiff_t rs_a,
                                    ptrdiff_t cs_a,
                                    const gemmkit_packed_rhs* b, double beta,
                                    const void* c_in, ptrdiff_t rs_ci,
                                    ptrdiff_t cs_ci, void* c_out,
                                    ptrdiff_t rs_co, ptrdiff_t cs_co) {
  if (!b) return gemmkit::null_packed();
  return gemmkit::any_gemm(b->dtype, out, m, b->n, b->k, alpha, a, rs_a, cs_a,
                           nullptr, 0, 0, b->packed, beta, c_in, rs_ci, cs_ci,
                           c_out, rs_co, cs_co);
}

GEMMKIT_API int gemmkit_gemm_requant_packed(
    gemmkit_dtype out, size_t m, const signed char* a, ptrdiff_t rs_a,
    ptrdiff_t cs_a, const gemmkit_packed_rhs* b, int scale_kind,
    const float* scale, ptrdiff_t scale_stride, int zero_point, int bias_kind,
    const int* bias, ptrdiff_t bias_stride, void* c_out, ptrdiff_t rs_co,
    ptrdiff_t cs_co) {
  if (!b) return gemmkit::null_packed();
  if (b->dtype != GEMMKIT_I8)
    return gemmkit::api::fail(
        GEMMKIT_ERROR_DTYPE,
        "gemmkit: gemm_requant needs an int8 packed operand, but it holds %s",
        gemmkit::dtype_name(b->dtype));
  return gemmkit::any_requant(out, m, b->n, b->k, a, rs_a, cs_a, nullptr, 0, 0,
                              b->packed, scale_kind, scale, scale_stride,
                              zero_point, bias_kind, bias, bias_stride, c_out,
                              rs_co, cs_co);
}

GEMMKIT_API const char* gemmkit_dispatch_info_json(void) {
  return gemmkit::dispatch_info_json();
}

GEMMKIT_API const char* gemmkit_isa_table_json(void) { return gemmkit::isa_table_json(); }

GEMMKIT_API int gemmkit_set_num_threads(size_t n) {
  gemmkit::set_num_threads(n);
  return GEMMKIT_OK;
}

GEMMKIT_API size_t gemmkit_get_num_threads(void) {
  return gemmkit::get_num_threads();
}

}  // extern "C"
