// L8 api: the element-type table and the code tables of the C ABI.
#include "api/dtypes.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "api/error.hpp"

namespace gemmkit::api {

namespace {

struct DtypeRow {
  int code;
  const char* name;
  std::size_t size;
};

constexpr DtypeRow kDtypes[] = {
#define GEMMKIT_DTYPE_ROW(code, name, size) {code, name, size},
    GEMMKIT_FOR_EACH_DTYPE(GEMMKIT_DTYPE_ROW)
#undef GEMMKIT_DTYPE_ROW
};

const DtypeRow* row_of(int code) {
  for (const DtypeRow& r : kDtypes)
    if (r.code == code) return &r;
  return nullptr;
}

struct Pair {
  int in, out;
};

constexpr Pair kPairs[] = {
#define GEMMKIT_PAIR_ROW(in, out) {in, out},
    GEMMKIT_FOR_EACH_PAIR(GEMMKIT_PAIR_ROW)
#undef GEMMKIT_PAIR_ROW
};

// Appends to a fixed buffer; the tables are small and fixed, so a cut
// would be a bug that the tests see as broken JSON.
struct Text {
  char buf[2048];
  std::size_t len = 0;
  void add(const char* fmt, const char* s = "", int v = 0) {
    if (len < sizeof buf) len += std::snprintf(buf + len, sizeof buf - len, fmt, s, v);
  }
};

Text build_inputs() {
  Text t;
  int last = -2;
  for (const Pair& p : kPairs) {
    if (p.in == last) continue;
    t.add(t.len ? ", %s" : "%s", dtype_name(p.in));
    last = p.in;
  }
  return t;
}

Text build_pairs() {
  Text t;
  for (const Pair& p : kPairs) {
    t.add(t.len ? ", %s" : "%s", dtype_name(p.in));
    t.add("->%s", dtype_name(p.out));
  }
  return t;
}

}  // namespace

const char* dtype_name(int code) {
  const DtypeRow* r = row_of(code);
  return r ? r->name : "an unknown type";
}

std::size_t dtype_size(int code) {
  const DtypeRow* r = row_of(code);
  return r ? r->size : 0;
}

int dtype_code(const char* name) {
  for (const DtypeRow& r : kDtypes)
    if (std::strcmp(r.name, name) == 0) return r.code;
  return GEMMKIT_DTYPE_UNKNOWN;
}

const char* supported_inputs_text() {
  static const Text t = build_inputs();
  return t.buf;
}

const char* supported_pairs_text() {
  static const Text t = build_pairs();
  return t.buf;
}

int unsupported_input(const char* operand, int code) {
  return fail(GEMMKIT_ERROR_DTYPE,
              "gemmkit: unsupported dtype %s for %s (supported: %s; native "
              "byte order)",
              dtype_name(code), operand, supported_inputs_text());
}

int unsupported_pair(int in, int out) {
  return fail(GEMMKIT_ERROR_DTYPE,
              "gemmkit: unsupported dtype pair: %s inputs with a %s output "
              "(supported pairs: %s)",
              dtype_name(in), dtype_name(out), supported_pairs_text());
}

int to_int32_scalar(double v, const char* name, int* out) {
  if (!std::isfinite(v) || v != std::floor(v) || v < -2147483648.0 ||
      v > 2147483647.0)
    return fail(GEMMKIT_ERROR_VALUE,
                "gemmkit: %s (for int8 inputs) must be an integer in the int32 "
                "range, got %.17g",
                name, v);
  *out = static_cast<int>(v);
  return GEMMKIT_OK;
}

const char* codes_json() {
  static const Text t = [] {
    Text j;
    j.add("{\"abi_version\":%s%d", "", GEMMKIT_ABI_VERSION);
    j.add(",\"status\":{\"ok\":%s%d", "", GEMMKIT_OK);
    j.add(",\"shape\":%s%d", "", GEMMKIT_ERROR_SHAPE);
    j.add(",\"dtype\":%s%d", "", GEMMKIT_ERROR_DTYPE);
    j.add(",\"stride\":%s%d", "", GEMMKIT_ERROR_STRIDE);
    j.add(",\"overlap\":%s%d", "", GEMMKIT_ERROR_OVERLAP);
    j.add(",\"value\":%s%d", "", GEMMKIT_ERROR_VALUE);
    j.add(",\"isa\":%s%d", "", GEMMKIT_ERROR_ISA);
    j.add(",\"alloc\":%s%d", "", GEMMKIT_ERROR_ALLOC);
    j.add(",\"internal\":%s%d}", "", GEMMKIT_ERROR_INTERNAL);
    const char* sep = "";
    j.add(",\"dtypes\":{");
    for (const DtypeRow& r : kDtypes) {
      j.add(sep);
      j.add("\"%s\":", r.name);
      j.add("%s%d", "", r.code);
      sep = ",";
    }
    j.add("},\"itemsize\":{");
    sep = "";
    for (const DtypeRow& r : kDtypes) {
      j.add(sep);
      j.add("\"%s\":", r.name);
      j.add("%s%d", "", int(r.size));
      sep = ",";
    }
    j.add("},\"pairs\":{");
    int last = -2;
    for (const Pair& p : kPairs) {
      if (p.in != last) {
        j.add(last == -2 ? "\"%s\":[" : "],\"%s\":[", dtype_name(p.in));
        j.add("\"%s\"", dtype_name(p.out));
        last = p.in;
      } else {
        j.add(",\"%s\"", dtype_name(p.out));
      }
    }
    j.add("]},\"accumulators\":{");
    sep = "";
#define GEMMKIT_ACC_ROW(in, acc)     \
    j.add(sep);                      \
    j.add("\"%s\":", dtype_name(in)); \
    j.add("\"%s\"", dtype_name(acc)); \
    sep = ",";
    GEMMKIT_FOR_EACH_ACCUMULATOR(GEMMKIT_ACC_ROW)
#undef GEMMKIT_ACC_ROW
    j.add("},\"requant_outputs\":[");
    sep = "";
#define GEMMKIT_REQUANT_NAME(code) \
    j.add(sep);                    \
    j.add("\"%s\"", dtype_name(code)); \
    sep = ",";
    GEMMKIT_FOR_EACH_REQUANT_OUTPUT(GEMMKIT_REQUANT_NAME)
#undef GEMMKIT_REQUANT_NAME
    j.add("],\"activations\":{\"none\":%s%d", "", GEMMKIT_ACT_NONE);
    j.add(",\"relu\":%s%d", "", GEMMKIT_ACT_RELU);
    j.add(",\"clip\":%s%d", "", GEMMKIT_ACT_CLIP);
    j.add(",\"leaky_relu\":%s%d}", "", GEMMKIT_ACT_LEAKY_RELU);
    j.add(",\"bias_kinds\":{\"none\":%s%d", "", GEMMKIT_BIAS_NONE);
    j.add(",\"per_row\":%s%d", "", GEMMKIT_BIAS_PER_ROW);
    j.add(",\"per_col\":%s%d}}", "", GEMMKIT_BIAS_PER_COL);
    return j;
  }();
  return t.buf;
}

}  // namespace gemmkit::api
