#include "subgraphs/own_schedule_check.h"

#include <chrono>
#include <cstdio>

#include "subgraphs/built_pipeline.h"
#include "subgraphs/output_bounds.h"
#include "targets/host_target.h"

namespace ktune::subgraphs {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// "input in [0, 65535]; alpha in [0, 1)": the data every input was seeded from.
std::string seeded_data_text(const Subgraph& sg) {
  std::string text;
  for (size_t i = 0; i < sg.inputs().size(); ++i) {
    const auto [lo, hi] = sg.input_range(i);
    char buf[160];
    std::snprintf(buf, sizeof(buf), "%s in [%.6g, %.6g%s", sg.inputs()[i].name.c_str(), lo, hi,
                  is_float(sg.inputs()[i].dtype) ? ")" : "]");
    text += (text.empty() ? "" : "; ") + std::string(buf);
  }
  return text;
}

// The outputs where the own schedule's bound() calls put them; the workload's outputs where
// a bound leaves them, or puts them beyond the workload (no reference there).
std::vector<TensorInfo> own_region(const BuiltPipeline& built, const std::vector<TensorInfo>& outputs) {
  std::vector<TensorInfo> region = bounded_outputs(built, outputs);
  for (size_t i = 0; i < region.size(); ++i) {
    if (!region_inside(region[i], outputs[i])) region[i] = outputs[i];
  }
  return region;
}

}  // namespace

CheckResult check_own_schedule(const GeneratorSubgraph& generator, uint64_t seed) {
  CheckResult result;
  const std::vector<Tensor> inputs = generator.make_inputs(seed);
  auto start = std::chrono::steady_clock::now();
  const std::vector<Tensor> want = generator.reference(inputs);
  result.reference_ms = ms_since(start);
  try {
    const BuiltPipeline built = generator.build_with_own_schedule();
    const Halide::Target target(targets::jit_halide_target());
    start = std::chrono::steady_clock::now();
    Halide::Pipeline pipeline = built.pipeline;
    pipeline.compile_jit(target);
    result.compile_ms = ms_since(start);
    // Where its own bound() calls put the outputs (whole strips of the buffer, say), as the
    // Generator's own program runs it; compared there with the same reference.
    const std::vector<TensorInfo> region = own_region(built, generator.outputs());
    start = std::chrono::steady_clock::now();
    const std::vector<Tensor> got = run_pipeline(built, inputs, generator.inputs(), region, target);
    result.run_ms = ms_since(start);
    std::vector<Tensor> want_there;
    for (size_t i = 0; i < want.size(); ++i) want_there.push_back(crop_tensor(want[i], generator.outputs()[i], region[i]));
    result.comparison = compare_outputs(got, want_there, region);
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

CheckResult check_own_schedule_isolated(const GeneratorSubgraph& generator, uint64_t seed, double timeout_ms) {
  return check_isolated([&] { return check_own_schedule(generator, seed); }, timeout_ms);
}

std::string own_schedule_gate_warning(const GeneratorSubgraph& generator, const CheckResult& result) {
  if (!result.error.empty() || result.passed()) return "";
  return own_schedule_gate_warning(generator, result.comparison.describe());
}

std::string own_schedule_gate_warning(const Subgraph& generator, const std::string& failure) {
  return "WARNING: the Generator's own schedule of " + generator.name() + " fails the correctness gate (" + failure +
         "). The author's schedule is taken to be right: the gate or the seeded data is wrong, not the schedule, "
         "and every schedule ktune measures is judged the same way. Seeded data: " + seeded_data_text(generator) +
         ". Give the range the pipeline is written for with --input-range NAME=LO,HI (KTUNE_INPUTS=NAME=LO:HI for "
         "the plugin); docs/generators.md says what the gate tolerates.";
}

}  // namespace ktune::subgraphs
