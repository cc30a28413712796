// Walks of a strip's rows (scheduler/strip_row_walks.h): the ratio of a lower-resolution
// window, and a walk split that moves the windows and widens their folds, or changes nothing.
#include "scheduler/strip_row_walks.h"

#include <gtest/gtest.h>

#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

FuncAnalysis rows_high(int64_t rows) {
  FuncAnalysis f;
  f.extents = {64, rows};
  return f;
}

TEST(VerticalRatio, IsTheWholeRatioOfTheHostsRowsToTheWindows) {
  EXPECT_EQ(vertical_ratio(rows_high(986), rows_high(1968)), 2);  // Bayer planes with a halo
  EXPECT_EQ(vertical_ratio(rows_high(1972), rows_high(1968)), 1);
  EXPECT_EQ(vertical_ratio(rows_high(0), rows_high(1968)), 1);
}

class WalkRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sg_ = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_stencil_chain",
                                             {{"width", "128"}, {"height", "96"}});
    space_ = std::make_unique<Space>(analyze(*sg_, testing::test_target()));
    schedule_ = space_->heuristic();
    leader_ = space_->analysis().index_of("output");
    row_ = schedule_.funcs[leader_].stages.front().splits[1].inner;
  }
  std::unique_ptr<subgraphs::GeneratorSubgraph> sg_;
  std::unique_ptr<Space> space_;
  Schedule schedule_;
  int leader_ = -1;
  std::string row_;
};

TEST_F(WalkRowsTest, APairOfRowsHostsTheWindowsWithFoldsForBoth) {
  ASSERT_GE(leader_, 0);
  EXPECT_EQ(rows_per_walk(space_->analysis(), schedule_, leader_, row_), 1) << "one resolution";
  Schedule walked = schedule_;
  const std::string walk = walk_rows(space_->analysis(), walked, leader_, row_, 2);
  ASSERT_NE(walk, row_);
  EXPECT_EQ(walked.funcs[leader_].stages.front().splits.back().factor, 2);
  int moved = 0;
  for (size_t f = 0; f < walked.funcs.size(); ++f) {
    const ComputeLocation& before = schedule_.funcs[f].compute;
    const ComputeLocation& after = walked.funcs[f].compute;
    if (!before.sliding() || before.consumer != "output" || before.loop != row_) continue;
    EXPECT_EQ(after.loop, walk) << walked.funcs[f].func;
    EXPECT_GE(after.fold_rows, before.fold_rows) << walked.funcs[f].func;
    ++moved;
  }
  EXPECT_GT(moved, 0);
  EXPECT_EQ(space_->validate(walked).value_or(""), "");
  const auto inputs = sg_->make_inputs(5);
  EXPECT_EQ(testing::run_and_compare(*sg_, space_->analysis(), walked, inputs, sg_->reference(inputs)), "");
}

TEST_F(WalkRowsTest, NoWalkWhereTheStripsHoldNoWholeWalks) {
  ASSERT_GE(leader_, 0);
  const int64_t strip_rows = schedule_.funcs[leader_].stages.front().splits[1].factor;
  ASSERT_NE(strip_rows % 3, 0);
  Schedule s = schedule_;
  EXPECT_EQ(walk_rows(space_->analysis(), s, leader_, row_, 3), row_);
  EXPECT_EQ(walk_rows(space_->analysis(), s, leader_, row_, 1), row_);
  EXPECT_EQ(s, schedule_);
}

}  // namespace
}  // namespace ktune::scheduler
