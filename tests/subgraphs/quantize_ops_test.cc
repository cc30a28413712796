// cast and requantize (subgraphs/ops/quantize.cc): hand-computed references (rounding half
// to even, saturation, zero points, per-channel scales), the kernels against them, and the
// errors for inputs they refuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "subgraphs/check.h"
#include "subgraphs/spec_subgraph.h"
#include "tests/subgraphs/spec_text.h"

namespace ktune::subgraphs {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::spec_text;
using testing::user_error_of;

std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v;
  for (size_t i = 0; i < t.size(); ++i) v.push_back(t.at(i));
  return v;
}

Tensor tensor_of(DType dtype, const std::vector<double>& values) {
  Tensor t({static_cast<int64_t>(values.size())}, dtype);
  for (size_t i = 0; i < values.size(); ++i) t.set(i, values[i]);
  return t;
}

void expect_kernel_matches(const SpecSubgraph& sg) {
  const CheckResult r = check_subgraph(sg, 5);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
  EXPECT_GE(r.comparison.worst_index, 0);
}

TEST(Requantize, RoundsHalfToEvenAddsTheZeroPointAndSaturates) {
  SpecSubgraph sg(parse_spec_text(
      spec_text(R"({"name": "acc", "shape": [7], "dtype": "i32"})",
                R"({"op": "requantize", "inputs": ["acc"], "output": "out", "scale": 0.5, "zero_point": 3})"),
      "t.json"));
  EXPECT_EQ(sg.outputs()[0].dtype, DType::kI8);
  const Tensor acc = tensor_of(DType::kI32, {-5, 5, 7, 0, 1000, -1000, 250});
  // -2.5 -> -2, 2.5 -> 2, 3.5 -> 4 (ties to even), then + 3; ±500 saturate; 125 + 3 = 128 saturates to 127.
  EXPECT_THAT(values_of(sg.reference({acc})[0]), ElementsAre(1, 5, 7, 3, 127, -128, 127));
  expect_kernel_matches(sg);
}

TEST(Requantize, PerChannelScalesRunAlongTheAxis) {
  SpecSubgraph sg(parse_spec_text(
      spec_text(R"({"name": "acc", "shape": [2, 3], "dtype": "i32", "range": [-100000, 100000]},
                   {"name": "s", "shape": [3], "range": [0.001, 0.002]})",
                R"({"op": "requantize", "inputs": ["acc", "s"], "output": "out", "out_dtype": "u8", "zero_point": 128})"),
      "t.json"));
  EXPECT_EQ(sg.outputs()[0].dtype, DType::kU8);
  Tensor acc({2, 3}, DType::kI32);
  const std::vector<double> a = {100, 100, 100, -1000, 2000, 100000};
  for (size_t i = 0; i < a.size(); ++i) acc.set(i, a[i]);
  const Tensor scales = tensor_of(DType::kF32, {0.25, 0.5, 1.0});
  // Row 0: 25, 50, 100 (+128); row 1: -250 -> -122, 1000 -> 1128 -> 255, 100000 -> 255.
  EXPECT_THAT(values_of(sg.reference({acc, scales})[0]), ElementsAre(153, 178, 228, 0, 255, 255));
  expect_kernel_matches(sg);
}

TEST(Requantize, FusesAfterAQuantizedMatmul) {
  SpecSubgraph sg(parse_spec_text(
      spec_text(R"({"name": "a", "shape": [9, 64], "dtype": "u8"}, {"name": "b", "shape": [64, 17], "dtype": "i8"})",
                R"({"op": "matmul", "inputs": ["a", "b"], "output": "acc"},
                   {"op": "requantize", "inputs": ["acc"], "output": "out", "scale": 0.0004, "out_dtype": "u8", "zero_point": 128})"),
      "t.json"));
  expect_kernel_matches(sg);
  // The scale maps the accumulators onto the range: not everything saturates.
  const Tensor out = sg.reference(sg.make_inputs(5))[0];
  int inside = 0;
  for (size_t i = 0; i < out.size(); ++i) inside += out.at(i) > 0 && out.at(i) < 255;
  EXPECT_GT(inside, static_cast<int>(out.size()) / 2);
}

TEST(Requantize, RefusesWhatItCannotMap) {
  EXPECT_THAT(user_error_of(spec_text(R"({"name": "x", "shape": [4]})",
                                      R"({"op": "requantize", "inputs": ["x"], "output": "out"})")),
              HasSubstr("t.json: ops[0].inputs: requantize: expected an i32 input (an integer matmul or conv2d), found f32"));
  EXPECT_THAT(user_error_of(spec_text(R"({"name": "x", "shape": [4], "dtype": "i32"})",
                                      R"({"op": "requantize", "inputs": ["x"], "output": "out", "zero_point": 200})")),
              HasSubstr("ops[0].zero_point: requantize: expected a zero point inside i8's range, found 200"));
  EXPECT_THAT(user_error_of(spec_text(R"({"name": "x", "shape": [4], "dtype": "i32"})",
                                      R"({"op": "requantize", "inputs": ["x"], "output": "out", "scale": -1})")),
              HasSubstr("ops[0].scale: requantize: expected a positive finite scale"));
  EXPECT_THAT(user_error_of(spec_text(R"({"name": "x", "shape": [2, 4], "dtype": "i32"}, {"name": "s", "shape": [2]})",
                                      R"({"op": "requantize", "inputs": ["x", "s"], "output": "out"})")),
              HasSubstr("per-channel scales of shape [2] do not match axis 1 of [2, 4]"));
  EXPECT_THAT(user_error_of(spec_text(R"({"name": "x", "shape": [4], "dtype": "i32"})",
                                      R"({"op": "requantize", "inputs": ["x"], "output": "out", "out_dtype": "f32"})")),
              HasSubstr("ops[0].out_dtype: requantize: expected one of i8, u8, found \"f32\""));
}

TEST(Cast, RoundsAndSaturatesLikeAStore) {
  SpecSubgraph sg(parse_spec_text(spec_text(R"({"name": "x", "shape": [6], "range": [-300, 300]})",
                                            R"({"op": "cast", "inputs": ["x"], "output": "out", "to": "u8"})"),
                                  "t.json"));
  EXPECT_EQ(sg.outputs()[0].dtype, DType::kU8);
  EXPECT_THAT(values_of(sg.reference({tensor_of(DType::kF32, {-3, 0.5, 1.5, 2.5, 254.6, 300})})[0]),
              ElementsAre(0, 0, 2, 2, 255, 255));
  expect_kernel_matches(sg);
}

TEST(Cast, ConvertsBetweenEveryPairOfSpecTypes) {
  for (const char* from : {"u8", "i8", "i16", "i32", "f16", "bf16", "f32"}) {
    for (const char* to : {"u8", "i8", "u16", "i32", "f16", "bf16", "f32"}) {
      const std::string text = spec_text(std::string(R"({"name": "x", "shape": [5, 33], "dtype": ")") + from + R"("})",
                                         std::string(R"({"op": "cast", "inputs": ["x"], "output": "out", "to": ")") + to + R"("})");
      SpecSubgraph sg(parse_spec_text(text, "t.json"));
      EXPECT_EQ(to_string(sg.outputs()[0].dtype), to);
      const CheckResult r = check_subgraph(sg, 2);
      EXPECT_TRUE(r.passed()) << from << " -> " << to << ": " << r.error << r.comparison.describe();
    }
  }
}

}  // namespace
}  // namespace ktune::subgraphs
