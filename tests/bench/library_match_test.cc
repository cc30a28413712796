// Tests of bench/library_match.cc on the shapes of the public suite's subgraphs.
#include "bench/library_match.h"

#include <gtest/gtest.h>

#include "subgraphs/spec.h"

namespace ktune::bench {
namespace {

PlanMatch match(const std::string& text) { return match_library_plan(subgraphs::parse_spec_text(text, "<test>")); }

TEST(LibraryMatch, MatmulWithBiasAndGelu) {
  const PlanMatch m = match(R"({"name": "mlp", "inputs": [{"name": "x", "shape": [8, 16]}, {"name": "w", "shape": [16, 32]},
    {"name": "b", "shape": [32]}], "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "xw"},
    {"op": "bias_add", "inputs": ["xw", "b"], "output": "p"}, {"op": "gelu", "inputs": ["p"], "output": "y"}],
    "outputs": ["y"]})");
  ASSERT_TRUE(m.plan) << m.reason;
  EXPECT_EQ(m.plan->kind, PlanKind::kMatmul);
  EXPECT_EQ(m.plan->m, 8);
  EXPECT_EQ(m.plan->k, 16);
  EXPECT_EQ(m.plan->n, 32);
  EXPECT_EQ(m.plan->bias, 2);
  ASSERT_EQ(m.plan->steps.size(), 1u);
  EXPECT_EQ(m.plan->steps[0].op, "gelu");
  EXPECT_EQ(m.plan->summary, "matmul + bias_add + gelu");
}

TEST(LibraryMatch, BatchMatmulWithTransposedB) {
  const PlanMatch m = match(R"({"name": "bmm", "inputs": [{"name": "q", "shape": [3, 8, 4]}, {"name": "k", "shape": [3, 8, 4]}],
    "ops": [{"op": "batch_matmul", "inputs": ["q", "k"], "output": "s", "transpose_b": true}], "outputs": ["s"]})");
  ASSERT_TRUE(m.plan) << m.reason;
  EXPECT_EQ(m.plan->batch, 3);
  EXPECT_EQ(m.plan->m, 8);
  EXPECT_EQ(m.plan->n, 8);
  EXPECT_EQ(m.plan->k, 4);
  EXPECT_TRUE(m.plan->transpose_b);
}

TEST(LibraryMatch, ConvWithBiasAndRelu) {
  const PlanMatch m = match(R"({"name": "c", "inputs": [{"name": "x", "shape": [1, 4, 10, 10]},
    {"name": "w", "shape": [8, 4, 3, 3]}, {"name": "b", "shape": [8]}],
    "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "c", "padding": [1, 1]},
    {"op": "bias_add", "inputs": ["c", "b"], "output": "cb", "axis": 1}, {"op": "relu", "inputs": ["cb"], "output": "y"}],
    "outputs": ["y"]})");
  ASSERT_TRUE(m.plan) << m.reason;
  EXPECT_EQ(m.plan->kind, PlanKind::kConv);
  EXPECT_EQ(m.plan->conv_output, (std::vector<int64_t>{1, 8, 10, 10}));
  EXPECT_EQ(m.plan->bias, 2);
}

TEST(LibraryMatch, ElementwiseChainKeepsOperandsInOrder) {
  const PlanMatch m = match(R"({"name": "e", "inputs": [{"name": "a", "shape": [64]}, {"name": "b", "shape": [64]},
    {"name": "c", "shape": [64]}], "ops": [{"op": "mul", "inputs": ["a", "b"], "output": "ab"},
    {"op": "add", "inputs": ["ab", "c"], "output": "abc"}, {"op": "relu", "inputs": ["abc"], "output": "r"},
    {"op": "scale", "inputs": ["r"], "output": "y", "factor": 0.5}], "outputs": ["y"]})");
  ASSERT_TRUE(m.plan) << m.reason;
  EXPECT_EQ(m.plan->kind, PlanKind::kEltwise);
  ASSERT_EQ(m.plan->steps.size(), 4u);
  EXPECT_EQ(m.plan->steps[0].operand, 1);
  EXPECT_EQ(m.plan->steps[1].operand, 2);
  EXPECT_DOUBLE_EQ(m.plan->steps[3].factor, 0.5);
  EXPECT_FLOAT_EQ(apply_step(m.plan->steps[3], 4.0f, 0), 2.0f);
}

TEST(LibraryMatch, RowOpsAndReductions) {
  const PlanMatch softmax = match(R"({"name": "s", "inputs": [{"name": "x", "shape": [4, 6, 8]}],
    "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})");
  ASSERT_TRUE(softmax.plan);
  EXPECT_EQ(softmax.plan->rows, 24);
  EXPECT_EQ(softmax.plan->cols, 8);
  const PlanMatch colsum = match(R"({"name": "s", "inputs": [{"name": "m", "shape": [5, 7]}],
    "ops": [{"op": "reduce_sum", "inputs": ["m"], "output": "y", "axes": [0]}], "outputs": ["y"]})");
  ASSERT_TRUE(colsum.plan) << colsum.reason;
  EXPECT_EQ(colsum.plan->kind, PlanKind::kReduceSum);
  EXPECT_EQ(colsum.plan->reduce_axis, 0);
}

TEST(LibraryMatch, StencilsAndSoftmaxOnOtherAxesAreUnsupportedWithAReason) {
  const PlanMatch blur = match(R"({"name": "b", "inputs": [{"name": "in", "shape": [10, 10]}],
    "ops": [{"op": "stencil", "inputs": ["in"], "output": "y", "axes": [1], "weights": [1, 1, 1]}], "outputs": ["y"]})");
  EXPECT_FALSE(blur.plan);
  EXPECT_NE(blur.reason.find("stencil"), std::string::npos) << blur.reason;
  const PlanMatch softmax0 = match(R"({"name": "s", "inputs": [{"name": "x", "shape": [4, 8]}],
    "ops": [{"op": "softmax", "inputs": ["x"], "output": "y", "axis": 0}], "outputs": ["y"]})");
  EXPECT_FALSE(softmax0.plan);
  EXPECT_NE(softmax0.reason.find("axis"), std::string::npos) << softmax0.reason;
}

}  // namespace
}  // namespace ktune::bench
