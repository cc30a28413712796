#include "scheduler/column_tiles.h"

namespace ktune::scheduler {
namespace {

// A strip leader's loops over vectors of a row, rows of a strip, and strips.
struct StripLoops {
  std::string vectors, rows, strips;
};

// The loops of a strip leader split as apply_image_strips leaves it, with rows of
// kMinColumnTiles tiles or more; nullopt for any other shape (channel loops, rows walked in
// pairs).
std::optional<StripLoops> strip_loops(const FuncAnalysis& fa, const FuncSchedule& fs, int64_t lanes) {
  if (fa.has_updates() || fs.stages.size() != 1 || fs.compute.kind != ComputeLocation::Kind::kRoot) return std::nullopt;
  const StageSchedule& st = fs.stages[0];
  if (st.splits.size() != 2 || st.order.size() != 4 || st.parallel.size() != 1) return std::nullopt;
  const LoopSplit& x = st.splits[0];
  const LoopSplit& y = st.splits[1];
  const std::vector<std::string> order = {x.inner, x.outer, y.inner, y.outer};
  if (st.order != order || st.parallel[0] != y.outer || st.vectorize != x.inner || x.factor != lanes) return std::nullopt;
  const LoopAnalysis* row = fa.stages[0].pure_loop(0);
  if (!row || row->extent < kMinColumnTiles * kColumnTileVectors * lanes) return std::nullopt;
  return StripLoops{x.outer, y.inner, y.outer};
}

// The windows `leader` hosts at its strip loop, stored per tile instead, their tails rounded
// up. Returns how many.
int store_windows_per_tile(Schedule& schedule, const std::string& leader, const StripLoops& loops,
                           const std::string& tile) {
  int moved = 0;
  for (size_t f = 0; f < schedule.funcs.size(); ++f) {
    ComputeLocation& c = schedule.funcs[f].compute;
    if (!c.sliding() || c.consumer != leader || c.store_loop != loops.strips || c.loop != loops.rows) continue;
    c.store_loop = tile;
    for (StageSchedule& st : schedule.funcs[f].stages) {
      for (LoopSplit& split : st.splits) split.tail = Tail::kRoundUp;
    }
    ++moved;
  }
  return moved;
}

}  // namespace

bool tile_strip_columns(const Analysis& analysis, Schedule& schedule) {
  if (analysis.target.is_gpu() || schedule.funcs.size() != analysis.funcs.size()) return false;
  bool changed = false;
  for (size_t f = 0; f < analysis.funcs.size(); ++f) {
    const FuncAnalysis& fa = analysis.funcs[f];
    FuncSchedule& fs = schedule.funcs[f];
    const std::optional<StripLoops> loops = strip_loops(fa, fs, fa.stages[0].native_lanes(analysis.target));
    if (!loops) continue;
    const std::string tile = loop_piece(loops->vectors, "_t");
    const std::string vectors = loop_piece(loops->vectors, "_v");
    Schedule tiled = schedule;
    StageSchedule& st = tiled.funcs[f].stages[0];
    st.splits.insert(st.splits.begin() + 1, LoopSplit{loops->vectors, tile, vectors, kColumnTileVectors, Tail::kShiftInwards});
    st.order = {st.order[0], vectors, loops->rows, tile, loops->strips};
    if (store_windows_per_tile(tiled, fa.name, *loops, tile) == 0) continue;
    schedule = std::move(tiled);
    changed = true;
  }
  return changed;
}

}  // namespace ktune::scheduler
