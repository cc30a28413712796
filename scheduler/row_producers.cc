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
    at.row_alignment = 0;  // the reader's padding fits the reader's values
    return at;
  }
  if (rs.compute.kind != ComputeLocation::Kind::kRoot) return std::nullopt;
  const std::string loop = whole_row_loop(analysis.funcs[reader].stages[0], rs.stage_or_empty(0));
  if (loop.empty()) return std::nullopt;
  return ComputeLocation{ComputeLocation::Kind::kAt, analysis.funcs[reader].name, 0, loop};
}

// The dimension at which every call of Func `f` in every stage of `reader` reads it at the
// reader's loop `loop` alone (no other index uses that loop, and the read is not clamped):
// the reader's slice along `loop` reads one slice of `f`. -1 where there is no such dimension.
int slice_read_dim(const Analysis& analysis, int f, int reader, const std::string& loop) {
  int dim = -1;
  for (const StageAnalysis& sa : analysis.funcs[reader].stages) {
    for (const ProducerUse& use : sa.uses) {
      if (use.func != f) continue;
      int here = -1;
      for (size_t d = 0; d < use.dim_loops.size(); ++d) {
        if (!has_loop(use.dim_loops[d], loop)) continue;
        const bool clamped = d < use.clamped_dims.size() && use.clamped_dims[d];
        if (here >= 0 || clamped || use.dim_loops[d] != std::vector<std::string>{loop}) return -1;
        here = static_cast<int>(d);
      }
      if (here < 0 || (dim >= 0 && here != dim)) return -1;
      dim = here;
    }
  }
  return dim;
}

// The innermost loop of the outermost run of pieces of one pure loop of `host`'s first stage
// (its rows, or strips of them), neither vectorized nor unrolled; nullopt where the
// outermost loop is no pure loop's piece.
std::optional<NestLoop> outermost_slice_loop(const StageAnalysis& host, const StageSchedule& st) {
  std::string error;
  const std::optional<LoopNest> nest = build_loop_nest(host, st, &error);
  if (!nest || nest->loops.empty() || nest->loops.back().is_reduction) return std::nullopt;
  std::optional<NestLoop> slice;
  for (auto l = nest->loops.rbegin(); l != nest->loops.rend() && l->origin == nest->loops.back().origin; ++l) {
    const bool unrolled = std::find(st.unroll.begin(), st.unroll.end(), l->name) != st.unroll.end();
    if (l->name == st.vectorize || unrolled) break;
    slice = *l;
  }
  return slice;
}

// Where Func `f`, read only by an accumulator computed per tile of a host at root, is
// computed per slice of the host's outermost loop: the host reads the accumulator at that
// loop's slice, the accumulator reads `f` at the same slice, and `f` spans the host's
// slices. nullopt otherwise.
std::optional<ComputeLocation> accumulator_operand_slice(const Analysis& analysis, const Schedule& schedule, int f) {
  const int acc = analysis.funcs[f].single_consumer();
  if (acc < 0 || !analysis.funcs[acc].has_updates()) return std::nullopt;
  const ComputeLocation& at = schedule.funcs[acc].compute;
  const int host = analysis.index_of(at.consumer);
  if (at.kind != ComputeLocation::Kind::kAt || host < 0 || schedule.funcs[host].compute.kind != ComputeLocation::Kind::kRoot) {
    return std::nullopt;
  }
  const StageAnalysis& hs = analysis.funcs[host].stages[0];
  const std::optional<NestLoop> slice = outermost_slice_loop(hs, schedule.funcs[host].stage_or_empty(0));
  if (!slice) return std::nullopt;
  const int acc_dim = slice_read_dim(analysis, acc, host, slice->origin);
  if (acc_dim < 0 || acc_dim >= static_cast<int>(analysis.funcs[acc].args.size())) return std::nullopt;
  const int f_dim = slice_read_dim(analysis, f, acc, analysis.funcs[acc].args[acc_dim]);
  const LoopAnalysis* whole = hs.find(slice->origin);
  if (f_dim < 0 || !whole || analysis.funcs[f].extents[f_dim] != whole->extent) return std::nullopt;
  return ComputeLocation{ComputeLocation::Kind::kAt, analysis.funcs[host].name, 0, slice->name};
}

// True when every Func computed at Func `f` can be inlined instead (none has updates).
bool can_inline_guests(const Analysis& analysis, const Schedule& schedule, const std::string& f) {
  for (size_t g = 0; g < schedule.funcs.size(); ++g) {
    const ComputeLocation& c = schedule.funcs[g].compute;
    if (c.kind == ComputeLocation::Kind::kAt && c.consumer == f && analysis.funcs[g].has_updates()) return false;
  }
  return true;
}

// Inlines every Func computed at Func `f` (its padding, before `f` moves inside another Func).
void inline_guests(Schedule& schedule, const std::string& f) {
  for (FuncSchedule& g : schedule.funcs) {
    if (g.compute.kind != ComputeLocation::Kind::kAt || g.compute.consumer != f) continue;
    g.compute = ComputeLocation{};
    g.compute.kind = ComputeLocation::Kind::kInline;
    g.stages.clear();
  }
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

bool compute_accumulator_operands_per_slice(const Analysis& analysis, Schedule& schedule, Rng* rng) {
  if (schedule.funcs.size() != analysis.funcs.size()) return false;
  bool moved = false, drawn = false;
  for (size_t f = 0; f < analysis.funcs.size(); ++f) {
    const FuncAnalysis& fa = analysis.funcs[f];
    FuncSchedule& fs = schedule.funcs[f];
    if (fa.is_output || fa.has_updates() || fs.compute.kind != ComputeLocation::Kind::kRoot) continue;
    const std::optional<ComputeLocation> slice = accumulator_operand_slice(analysis, schedule, static_cast<int>(f));
    if (!slice || !can_inline_guests(analysis, schedule, fa.name)) continue;
    // A draw takes the rule or leaves it once, where it first applies (other pipelines keep
    // their draws).
    if (rng && !drawn && !rng->chance(0.5)) return false;
    drawn = true;
    inline_guests(schedule, fa.name);
    fs.compute = *slice;
    for (StageSchedule& st : fs.stages) st.parallel.clear();
    moved = true;
  }
  return moved;
}

}  // namespace ktune::scheduler
