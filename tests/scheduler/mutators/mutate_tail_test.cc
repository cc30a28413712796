#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(MutateTail, ReachesEveryAllowedTailOfTheOutput) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [6, 20]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "y"}], "outputs": ["y"]})");
  const Space space(analyze(*sg, testing::test_target()));
  Schedule base = space.naive();
  StageSchedule st;
  st.splits = {{"x", "x_o", "x_i", 8}};
  st.order = {"x_i", "x_o", "y"};
  st.vectorize = "x_i";
  base.find("y")->stages = {st};
  const auto tail_of = [](const Schedule& s) { return std::string(to_string(s.find("y")->stages[0].splits[0].tail)); };
  // The output cannot round up (it would write past itself): only shift_inwards, and back.
  EXPECT_EQ(testing::reached_alternatives(*make_tail_mutator(), base, space, tail_of), std::set<std::string>{"shift_inwards"});
  Rng rng(1);
  const auto shifted = make_tail_mutator()->mutate(base, space, rng);
  ASSERT_TRUE(shifted.has_value());
  EXPECT_EQ(testing::reached_alternatives(*make_tail_mutator(), *shifted, space, tail_of), std::set<std::string>{"guard"});
  const auto inputs = sg->make_inputs(1);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), *shifted, inputs, sg->reference(inputs)), "");
}

}  // namespace
}  // namespace ktune::scheduler
