#include "scheduler/row_producers.h"

#include <algorithm>

#include "scheduler/channel_loops.h"
#include "scheduler/loop_nest.h"

namespace ktune::scheduler {
namespace {

// True when some pure loop past the second is longer than a channel loop.
bool has_long_third_loop(const StageAnalysis& sa) {
  std::vector<std::string> channels, others;
  loops_past_rows(sa, channels, others);
  return !others.empty();
}

// True when every call of Func `f` in stage 0 of `reader` reads it at the reader's own row:
// the call's second index uses the reader's second pure loop alone, no other index uses it,
// it is not clamped, and `f` has as many rows as the reader and is not scattered along them.
bool read_at_own_row(const Analysis& analysis, int f, int reader) {
  const FuncAnalysis& fa = analysis.funcs[f];
  const FuncAnalysis& ra = analysis.funcs[reader];
  if (fa.extents.size() < 2 || ra.extents.size() < 2 || fa.extents[1] != ra.extents[1]) return false;
  if (fa.reduced_dims.size() > 1 && fa.reduced_dims[1]) return false;
  for (const auto& [consumer, stage] : fa.consumers) {
    if (consumer != reader || stage != 0) return false;
  }
  const LoopAnalysis* row = ra.stages[0].pure_loop(1);
  if (!row) return false;
  bool read = false;
  for (const ProducerUse& use : ra.stages[0].uses) {
    if (use.func != f) continue;
    read = true;
    if (use.dim_loops.size() < 2 || use.dim_loops[1] != std::vector<std::string>{row->name}) return false;
    if (use.clamped_dims.size() > 1 && use.clamped_dims[1]) return false;
    for (size_t d = 0; d < use.dim_loops.size(); ++d) {
      if (d != 1 && has_loop(use.dim_loops[d], row->name)) return false;
    }
  }
  return read;
}

// The Func that reads Func `f` at its own row and is not inlined, following readers that are
// inlined (each reading the one before at its own row); -1 where there is none.
int own_row_reader(const Analysis& analysis, const Schedule& schedule, int f) {
  for (int reader = analysis.funcs[f].single_consumer(); reader >= 0; reader = analysis.funcs[f].single_consumer()) {
    if (!read_at_own_row(analysis, f, reader)) return -1;
    if (schedule.funcs[reader].compute.kind != ComputeLocation::Kind::kInline) return reader;
    f = reader;
  }
  return -1;
}

// The loop of a reader at root whose iterations each cover whole rows: the innermost piece
// of its second pure loop outside every piece of its first, neither vectorized, unrolled nor
// fused into a parallel loop with another. Empty where there is none.
std::string whole_row_loop(const StageAnalysis& sa, const StageSchedule& st) {
  const LoopAnalysis* x = sa.pure_loop(0);
  const LoopAnalysis* y = sa.pure_loop(1);
  std::string error;
  const std::optional<LoopNest> nest = build_loop_nest(sa, st, &error);
  if (!x || !y || !nest) return "";
  int outermost_column = -1;
  for (size_t p = 0; p < nest->loops.size(); ++p) {
    if (nest->loops[p].origin == x->name) outermost_column = static_cast<int>(p);
  }
  for (size_t p = static_cast<size_t>(outermost_column + 1); p < nest->loops.size(); ++p) {
    const std::string& loop = nest->loops[p].name;
    if (nest->loops[p].origin != y->name) continue;
    const bool unrolled = std::find(st.unroll.begin(), st.unroll.end(), loop) != st.unroll.end();
    const bool fused = st.parallel.size() > 1 && std::find(st.parallel.begin(), st.parallel.end(), loop) != st.parallel.end();
    if (loop == st.vectorize || unrolled || fused) return "";
    return loop;
  }
  return "";
}

// Where a producer read at its reader's own row is computed per row of it: at the reader's
// whole-row loop where the reader is at root, where the reader is computed (not stored
// beyond it) where it is computed at a loop; nullopt otherwise (an inlined reader).
std::optional<ComputeLocation> row_location(const Analysis& analysis, const Schedule& schedule, int reader) {
  const FuncSchedule& rs = schedule.funcs[reader];
  if (rs.compute.kind == ComputeLocation::Kind::kAt) {
    ComputeLocation at = rs.compute;
    at.store_loop.clear();
    at.fold_rows = 0;
    return at;
  }
  if (rs.compute.kind != ComputeLocation::Kind::kRoot) return std::nullopt;
  const std::string loop = whole_row_loop(analysis.funcs[reader].stages[0], rs.stage_or_empty(0));
  if (loop.empty()) return std::nullopt;
  return ComputeLocation{ComputeLocation::Kind::kAt, analysis.funcs[reader].name, 0, loop};
}

}  // namespace

std::optional<StageSchedule> rows_outermost_stage(const StageAnalysis& sa, int64_t lanes, bool parallel_rows) {
  const LoopAnalysis* x = sa.pure_loop(0);
  const LoopAnalysis* y = sa.pure_loop(1);
  if (!x || !y) return std::nullopt;
  StageSchedule st;
  st.stage = sa.stage;
  std::vector<std::string> channels, others;
  loops_past_rows(sa, channels, others);
  channels = unrolled_channels(sa, channels, st);
  if (sa.first_reduction()) {
    st.order = channels;
    for (const LoopAnalysis& l : sa.loops) {
      if (l.is_reduction) st.order.push_back(l.name);
    }
    st.order.push_back(x->name);
  } else if (lanes >= 2 && x->extent >= lanes && !x->carries_dependence) {
    st.splits.push_back({x->name, loop_piece(x->name, "_o"), loop_piece(x->name, "_i"), lanes});
    st.vectorize = loop_piece(x->name, "_i");
    st.order = {st.vectorize};
    st.order.insert(st.order.end(), channels.begin(), channels.end());
    st.order.push_back(loop_piece(x->name, "_o"));
  } else {
    st.order = channels;
    st.order.push_back(x->name);
  }
  st.order.insert(st.order.end(), others.begin(), others.end());
  st.order.push_back(y->name);
  if (parallel_rows && !y->carries_dependence) st.parallel = {y->name};
  return st;
}

bool scatters_into_grid(const FuncAnalysis& func) {
  if (!func.has_updates()) return false;
  for (size_t d = 2; d < func.reduced_dims.size(); ++d) {
    if (func.reduced_dims[d]) return true;
  }
  return false;
}

void give_rows_to_grids(const Analysis& analysis, Schedule& schedule) {
  for (size_t f = 0; f < analysis.funcs.size() && f < schedule.funcs.size(); ++f) {
    const FuncAnalysis& fa = analysis.funcs[f];
    FuncSchedule& fs = schedule.funcs[f];
    if (fa.is_output || fa.has_updates() || fs.compute.kind != ComputeLocation::Kind::kRoot) continue;
    const StageAnalysis& sa = fa.stages[0];
    const LoopAnalysis* y = sa.pure_loop(1);
    if (!y || !has_long_third_loop(sa) || y->extent < 2 * static_cast<int64_t>(analysis.target.cores)) continue;
    if (const auto st = rows_outermost_stage(sa, sa.native_lanes(analysis.target), true)) fs.stages = {*st};
  }
}

void compute_row_producers_per_row(const Analysis& analysis, Schedule& schedule) {
  if (schedule.funcs.size() != analysis.funcs.size()) return;
  for (int f = static_cast<int>(analysis.funcs.size()) - 1; f >= 0; --f) {
    const FuncAnalysis& fa = analysis.funcs[f];
    FuncSchedule& fs = schedule.funcs[f];
    if (fa.is_output || fs.compute.kind != ComputeLocation::Kind::kRoot) continue;
    if (fa.has_updates() && !scatters_into_grid(fa)) continue;  // a matmul's rows stay whole
    const int reader = own_row_reader(analysis, schedule, f);
    if (reader < 0) continue;
    const std::optional<ComputeLocation> row = row_location(analysis, schedule, reader);
    if (!row) continue;
    fs.compute = *row;
    fs.stages.clear();
    for (const StageAnalysis& sa : fa.stages) {
      if (const auto st = rows_outermost_stage(sa, sa.native_lanes(analysis.target), false)) fs.stages.push_back(*st);
    }
  }
}

}  // namespace ktune::scheduler
