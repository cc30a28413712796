#include "scheduler/validators/stage_walk.h"

namespace ktune::scheduler {

std::optional<std::string> first_stage_problem(const Schedule& schedule, const Analysis& analysis,
                                               const StageCheck& check,
                                               const std::function<bool(const StageSchedule&)>& wanted) {
  for (const FuncSchedule& f : schedule.funcs) {
    const FuncAnalysis& fa = *analysis.find(f.func);
    for (const StageSchedule& st : f.stages) {
      if (wanted && !wanted(st)) continue;
      const StageAnalysis& sa = fa.stages[st.stage];
      std::string error;
      const std::optional<LoopNest> nest = build_loop_nest(sa, st, &error);
      if (!nest) continue;
      if (auto problem = check(ListedStage{f, fa, st, sa, *nest})) return problem;
    }
  }
  return std::nullopt;
}

}  // namespace ktune::scheduler
