#include "bench/own_schedule_workload.h"

#include <Halide.h>

#include <vector>

#include "subgraphs/built_pipeline.h"
#include "subgraphs/output_bounds.h"

namespace ktune::bench {
namespace {

// "300x500 at (1, 1)".
std::string region_text(const subgraphs::TensorInfo& t) {
  std::string shape, mins;
  const std::vector<int64_t> at = t.mins_or_zero();
  for (size_t a = 0; a < t.shape.size(); ++a) {
    shape += (a ? "x" : "") + std::to_string(t.shape[a]);
    mins += (a ? ", " : "") + std::to_string(at[a]);
  }
  return shape + " at (" + mins + ")";
}

// `built`'s output Funcs estimated at `outputs` (Subgraph::outputs() order).
void estimate_outputs_at(const subgraphs::BuiltPipeline& built, const std::vector<subgraphs::TensorInfo>& outputs) {
  size_t tensor = 0;
  for (Halide::Func f : built.outputs) {
    const subgraphs::TensorInfo& t = outputs.at(tensor);
    const std::vector<int64_t> mins = t.mins_or_zero();
    const std::vector<std::string>& args = f.function().args();
    for (size_t d = 0; d < args.size(); ++d) {
      const size_t axis = t.shape.size() - 1 - d;
      f.set_estimate(Halide::Var(args[d]), static_cast<int>(mins[axis]), static_cast<int>(t.shape[axis]));
    }
    tensor += f.function().outputs();
  }
}

}  // namespace

OwnScheduleWorkload own_schedule_workload(const subgraphs::GeneratorSubgraph& gen) {
  OwnScheduleWorkload w;
  const std::vector<subgraphs::TensorInfo> outputs =
      subgraphs::bounded_outputs(gen.build_with_own_schedule(), gen.outputs());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const subgraphs::TensorInfo& was = gen.outputs()[i];
    if (outputs[i].shape == was.shape && outputs[i].mins_or_zero() == was.mins_or_zero()) continue;
    w.moved += (w.moved.empty() ? "" : "; ") + outputs[i].name + " " + region_text(outputs[i]) + " (the workload: " +
               region_text(was) + ")";
  }
  if (w.moved.empty()) return w;
  const subgraphs::GeneratorSubgraph* source = &gen;
  auto factory = [source, outputs] {
    const subgraphs::BuiltPipeline built = source->build();
    estimate_outputs_at(built, outputs);
    return built.pipeline;
  };
  w.subgraph = std::make_unique<subgraphs::PipelineSubgraph>(
      gen.name(), factory, gen.ref().library, "generator " + gen.ref().generator + " at its own schedule's bounds",
      gen.scalar_values(), gen.given_input_ranges());
  return w;
}

}  // namespace ktune::bench
