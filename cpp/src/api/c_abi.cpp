// L8 api: the extern "C" surface (gemmkit.h) over the C++ API, and the
// dispatch report shared by every front end.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "api/error.hpp"
#include "cache/cache_info.hpp"
#include "dispatch/isa.hpp"
#include "dispatch/select_float.hpp"
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

template <class T>
void append_family(char* buf, size_t size, const char* dtype,
                   const dispatch::Selection<T>& s) {
  const size_t len = std::strlen(buf);
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
  // Best first: the order of the selection ladders.
  const dispatch::Isa order[] = {
      dispatch::Isa::avx512bf16, dispatch::Isa::avx512vnni,
      dispatch::Isa::avx512f,    dispatch::Isa::fma,
      dispatch::Isa::neon,       dispatch::Isa::simd128,
      dispatch::Isa::scalar};
  for (dispatch::Isa isa : order) {
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
  const size_t len = std::strlen(g_info);
  std::snprintf(g_info + len, sizeof g_info - len, "}");
  return g_info;
}

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

GEMMKIT_API const char* gemmkit_dispatch_info_json(void) {
  return gemmkit::dispatch_info_json();
}

GEMMKIT_API int gemmkit_set_num_threads(size_t n) {
  gemmkit::set_num_threads(n);
  return GEMMKIT_OK;
}

GEMMKIT_API size_t gemmkit_get_num_threads(void) {
  return gemmkit::get_num_threads();
}

}  // extern "C"
