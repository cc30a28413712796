#include "scheduler/sliding_window.h"

#include <algorithm>

namespace ktune::scheduler {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::optional<std::string> window_problem(const ComputeLocation& at, const StageSchedule& host_stage,
                                          const LoopNest& nest) {
  const int compute = nest.position(at.loop);
  const int store = nest.position(at.store_loop);
  if (store < 0) return "stored at loop \"" + at.store_loop + "\", which " + at.consumer + " does not have";
  if (store <= compute) return "stored at loop \"" + at.store_loop + "\", inside loop \"" + at.loop + "\" where it is computed";
  if (host_stage.parallel.size() > 1 && contains(host_stage.parallel, at.store_loop)) {
    return "stored at loop \"" + at.store_loop + "\", which is fused into a parallel loop";
  }
  for (int p = std::max(0, compute); p < store; ++p) {
    const std::string& loop = nest.loops[p].name;
    if (contains(host_stage.parallel, loop)) {
      return "stored outside parallel loop \"" + loop + "\" it is computed in: the tasks would share one buffer";
    }
    if (loop == host_stage.vectorize || contains(host_stage.unroll, loop)) {
      return "stored outside loop \"" + loop + "\", which is vectorized or unrolled";
    }
    for (const LoopSplit& split : host_stage.splits) {
      if (split.inner == loop && split.tail == Tail::kGuard) {
        return "slides along loop \"" + loop + "\", whose split is guarded: Halide does not slide a window through the guard";
      }
    }
  }
  return std::nullopt;
}

std::vector<ComputeLocation> window_locations(const Analysis& analysis, const Schedule& schedule,
                                              const std::vector<ComputeLocation>& at) {
  std::vector<ComputeLocation> windows;
  if (at.empty() || analysis.target.is_gpu()) return windows;
  const int host = analysis.index_of(at.front().consumer);
  if (host < 0) return windows;
  const int stage = at.front().consumer_stage;
  const FuncSchedule* hs = schedule.find(analysis.funcs[host].name);
  const StageSchedule st = hs ? hs->stage_or_empty(stage) : StageSchedule{};
  std::string error;
  const auto nest = build_loop_nest(analysis.funcs[host].stages[stage], st, &error);
  if (!nest) return windows;
  for (const ComputeLocation& o : at) {
    if (o.sliding()) continue;
    for (int q = nest->position(o.loop) + 1; q < static_cast<int>(nest->loops.size()); ++q) {
      ComputeLocation w = o;
      w.store_loop = nest->loops[q].name;
      if (!window_problem(w, st, *nest)) windows.push_back(w);
    }
  }
  return windows;
}

}  // namespace ktune::scheduler
