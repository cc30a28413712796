// Scans stored transposed in strips of one vector of rows (scheduler/scan_strips.h): the
// heuristic of a forward-backward filter along rows, which it runs and checks for real, and
// the schedules the pass leaves alone.
#include "scheduler/scan_strips.h"

#include <gtest/gtest.h>

#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

class ScanStripsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sg_ = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_recursive_filter",
                                             {{"width", "96"}, {"height", "64"}});
    space_ = std::make_unique<Space>(analyze(*sg_, testing::test_target()));
  }
  std::unique_ptr<subgraphs::GeneratorSubgraph> sg_;
  std::unique_ptr<Space> space_;
};

TEST_F(ScanStripsTest, BothScansAreStoredWithTheirRowsInnermostAndFilledByVectorsOfRows) {
  const Schedule h = space_->heuristic();
  for (const char* name : {"causal", "anticausal"}) {
    const FuncSchedule* scan = h.find(name);
    ASSERT_NE(scan, nullptr) << name;
    ASSERT_EQ(scan->compute.kind, ComputeLocation::Kind::kAt) << name;
    EXPECT_EQ(scan->storage, (std::vector<std::string>{"y", "x"})) << name;
    const StageSchedule pure = scan->stage_or_empty(0);
    EXPECT_EQ(pure.vectorize, "y_i") << name;
    EXPECT_EQ(pure.order, (std::vector<std::string>{"y_i", "x", "y_o"})) << name;
    ASSERT_EQ(pure.splits.size(), 1u) << name;
    EXPECT_EQ(pure.splits[0].factor, scan->stage_or_empty(1).splits.at(0).factor) << name;
  }
}

TEST_F(ScanStripsTest, AStripHoldsOneVectorOfRows) {
  const Schedule h = space_->heuristic();
  const FuncSchedule* scan = h.find("causal");
  const FuncSchedule* output = h.find("output");
  ASSERT_NE(scan, nullptr);
  ASSERT_NE(output, nullptr);
  const int64_t lanes = scan->stage_or_empty(1).splits.at(0).factor;
  bool found = false;
  for (const LoopSplit& s : output->stage_or_empty(0).splits) {
    if (s.outer != scan->compute.loop) continue;
    EXPECT_EQ(s.factor, lanes);
    found = true;
  }
  EXPECT_TRUE(found) << h.to_json().dump();
}

TEST_F(ScanStripsTest, TheTransposedHeuristicValidatesAndComputesTheReference) {
  const Schedule h = space_->heuristic();
  EXPECT_EQ(space_->validate(h).value_or(""), "");
  const auto inputs = sg_->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg_, space_->analysis(), h, inputs, sg_->reference(inputs)), "");
}

TEST_F(ScanStripsTest, RunningItAgainChangesNothing) {
  Schedule h = space_->heuristic();
  const Schedule before = h;
  EXPECT_FALSE(transpose_strip_scans(space_->analysis(), h));
  EXPECT_EQ(h, before);
}

TEST(ScanStrips, AScanAlongColumnsKeepsItsLayout) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_two_scans",
                                                     {{"width", "64"}, {"height", "48"}});
  const Space space(analyze(*sg, testing::test_target()));
  Schedule h = space.heuristic();
  const Schedule before = h;
  EXPECT_FALSE(transpose_strip_scans(space.analysis(), h));
  EXPECT_EQ(h, before);
  for (const FuncSchedule& f : h.funcs) EXPECT_TRUE(f.storage.empty()) << f.func;
}

}  // namespace
}  // namespace ktune::scheduler
