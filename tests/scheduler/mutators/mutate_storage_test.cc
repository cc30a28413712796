#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// A small NCHW convolution whose accumulator is stored with the output channels innermost
// and vectorized along them, a tile of 5 columns x 2 vectors of channels held in registers;
// the output is written a vector of channels at a time.
const char* kConvSpec = R"({"inputs": [{"name": "x", "shape": [1, 8, 10, 10]}, {"name": "w", "shape": [16, 8, 3, 3]},
                                       {"name": "b", "shape": [16]}],
  "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "conv", "layout": "NCHW", "padding": [1, 1]},
          {"op": "bias_add", "inputs": ["conv", "b"], "output": "biased", "axis": 1},
          {"op": "relu", "inputs": ["biased"], "output": "y"}], "outputs": ["y"]})";

const char* kChannelsInnermost = R"({"funcs": [
  {"func": "conv_pad", "compute": {"kind": "root"}},
  {"func": "conv_acc", "compute": {"kind": "at", "consumer": "y", "consumer_stage": 0, "loop": "c_o"}, "storage": ["c", "x", "y", "n"],
   "stages": [{"stage": 0, "splits": [{"loop": "c", "outer": "c_o", "inner": "c_i", "factor": 8}], "order": ["c_i", "c_o", "x", "y", "n"], "vectorize": "c_i"},
              {"stage": 1, "splits": [{"loop": "c", "outer": "c_o", "inner": "c_i", "factor": 8}, {"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 5}],
               "order": ["c_i", "c_o", "x_i", "r$z", "r$y", "r$x", "x_o", "y", "n"], "vectorize": "c_i", "unroll": ["c_o", "x_i"]}]},
  {"func": "conv", "compute": {"kind": "inline"}},
  {"func": "biased", "compute": {"kind": "inline"}},
  {"func": "y", "compute": {"kind": "root"}, "stages": [{"stage": 0,
    "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 5}, {"loop": "c", "outer": "c_t", "inner": "c_i", "factor": 8},
               {"loop": "c_t", "outer": "c_o", "inner": "c_m", "factor": 2}],
    "order": ["c_i", "x_i", "c_m", "c_o", "x_o", "y", "n"], "parallel": ["n", "y"], "vectorize": "c_i"}]}],
 "packs": [{"input": "w", "storage": ["w", "x", "y", "z"], "compute": {"kind": "root"}, "vector_width": 8, "parallel": true}]})";

// Each stored Func's innermost stored variable: "conv_acc:c conv_pad:x".
std::string innermost_stored(const Schedule& s, const Analysis& a) {
  std::string out;
  for (const FuncSchedule& fs : s.funcs) {
    if (fs.compute.kind == ComputeLocation::Kind::kInline || a.find(fs.func)->is_output) continue;
    out += (out.empty() ? "" : " ") + fs.func + ":" + (fs.storage.empty() ? a.find(fs.func)->args[0] : fs.storage[0]);
  }
  return out;
}

TEST(MutateStorage, TheAccumulatorStoredChannelsInnermostComputesRight) {
  const auto sg = testing::spec_subgraph(kConvSpec);
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule s = Schedule::from_json(nlohmann::json::parse(kChannelsInnermost), "test");
  ASSERT_EQ(space.validate(s).value_or(""), "");
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

TEST(MutateStorage, ReachesEveryOtherInnermostVariableAndTheDefinitionsOrder) {
  const auto sg = testing::spec_subgraph(kConvSpec);
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  const Schedule base = Schedule::from_json(nlohmann::json::parse(kChannelsInnermost), "test");
  const auto describe = [&](const Schedule& s) { return innermost_stored(s, a); };
  ASSERT_EQ(describe(base), "conv_pad:x conv_acc:c");
  // One Func changes at a time; the output y never has a storage order.
  EXPECT_EQ(testing::reached_alternatives(*make_storage_mutator(), base, space, describe),
            (std::set<std::string>{"conv_pad:x conv_acc:x", "conv_pad:x conv_acc:y", "conv_pad:x conv_acc:n",
                                   "conv_pad:y conv_acc:c", "conv_pad:c conv_acc:c", "conv_pad:n conv_acc:c"}));
  // Back to the definition's order is no storage entry at all.
  Rng rng(4);
  for (int i = 0; i < 50; ++i) {
    const auto m = make_storage_mutator()->mutate(base, space, rng);
    ASSERT_TRUE(m.has_value());
    if (describe(*m) == "conv_pad:x conv_acc:x") {
      EXPECT_TRUE(m->find("conv_acc")->storage.empty());
    }
  }
  // A mutant runs right too (the padded input stored channels innermost).
  Schedule mutant = base;
  mutant.find("conv_pad")->storage = {"c", "x", "y", "n"};
  ASSERT_EQ(space.validate(mutant).value_or(""), "");
  const auto inputs = sg->make_inputs(4);
  EXPECT_EQ(testing::run_and_compare(*sg, a, mutant, inputs, sg->reference(inputs)), "");
}

TEST(MutateStorage, InliningAFuncDropsItsStorageOrder) {
  const auto sg = testing::spec_subgraph(testing::kTwoPointwiseSpec);
  const Space space(analyze(*sg, testing::test_target()));
  Schedule s = space.naive();
  s.find("r")->storage = {"y", "x"};
  const auto inlined = testing::reached_alternatives(*make_inline_mutator(), s, space, [](const Schedule& m) {
    return std::string(to_string(m.find("r")->compute.kind)) + (m.find("r")->storage.empty() ? "" : " stored y,x");
  });
  EXPECT_EQ(inlined, std::set<std::string>{"inline"});
}

}  // namespace
}  // namespace ktune::scheduler
