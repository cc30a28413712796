// Tests of bench/library_match.cc on the shapes of the public suite's subgraphs.
#include "bench/library_match.h"

#include <gtest/gtest.h>

#include "subgraphs/spec_subgraph.h"

namespace ktune::bench {
namespace {

PlanMatch match(const std::string& text) {
  const subgraphs::SpecSubgraph sg(subgraphs::parse_spec_text(text, "<test>"));
  return match_library_plan(sg.spec(), sg.outputs().front().dtype); }

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

const char* kQuantizedConv = R"({"name": "q", "inputs": [{"name": "x", "shape": [1, 6, 5, 8], "dtype": "u8"},
  {"name": "w", "shape": [3, 3, 8, 4], "dtype": "i8"}, {"name": "b", "shape": [4], "dtype": "i32", "range": [-100, 100]},
  {"name": "s", "shape": [4], "range": [0.001, 0.002]}],
  "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "acc", "layout": "NHWC", "padding": 1},
          {"op": "bias_add", "inputs": ["acc", "b"], "output": "biased"},
          {"op": "relu", "inputs": ["biased"], "output": "r"},
          {"op": "requantize", "inputs": ["r", "s"], "output": "y", "out_dtype": "u8"}], "outputs": ["y"]})";

TEST(LibraryMatch, QuantizedNhwcConvWithBiasReluAndPerChannelRequantize) {
  const PlanMatch m = match(kQuantizedConv);
  ASSERT_TRUE(m.plan) << m.reason;
  EXPECT_EQ(m.plan->kind, PlanKind::kConv);
  EXPECT_TRUE(m.plan->conv_nhwc);
  EXPECT_EQ(m.plan->conv_input, (std::vector<int64_t>{1, 8, 6, 5}));    // as NCHW
  EXPECT_EQ(m.plan->conv_weights, (std::vector<int64_t>{4, 8, 3, 3}));  // as OIHW
  EXPECT_EQ(m.plan->conv_output, (std::vector<int64_t>{1, 4, 6, 5}));
  EXPECT_EQ(m.plan->bias, 2);  // along the NHWC channels, the last axis
  ASSERT_EQ(m.plan->steps.size(), 1u);
  EXPECT_TRUE(m.plan->requantize);
  EXPECT_EQ(m.plan->requant_scales, 3);
  EXPECT_EQ(m.plan->output_dtype, subgraphs::DType::kU8);
  EXPECT_FALSE(m.plan->all_f32());
  EXPECT_EQ(m.plan->type_summary(), "u8 x i8 -> u8");
  EXPECT_EQ(m.plan->summary, "conv2d + bias_add + relu + requantize");
}

TEST(LibraryMatch, QuantizedMatmulWithOneScaleAndAZeroPoint) {
  const PlanMatch m = match(R"({"name": "q", "inputs": [{"name": "a", "shape": [4, 8], "dtype": "u8"},
    {"name": "b", "shape": [8, 16], "dtype": "i8"}],
    "ops": [{"op": "matmul", "inputs": ["a", "b"], "output": "acc"},
            {"op": "requantize", "inputs": ["acc"], "output": "y", "scale": 0.01, "zero_point": -3}], "outputs": ["y"]})");
  ASSERT_TRUE(m.plan) << m.reason;
  EXPECT_TRUE(m.plan->requantize);
  EXPECT_EQ(m.plan->requant_scales, -1);
  EXPECT_DOUBLE_EQ(m.plan->requant_scale, 0.01);
  EXPECT_EQ(m.plan->requant_zero_point, -3);
  EXPECT_EQ(m.plan->output_dtype, subgraphs::DType::kI8);
  // A requantize that is not the last op maps onto no library call.
  const PlanMatch inner = match(R"({"name": "q", "inputs": [{"name": "a", "shape": [4, 8], "dtype": "u8"},
    {"name": "b", "shape": [8, 16], "dtype": "i8"}],
    "ops": [{"op": "matmul", "inputs": ["a", "b"], "output": "acc"},
            {"op": "requantize", "inputs": ["acc"], "output": "q"}, {"op": "relu", "inputs": ["q"], "output": "y"}],
    "outputs": ["y"]})");
  EXPECT_FALSE(inner.plan);
  EXPECT_NE(inner.reason.find("requantize"), std::string::npos) << inner.reason;
}

}  // namespace
}  // namespace ktune::bench
