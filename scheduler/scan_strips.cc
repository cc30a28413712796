#include "scheduler/scan_strips.h"

#include <algorithm>
#include <optional>

#include "scheduler/conv_templates.h"

namespace ktune::scheduler {
namespace {

// A dimension of a Func's updates vectorized across, and the lanes of its vectors.
struct ScanVectors {
  int dim = -1;
  int64_t lanes = 0;
};

// The split of `st` whose `piece` (its inner or outer loop) is `loop`, or null.
LoopSplit* split_making(StageSchedule& st, const std::string& loop, bool inner) {
  for (LoopSplit& s : st.splits) {
    if ((inner ? s.inner : s.outer) == loop) return &s;
  }
  return nullptr;
}

bool is_split_again(const StageSchedule& st, const std::string& piece) {
  return std::any_of(st.splits.begin(), st.splits.end(), [&](const LoopSplit& s) { return s.loop == piece; });
}

// The dimension every update of `func` vectorizes, through a split of that dimension's
// variable by the same lanes in each, where the updates scan along dimension 0; nullopt
// otherwise (a scan vectorized along its rows already, a Func without updates).
std::optional<ScanVectors> scan_vectors(const FuncAnalysis& func, const FuncSchedule& scheduled) {
  if (!func.has_updates() || func.reduced_dims.empty() || !func.reduced_dims[0]) return std::nullopt;
  ScanVectors found;
  for (size_t s = 1; s < func.stages.size(); ++s) {
    StageSchedule st = scheduled.stage_or_empty(static_cast<int>(s));
    const LoopSplit* split = st.vectorize.empty() ? nullptr : split_making(st, st.vectorize, true);
    if (!split) return std::nullopt;
    const auto arg = std::find(func.args.begin(), func.args.end(), split->loop);
    const int dim = static_cast<int>(arg - func.args.begin());
    if (arg == func.args.end() || dim == 0) return std::nullopt;
    if (found.dim >= 0 && (found.dim != dim || found.lanes != split->factor)) return std::nullopt;
    found = {dim, split->factor};
  }
  return found;
}

// The pure stage filling the transposed buffer: dimension `v.dim` split by the lanes and
// vectorized innermost, the other dimensions in order around it, its outer piece outermost.
StageSchedule transposed_pure_stage(const FuncAnalysis& func, const ScanVectors& v) {
  const std::string& var = func.args[v.dim];
  StageSchedule st;
  st.splits = {{var, loop_piece(var, "_o"), loop_piece(var, "_i"), v.lanes}};
  st.order = {loop_piece(var, "_i")};
  for (const std::string& arg : func.args) {
    if (arg != var) st.order.push_back(arg);
  }
  st.order.push_back(loop_piece(var, "_o"));
  st.vectorize = loop_piece(var, "_i");
  return st;
}

// The host's strip split (the one making the loop `func` is computed at, over the host's
// dimension `v.dim`) narrowed or widened to one vector of rows, where two strips per core
// remain and nothing splits the strip again.
void strip_of_one_vector(const Analysis& analysis, Schedule& schedule, const ComputeLocation& at, const ScanVectors& v) {
  const FuncAnalysis* host = analysis.find(at.consumer);
  FuncSchedule* hosted = schedule.find(at.consumer);
  if (!host || !hosted) return;
  const StageAnalysis& stage = host->stages[at.consumer_stage];
  const LoopAnalysis* rows = stage.pure_loop(static_cast<size_t>(v.dim));
  for (StageSchedule& st : hosted->stages) {
    if (st.stage != at.consumer_stage) continue;
    LoopSplit* strip = split_making(st, at.loop, false);
    if (!strip || !rows || strip->loop != rows->name || is_split_again(st, strip->inner)) return;
    if (rows->extent >= v.lanes * 2 * analysis.target.cores) strip->factor = v.lanes;
  }
}

}  // namespace

bool transpose_strip_scans(const Analysis& analysis, Schedule& schedule) {
  bool changed = false;
  for (size_t i = 0; i < analysis.funcs.size() && i < schedule.funcs.size(); ++i) {
    const FuncAnalysis& func = analysis.funcs[i];
    FuncSchedule& scheduled = schedule.funcs[i];
    if (func.is_output || scheduled.compute.kind != ComputeLocation::Kind::kAt || !scheduled.storage.empty()) continue;
    const std::optional<ScanVectors> v = scan_vectors(func, scheduled);
    if (!v) continue;
    StageSchedule pure = transposed_pure_stage(func, *v);
    scheduled.stages.erase(std::remove_if(scheduled.stages.begin(), scheduled.stages.end(),
                                          [](const StageSchedule& st) { return st.stage == 0; }),
                           scheduled.stages.end());
    scheduled.stages.insert(scheduled.stages.begin(), pure);
    scheduled.storage = dim_innermost_storage(func, v->dim);
    strip_of_one_vector(analysis, schedule, scheduled.compute, *v);
    changed = true;
  }
  return changed;
}

}  // namespace ktune::scheduler
