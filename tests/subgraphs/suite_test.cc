// Every subgraph of the public suite (bench/suite/*.json) builds, has the shapes the
// suite promises, and matches its reference under the trivial schedule.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "subgraphs/check.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::subgraphs {
namespace {

class SuiteTest : public ::testing::TestWithParam<const char*> {};

std::string suite_path(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/bench/suite/" + name + ".json"; }

TEST_P(SuiteTest, MatchesReference) {
  const auto sg = load_spec_subgraph(suite_path(GetParam()));
  EXPECT_EQ(sg->name(), GetParam());
  const CheckResult r = check_subgraph(*sg, 1);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.comparison.passed()) << r.comparison.describe();
  EXPECT_GE(r.comparison.worst_index, 0);
}

INSTANTIATE_TEST_SUITE_P(PublicSuite, SuiteTest,
                         ::testing::Values("gemm_1024", "mlp_gelu", "bmm_scores", "conv3x3_relu", "dwconv3x3_relu",
                                           "softmax", "layernorm", "eltwise", "blur3x3", "colsum"));

// The low-precision suite (bench/suite_lowp/*.json): bf16 and f16 subgraphs computed in
// f32 and stored in their type, and quantized u8 × i8 subgraphs exact in i32 and
// requantized to u8. Each matches its reference and stores its declared type; the
// requantized outputs use their range rather than piling up at its ends.
class LowPrecisionSuiteTest : public ::testing::TestWithParam<std::pair<const char*, DType>> {};

TEST_P(LowPrecisionSuiteTest, MatchesReferenceInItsType) {
  const auto [name, dtype] = GetParam();
  const auto sg = load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/bench/suite_lowp/" + name + ".json");
  EXPECT_EQ(sg->name(), name);
  ASSERT_EQ(sg->outputs().size(), 1u);
  EXPECT_EQ(sg->outputs()[0].dtype, dtype);
  const CheckResult r = check_subgraph(*sg, 1);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
  EXPECT_GE(r.comparison.worst_index, 0);
  if (dtype == DType::kU8) {
    const Tensor out = sg->reference(sg->make_inputs(1))[0];
    size_t inside = 0;
    std::set<double> distinct;
    for (size_t i = 0; i < out.size(); ++i) {
      inside += out.at(i) > 0 && out.at(i) < 255;
      distinct.insert(out.at(i));
    }
    // (A ReLU before requantizing sends about half of the values to 0.)
    EXPECT_GT(inside, out.size() / 4) << "the scales do not fit the accumulators";
    EXPECT_GT(distinct.size(), 100u);
  }
}

INSTANTIATE_TEST_SUITE_P(LowPrecision, LowPrecisionSuiteTest,
                         ::testing::Values(std::make_pair("mlp_gelu_bf16", DType::kBF16),
                                           std::make_pair("bmm_scores_bf16", DType::kBF16),
                                           std::make_pair("gemm_u8s8_requant", DType::kU8),
                                           std::make_pair("conv3x3_u8s8_relu_requant", DType::kU8),
                                           std::make_pair("layernorm_f16", DType::kF16)));

// Specs whose inputs are not f32: an 8-bit image and half-precision activations. Inputs
// are seeded over their type's range (u8: whole numbers 0..255; f16: the given range,
// rounded to f16), read as f32 by the ops, and the workload key knows the type.
class TypedSpecTest : public ::testing::TestWithParam<const char*> {};

TEST_P(TypedSpecTest, MatchesReferenceAndSeedsItsType) {
  const auto sg = load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/tests/data/" + GetParam() + ".json");
  const CheckResult r = check_subgraph(*sg, 1);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
  const Tensor in = sg->make_inputs(1)[0];
  EXPECT_EQ(in.dtype, sg->inputs()[0].dtype);
  EXPECT_EQ(in.bytes.size(), in.size() * bytes_of(in.dtype));
  double lo = 1e300, hi = -1e300;
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(in.at(i), round_to(in.dtype, in.at(i)));
    lo = std::min(lo, in.at(i));
    hi = std::max(hi, in.at(i));
  }
  if (in.dtype == DType::kU8) {
    EXPECT_EQ(lo, 0);
    EXPECT_EQ(hi, 255);
  } else {
    EXPECT_GE(lo, -4);
    EXPECT_LE(hi, 4);
    EXPECT_GT(hi - lo, 7);
  }
  EXPECT_NE(sg->key().shapes.find(to_string(in.dtype)), std::string::npos) << sg->key().shapes;
}

INSTANTIATE_TEST_SUITE_P(Typed, TypedSpecTest, ::testing::Values("u8_blur", "f16_softmax"));

TEST(Suite, TheInputTypeIsPartOfTheWorkloadKey) {
  const std::string text = R"({"name": "n", "inputs": [{"name": "a", "shape": [8, 8]DTYPE}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "b"}], "outputs": ["b"]})";
  auto with = [&](const std::string& dtype) {
    std::string t = text;
    t.replace(t.find("DTYPE"), 5, dtype.empty() ? "" : ", \"dtype\": \"" + dtype + "\"");
    return SpecSubgraph(parse_spec_text(t, "t.json")).key().key;
  };
  EXPECT_EQ(with(""), with("f32"));
  EXPECT_NE(with("f32"), with("u8"));
  EXPECT_NE(with("u8"), with("i8"));
  EXPECT_NE(with("f16"), with("bf16"));
}

TEST(Suite, HasExactlyTheTenSubgraphs) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(KTUNE_SOURCE_DIR) + "/bench/suite")) {
    count += entry.path().extension() == ".json";
  }
  EXPECT_EQ(count, 10);
}

TEST(Suite, FlopsAndBytesOfKnownSubgraphs) {
  const auto gemm = load_spec_subgraph(suite_path("gemm_1024"));
  EXPECT_DOUBLE_EQ(gemm->flops(), 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(gemm->compulsory_bytes(), 3.0 * 1024 * 1024 * 4);
  const auto blur = load_spec_subgraph(suite_path("blur3x3"));
  EXPECT_EQ(blur->outputs()[0].shape, (Shape{4096, 4096}));
  const auto conv = load_spec_subgraph(suite_path("conv3x3_relu"));
  EXPECT_DOUBLE_EQ(conv->flops(), 2.0 * 64 * 56 * 56 * 64 * 9 + 2.0 * 64 * 56 * 56);
}

}  // namespace
}  // namespace ktune::subgraphs
