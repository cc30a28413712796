// Every subgraph of the public suite (bench/suite/*.json) builds, has the shapes the
// suite promises, and matches its reference under the trivial schedule.
#include <gtest/gtest.h>

#include <filesystem>

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
