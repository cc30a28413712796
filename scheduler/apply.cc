// Entry points: apply() walks the schedule once (compute locations, input packs, then each
// stage's loops) with an Applier (internal/applier.h), making each Halide scheduling call
// and writing the same call as C++ text.
#include "scheduler/apply.h"

#include "scheduler/internal/applier.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/subgraph.h"

namespace ktune::scheduler {

ApplyResult apply(const Schedule& schedule, const subgraphs::Subgraph& subgraph, const Analysis& analysis) {
  return apply_to(schedule, std::make_shared<subgraphs::BuiltPipeline>(subgraph.build()), analysis, subgraph.name());
}

ApplyResult apply_to(const Schedule& schedule, std::shared_ptr<subgraphs::BuiltPipeline> built,
                     const Analysis& analysis, const std::string& workload) {
  ApplyResult result;
  const std::vector<Halide::Func> funcs = subgraphs::pipeline_funcs(*built);
  const std::vector<subgraphs::FuncNames> names = subgraphs::canonical_names(funcs);
  std::map<std::string, FuncHandle> by_name;
  for (size_t i = 0; i < funcs.size(); ++i) by_name.emplace(names[i].name, FuncHandle{funcs[i], names[i]});
  for (const FuncSchedule& fs : schedule.funcs) {
    if (!by_name.count(fs.func) || !analysis.find(fs.func)) {
      result.error = "the schedule names Func \"" + fs.func + "\", which this subgraph does not have";
      return result;
    }
  }
  std::map<std::string, Halide::Func> inputs;
  for (const InputPack& pack : schedule.packs) inputs[pack.input] = subgraphs::input_wrapper(*built, pack.input);
  Applier applier(analysis, by_name, inputs);
  try {
    applier.apply(schedule);
  } catch (const Halide::Error& e) {
    result.error = e.what();
    return result;
  }
  result.source = applier.source(schedule, workload);
  result.built = built;
  result.ok = true;
  return result;
}

std::function<void(const subgraphs::BuiltPipeline&)> make_applier(Schedule schedule, const Analysis& analysis) {
  return [schedule = std::move(schedule), &analysis](const subgraphs::BuiltPipeline& built) {
    // The pipeline's Funcs are handles: scheduling a copy schedules the caller's pipeline.
    const ApplyResult r = apply_to(schedule, std::make_shared<subgraphs::BuiltPipeline>(built), analysis, "");
    if (!r.ok) throw Halide::CompileError(r.error);
  };
}

}  // namespace ktune::scheduler
