// Every op against its reference on small shapes with odd extents (1, 3, 17) and
// broadcasting, through the real path: spec -> Halide pipeline (trivial schedule, JIT)
// -> seeded inputs -> comparison with the double-precision reference. The references
// themselves are checked on hand-computed values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "subgraphs/check.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::subgraphs {
namespace {

// A one-op spec: `inputs` is a JSON list of input objects, `op` the op object whose
// output is "out".
std::string one_op(const std::string& inputs, const std::string& op) {
  return R"({"name": "t", "inputs": [)" + inputs + R"(], "ops": [)" + op + R"(], "outputs": ["out"]})";
}

void expect_matches_reference(const std::string& spec_text) {
  SpecSubgraph sg(parse_spec_text(spec_text, "ops_test"));
  const CheckResult r = check_subgraph(sg, 7);
  EXPECT_TRUE(r.error.empty()) << r.error << "\n" << spec_text;
  EXPECT_TRUE(r.comparison.passed()) << r.comparison.describe() << "\n" << spec_text;
  // Guard against a vacuous pass: the outputs were actually compared.
  EXPECT_GE(r.comparison.worst_index, 0) << spec_text;
}

TEST(OpsMatmul, MatchesReference) {
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17]}, {"name": "b", "shape": [17, 1]})",
                                  R"({"op": "matmul", "inputs": ["a", "b"], "output": "out"})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [17, 3]}, {"name": "b", "shape": [5, 17]})",
                                  R"({"op": "matmul", "inputs": ["a", "b"], "output": "out", "transpose_a": true, "transpose_b": true})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [1, 3]}, {"name": "b", "shape": [17, 3]})",
                                  R"({"op": "matmul", "inputs": ["a", "b"], "output": "out", "transpose_b": true})"));
}

TEST(OpsMatmul, BatchMatchesReference) {
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17, 5]}, {"name": "b", "shape": [3, 5, 1]})",
                                  R"({"op": "batch_matmul", "inputs": ["a", "b"], "output": "out"})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [2, 5, 17]}, {"name": "b", "shape": [2, 3, 5]})",
                                  R"({"op": "batch_matmul", "inputs": ["a", "b"], "output": "out", "transpose_a": true, "transpose_b": true})"));
}

TEST(OpsConv2d, MatchesReference) {
  expect_matches_reference(one_op(R"({"name": "x", "shape": [1, 3, 17, 17]}, {"name": "w", "shape": [5, 3, 3, 3]})",
                                  R"({"op": "conv2d", "inputs": ["x", "w"], "output": "out", "stride": 2, "padding": 1, "dilation": [2, 1]})"));
  expect_matches_reference(one_op(R"({"name": "x", "shape": [2, 17, 9, 3]}, {"name": "w", "shape": [3, 3, 3, 4]})",
                                  R"({"op": "conv2d", "inputs": ["x", "w"], "output": "out", "layout": "NHWC", "padding": [1, 0]})"));
  // Depthwise (groups = channels) and a grouped convolution with two groups.
  expect_matches_reference(one_op(R"({"name": "x", "shape": [1, 4, 7, 7]}, {"name": "w", "shape": [4, 1, 3, 3]})",
                                  R"({"op": "conv2d", "inputs": ["x", "w"], "output": "out", "padding": 1, "groups": 4})"));
  expect_matches_reference(one_op(R"({"name": "x", "shape": [1, 4, 9, 5]}, {"name": "w", "shape": [6, 2, 1, 3]})",
                                  R"({"op": "conv2d", "inputs": ["x", "w"], "output": "out", "stride": [1, 2], "groups": 2})"));
  expect_matches_reference(one_op(R"({"name": "x", "shape": [1, 17, 3, 4]}, {"name": "w", "shape": [1, 3, 1, 4]})",
                                  R"({"op": "conv2d", "inputs": ["x", "w"], "output": "out", "layout": "NHWC", "padding": [0, 1], "groups": 4})"));
}

TEST(OpsElementwise, UnaryMatchesReference) {
  for (const char* op : {"relu", "gelu", "sigmoid", "tanh", "exp", "neg"}) {
    expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17], "range": [-4, 4]})",
                                    std::string(R"({"op": ")") + op + R"(", "inputs": ["a"], "output": "out"})"));
  }
  expect_matches_reference(one_op(R"({"name": "a", "shape": [1]})",
                                  R"({"op": "scale", "inputs": ["a"], "output": "out", "factor": -2.5})"));
}

TEST(OpsElementwise, BinaryBroadcastMatchesReference) {
  for (const char* op : {"add", "sub", "mul", "max", "min"}) {
    expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 1, 17]}, {"name": "b", "shape": [5, 1]})",
                                    std::string(R"({"op": ")") + op + R"(", "inputs": ["a", "b"], "output": "out"})"));
  }
  expect_matches_reference(one_op(R"({"name": "a", "shape": [17]}, {"name": "b", "shape": [3, 17], "range": [0.5, 2]})",
                                  R"({"op": "div", "inputs": ["a", "b"], "output": "out"})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [1, 1]}, {"name": "b", "shape": [3, 1]})",
                                  R"({"op": "add", "inputs": ["a", "b"], "output": "out"})"));
}

TEST(OpsElementwise, BiasAddMatchesReference) {
  expect_matches_reference(one_op(R"({"name": "a", "shape": [2, 3, 17]}, {"name": "b", "shape": [3]})",
                                  R"({"op": "bias_add", "inputs": ["a", "b"], "output": "out", "axis": 1})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [1, 17]}, {"name": "b", "shape": [17]})",
                                  R"({"op": "bias_add", "inputs": ["a", "b"], "output": "out"})"));
}

TEST(OpsNormalization, MatchesReference) {
  expect_matches_reference(one_op(R"({"name": "a", "shape": [17, 3], "range": [-5, 5]})",
                                  R"({"op": "softmax", "inputs": ["a"], "output": "out", "axis": 0})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 1, 17]})",
                                  R"({"op": "softmax", "inputs": ["a"], "output": "out"})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17]}, {"name": "g", "shape": [17]}, {"name": "b", "shape": [17]})",
                                  R"({"op": "layernorm", "inputs": ["a", "g", "b"], "output": "out"})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [17, 3]})",
                                  R"({"op": "layernorm", "inputs": ["a"], "output": "out", "axis": 0, "eps": 0.001})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17]}, {"name": "g", "shape": [17]})",
                                  R"({"op": "rmsnorm", "inputs": ["a", "g"], "output": "out"})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [5, 3, 1]})",
                                  R"({"op": "rmsnorm", "inputs": ["a"], "output": "out", "axis": 1})"));
}

TEST(OpsReduce, MatchesReference) {
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17, 5]})",
                                  R"({"op": "reduce_sum", "inputs": ["a"], "output": "out", "axes": [0, 2]})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17, 5]})",
                                  R"({"op": "reduce_sum", "inputs": ["a"], "output": "out", "axes": -2, "keepdims": true})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17]})",
                                  R"({"op": "reduce_mean", "inputs": ["a"], "output": "out"})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [17, 1, 3]})",
                                  R"({"op": "reduce_max", "inputs": ["a"], "output": "out", "axes": [1]})"));
}

TEST(OpsLayout, TransposeMatchesReference) {
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17, 1]})",
                                  R"({"op": "transpose", "inputs": ["a"], "output": "out", "perm": [2, 0, 1]})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17]})",
                                  R"({"op": "transpose", "inputs": ["a"], "output": "out"})"));
}

TEST(OpsPool, MatchesReference) {
  expect_matches_reference(one_op(R"({"name": "a", "shape": [1, 3, 17, 17]})",
                                  R"({"op": "max_pool2d", "inputs": ["a"], "output": "out", "kernel": 3, "stride": 2, "padding": 1})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [1, 9, 9, 3]})",
                                  R"({"op": "avg_pool2d", "inputs": ["a"], "output": "out", "kernel": 2, "stride": 1, "padding": 1, "layout": "NHWC", "count_include_pad": false})"));
  expect_matches_reference(one_op(R"({"name": "a", "shape": [2, 3, 17, 3]})",
                                  R"({"op": "avg_pool2d", "inputs": ["a"], "output": "out", "kernel": [3, 1]})"));
}

TEST(OpsStencil, MatchesReference) {
  for (const char* padding : {"valid", "clamp", "zero"}) {
    expect_matches_reference(one_op(R"({"name": "a", "shape": [17, 3]})",
                                    std::string(R"({"op": "stencil", "inputs": ["a"], "output": "out", "weights": [[1, 2, 1], [0, -1, 0], [1, 2, 1]], "divisor": 4, "padding": ")") +
                                        padding + R"("})"));
  }
  expect_matches_reference(one_op(R"({"name": "a", "shape": [3, 17, 5]})",
                                  R"({"op": "stencil", "inputs": ["a"], "output": "out", "weights": [0.25, 0.5, 0.25], "axes": [1]})"));
}

TEST(OpsFused, ChainOfOpsMatchesReference) {
  expect_matches_reference(R"({"name": "t",
    "inputs": [{"name": "x", "shape": [3, 17]}, {"name": "w", "shape": [17, 5]}, {"name": "b", "shape": [5]}],
    "ops": [{"op": "matmul", "inputs": ["x", "w"], "output": "h"},
            {"op": "bias_add", "inputs": ["h", "b"], "output": "hb"},
            {"op": "gelu", "inputs": ["hb"], "output": "g"},
            {"op": "softmax", "inputs": ["g"], "output": "out"}],
    "outputs": ["out", "g"]})");
}

// --- The references on hand-computed values.

std::vector<Tensor> reference_of(const std::string& spec_text, const std::vector<Tensor>& inputs) {
  SpecSubgraph sg(parse_spec_text(spec_text, "ops_test"));
  return sg.reference(inputs);
}

TEST(OpsReference, MatmulOfTwoByTwo) {
  const auto out = reference_of(one_op(R"({"name": "a", "shape": [2, 2]}, {"name": "b", "shape": [2, 2]})",
                                       R"({"op": "matmul", "inputs": ["a", "b"], "output": "out"})"),
                                {Tensor{{2, 2}, {1, 2, 3, 4}}, Tensor{{2, 2}, {5, 6, 7, 8}}});
  EXPECT_EQ(out[0].floats(), (std::vector<float>{19, 22, 43, 50}));
}

TEST(OpsReference, PaddedConvCountsTheNeighbours) {
  const auto out = reference_of(one_op(R"({"name": "x", "shape": [1, 1, 3, 3]}, {"name": "w", "shape": [1, 1, 3, 3]})",
                                       R"({"op": "conv2d", "inputs": ["x", "w"], "output": "out", "padding": 1})"),
                                {Tensor{{1, 1, 3, 3}, std::vector<float>(9, 1.0f)}, Tensor{{1, 1, 3, 3}, std::vector<float>(9, 1.0f)}});
  EXPECT_EQ(out[0].floats(), (std::vector<float>{4, 6, 4, 6, 9, 6, 4, 6, 4}));
}

TEST(OpsReference, SoftmaxAndLayernorm) {
  const auto sm = reference_of(one_op(R"({"name": "a", "shape": [1, 2]})", R"({"op": "softmax", "inputs": ["a"], "output": "out"})"),
                               {Tensor{{1, 2}, {0.0f, std::log(3.0f)}}});
  EXPECT_NEAR(sm[0].at(0), 0.25, 1e-6);
  EXPECT_NEAR(sm[0].at(1), 0.75, 1e-6);
  const auto ln = reference_of(one_op(R"({"name": "a", "shape": [1, 3]})", R"({"op": "layernorm", "inputs": ["a"], "output": "out", "eps": 0})"),
                               {Tensor{{1, 3}, {1, 2, 3}}});
  EXPECT_NEAR(ln[0].at(0), -std::sqrt(1.5), 1e-6);
  EXPECT_NEAR(ln[0].at(1), 0.0, 1e-6);
}

TEST(OpsReference, StencilPoolReduceTranspose) {
  const auto st = reference_of(one_op(R"({"name": "a", "shape": [4]})", R"({"op": "stencil", "inputs": ["a"], "output": "out", "weights": [1, 1]})"),
                               {Tensor{{4}, {1, 2, 3, 4}}});
  EXPECT_EQ(st[0].floats(), (std::vector<float>{3, 5, 7}));
  const auto ap = reference_of(one_op(R"({"name": "a", "shape": [1, 1, 2, 2]})",
                                      R"({"op": "avg_pool2d", "inputs": ["a"], "output": "out", "kernel": 2, "stride": 1, "padding": 1, "count_include_pad": false})"),
                               {Tensor{{1, 1, 2, 2}, {1, 2, 3, 4}}});
  EXPECT_EQ(ap[0].floats(), (std::vector<float>{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
  const auto rs = reference_of(one_op(R"({"name": "a", "shape": [2, 3]})", R"({"op": "reduce_sum", "inputs": ["a"], "output": "out", "axes": [0]})"),
                               {Tensor{{2, 3}, {1, 2, 3, 4, 5, 6}}});
  EXPECT_EQ(rs[0].floats(), (std::vector<float>{5, 7, 9}));
  const auto tr = reference_of(one_op(R"({"name": "a", "shape": [2, 3]})", R"({"op": "transpose", "inputs": ["a"], "output": "out"})"),
                               {Tensor{{2, 3}, {1, 2, 3, 4, 5, 6}}});
  EXPECT_EQ(tr[0].shape, (Shape{3, 2}));
  EXPECT_EQ(tr[0].floats(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

}  // namespace
}  // namespace ktune::subgraphs
