#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

std::string rfactor_of(const Schedule& s) {
  const StageSchedule st = testing::stage_of(s, "total_acc", 1);
  if (!st.rfactor) return "none";
  return st.rfactor->vectorize_u ? "vectorized " + st.rfactor->loop : "parallel " + st.rfactor->loop;
}

TEST(MutateRFactor, AddsBothKindsAndRemoves) {
  // A full reduction: one output, nothing to run in parallel without rfactor.
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [4096]}],
    "ops": [{"op": "reduce_sum", "inputs": ["a"], "output": "total"}], "outputs": ["total"]})");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.naive();
  const auto m = make_rfactor_mutator();
  const auto seen = testing::reached_alternatives(*m, base, space, rfactor_of);
  EXPECT_EQ(seen, (std::set<std::string>{"parallel r_x_o", "vectorized r_x_i"}));
  Rng rng(8);
  const auto with = m->mutate(base, space, rng);
  ASSERT_TRUE(with.has_value());
  EXPECT_EQ(testing::reached_alternatives(*m, *with, space, rfactor_of), std::set<std::string>{"none"});
  // Both kinds compute the right sum.
  const auto inputs = sg->make_inputs(4);
  const auto want = sg->reference(inputs);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), *with, inputs, want), "") << with->to_json().dump();
}

}  // namespace
}  // namespace ktune::scheduler
