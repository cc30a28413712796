#include "cost_model/internal/stage_footprints.h"

#include <algorithm>

#include "cost_model/internal/stage_accesses.h"

namespace ktune::cost_model::internal {
namespace {

using scheduler::ComputeLocation;

// The pieces of one dimension inside a tile: sorted by stride, merged where they tile a
// contiguous range, and cut to the iterations one realization has (`dim_extent`).
std::vector<TilePiece> normalize(std::vector<TilePiece> pieces, int64_t dim_extent) {
  std::sort(pieces.begin(), pieces.end(),
            [](const TilePiece& a, const TilePiece& b) { return a.stride != b.stride ? a.stride < b.stride : a.count < b.count; });
  std::vector<TilePiece> merged;
  for (const TilePiece& p : pieces) {
    if (!merged.empty() && p.stride == merged.back().stride * merged.back().count) {
      merged.back().count *= p.count;
    } else {
      merged.push_back(p);
    }
  }
  std::vector<TilePiece> out;
  for (TilePiece p : merged) {
    // Values past the realization's extent are guarded off: they do not run.
    p.count = std::min(p.count, (dim_extent + p.stride - 1) / p.stride);
    if (p.count > 1) out.push_back(p);
  }
  return out;
}

}  // namespace

void add_footprints(FootprintCache& cache, StageModel& sm) {
  std::vector<TileSpec> tiles(sm.loops.size() + 1);
  std::vector<std::vector<TilePiece>> raw(sm.dim_extent.size());  // pieces inside, as the loops give them
  tiles[0].dims.resize(sm.dim_extent.size());
  for (size_t k = 1; k < tiles.size(); ++k) {
    tiles[k] = tiles[k - 1];
    const LoopModel& loop = sm.loops[k - 1];
    raw[loop.dim].push_back({loop.stride, loop.extent});
    tiles[k].dims[loop.dim] = normalize(raw[loop.dim], sm.dim_extent[loop.dim]);
  }
  for (AccessGroupModel& g : sm.groups) {
    g.levels.reserve(tiles.size());
    for (const TileSpec& t : tiles) g.levels.push_back(&cache.footprint(g.group, t));
  }
}

// A producer computed at loop p of this stage is recomputed into the same small buffer on
// every iteration of p: beyond level p its working set stays one realization.
void reuse_producer_buffers(const scheduler::Analysis& analysis,
                            const std::vector<const scheduler::FuncSchedule*>& sched, StageModel& sm) {
  for (AccessGroupModel& g : sm.groups) {
    if (g.buffer >= static_cast<int>(sched.size()) || g.buffer == sm.func || !sched[g.buffer]) continue;
    const ComputeLocation& at = sched[g.buffer]->compute;
    if (at.kind != ComputeLocation::Kind::kAt || analysis.index_of(at.consumer) != sm.func) continue;
    const int host_stage = std::min(at.consumer_stage, static_cast<int>(analysis.funcs[sm.func].stages.size()) - 1);
    if (sm.stage != host_stage) continue;
    const int p = position(sm.loops, at.loop);
    if (p < 0) continue;
    g.regions = g.levels;
    for (int k = p + 1; k < static_cast<int>(g.levels.size()); ++k) g.levels[k] = g.levels[p];
  }
}

// For a stage of a compute_at Func: the lines its accesses touch when it computes the region
// of it that the host's level q needs, for q from the compute_at level outwards.
void add_host_lines(const scheduler::FuncAnalysis& fa, const scheduler::StageAnalysis& sa, const StageFacts& st,
                    const StageModel& host, FootprintCache& cache, StageModel& sm) {
  const AccessGroupModel* reads = nullptr;
  for (const AccessGroupModel& g : host.groups) {
    if (g.buffer == sm.func && !g.regions.empty()) reads = &g;
  }
  if (!reads) return;
  for (int q = sm.host_level; q <= host.depth(); ++q) {
    const Box& region = reads->regions[q]->box;
    TileSpec tile;
    tile.dims.resize(st.extent.size());
    for (size_t l = 0; l < sa.loops.size(); ++l) {
      int64_t count = st.extent[st.loop_dim[l]];
      for (size_t a = 0; !sa.loops[l].is_reduction && a < fa.args.size() && a < region.extent.size(); ++a) {
        if (fa.args[a] == sa.loops[l].name) count = std::min(count, region.extent[a]);
      }
      if (count > 1) tile.dims[st.loop_dim[l]].push_back({1, count});
    }
    int64_t lines = 0;
    std::map<int, std::vector<int64_t>> extents;
    for (const AccessGroupModel& g : sm.groups) {
      const Footprint& footprint = cache.footprint(g.group, tile);
      lines += footprint.lines;
      if (!footprint.box.extent.empty()) extents[g.buffer] = footprint.box.extent;
    }
    sm.host_lines.push_back(lines);
    sm.host_extents.push_back(std::move(extents));
  }
}

}  // namespace ktune::cost_model::internal
