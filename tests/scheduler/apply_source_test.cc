// The Halide source that apply() prints is real C++: 20 sampled schedules are compiled with
// the system compiler against Halide, applied to fresh pipelines of the same algorithm,
// and must give the same loop nest and the same output as apply() itself.
#include <gtest/gtest.h>

#include "tests/scheduler/printed_schedules.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

const char* kSpecs[] = {
    R"({"name": "mlp", "inputs": [{"name": "x", "shape": [24, 40]}, {"name": "w", "shape": [40, 36]}, {"name": "b", "shape": [36]}],
        "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "h"}, {"op": "bias_add", "inputs": ["h", "b"], "output": "hb"},
                {"op": "gelu", "inputs": ["hb"], "output": "y"}], "outputs": ["y"]})",
    R"({"name": "sm", "inputs": [{"name": "x", "shape": [20, 48]}],
        "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})",
    R"({"name": "cv", "inputs": [{"name": "x", "shape": [1, 4, 18, 18]}, {"name": "w", "shape": [8, 4, 3, 3]}],
        "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "c", "padding": 1}, {"op": "relu", "inputs": ["c"], "output": "y"}],
        "outputs": ["y"]})",
    R"({"name": "bl", "inputs": [{"name": "i", "shape": [34, 66]}],
        "ops": [{"op": "stencil", "inputs": ["i"], "output": "bx", "axes": [1], "weights": [1, 2, 1], "divisor": 4},
                {"op": "stencil", "inputs": ["bx"], "output": "y", "axes": [0], "weights": [1, 2, 1], "divisor": 4}],
        "outputs": ["y"]})",
};
constexpr int kPerSpec = 5;

TEST(ApplySource, PrintedSourceCompilesAndMatchesApply) {
  struct Case {
    std::unique_ptr<subgraphs::SpecSubgraph> sg;
    std::unique_ptr<Space> space;
    Schedule schedule;
    ApplyResult applied;
  };
  std::vector<Case> cases;
  Rng rng(77);
  for (const char* spec : kSpecs) {
    for (int i = 0; i < kPerSpec; ++i) {
      Case c;
      c.sg = testing::spec_subgraph(spec);
      c.space = std::make_unique<Space>(analyze(*c.sg, testing::test_target()));
      c.schedule = i == 0 ? c.space->heuristic() : *c.space->sample(rng);
      c.applied = apply(c.schedule, *c.sg, c.space->analysis());
      ASSERT_TRUE(c.applied.ok) << c.applied.error;
      cases.push_back(std::move(c));
    }
  }
  ASSERT_GE(cases.size(), 20u);
  std::vector<testing::PrintedCase> printed_cases;
  for (const Case& c : cases) printed_cases.push_back({c.sg.get(), &c.space->analysis(), &c.applied});
  const std::vector<ApplyResult> printed = testing::apply_printed_sources(printed_cases, "ktune_printed_schedules");
  ASSERT_EQ(printed.size(), cases.size());

  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    EXPECT_EQ(testing::without_uniquifiers(loop_nest_text(printed[i])),
              testing::without_uniquifiers(loop_nest_text(c.applied)))
        << c.applied.source;
    const auto inputs = c.sg->make_inputs(5);
    const auto target = Halide::get_jit_target_from_environment();
    const auto a = subgraphs::run_pipeline(*c.applied.built, inputs, c.sg->inputs(), c.sg->outputs(), target);
    const auto b = subgraphs::run_pipeline(*printed[i].built, inputs, c.sg->inputs(), c.sg->outputs(), target);
    EXPECT_EQ(a[0].bytes, b[0].bytes) << "same schedule, same code: outputs must be identical";
    EXPECT_TRUE(subgraphs::compare_outputs(a, c.sg->reference(inputs)).passed());
  }
}

}  // namespace
}  // namespace ktune::scheduler
