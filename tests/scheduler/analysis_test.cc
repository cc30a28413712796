#include "scheduler/analysis.h"

#include <gtest/gtest.h>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using testing::suite_subgraph;
using testing::test_target;

TEST(Analysis, GemmFuncsLoopsAndDependences) {
  const auto sg = suite_subgraph("gemm_1024");
  const Analysis a = analyze(*sg, test_target());
  ASSERT_EQ(a.funcs.size(), 2u);
  EXPECT_EQ(a.funcs[0].name, "C_acc");
  EXPECT_EQ(a.funcs[1].name, "C");
  EXPECT_TRUE(a.funcs[1].is_output);
  EXPECT_EQ(a.funcs[0].extents, (std::vector<int64_t>{1024, 1024}));
  ASSERT_EQ(a.funcs[0].stages.size(), 2u);
  const StageAnalysis& update = a.funcs[0].stages[1];
  ASSERT_EQ(update.loops.size(), 3u);
  EXPECT_EQ(update.loops[0].name, "k$x");  // the reduction is innermost by default
  EXPECT_TRUE(update.loops[0].is_reduction);
  EXPECT_TRUE(update.loops[0].carries_dependence);
  EXPECT_FALSE(update.loops[1].carries_dependence);
  EXPECT_FALSE(update.loops[2].carries_dependence);
  EXPECT_TRUE(update.rfactor_ok);
  EXPECT_EQ(a.funcs[0].single_consumer(), 1);
  EXPECT_EQ(a.isl_status, "ok");
  // Access relations are affine: A(k, y) and B(x, k).
  int affine = 0;
  for (const ProducerUse& u : update.uses) affine += u.affine;
  EXPECT_EQ(affine, static_cast<int>(update.uses.size()));
}

TEST(Analysis, ConvPaddingIsAProducerOfTheReduction) {
  const auto sg = suite_subgraph("conv3x3_relu");
  const Analysis a = analyze(*sg, test_target());
  const FuncAnalysis* pad = a.find("conv_pad");
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(pad->extents, (std::vector<int64_t>{58, 58, 64, 1}));
  ASSERT_EQ(pad->consumers.size(), 1u);
  EXPECT_EQ(a.funcs[pad->consumers[0].first].name, "conv_acc");
  EXPECT_EQ(pad->consumers[0].second, 1);
  const StageAnalysis& update = a.find("conv_acc")->stages[1];
  int reductions = 0;
  for (const LoopAnalysis& l : update.loops) {
    reductions += l.is_reduction;
    EXPECT_EQ(l.carries_dependence, l.is_reduction) << l.name;
  }
  EXPECT_EQ(reductions, 3);
}

TEST(Analysis, SoftmaxStatisticsAndNonAssociativeUpdates) {
  const auto sg = suite_subgraph("softmax");
  const Analysis a = analyze(*sg, test_target());
  const FuncAnalysis* mx = a.find("y_max");
  ASSERT_NE(mx, nullptr);
  EXPECT_TRUE(mx->stages[1].rfactor_ok) << "max is associative";
  const FuncAnalysis* e = a.find("y_exp");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->consumers.size(), 2u) << "exp feeds the sum and the output";
  EXPECT_EQ(e->single_consumer(), -1);
}

TEST(Analysis, RowSumCarriesOnlyItsReductionLoop) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [6, 5]}],
    "ops": [{"op": "reduce_sum", "inputs": ["a"], "output": "s", "axes": [1]}], "outputs": ["s"]})");
  const Analysis a = analyze(*sg, test_target());
  const StageAnalysis& update = a.find("s_acc")->stages[1];
  EXPECT_TRUE(update.rfactor_ok);
  EXPECT_TRUE(update.find("r$x")->carries_dependence);
  EXPECT_FALSE(update.find("x")->carries_dependence);
}

}  // namespace
}  // namespace ktune::scheduler
