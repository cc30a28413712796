#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(MutateUnroll, TogglesEverySmallSplitPiece) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.heuristic();
  auto unrolled = [](const Schedule& s) {
    std::string out;
    for (const FuncSchedule& f : s.funcs) {
      for (const StageSchedule& st : f.stages) {
        for (const std::string& u : st.unroll) out += f.func + "." + std::to_string(st.stage) + "." + u + " ";
      }
    }
    return out;
  };
  ASSERT_EQ(unrolled(base), "C_acc.1.y_i ");
  const auto seen = testing::reached_alternatives(*make_unroll_mutator(), base, space, unrolled);
  // Turn the update's unroll off, or also unroll the init's 8-row piece or the copy's 16
  // vectors across a tile (its 32 rows are too many to unroll).
  EXPECT_EQ(seen, (std::set<std::string>{"", "C_acc.0.y_i C_acc.1.y_i ", "C_acc.1.y_i C.0.x_m "}));
}

}  // namespace
}  // namespace ktune::scheduler
