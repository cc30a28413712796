// Tests scheduler/stage_template.cc: the stage schedule make_stage builds from a few numbers
// (never racing along a loop that carries a dependence), and a reduction loop moved innermost
// among the reductions.
#include "scheduler/stage_template.h"

#include <gtest/gtest.h>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

StageAnalysis relu_stage(const std::string& shape) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": )" + shape + R"(}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "y"}], "outputs": ["y"]})");
  return analyze(*sg, testing::test_target()).find("y")->stages[0];
}

TEST(StageTemplate, TheVectorAndTheSecondTileAreSplitInsideTheOuterLoops) {
  const StageAnalysis stage = relu_stage("[40, 64]");
  TilingChoice c;
  c.vector_width = 8;
  c.second_tile = 4;
  const StageSchedule st = make_stage(stage, c);
  ASSERT_EQ(st.splits.size(), 2u);
  EXPECT_EQ(st.splits[0], (LoopSplit{"x", "x_o", "x_i", 8}));
  EXPECT_EQ(st.splits[1], (LoopSplit{"y", "y_o", "y_i", 4}));
  EXPECT_EQ(st.order, (std::vector<std::string>{"x_i", "y_i", "x_o", "y_o"}));
  EXPECT_EQ(st.vectorize, "x_i");
  EXPECT_TRUE(st.parallel.empty());
}

// A loop that carries a dependence (a scan along it) is neither vectorized nor run in
// parallel, whatever the choice asks: the stage stays valid.
TEST(StageTemplate, ALoopThatCarriesADependenceIsNeitherVectorizedNorParallel) {
  StageAnalysis stage = relu_stage("[40, 64]");
  TilingChoice c;
  c.vector_width = 8;
  c.parallel_loops = 1;
  stage.loops[0].carries_dependence = true;  // x, the innermost
  StageSchedule st = make_stage(stage, c);
  EXPECT_EQ(st.vectorize, "");
  EXPECT_EQ(st.parallel, std::vector<std::string>{"y"});
  stage.loops[0].carries_dependence = false;
  stage.loops[1].carries_dependence = true;  // y, the outermost
  st = make_stage(stage, c);
  EXPECT_EQ(st.vectorize, "x_i");
  EXPECT_TRUE(st.parallel.empty());
}

// A batch of one image is no parallelism: an outermost loop of one iteration alone is fused
// with the next loop in.
TEST(StageTemplate, AnOuterLoopOfOneIterationIsNotParallelAlone) {
  TilingChoice c;
  c.vector_width = 8;
  c.parallel_loops = 1;
  const StageAnalysis one = relu_stage("[1, 6, 10, 16]");
  const std::string n = one.pure_loop(3)->name, ch = one.pure_loop(2)->name;
  EXPECT_EQ(make_stage(one, c).parallel, (std::vector<std::string>{n, ch}));
  const StageAnalysis two = relu_stage("[2, 6, 10, 16]");
  EXPECT_EQ(make_stage(two, c).parallel, std::vector<std::string>{n});
  c.parallel_loops = 2;
  EXPECT_EQ(make_stage(one, c).parallel, (std::vector<std::string>{n, ch}));
  EXPECT_EQ(make_stage(two, c).parallel, (std::vector<std::string>{n, ch}));
}

// A reduction loop moves innermost among the reduction loops, the others keep their order
// behind it; a loop the order lacks (split into pieces) changes nothing.
TEST(StageTemplate, AReductionLoopMovesInnermostAmongTheReductions) {
  const StageAnalysis update = analyze(*testing::suite_subgraph("conv3x3_relu"), testing::test_target()).find("conv_acc")->stages[1];
  StageSchedule st;
  st.order = {"c", "x", "r$z", "r$y", "r$x", "y", "n"};
  move_innermost_among_reductions(update, "r$x", st);
  EXPECT_EQ(st.order, (std::vector<std::string>{"c", "x", "r$x", "r$z", "r$y", "y", "n"}));
  move_innermost_among_reductions(update, "r$x", st);
  EXPECT_EQ(st.order, (std::vector<std::string>{"c", "x", "r$x", "r$z", "r$y", "y", "n"})) << "innermost already";
  st.order = {"c", "x", "r_x_i", "r$z", "r_x_o", "y", "n"};
  move_innermost_among_reductions(update, "r$x", st);
  EXPECT_EQ(st.order, (std::vector<std::string>{"c", "x", "r_x_i", "r$z", "r_x_o", "y", "n"}));
}

}  // namespace
}  // namespace ktune::scheduler
