#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(MutateVectorWidth, ReachesOtherWidthsAndOff) {
  const auto sg = testing::suite_subgraph("eltwise");
  const Space space(analyze(*sg, testing::test_target()));  // 8 lanes
  const Schedule base = space.heuristic();
  const auto seen = testing::reached_alternatives(*make_vector_width_mutator(), base, space, [](const Schedule& s) {
    const StageSchedule st = testing::stage_of(s, "y", 0);
    if (st.vectorize.empty()) return std::string("off");
    for (const LoopSplit& sp : st.splits) {
      if (sp.inner == st.vectorize) return std::to_string(sp.factor);
    }
    return std::string("whole loop");
  });
  EXPECT_EQ(seen, (std::set<std::string>{"4", "16", "32", "off"}));
}

TEST(MutateVectorWidth, StartsVectorizingAnInnermostPureLoop) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [4, 12]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "b"}], "outputs": ["b"]})");
  const Space space(analyze(*sg, testing::test_target()));
  const auto seen = testing::reached_alternatives(*make_vector_width_mutator(), space.naive(), space,
                                                  [](const Schedule& s) { return testing::stage_of(s, "b", 0).vectorize; });
  EXPECT_EQ(seen, std::set<std::string>{"x"});
}

}  // namespace
}  // namespace ktune::scheduler
