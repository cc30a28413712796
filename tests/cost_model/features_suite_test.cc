// Features of every schedule the search can reach on the public suite: samples and chains of
// mutations (what the evolutionary search scores) extract without fault into finite vectors,
// for an AVX2-class and an AVX-512-class target.
#include <gtest/gtest.h>

#include <cmath>

#include "cost_model/extractor.h"
#include "scheduler/space.h"
#include "subgraphs/spec_subgraph.h"
#include "tests/cost_model/test_support.h"

namespace ktune::cost_model {
namespace {

constexpr int kSamples = 60;
constexpr int kGenerations = 4;

class SuiteFeatures : public ::testing::TestWithParam<const char*> {};

TEST_P(SuiteFeatures, SampledAndMutatedSchedulesGiveFiniteFeatures) {
  const auto sg = subgraphs::load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/bench/suite/" + GetParam() + ".json");
  for (int lanes : {8, 16}) {
    scheduler::TargetInfo target = testing::test_target();
    target.vector_lanes = lanes;
    const scheduler::Space space(scheduler::analyze(*sg, target));
    const FeatureExtractor features(space.analysis());
    scheduler::Rng rng(7 + lanes);
    std::vector<scheduler::Schedule> population = {space.heuristic(), space.naive()};
    while (static_cast<int>(population.size()) < kSamples) {
      if (auto s = space.sample(rng)) population.push_back(*s);
    }
    for (int g = 0; g < kGenerations; ++g) {
      const size_t n = population.size();
      for (size_t i = 0; i < n; ++i) {
        if (auto m = space.mutate(population[i], rng)) population.push_back(*m);
      }
    }
    const auto rows = features.extract(population);
    ASSERT_EQ(rows.size(), population.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      for (size_t k = 0; k < rows[i].size(); ++k) {
        ASSERT_TRUE(std::isfinite(rows[i][k])) << GetParam() << " lanes " << lanes << " feature " << k << "\n"
                                               << population[i].to_json().dump();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(PublicSuite, SuiteFeatures,
                         ::testing::Values("gemm_1024", "mlp_gelu", "bmm_scores", "conv3x3_relu", "dwconv3x3_relu",
                                           "softmax", "layernorm", "eltwise", "blur3x3", "colsum"));

}  // namespace
}  // namespace ktune::cost_model
