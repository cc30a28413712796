#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// "<vector_reduce> <its split factor>" of C_acc's update.
std::string vector_reduce_of(const Schedule& s) {
  const StageSchedule st = testing::stage_of(s, "C_acc", 1);
  std::string factor;
  for (const LoopSplit& sp : st.splits) {
    if (sp.inner == st.vector_reduce) factor = std::to_string(sp.factor);
  }
  return st.vector_reduce + " " + factor;
}

TEST(MutateVectorReduce, SplitsTheInnermostReductionBy2Or4InsideThePureVector) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.heuristic();
  ASSERT_EQ(vector_reduce_of(base), " ");
  const auto seen = testing::reached_alternatives(*make_vector_reduce_mutator(), base, space, vector_reduce_of);
  EXPECT_EQ(seen, (std::set<std::string>{"k_x_vr 2", "k_x_vr 4"}));
}

TEST(MutateVectorReduce, UndoesItWithThePureVectorInnermostAgain) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, testing::test_target()));
  Rng rng(5);
  std::optional<Schedule> with;
  for (int i = 0; i < 50 && !with; ++i) with = make_vector_reduce_mutator()->mutate(space.heuristic(), space, rng);
  ASSERT_TRUE(with);
  const auto seen = testing::reached_alternatives(*make_vector_reduce_mutator(), *with, space, vector_reduce_of, 50);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(*seen.begin(), " ");  // the split stays, its piece an ordinary loop again
  const StageSchedule undone = testing::stage_of(*make_vector_reduce_mutator()->mutate(*with, space, rng), "C_acc", 1);
  EXPECT_EQ(undone.order.front(), undone.vectorize);
}

}  // namespace
}  // namespace ktune::scheduler
