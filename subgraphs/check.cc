#include "subgraphs/check.h"

#include <chrono>

#include "subgraphs/built_pipeline.h"

namespace ktune::subgraphs {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CheckResult check_subgraph(const Subgraph& subgraph, uint64_t seed) {
  CheckResult result;
  const std::vector<Tensor> inputs = subgraph.make_inputs(seed);
  auto start = std::chrono::steady_clock::now();
  const std::vector<Tensor> want = subgraph.reference(inputs);
  result.reference_ms = ms_since(start);
  try {
    const BuiltPipeline built = subgraph.build();
    apply_trivial_schedule(built);
    const Halide::Target target = Halide::get_jit_target_from_environment();
    start = std::chrono::steady_clock::now();
    Halide::Pipeline pipeline = built.pipeline;
    pipeline.compile_jit(target);
    result.compile_ms = ms_since(start);
    start = std::chrono::steady_clock::now();
    const std::vector<Tensor> got = run_pipeline(built, inputs, subgraph.outputs(), target);
    result.run_ms = ms_since(start);
    result.comparison = compare_outputs(got, want);
  } catch (const Halide::Error& e) {
    result.error = e.what();
  }
  return result;
}

}  // namespace ktune::subgraphs
