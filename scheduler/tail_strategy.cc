#include "scheduler/tail_strategy.h"

#include <algorithm>

#include "scheduler/loop_nest.h"

namespace ktune::scheduler {
namespace {

// The loop `split` (one of stage.splits, or a copy of one with another tail) splits, as it
// is when the split is applied; nullopt if it does not exist.
std::optional<NestLoop> loop_before(const StageAnalysis& sa, const StageSchedule& stage, const LoopSplit& split) {
  StageSchedule before = stage;
  before.order.clear();
  before.splits.clear();
  for (const LoopSplit& s : stage.splits) {
    if (s.loop == split.loop && s.outer == split.outer && s.inner == split.inner) break;
    before.splits.push_back(s);
  }
  std::string error;
  const auto nest = build_loop_nest(sa, before, &error);
  const NestLoop* l = nest ? nest->find(split.loop) : nullptr;
  if (!l) return std::nullopt;
  return *l;
}

}  // namespace

std::optional<std::string> tail_refusal(const FuncAnalysis& func, const FuncSchedule& schedule, const StageSchedule& stage,
                                        const LoopSplit& split) {
  if (split.tail == Tail::kGuard) return std::nullopt;
  const std::string what = std::string("the ") + to_string(split.tail) + " tail of \"" + split.loop + "\" ";
  if (stage.stage < 0 || stage.stage >= static_cast<int>(func.stages.size())) return std::nullopt;
  const StageAnalysis& sa = func.stages[stage.stage];
  const auto loop = loop_before(sa, stage, split);
  if (!loop) return std::nullopt;  // the structure validator names the missing loop
  if (loop->is_reduction) return what + "is for pure loops only";
  if (split.tail == Tail::kShiftInwards) {
    if (func.has_updates() || schedule.compute.kind != ComputeLocation::Kind::kRoot) {
      return what + "needs a Func without updates computed at root (Halide refuses it where updates follow, and "
                    "a consumer's tile may be shorter than the factor)";
    }
    return std::nullopt;
  }
  if (func.is_output) return what + "would write past the output";
  for (const ProducerUse& use : sa.uses) {
    if (use.func < 0 && std::find(use.index_loops.begin(), use.index_loops.end(), loop->origin) != use.index_loops.end()) {
      return what + "would read input \"" + use.name + "\" past its bounds";
    }
  }
  return std::nullopt;
}

void choose_tails(const Analysis& analysis, Schedule& schedule, Rng* rng) {
  for (FuncSchedule& f : schedule.funcs) {
    if (f.compute.kind == ComputeLocation::Kind::kInline) continue;
    const FuncAnalysis* fa = analysis.find(f.func);
    if (!fa) continue;
    for (StageSchedule& st : f.stages) {
      if (st.rfactor || !st.gpu.empty() || st.stage >= static_cast<int>(fa->stages.size())) continue;
      for (LoopSplit& split : st.splits) {
        const auto loop = loop_before(fa->stages[st.stage], st, split);
        if (!loop || loop->is_reduction) continue;
        const bool tiled = f.compute.kind == ComputeLocation::Kind::kAt;
        if (!tiled && loop->extent % split.factor == 0) continue;
        std::vector<Tail> allowed;
        for (Tail t : {Tail::kShiftInwards, Tail::kRoundUp}) {
          LoopSplit candidate = split;
          candidate.tail = t;
          if (!tail_refusal(*fa, f, st, candidate)) allowed.push_back(t);
        }
        if (allowed.empty()) continue;
        if (!rng) {
          split.tail = allowed.front();
        } else if (rng->chance(0.7)) {
          split.tail = rng->pick(allowed);
        }
      }
    }
  }
}

}  // namespace ktune::scheduler
