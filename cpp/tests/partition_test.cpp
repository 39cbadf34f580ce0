// The team partition of one NC block (parallel/partition.hpp), checked for
// teams of 1 to 64 over squares, skinny and short blocks, without running a
// product: every MR x NR tile belongs to exactly one job, every member's
// jobs are contiguous and their counts differ by at most one, a row block
// never exceeds mc_max (the packed A block's L2 share), no member idles while
// there are at least as many tiles as members, and on large blocks the
// busiest member has at most 1.3x the mean work.
#include <cstdio>
#include <vector>

#include "parallel/partition.hpp"

using gemmkit::index_t;
using namespace gemmkit::parallel;

namespace {

int failures = 0;

void fail(const char* what, index_t m, index_t panels, index_t mc_max, index_t mr, int size) {
  if (++failures <= 20) {
    std::printf("FAIL %s: m=%td panels=%td mc_max=%td mr=%td team=%d\n", what, m, panels,
                mc_max, mr, size);
  }
}

void check(index_t m, index_t panels, index_t mc_max, index_t mr, int size) {
  const Partition p = partition(m, panels, mc_max, mr, size);
  const index_t tiles = (m + mr - 1) / mr;
  if (p.jobs != p.blocks * p.chunks || p.chunks < 1 || p.chunks > panels)
    fail("job count", m, panels, mc_max, mr, size);
  // Every tile of the block covered once.
  std::vector<int> covered(std::size_t(tiles * panels), 0);
  std::vector<index_t> work(std::size_t(size), 0);
  index_t next = 0;
  index_t fewest = p.jobs, most = 0;
  for (int tid = 0; tid < size; ++tid) {
    const JobRange r = jobs_of(p, tid, size);
    if (r.first != next || r.last < r.first) fail("job ranges", m, panels, mc_max, mr, size);
    next = r.last;
    const index_t count = r.last - r.first;
    fewest = count < fewest ? count : fewest;
    most = count > most ? count : most;
    for (index_t job = r.first; job < r.last; ++job) {
      const index_t blk = job / p.chunks, chunk = job % p.chunks;
      const RowRange r_rows = rows_of(p, blk, m);
      const index_t row0 = r_rows.first, rows = r_rows.last - r_rows.first;
      const PanelRange q = panels_of(p, chunk, panels);
      if (rows <= 0 || q.last <= q.first) fail("empty job", m, panels, mc_max, mr, size);
      if (row0 % mr != 0 || rows > mc_max) fail("block rows", m, panels, mc_max, mr, size);
      for (index_t t = row0 / mr; t < (row0 + rows + mr - 1) / mr; ++t)
        for (index_t c = q.first; c < q.last; ++c) {
          ++covered[std::size_t(t * panels + c)];
          ++work[std::size_t(tid)];
        }
    }
  }
  if (next != p.jobs) fail("jobs unassigned", m, panels, mc_max, mr, size);
  if (most - fewest > 1) fail("job balance", m, panels, mc_max, mr, size);
  for (int c : covered)
    if (c != 1) {
      fail("tile coverage", m, panels, mc_max, mr, size);
      break;
    }
  index_t busiest = 0, idle = 0;
  for (index_t w : work) {
    busiest = w > busiest ? w : busiest;
    idle += w == 0;
  }
  if (tiles * panels >= size && idle) fail("idle member", m, panels, mc_max, mr, size);
  const double mean = double(tiles * panels) / size;
  if (tiles * panels >= 64 * index_t(size) && busiest > 1.3 * mean)
    fail("work balance", m, panels, mc_max, mr, size);
}

}  // namespace

int main() {
  const int teams[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
  // (mr, nr): the float32/float64 tiles of AVX-512 and AVX2 and a skinny one.
  const index_t geometry[][2] = {{32, 12}, {16, 12}, {16, 6}, {8, 6}, {32, 8}};
  const index_t rows[] = {1, 16, 33, 100, 255, 256, 1000, 1024, 2048, 4096, 8191};
  const index_t cols[] = {1, 16, 100, 1024, 2048, 4096};
  const index_t mc_panels[] = {1, 3, 12, 32};  // mc_max in MR units
  int cases = 0;
  for (const auto& g : geometry)
    for (index_t m : rows)
      for (index_t n : cols)
        for (index_t mcp : mc_panels)
          for (int size : teams) {
            check(m, (n + g[1] - 1) / g[1], mcp * g[0], g[0], size);
            ++cases;
          }
  std::printf("partition: %d plans, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}
