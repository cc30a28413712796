#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

std::string parallel_loops_of_blur_y(const Schedule& s) {
  std::string out;
  for (const std::string& p : testing::stage_of(s, "blur_y", 0).parallel) out += p + " ";
  return out;
}

TEST(MutateParallel, ReachesEveryGranularity) {
  const auto sg = testing::suite_subgraph("blur3x3");
  const Space space(analyze(*sg, testing::test_target()));
  Schedule base = space.heuristic();  // blur_y in strips: [x_i (vector), x_o, y_i, y_o], parallel y_o
  ASSERT_EQ(testing::stage_of(base, "blur_y", 0).parallel, std::vector<std::string>{"y_o"});
  FuncSchedule* blur_x = base.find("blur_x");
  ASSERT_NE(blur_x, nullptr);
  blur_x->compute = ComputeLocation{};  // at root: no producer inside blur_y's loops
  ASSERT_EQ(space.validate(base).value_or(""), "");
  const auto seen = testing::reached_alternatives(*make_parallel_mutator(), base, space, parallel_loops_of_blur_y);
  // "y_o " stays reachable: those draws changed blur_x, the other root stage.
  EXPECT_EQ(seen, (std::set<std::string>{"", "y_o ", "y_o y_i ", "y_o y_i x_o "}));
}

TEST(MutateParallel, NeverFusesTheLoopAProducerIsComputedAt) {
  const auto sg = testing::suite_subgraph("blur3x3");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.heuristic();  // blur_x a window: per row y_i, stored per strip y_o
  ASSERT_EQ(base.find("blur_x")->compute.loop, "y_i");
  ASSERT_EQ(base.find("blur_x")->compute.store_loop, "y_o");
  const auto seen = testing::reached_alternatives(*make_parallel_mutator(), base, space, parallel_loops_of_blur_y);
  EXPECT_EQ(seen, (std::set<std::string>{""}));
}

}  // namespace
}  // namespace ktune::scheduler
