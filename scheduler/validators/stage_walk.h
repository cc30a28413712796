// The walk several validators share: every stage a schedule lists, Funcs and stages in
// the schedule's order, with its loop nest. A stage whose loop nest does not build is
// skipped: the structure validator, which runs first, reports it.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "scheduler/analysis.h"
#include "scheduler/loop_nest.h"
#include "scheduler/schedule.h"

namespace ktune::scheduler {

// One listed stage as a validator sees it.
struct ListedStage {
  const FuncSchedule& func;             // the Func's schedule
  const FuncAnalysis& func_analysis;    // the Func's analysis
  const StageSchedule& stage;           // the stage's schedule
  const StageAnalysis& stage_analysis;  // the stage's analysis
  const LoopNest& nest;                 // its loops after the stage's splits and order
};

using StageCheck = std::function<std::optional<std::string>(const ListedStage&)>;

// The first reason `check` gives on the listed stages of `schedule` (only those `wanted`
// accepts, where given, before their loop nest is built), or nullopt when it gives none.
std::optional<std::string> first_stage_problem(const Schedule& schedule, const Analysis& analysis,
                                               const StageCheck& check,
                                               const std::function<bool(const StageSchedule&)>& wanted = nullptr);

}  // namespace ktune::scheduler
