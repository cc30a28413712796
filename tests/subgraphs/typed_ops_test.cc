// Ops on typed values: 8-bit matmul and conv2d accumulate exactly in i32, i32 adds and
// ReLUs stay exact, half-precision values compute in f32 and are stored back in their type,
// and `out_dtype` chooses the stored type. Each spec runs through the real path (Halide
// pipeline, JIT, seeded inputs) against its reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "subgraphs/check.h"
#include "subgraphs/spec_subgraph.h"
#include "tests/subgraphs/spec_text.h"

namespace ktune::subgraphs {
namespace {

using ::testing::HasSubstr;
using testing::spec_text;
using testing::user_error_of;

// Checks the spec against its reference and returns its one output's description.
TensorInfo expect_matches_reference(const std::string& text) {
  SpecSubgraph sg(parse_spec_text(text, "typed_ops_test"));
  const CheckResult r = check_subgraph(sg, 3);
  EXPECT_TRUE(r.error.empty()) << r.error << "\n" << text;
  EXPECT_TRUE(r.comparison.passed()) << r.comparison.describe() << "\n" << text;
  EXPECT_GE(r.comparison.worst_index, 0) << text;
  return sg.outputs().front();
}

TEST(TypedOps, EightBitMatmulAccumulatesExactlyInI32) {
  const TensorInfo out = expect_matches_reference(
      spec_text(R"({"name": "a", "shape": [5, 67], "dtype": "u8"}, {"name": "b", "shape": [67, 19], "dtype": "i8"})",
                R"({"op": "matmul", "inputs": ["a", "b"], "output": "out"})"));
  EXPECT_EQ(out.dtype, DType::kI32);
  EXPECT_FALSE(out.rounded_from_float);  // exact: compared without any allowance
  const TensorInfo batched = expect_matches_reference(
      spec_text(R"({"name": "a", "shape": [2, 5, 9], "dtype": "i8"}, {"name": "b", "shape": [2, 7, 9], "dtype": "i8"})",
                R"({"op": "batch_matmul", "inputs": ["a", "b"], "output": "out", "transpose_b": true})"));
  EXPECT_EQ(batched.dtype, DType::kI32);
}

TEST(TypedOps, IntegerMatmulSumsAreExactBeyondFloatPrecision) {
  // Sums of 1024 products of about 255 · 127 exceed 2^24, where f32 holds only even
  // numbers: an f32 accumulator would round most of them; the exact comparison sees it.
  SpecSubgraph sg(parse_spec_text(
      spec_text(R"({"name": "a", "shape": [4, 1024], "dtype": "u8", "range": [254, 255]},
                   {"name": "b", "shape": [1024, 8], "dtype": "i8", "range": [126, 127]})",
                R"({"op": "matmul", "inputs": ["a", "b"], "output": "out"})"),
      "t.json"));
  const Tensor ref = sg.reference(sg.make_inputs(1))[0];
  int odd = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_GT(ref.at(i), 16777216.0);
    odd += static_cast<int64_t>(ref.at(i)) % 2 != 0;
  }
  EXPECT_GT(odd, 0);
  const CheckResult r = check_subgraph(sg, 1);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
}

TEST(TypedOps, QuantizedConvWithBiasAndReluStaysExact) {
  const TensorInfo out = expect_matches_reference(spec_text(
      R"({"name": "x", "shape": [1, 7, 9, 5], "dtype": "u8"}, {"name": "w", "shape": [3, 3, 5, 4], "dtype": "i8"},
         {"name": "b", "shape": [4], "dtype": "i32", "range": [-30000, 30000]})",
      R"({"op": "conv2d", "inputs": ["x", "w"], "output": "acc", "layout": "NHWC", "padding": 1},
         {"op": "bias_add", "inputs": ["acc", "b"], "output": "biased"},
         {"op": "relu", "inputs": ["biased"], "output": "out"})"));
  EXPECT_EQ(out.dtype, DType::kI32);
  const TensorInfo nchw = expect_matches_reference(
      spec_text(R"({"name": "x", "shape": [1, 3, 6, 5], "dtype": "i8"}, {"name": "w", "shape": [2, 3, 3, 3], "dtype": "i8"})",
                R"({"op": "conv2d", "inputs": ["x", "w"], "output": "out", "padding": 1, "stride": 2})"));
  EXPECT_EQ(nchw.dtype, DType::kI32);
}

TEST(TypedOps, I32AddsWrapInKernelAndReference) {
  // Sums of values over the whole i32 range leave it often; both sides wrap alike.
  const TensorInfo out = expect_matches_reference(
      spec_text(R"({"name": "a", "shape": [4, 33], "dtype": "i32"}, {"name": "b", "shape": [33], "dtype": "i32"})",
                R"({"op": "add", "inputs": ["a", "b"], "output": "s"}, {"op": "neg", "inputs": ["s"], "output": "out"})"));
  EXPECT_EQ(out.dtype, DType::kI32);
}

TEST(TypedOps, HalfValuesComputeInF32AndAreStoredBack) {
  for (const std::string half : {"f16", "bf16"}) {
    std::string inputs = R"({"name": "x", "shape": [6, 40], "dtype": "HALF", "range": [-2, 2]},
                            {"name": "g", "shape": [40], "dtype": "HALF", "range": [-2, 2]})";
    for (size_t at; (at = inputs.find("HALF")) != std::string::npos;) inputs.replace(at, 4, half);
    const TensorInfo out = expect_matches_reference(spec_text(
        inputs, R"({"op": "layernorm", "inputs": ["x", "g"], "output": "n"}, {"op": "gelu", "inputs": ["n"], "output": "out"})"));
    EXPECT_EQ(to_string(out.dtype), half);
  }
}

TEST(TypedOps, OutDtypeChoosesTheStoredType) {
  const TensorInfo wide = expect_matches_reference(
      spec_text(R"({"name": "a", "shape": [3, 70], "dtype": "bf16"}, {"name": "b", "shape": [70, 5], "dtype": "bf16"})",
                R"({"op": "matmul", "inputs": ["a", "b"], "output": "out", "out_dtype": "f32"})"));
  EXPECT_EQ(wide.dtype, DType::kF32);
  // Floats stored in an integer type are rounded; such outputs allow rare rounding flips.
  const TensorInfo narrow = expect_matches_reference(
      spec_text(R"({"name": "a", "shape": [8, 8], "range": [-300, 300]})",
                R"({"op": "relu", "inputs": ["a"], "output": "out", "out_dtype": "u8"})"));
  EXPECT_EQ(narrow.dtype, DType::kU8);
  EXPECT_TRUE(narrow.rounded_from_float);
}

TEST(TypedOps, TheStoredTypeIsPartOfTheKeys) {
  auto key_of = [](const std::string& out_dtype) {
    SpecSubgraph sg(parse_spec_text(
        spec_text(R"({"name": "a", "shape": [4, 4]})", R"({"op": "relu", "inputs": ["a"], "output": "out")" + out_dtype + "}"),
        "t.json"));
    return sg.key();
  };
  EXPECT_EQ(key_of("").key, key_of(R"(, "out_dtype": "f32")").key);
  EXPECT_NE(key_of("").key, key_of(R"(, "out_dtype": "f16")").key);
  EXPECT_NE(key_of("").family_key, key_of(R"(, "out_dtype": "f16")").family_key);
}

TEST(TypedOps, RefusesWhatCannotBeComputedExactly) {
  EXPECT_THAT(user_error_of(spec_text(R"({"name": "a", "shape": [2, 70000], "dtype": "u8"}, {"name": "b", "shape": [70000, 2], "dtype": "i8"})",
                                      R"({"op": "matmul", "inputs": ["a", "b"], "output": "out"})")),
              HasSubstr("t.json: ops[0].inputs: matmul: a sum of 70000 products of u8 and i8 values can overflow the i32 accumulator"));
  EXPECT_THAT(user_error_of(spec_text(R"({"name": "a", "shape": [2, 2]})",
                                      R"({"op": "relu", "inputs": ["a"], "output": "out", "out_dtype": "f64"})")),
              HasSubstr("ops[0].out_dtype: relu: expected one of u8, i8, u16, i16, i32, f16, bf16, f32, found \"f64\""));
}

}  // namespace
}  // namespace ktune::subgraphs
