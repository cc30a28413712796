#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(MutateParallel, ReachesEveryGranularity) {
  const auto sg = testing::suite_subgraph("blur3x3");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.heuristic();  // blur_y: [x_i (vector), y_i, x_o, y_o], parallel y_o
  ASSERT_EQ(testing::stage_of(base, "blur_y", 0).parallel, std::vector<std::string>{"y_o"});
  const auto seen = testing::reached_alternatives(*make_parallel_mutator(), base, space, [](const Schedule& s) {
    std::string out;
    for (const std::string& p : testing::stage_of(s, "blur_y", 0).parallel) out += p + " ";
    return out;
  });
  EXPECT_EQ(seen, (std::set<std::string>{"", "y_o x_o ", "y_o x_o y_i "}));
}

}  // namespace
}  // namespace ktune::scheduler
