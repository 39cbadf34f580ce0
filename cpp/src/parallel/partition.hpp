// L2 parallel: how one NC block of the loop nest is split across a team.
//
// The output block (m rows x `panels` NR panels) is cut into row blocks of
// whole MR-row tiles (at most mc_max rows, so the packed A block keeps its
// L2 share) and each row block into `chunks` runs of panels; a job is one
// (row block, chunk) pair, and member tid takes jobs [first, last) of
// jobs = blocks * chunks in row-block-major order, so its packed A block is
// reused across its chunks.  The B block is packed once and shared by the
// whole team (every member packs a share of the panels, then a barrier).
//
// Rows are split first: a multiple of the team size of blocks when there are
// enough tiles, else one block per tile, their sizes within one tile of each
// other (no member waits on a thick block); panels are split
// too only when there are fewer than two jobs per member, which happens for
// short outputs (few rows) and for large teams.  The plan depends only on the
// shape and the team size, and the depth is never split, so results are
// bit-identical for every team size.  Header-only and free of ISA code:
// included by the driver in every ISA's translation units and by the unit
// test (cpp/tests/partition_test.cpp), which checks the decisions for teams
// of 1 to 64.
#pragma once

#include "kernel/task.hpp"

namespace gemmkit::parallel {

struct Partition {
  index_t tiles;   // MR-row tiles of the block: ceil(m / mr)
  index_t mr;
  index_t blocks;  // row blocks, each of whole tiles, sizes within one tile
  index_t chunks;  // runs of panels per row block
  index_t jobs;    // blocks * chunks
};

// Out of line, in a baseline translation unit (partition.cpp), like the
// pool: the ISA translation units that include this header must not each
// carry an inline copy compiled with their own instruction set.
Partition partition(index_t m, index_t panels, index_t mc_max, index_t mr, int size);

// The jobs of member tid of a team of `size`: [first, last), their counts
// differing by at most one between members.
struct JobRange {
  index_t first, last;
};
JobRange jobs_of(const Partition& p, int tid, int size);

// The rows [first, last) of row block blk of an m-row block.
struct RowRange {
  index_t first, last;
};
RowRange rows_of(const Partition& p, index_t blk, index_t m);

// The panels [first, last) of chunk c of a block of `panels` panels.
struct PanelRange {
  index_t first, last;
};
PanelRange panels_of(const Partition& p, index_t chunk, index_t panels);

}  // namespace gemmkit::parallel
