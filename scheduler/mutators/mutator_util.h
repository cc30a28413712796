// Helpers shared by the mutators: finding stages, materializing a stage's loop order.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/loop_nest.h"
#include "scheduler/rng.h"
#include "scheduler/schedule.h"
#include "scheduler/space.h"

namespace ktune::scheduler::mutators {

// (func position, stage entry position) of every scheduled stage of a non-inlined Func.
inline std::vector<std::pair<size_t, size_t>> scheduled_stages(const Schedule& s) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t f = 0; f < s.funcs.size(); ++f) {
    if (s.funcs[f].compute.kind == ComputeLocation::Kind::kInline) continue;
    for (size_t k = 0; k < s.funcs[f].stages.size(); ++k) out.emplace_back(f, k);
  }
  return out;
}

// Every stage of every non-inlined Func, creating empty entries for unscheduled stages.
inline std::vector<std::pair<size_t, int>> all_stages(const Schedule& s, const Space& space) {
  std::vector<std::pair<size_t, int>> out;
  for (size_t f = 0; f < s.funcs.size(); ++f) {
    if (s.funcs[f].compute.kind == ComputeLocation::Kind::kInline) continue;
    const FuncAnalysis* fa = space.analysis().find(s.funcs[f].func);
    if (!fa) continue;
    for (size_t k = 0; k < fa->stages.size(); ++k) out.emplace_back(f, static_cast<int>(k));
  }
  return out;
}

// The entry for `stage` in `f`, inserted (in order) if missing.
inline StageSchedule& stage_entry(FuncSchedule& f, int stage) {
  for (StageSchedule& st : f.stages) {
    if (st.stage == stage) return st;
  }
  StageSchedule st;
  st.stage = stage;
  auto it = f.stages.begin();
  while (it != f.stages.end() && it->stage < stage) ++it;
  return *f.stages.insert(it, st);
}

// The loop nest of a stage entry, or nullopt if it does not build.
inline std::optional<LoopNest> nest_of(const Space& space, const FuncSchedule& f, const StageSchedule& st) {
  const FuncAnalysis* fa = space.analysis().find(f.func);
  if (!fa || st.stage >= static_cast<int>(fa->stages.size())) return std::nullopt;
  std::string error;
  return build_loop_nest(fa->stages[st.stage], st, &error);
}

// Removes stage entries that carry no decision.
inline void drop_empty_stages(FuncSchedule& f) {
  std::vector<StageSchedule> kept;
  for (const StageSchedule& st : f.stages) {
    if (!st.splits.empty() || !st.order.empty() || !st.parallel.empty() || !st.vectorize.empty() ||
        !st.vector_reduce.empty() || !st.unroll.empty() || st.rfactor || !st.gpu.empty()) {
      kept.push_back(st);
    }
  }
  f.stages = kept;
}

}  // namespace ktune::scheduler::mutators
