// scheduler/vector_reduce.h: the split that makes a reduction piece vectorizable inside
// the pure vector, and the factor that gives a dot-product instruction on a target.
#include "scheduler/vector_reduce.h"

#include <gtest/gtest.h>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

class VectorReduceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sg_ = testing::suite_subgraph("gemm_1024");
    space_ = std::make_unique<Space>(analyze(*sg_, testing::test_target()));
  }
  const StageAnalysis& update() const { return space_->analysis().find("C_acc")->stages[1]; }
  LoopNest nest_of(const StageSchedule& st) const {
    std::string error;
    return *build_loop_nest(update(), st, &error);
  }
  std::unique_ptr<subgraphs::SpecSubgraph> sg_;
  std::unique_ptr<Space> space_;
};

TEST_F(VectorReduceTest, SplitsAnUnsplitReductionLoop) {
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"x", "x_o", "x_i", 16}};
  st.order = {"x_i", "y", "k$x", "x_o"};
  st.vectorize = "x_i";
  ASSERT_TRUE(add_vector_reduce(st, nest_of(st), 4));
  EXPECT_EQ(st.vector_reduce, "k_x_vr");
  EXPECT_EQ(st.splits.back(), (LoopSplit{"k$x", "k_x_vo", "k_x_vr", 4}));
  EXPECT_EQ(st.order, (std::vector<std::string>{"k_x_vr", "x_i", "y", "k_x_vo", "x_o"}));
  EXPECT_EQ(space_->validate([&] {
              Schedule s = space_->naive();
              s.find("C_acc")->stages = {st};
              return s;
            }()).value_or(""),
            "");
}

TEST_F(VectorReduceTest, AnInnerPieceIsReachedThroughItsParentSplit) {
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"x", "x_o", "x_i", 16}, {"k$x", "k_x_o", "k_x_i", 128}};
  st.order = {"x_i", "k_x_i", "x_o", "y", "k_x_o"};
  st.vectorize = "x_i";
  ASSERT_TRUE(add_vector_reduce(st, nest_of(st), 4));
  // k$x by 4 first, then its outer piece by 128 / 4: k_x_i keeps covering 128 values of k.
  EXPECT_EQ(st.splits[1], (LoopSplit{"k$x", "k_x_vo", "k_x_vr", 4}));
  EXPECT_EQ(st.splits[2], (LoopSplit{"k_x_vo", "k_x_o", "k_x_i", 32}));
  EXPECT_EQ(st.order, (std::vector<std::string>{"k_x_vr", "x_i", "k_x_i", "x_o", "y", "k_x_o"}));
  StageSchedule odd = st;
  odd.splits = {{"x", "x_o", "x_i", 16}, {"k$x", "k_x_o", "k_x_i", 6}};
  odd.order = {"x_i", "k_x_i", "x_o", "y", "k_x_o"};
  odd.vector_reduce.clear();
  EXPECT_FALSE(add_vector_reduce(odd, nest_of(odd), 4));  // 4 does not divide 6
}

TEST_F(VectorReduceTest, DotProductsNeedEightBitOperandsAndVnni) {
  const auto q = testing::spec_subgraph(R"({"name": "q", "inputs": [{"name": "a", "shape": [8, 64], "dtype": "u8"},
    {"name": "b", "shape": [64, 32], "dtype": "i8"}], "ops": [{"op": "matmul", "inputs": ["a", "b"], "output": "c"}],
    "outputs": ["c"]})");
  TargetInfo spr = testing::test_target();
  spr.halide_target = "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41";
  const Analysis a = analyze(*q, spr);
  const FuncAnalysis& acc = *a.find("c_acc");
  EXPECT_EQ(dot_product_factor(acc, acc.stages[1], spr), 4);
  EXPECT_EQ(dot_product_factor(acc, acc.stages[0], spr), 0);  // the initialization
  EXPECT_EQ(dot_product_factor(acc, acc.stages[1], testing::test_target()), 0);  // no VNNI
  const FuncAnalysis& f32 = *space_->analysis().find("C_acc");
  EXPECT_EQ(dot_product_factor(f32, f32.stages[1], spr), 0);  // f32 operands
}

TEST_F(VectorReduceTest, Bf16DotProductsTakePairsAndF16None) {
  TargetInfo spr = testing::test_target();
  spr.halide_target = "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41";
  const auto factor_of = [&](const std::string& dtype) {
    const auto q = testing::spec_subgraph(R"({"name": "q", "inputs": [{"name": "a", "shape": [8, 64], "dtype": ")" +
                                          dtype + R"("}, {"name": "b", "shape": [64, 32], "dtype": ")" + dtype +
                                          R"("}], "ops": [{"op": "matmul", "inputs": ["a", "b"], "output": "c"}],
                                          "outputs": ["c"]})");
    const Analysis a = analyze(*q, spr);
    for (const FuncAnalysis& f : a.funcs) {
      if (f.stages.size() > 1) return dot_product_factor(f, f.stages[1], spr);
    }
    return int64_t{-1};
  };
  EXPECT_EQ(factor_of("bf16"), 2);
  EXPECT_EQ(factor_of("f16"), 0);
}

}  // namespace
}  // namespace ktune::scheduler
