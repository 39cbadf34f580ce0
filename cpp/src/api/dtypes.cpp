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

// JSON over Text: objects and arrays of names and integers.
struct Json {
  Text text;
  bool first = true;
  void sep() {
    if (!first) text.add(",");
    first = false;
  }
  void key(const char* k) {
    sep();
    if (k) text.add("\"%s\":", k);
  }
  void open(const char* k, const char* bracket) {
    key(k);
    text.add(bracket);
    first = true;
  }
  void close(const char* bracket) {
    text.add(bracket);
    first = false;
  }
  void num(const char* k, int v) {
    key(k);
    text.add("%s%d", "", v);
  }
  void str(const char* k, const char* v) {
    key(k);
    text.add("\"%s\"", v);
  }
};

struct NamedCode {
  const char* name;
  int code;
};

constexpr NamedCode kStatuses[] = {
    {"ok", GEMMKIT_OK},           {"shape", GEMMKIT_ERROR_SHAPE},
    {"dtype", GEMMKIT_ERROR_DTYPE}, {"stride", GEMMKIT_ERROR_STRIDE},
    {"overlap", GEMMKIT_ERROR_OVERLAP}, {"value", GEMMKIT_ERROR_VALUE},
    {"isa", GEMMKIT_ERROR_ISA},   {"alloc", GEMMKIT_ERROR_ALLOC},
    {"internal", GEMMKIT_ERROR_INTERNAL}};
constexpr NamedCode kActivations[] = {{"none", GEMMKIT_ACT_NONE},
                                      {"relu", GEMMKIT_ACT_RELU},
                                      {"clip", GEMMKIT_ACT_CLIP},
                                      {"leaky_relu", GEMMKIT_ACT_LEAKY_RELU}};
constexpr NamedCode kBiasKinds[] = {{"none", GEMMKIT_BIAS_NONE},
                                    {"per_row", GEMMKIT_BIAS_PER_ROW},
                                    {"per_col", GEMMKIT_BIAS_PER_COL}};

template <std::size_t N>
void codes(Json& j, const char* k, const NamedCode (&table)[N]) {
  j.open(k, "{");
  for (const NamedCode& c : table) j.num(c.name, c.code);
  j.close("}");
}

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
  const bool requant = in == GEMMKIT_I8;  // its 8-bit outputs are the requantized ones
  return fail(GEMMKIT_ERROR_DTYPE,
              "gemmkit: unsupported dtype pair: %s inputs with a %s output "
              "(supported pairs: %s%s)",
              dtype_name(in), dtype_name(out), supported_pairs_text(),
              requant ? "; requantized int8 and uint8 results come from gemm_requant()" : "");
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

int to_ring_scalar(double v, const char* name, std::uint64_t* out) {
  if (!std::isfinite(v) || v != std::floor(v) || !(std::fabs(v) < 18446744073709551616.0))
    return fail(GEMMKIT_ERROR_VALUE,
                "gemmkit: %s (for integer inputs) must be an integer, got %.17g", name, v);
  const double mag = std::fabs(v);
  const std::uint64_t m = static_cast<std::uint64_t>(mag);
  *out = v < 0 ? ~m + 1 : m;
  return GEMMKIT_OK;
}

const char* codes_json() {
  static const Json json = [] {
    Json j;
    j.open(nullptr, "{");
    j.num("abi_version", GEMMKIT_ABI_VERSION);
    codes(j, "status", kStatuses);
    j.open("dtypes", "{");
    for (const DtypeRow& r : kDtypes) j.num(r.name, r.code);
    j.close("}");
    j.open("itemsize", "{");
    for (const DtypeRow& r : kDtypes) j.num(r.name, int(r.size));
    j.close("}");
    j.open("pairs", "{");
    for (std::size_t i = 0; i < sizeof kPairs / sizeof kPairs[0]; ++i) {
      if (i > 0 && kPairs[i].in == kPairs[i - 1].in) continue;
      j.open(dtype_name(kPairs[i].in), "[");
      for (const Pair& p : kPairs)
        if (p.in == kPairs[i].in) j.str(nullptr, dtype_name(p.out));
      j.close("]");
    }
    j.close("}");
    j.open("accumulators", "{");
#define GEMMKIT_ACC_ROW(in, acc) j.str(dtype_name(in), dtype_name(acc));
    GEMMKIT_FOR_EACH_ACCUMULATOR(GEMMKIT_ACC_ROW)
#undef GEMMKIT_ACC_ROW
    j.close("}");
    j.open("requant_outputs", "[");
#define GEMMKIT_REQUANT_NAME(code) j.str(nullptr, dtype_name(code));
    GEMMKIT_FOR_EACH_REQUANT_OUTPUT(GEMMKIT_REQUANT_NAME)
#undef GEMMKIT_REQUANT_NAME
    j.close("]");
    codes(j, "activations", kActivations);
    codes(j, "bias_kinds", kBiasKinds);
    j.close("}");
    return j;
  }();
  return json.text.buf;
}

}  // namespace gemmkit::api
