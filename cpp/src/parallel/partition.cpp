// L2 parallel: the split of one NC block across a team (partition.hpp).
#include "parallel/partition.hpp"

namespace gemmkit::parallel {

namespace {
index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }
}  // namespace

Partition partition(index_t m, index_t panels, index_t mc_max, index_t mr, int size) {
  Partition p{};
  p.mr = mr;
  p.tiles = ceil_div(m, mr);
  // Row blocks: as few as fit mc_max, rounded up to a multiple of the team,
  // but no more than there are tiles.
  index_t blocks = ceil_div(m, mc_max);
  if (size > 1 && blocks % size) blocks += size - blocks % size;
  p.blocks = blocks < p.tiles ? blocks : p.tiles;
  // Panel chunks: only when rows alone give fewer than two jobs a member,
  // or (too few tiles for a multiple of the team) deal out unevenly.
  p.chunks = 1;
  const index_t team = size;
  if (p.blocks < 2 * team || p.blocks % team) {
    // Blocks of unequal tile counts would then put a thick block's every
    // chunk on one member: make each block one tile.
    if (p.tiles % p.blocks) p.blocks = p.tiles;
    // At least two jobs a member; among up to four times that many chunks,
    // the count whose jobs deal out most evenly (the busiest member's share
    // over the mean: ceil(J / team) / (J / team)), the fewest on ties.
    const index_t want = ceil_div(2 * team, p.blocks);
    const index_t most = panels < 4 * want ? panels : 4 * want;
    index_t chunks = want;
    double best = 0;
    for (index_t c = want; c <= most; ++c) {
      const index_t jobs = p.blocks * c;
      const double spread = double(ceil_div(jobs, team) * team) / double(jobs);
      if (c == want || spread < best) {
        best = spread;
        chunks = c;
      }
      if (jobs % team == 0) break;
    }
    p.chunks = panels < chunks ? panels : chunks;
  }
  p.jobs = p.blocks * p.chunks;
  return p;
}

RowRange rows_of(const Partition& p, index_t blk, index_t m) {
  const index_t first = p.tiles * blk / p.blocks * p.mr;
  const index_t last = p.tiles * (blk + 1) / p.blocks * p.mr;
  return RowRange{first, last < m ? last : m};
}

JobRange jobs_of(const Partition& p, int tid, int size) {
  return JobRange{p.jobs * tid / size, p.jobs * (tid + 1) / size};
}

PanelRange panels_of(const Partition& p, index_t chunk, index_t panels) {
  return PanelRange{panels * chunk / p.chunks, panels * (chunk + 1) / p.chunks};
}

}  // namespace gemmkit::parallel
