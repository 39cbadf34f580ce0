// L8 api: the extern "C" surface (gemmkit.h) that is not a product: the
// version, the last error, the dispatch report shared by every front end,
// the ISA table and the thread count.  The products are operands.cpp's.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "api/error.hpp"
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
  const tuning::ThreadCount threads = tuning::thread_count();
  std::snprintf(
      g_info, sizeof g_info,
      "{\"version\":\"%s\",\"threads\":%d,\"threads_source\":\"%s\",\"pin\":%s%s%s,"
      "\"cpu_features\":[%s],\"compiled_isas\":[%s],\"available_isas\":[%s],"
      "\"cache\":{\"l1d\":%zu,\"l2\":%zu,\"l3\":%zu,\"source\":\"%s\"}",
      GEMMKIT_VERSION_STRING, threads.threads, tuning::thread_source_name(threads.source),
      pin.is_auto ? "" : "\"",
      pin.is_auto ? "null" : pin.value, pin.is_auto ? "" : "\"", feature_json,
      compiled, usable, cache.l1d, cache.l2, cache.l3, cache.source);
  append_family(g_info, sizeof g_info, "float32", f32);
  append_family(g_info, sizeof g_info, "float64", f64);
  append_family(g_info, sizeof g_info, "float16", dispatch::select<float16>());
  append_family(g_info, sizeof g_info, "bfloat16",
                dispatch::select<bfloat16>());
  append_family(g_info, sizeof g_info, "int8", dispatch::select<std::int8_t>());
  // The wrapping integer kernels by width (the signed and unsigned types of
  // a width share one; "uint8" is the 8-bit ring, "int8" above int8 -> int32).
  append_family(g_info, sizeof g_info, "uint8", dispatch::select<std::uint8_t>());
  append_family(g_info, sizeof g_info, "int16", dispatch::select<std::uint16_t>());
  append_family(g_info, sizeof g_info, "int32", dispatch::select<std::int32_t>());
  append_family(g_info, sizeof g_info, "int64", dispatch::select<std::int64_t>());
  append_family(g_info, sizeof g_info, "bool", dispatch::select<bool8>());
  append_family(g_info, sizeof g_info, "complex64", dispatch::select<complex64>());
  append_family(g_info, sizeof g_info, "complex128", dispatch::select<complex128>());
  const size_t len = std::strlen(g_info);
  std::snprintf(g_info + len, sizeof g_info - len, "}");
  return g_info;
}

namespace {

// Every registry row, whatever this build holds, so a front end can name
// any pin: [{"name","arch","aliases":[...],"features":[...],"compiled",
// "usable"}, ...].
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
      // What this build holds and this machine (and OS) can run, whatever
      // the pin: available_isas() is the usable rows, best first.
      char why[200];
      len = std::strlen(t.json);
      std::snprintf(t.json + len, size - len, ",\"compiled\":%s,\"usable\":%s}",
                    dispatch::isa_compiled(row.isa) ? "true" : "false",
                    dispatch::isa_usable(row.isa, why, sizeof why) ? "true" : "false");
    }
    const size_t len = std::strlen(t.json);
    std::snprintf(t.json + len, size - len, "]");
    return t;
  }();
  return table.json;
}

// `text` as the inside of a JSON string, appended at buf[*len].
void append_json_text(char* buf, size_t size, size_t* len, const char* text) {
  for (const char* p = text; *p && *len + 8 < size; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    int n;
    if (c == '"' || c == '\\') n = std::snprintf(buf + *len, size - *len, "\\%c", c);
    else if (c < 0x20) n = std::snprintf(buf + *len, size - *len, "\\u%04x", c);
    else n = std::snprintf(buf + *len, size - *len, "%c", c);
    *len += size_t(n);
  }
}

// Every knob of the registry with its value and that value's origin.
thread_local char g_knobs[8192];

const char* knobs_json() {
  size_t len = 0;
  const size_t size = sizeof g_knobs;
  g_knobs[0] = '\0';
  for (int i = 0; i < int(tuning::Knob::kCount); ++i) {
    const auto knob = static_cast<tuning::Knob>(i);
    const tuning::KnobInfo& k = tuning::knob_info(knob);
    tuning::Origin origin;
    const size_t value = tuning::get(knob, &origin);
    len += size_t(std::snprintf(g_knobs + len, size - len,
                                "%s{\"name\":\"%s\",\"default\":%zu,\"max\":%zu,\"doc\":\"",
                                i ? "," : "[", k.env_name, k.default_value, k.max_value));
    append_json_text(g_knobs, size, &len, k.doc);
    len += size_t(std::snprintf(g_knobs + len, size - len,
                                "\",\"value\":%zu,\"origin\":\"%s\"}", value,
                                tuning::origin_name(origin)));
  }
  std::snprintf(g_knobs + len, size - len, "]");
  return g_knobs;
}

thread_local char g_profile[4096];

const char* profile_json() {
  const tuning::Profile& p = tuning::profile();
  const size_t size = sizeof g_profile;
  size_t len = size_t(std::snprintf(g_profile, size, "{\"status\":\"%s\",\"path\":\"",
                                    tuning::profile_status_name(p.status)));
  append_json_text(g_profile, size, &len, p.path);
  len += size_t(std::snprintf(g_profile + len, size - len, "\",\"cpu\":\""));
  append_json_text(g_profile, size, &len, p.cpu);
  len += size_t(std::snprintf(g_profile + len, size - len, "\",\"this_cpu\":\""));
  append_json_text(g_profile, size, &len, tuning::cpu_fingerprint());
  len += size_t(std::snprintf(g_profile + len, size - len, "\",\"values\":{"));
  bool first = true;
  for (int i = 0; i < int(tuning::Knob::kCount); ++i) {
    if (p.values[i] == tuning::kUnsetValue) continue;
    len += size_t(std::snprintf(g_profile + len, size - len, "%s\"%s\":%zu", first ? "" : ",",
                                tuning::knob_info(static_cast<tuning::Knob>(i)).env_name,
                                p.values[i]));
    first = false;
  }
  std::snprintf(g_profile + len, size - len, "}}");
  return g_profile;
}

// The knob called `name`, or the failure to return (GEMMKIT_ERROR_VALUE).
bool knob_named(const char* name, tuning::Knob* knob) {
  if (name && tuning::find_knob(name, knob)) return true;
  api::fail(GEMMKIT_ERROR_VALUE, "gemmkit: unknown knob %s%s%s", name ? "'" : "",
            name ? name : "(null)", name ? "'" : "");
  return false;
}

}  // namespace

}  // namespace gemmkit

extern "C" {

GEMMKIT_API int gemmkit_abi_version(void) { return GEMMKIT_ABI_VERSION; }

GEMMKIT_API const char* gemmkit_version(void) { return GEMMKIT_VERSION_STRING; }

GEMMKIT_API const char* gemmkit_last_error(void) { return gemmkit::last_error(); }

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

GEMMKIT_API const char* gemmkit_knobs_json(void) { return gemmkit::knobs_json(); }

GEMMKIT_API int gemmkit_knob_set(const char* name, size_t value) {
  gemmkit::tuning::Knob knob;
  if (!gemmkit::knob_named(name, &knob)) return GEMMKIT_ERROR_VALUE;
  gemmkit::tuning::set(knob, value);
  return GEMMKIT_OK;
}

GEMMKIT_API int gemmkit_knob_reset(const char* name) {
  gemmkit::tuning::Knob knob;
  if (!gemmkit::knob_named(name, &knob)) return GEMMKIT_ERROR_VALUE;
  gemmkit::tuning::reset(knob);
  return GEMMKIT_OK;
}

GEMMKIT_API const char* gemmkit_profile_json(void) { return gemmkit::profile_json(); }

}  // extern "C"
