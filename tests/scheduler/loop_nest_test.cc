// Tests scheduler/loop_nest.cc: the loops of a stage after its splits, and which split pieces
// are reduction loops.
#include "scheduler/loop_nest.h"

#include <gtest/gtest.h>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(LoopNest, SplitPiecesOfAReductionLoopAreReductionLoops) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "A", "shape": [16, 32]}, {"name": "B", "shape": [32, 24]}],
    "ops": [{"op": "matmul", "inputs": ["A", "B"], "output": "C"}], "outputs": ["C"]})");
  const Analysis a = analyze(*sg, testing::test_target());
  const StageAnalysis& update = a.find("C_acc")->stages[1];
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"k$x", "k_x_t", "k_x_i", 4}, {"k_x_t", "k_x_o", "k_x_m", 2}, {"x", "x_o", "x_i", 8}};
  EXPECT_TRUE(splits_reduction(update, st, st.splits[0]));
  EXPECT_TRUE(splits_reduction(update, st, st.splits[1])) << "k_x_t comes from k$x";
  EXPECT_FALSE(splits_reduction(update, st, st.splits[2]));
  LoopSplit unknown{"z_t", "z_o", "z_i", 2};
  EXPECT_FALSE(splits_reduction(update, st, unknown)) << "a loop the stage does not have";
  std::string error;
  const auto nest = build_loop_nest(update, st, &error);
  ASSERT_TRUE(nest.has_value()) << error;
  EXPECT_TRUE(nest->find("k_x_m")->is_reduction);
  EXPECT_FALSE(nest->find("x_i")->is_reduction);
}

}  // namespace
}  // namespace ktune::scheduler
