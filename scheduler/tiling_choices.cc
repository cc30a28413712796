#include "scheduler/tiling_choices.h"

#include <algorithm>
#include <vector>

namespace ktune::scheduler {
namespace {

// Powers of two in [lo, hi].
std::vector<int64_t> powers_of_two(int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  for (int64_t p = 1; p <= hi; p *= 2) {
    if (p >= lo) out.push_back(p);
  }
  return out;
}

}  // namespace

TilingChoice heuristic_choice(const StageAnalysis& sa, bool at_root, const TargetInfo& t) {
  TilingChoice c;
  const int lanes = sa.native_lanes(t);
  const LoopAnalysis* v = sa.pure_loop(0);
  const LoopAnalysis* y = sa.pure_loop(1);
  if (v && v->extent >= lanes) c.vector_width = lanes;
  const bool reduction = sa.first_reduction() != nullptr;
  if (reduction) {
    if (y && y->extent >= 4) {
      c.second_tile = 4;
      c.unroll_second = true;
    }
    c.reduction_inside_tiles = c.vector_width > 0;
    if (sa.rfactor_ok && sa.pure_iterations() < 2 * t.cores && sa.loops[0].extent >= 8 * lanes) {
      c.reduction_split = 4 * lanes;
      c.rfactor = false;
    }
  } else if (y && y->extent >= 8) {
    c.second_tile = 8;
  } else if (!y && v && c.vector_width > 0 && v->extent >= 64 * lanes) {
    // A 1-D loop: each parallel task gets a block of about 1/(8 x cores) of the loop (at
    // least 64 vectors). The thread pool pays per task: eltwise's 16M floats in blocks of
    // 64 vectors (16384 tasks) ran in 6.1 ms, in 16 blocks in 2.8 ms.
    int64_t tile = 64 * lanes;
    while (tile * 2 * 8 * t.cores <= v->extent) tile *= 2;
    c.inner_tile = tile;
  }
  c.parallel_loops = at_root ? 1 : 0;
  return c;
}

TilingChoice sampled_choice(const StageAnalysis& sa, bool at_root, const TargetInfo& t, Rng& rng) {
  TilingChoice c;
  const int lanes = sa.native_lanes(t);
  const int widest = sa.max_vector_width(t);
  const LoopAnalysis* v = sa.pure_loop(0);
  const LoopAnalysis* y = sa.pure_loop(1);
  const bool reduction = sa.first_reduction() != nullptr;
  if (v && rng.chance(0.9)) {
    std::vector<int64_t> widths;
    for (int64_t w : {lanes / 2, lanes, 2 * lanes, 4 * lanes}) {
      if (w >= 2 && w <= v->extent && w <= widest) widths.push_back(w);
    }
    if (widths.empty() && v->extent >= 2 && v->extent <= widest) widths.push_back(v->extent);
    if (!widths.empty()) c.vector_width = rng.chance(0.6) && std::count(widths.begin(), widths.end(), lanes) ? lanes : rng.pick(widths);
    if (c.vector_width > 0 && rng.chance(0.4)) {
      std::vector<int64_t> tiles;
      for (int64_t m : {2, 4, 8, 16, 64, 256, 1024, 4096, 16384}) {
        if (c.vector_width * m <= v->extent) tiles.push_back(c.vector_width * m);
      }
      if (!tiles.empty()) c.inner_tile = rng.pick(tiles);
    }
  }
  // An unrolled register tile keeps its vectors in registers: at most half the register file
  // (8 rows of one vector with AVX2's 16 registers, 16 with AVX-512's or AArch64's 32).
  const int64_t vectors_per_row = std::max<int64_t>(1, c.vector_width / std::max(1, lanes));
  if (y && y->extent >= 2 && rng.chance(0.7)) {
    const std::vector<int64_t> tiles = powers_of_two(2, std::min<int64_t>(y->extent, 64));
    if (!tiles.empty()) c.second_tile = rng.pick(tiles);
    c.unroll_second = c.second_tile * vectors_per_row <= t.vector_registers / 2 && rng.chance(reduction ? 0.7 : 0.3);
  }
  const LoopAnalysis* z = sa.pure_loop(2);
  if (z && z->extent >= 4 && rng.chance(0.3)) {
    // A tile of the third loop (a convolution's output channels): unrolled, a register tile
    // across it, as oneDNN holds a block of output channels in registers.
    const std::vector<int64_t> tiles = powers_of_two(2, std::min<int64_t>(z->extent / 2, 16));
    if (!tiles.empty()) c.third_tile = rng.pick(tiles);
    const int64_t rows = c.unroll_second ? c.second_tile : 1;
    c.unroll_third = rows * c.third_tile * vectors_per_row <= t.vector_registers / 2 && rng.chance(0.6);
  }
  if (reduction) {
    for (const LoopAnalysis& l : sa.loops) {
      if (l.is_reduction) {
        const std::vector<int64_t> splits = powers_of_two(2, std::min<int64_t>(l.extent / 2, 256));
        if (!splits.empty() && rng.chance(0.4)) c.reduction_split = rng.pick(splits);
        break;
      }
    }
    c.reduction_inside_tiles = rng.chance(0.75);
    const int64_t reduction_loops = std::count_if(sa.loops.begin(), sa.loops.end(), [](const LoopAnalysis& l) {
      return l.is_reduction;
    });
    if (sa.rfactor_ok && reduction_loops >= 2 && c.reduction_split == 0) c.reverse_reductions = rng.chance(0.3);
    const bool starved = sa.pure_iterations() < 2 * t.cores;
    if (sa.rfactor_ok && c.reduction_split > 0 && rng.chance(starved ? 0.7 : 0.05)) c.rfactor = rng.chance(0.5);
  }
  c.parallel_loops = at_root ? static_cast<int>(rng.pick(std::vector<int64_t>{0, 1, 1, 1, 2, 2, 3})) : 0;
  return c;
}

}  // namespace ktune::scheduler
