// The Halide source that apply() prints is real C++: 20 sampled schedules are compiled with
// the system compiler against Halide, applied to fresh pipelines of the same algorithm,
// and must give the same loop nest and the same output as apply() itself.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
  // The blur's heuristic runs in strips with bx as a sliding window (store_at).
  EXPECT_NE(cases[15].applied.source.find("bx.store_at(y, "), std::string::npos) << cases[15].applied.source;
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

// The transforms of library-class kernels, printed: a packed input (K transposed, at a loop
// of its host), reductions split with rfactor and computed beside their row (softmax), a
// column sum whose partial sums stream whole rows, several rows per pass, and a convolution's
// accumulator stored with the output channels innermost, vectorized along them.
TEST(ApplySource, PacksAndRFactorPlacementsPrintAsTheyApply) {
  struct Case {
    const char* spec;
    const char* schedule;
  };
  const Case written[] = {
      {R"({"name": "scores", "inputs": [{"name": "Q", "shape": [2, 8, 16]}, {"name": "K", "shape": [2, 24, 16]}],
           "ops": [{"op": "batch_matmul", "inputs": ["Q", "K"], "output": "S", "transpose_b": true}], "outputs": ["S"]})",
       R"({"funcs": [{"func": "S_acc", "compute": {"kind": "at", "consumer": "S", "consumer_stage": 0, "loop": "z"},
            "stages": [{"stage": 1, "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 8}],
                        "order": ["x_i", "y", "k$x", "x_o", "z"], "vectorize": "x_i"}]},
           {"func": "S", "compute": {"kind": "root"}, "stages": [{"stage": 0, "parallel": ["z"]}]}],
           "packs": [{"input": "K", "storage": ["y", "x", "z"], "compute": {"kind": "at", "consumer": "S", "consumer_stage": 0, "loop": "z"},
                      "vector_width": 8}]})"},
      {R"({"name": "sm", "inputs": [{"name": "x", "shape": [20, 48]}],
           "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})",
       R"({"funcs": [{"func": "y_max", "compute": {"kind": "at", "consumer": "y", "consumer_stage": 0, "loop": "y_o"},
            "stages": [{"stage": 1, "splits": [{"loop": "k$x", "outer": "k_x_o", "inner": "k_x_i", "factor": 8}],
                        "rfactor": {"loop": "k_x_i", "vectorize_u": true, "at_func": true}}]},
           {"func": "y_exp", "compute": {"kind": "at", "consumer": "y", "consumer_stage": 0, "loop": "y_o"}},
           {"func": "y_sum", "compute": {"kind": "at", "consumer": "y", "consumer_stage": 0, "loop": "y_o"},
            "stages": [{"stage": 1, "splits": [{"loop": "k$x", "outer": "k_x_o", "inner": "k_x_i", "factor": 8}],
                        "rfactor": {"loop": "k_x_i", "vectorize_u": true, "at_func": true}}]},
           {"func": "y", "compute": {"kind": "root"}, "stages": [{"stage": 0,
            "splits": [{"loop": "y", "outer": "y_o", "inner": "y_i", "factor": 4}], "order": ["x", "y_i", "y_o"], "parallel": ["y_o"]}]}]})"},
      {R"({"name": "cs", "inputs": [{"name": "m", "shape": [64, 40]}],
           "ops": [{"op": "reduce_sum", "inputs": ["m"], "output": "sums", "axes": [0]}], "outputs": ["sums"]})",
       R"({"funcs": [{"func": "sums_acc", "compute": {"kind": "root"},
            "stages": [{"stage": 1, "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 8},
                                               {"loop": "r$x", "outer": "r_x_t", "inner": "r_x_u", "factor": 4},
                                               {"loop": "r_x_t", "outer": "r_x_o", "inner": "r_x_m", "factor": 4}],
                        "rfactor": {"loop": "r_x_o", "pure_vector": 8}, "unroll": ["r_x_u"], "vectorize": "x_i"}]},
           {"func": "sums", "compute": {"kind": "root"}}]})"},
      {R"({"name": "cv", "inputs": [{"name": "x", "shape": [1, 4, 6, 6]}, {"name": "w", "shape": [8, 4, 3, 3]}],
           "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "conv", "layout": "NCHW", "padding": [1, 1]},
                   {"op": "relu", "inputs": ["conv"], "output": "y"}], "outputs": ["y"]})",
       R"({"funcs": [{"func": "conv_pad", "compute": {"kind": "root"}},
           {"func": "conv_acc", "compute": {"kind": "at", "consumer": "y", "consumer_stage": 0, "loop": "x_o"}, "storage": ["c", "x", "y", "n"],
            "stages": [{"stage": 1, "splits": [{"loop": "c", "outer": "c_o", "inner": "c_i", "factor": 8},
                                               {"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 3}],
                        "order": ["c_i", "x_i", "r$z", "r$y", "r$x", "c_o", "x_o", "y", "n"], "vectorize": "c_i", "unroll": ["x_i"]}]},
           {"func": "conv", "compute": {"kind": "inline"}},
           {"func": "y", "compute": {"kind": "root"}, "stages": [{"stage": 0,
            "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 3}], "order": ["c", "x_i", "x_o", "y", "n"], "vectorize": "c"}]}]})"},
  };
  struct Built {
    std::unique_ptr<subgraphs::SpecSubgraph> sg;
    std::unique_ptr<Space> space;
    ApplyResult applied;
  };
  std::vector<Built> cases;
  for (const Case& w : written) {
    Built b;
    b.sg = testing::spec_subgraph(w.spec);
    b.space = std::make_unique<Space>(analyze(*b.sg, testing::test_target()));
    const Schedule s = Schedule::from_json(nlohmann::json::parse(w.schedule), "test");
    ASSERT_EQ(b.space->validate(s).value_or(""), "") << w.schedule;
    b.applied = apply(s, *b.sg, b.space->analysis());
    ASSERT_TRUE(b.applied.ok) << b.applied.error;
    cases.push_back(std::move(b));
  }
  EXPECT_NE(cases.back().applied.source.find("conv_acc.reorder_storage(c, x, y_v, n);"), std::string::npos)
      << cases.back().applied.source;
  std::vector<testing::PrintedCase> printed_cases;
  for (const Built& c : cases) printed_cases.push_back({c.sg.get(), &c.space->analysis(), &c.applied});
  const std::vector<ApplyResult> printed = testing::apply_printed_sources(printed_cases, "ktune_printed_transforms");
  ASSERT_EQ(printed.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const Built& c = cases[i];
    EXPECT_EQ(testing::without_uniquifiers(loop_nest_text(printed[i])),
              testing::without_uniquifiers(loop_nest_text(c.applied)))
        << c.applied.source;
    const auto inputs = c.sg->make_inputs(6);
    const auto target = Halide::get_jit_target_from_environment();
    const auto a = subgraphs::run_pipeline(*c.applied.built, inputs, c.sg->inputs(), c.sg->outputs(), target);
    const auto b = subgraphs::run_pipeline(*printed[i].built, inputs, c.sg->inputs(), c.sg->outputs(), target);
    EXPECT_EQ(a[0].bytes, b[0].bytes);
    EXPECT_TRUE(subgraphs::compare_outputs(a, c.sg->reference(inputs)).passed()) << c.applied.source;
  }
}

}  // namespace
}  // namespace ktune::scheduler
