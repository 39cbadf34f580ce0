// L3 cache: cache detection and the analytic block sizes.
//
// Detection order: CPUID (deterministic cache parameters, leaf 4 on Intel and
// 0x8000001D on AMD), then Linux sysfs, then defaults typical of a current
// x86 server core.
#include "cache/cache_info.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dispatch/cpuid.hpp"
#include "tuning/tuning.hpp"

namespace gemmkit::cache {

namespace {

constexpr std::size_t kDefaultL1d = 32 * 1024;
constexpr std::size_t kDefaultL2 = 1024 * 1024;
constexpr std::size_t kDefaultL3 = 32 * 1024 * 1024;

#if GEMMKIT_X86
bool from_cpuid(CacheInfo* out) {
  cpu::CpuidRegs r;
  if (!cpu::cpuid(0, 0, &r)) return false;
  const unsigned max_leaf = r.eax;
  const bool intel = r.ebx == 0x756e6547;  // "Genu"
  unsigned leaf = 0;
  if (intel && max_leaf >= 4) {
    leaf = 4;
  } else {
    if (!cpu::cpuid(0x80000000, 0, &r) || r.eax < 0x8000001D) return false;
    leaf = 0x8000001D;
  }
  CacheInfo info{0, 0, 0, "cpuid"};
  for (unsigned sub = 0; sub < 16; ++sub) {
    if (!cpu::cpuid(leaf, sub, &r)) break;
    const unsigned type = r.eax & 0x1f;  // 1 data, 2 instruction, 3 unified
    if (type == 0) break;
    if (type == 2) continue;
    const unsigned level = (r.eax >> 5) & 0x7;
    const std::size_t ways = ((r.ebx >> 22) & 0x3ff) + 1;
    const std::size_t parts = ((r.ebx >> 12) & 0x3ff) + 1;
    const std::size_t line = (r.ebx & 0xfff) + 1;
    const std::size_t sets = std::size_t(r.ecx) + 1;
    const std::size_t size = ways * parts * line * sets;
    if (level == 1) info.l1d = size;
    if (level == 2) info.l2 = size;
    if (level == 3) info.l3 = size;
  }
  if (info.l1d == 0 || info.l2 == 0) return false;
  *out = info;
  return true;
}
#endif

#if defined(__linux__)
std::size_t read_sysfs_size(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) return 0;
  char buf[64] = {0};
  const bool ok = std::fgets(buf, sizeof buf, f) != nullptr;
  std::fclose(f);
  if (!ok) return 0;
  char* end = nullptr;
  std::size_t v = std::strtoull(buf, &end, 10);
  if (end && (*end == 'K' || *end == 'k')) v *= 1024;
  if (end && (*end == 'M' || *end == 'm')) v *= 1024 * 1024;
  return v;
}

bool from_sysfs(CacheInfo* out) {
  CacheInfo info{0, 0, 0, "sysfs"};
  char path[128];
  for (int idx = 0; idx < 8; ++idx) {
    std::snprintf(path, sizeof path,
                  "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
    const std::size_t level = read_sysfs_size(path);
    if (level == 0) break;
    std::snprintf(path, sizeof path,
                  "/sys/devices/system/cpu/cpu0/cache/index%d/type", idx);
    FILE* f = std::fopen(path, "r");
    char type[32] = {0};
    if (f) {
      if (!std::fgets(type, sizeof type, f)) type[0] = 0;
      std::fclose(f);
    }
    if (std::strncmp(type, "Instruction", 11) == 0) continue;
    std::snprintf(path, sizeof path,
                  "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
    const std::size_t size = read_sysfs_size(path);
    if (level == 1) info.l1d = size;
    if (level == 2) info.l2 = size;
    if (level == 3) info.l3 = size;
  }
  if (info.l1d == 0 || info.l2 == 0) return false;
  *out = info;
  return true;
}
#endif

CacheInfo detect() {
  CacheInfo info{kDefaultL1d, kDefaultL2, kDefaultL3, "default"};
#if GEMMKIT_X86
  if (from_cpuid(&info)) return info;
#endif
#if defined(__linux__)
  if (from_sysfs(&info)) return info;
#endif
  return info;
}

std::ptrdiff_t round_down(std::ptrdiff_t v, std::ptrdiff_t to) {
  return v / to * to;
}
std::ptrdiff_t round_up(std::ptrdiff_t v, std::ptrdiff_t to) {
  return (v + to - 1) / to * to;
}
std::ptrdiff_t clamp(std::ptrdiff_t v, std::ptrdiff_t lo, std::ptrdiff_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace

const CacheInfo& info() {
  static const CacheInfo cached = detect();
  return cached;
}

Blocking blocking(int mr, int nr, int elem_size, std::ptrdiff_t m,
                  std::ptrdiff_t n, std::ptrdiff_t k) {
  const CacheInfo& c = info();
  const std::ptrdiff_t es = elem_size;
  // KC: one kc x nr micropanel of B stays in three quarters of L1 while
  // the A micropanels stream past it (BLIS's analytic model, simplified:
  // an A micropanel needs only the few lines its prefetch keeps ahead).  A
  // deeper slice also spreads each C tile's load and store over more FMAs,
  // which matters most for float64, whose tiles see half the FMAs per depth
  // step.  Measured on AMD Zen 4 (32 KiB L1d), 2026-12-02, against half of
  // L1: float64 kc 168 -> 256, +1-5% (2048: +5%); float32 336 -> 512, +1-3%.
  std::ptrdiff_t kc = static_cast<std::ptrdiff_t>(tuning::get(tuning::Knob::kKc));
  if (kc <= 0) {
    kc = round_down(static_cast<std::ptrdiff_t>(c.l1d) * 3 / 4 / (nr * es), 8);
    kc = clamp(kc, 128, 1024);
  }
  // Split k into equal slices rather than leaving a thin last one.
  if (k > 0) {
    const std::ptrdiff_t slices = (k + kc - 1) / kc;
    kc = round_up((k + slices - 1) / slices, 4);
  }
  // MC: the packed mc x kc block of A fills about half of L2.
  std::ptrdiff_t mc = static_cast<std::ptrdiff_t>(tuning::get(tuning::Knob::kMc));
  if (mc <= 0) {
    mc = static_cast<std::ptrdiff_t>(c.l2) / 2 / (kc * es);
    mc = clamp(round_down(mc, mr), mr, 16 * 1024);
  } else {
    mc = round_up(mc, mr);
  }
  // NC: the packed kc x nc block of B lives in (a share of) L3.
  std::ptrdiff_t nc = static_cast<std::ptrdiff_t>(tuning::get(tuning::Knob::kNc));
  if (nc <= 0) {
    // Virtual machines often report the whole socket's L3; a core's share
    // on a busy host is far smaller, so cap the block at 8 MiB.
    std::ptrdiff_t l3 = c.l3 ? static_cast<std::ptrdiff_t>(c.l3) : 4 * mc * kc * es;
    if (l3 > 16 * 1024 * 1024) l3 = 16 * 1024 * 1024;
    nc = l3 / 2 / (kc * es);
    nc = clamp(round_down(nc, nr), nr, 16 * 1024);
  } else {
    nc = round_up(nc, nr);
  }
  (void)m;
  (void)n;
  return Blocking{mc, kc, nc};
}

}  // namespace gemmkit::cache
