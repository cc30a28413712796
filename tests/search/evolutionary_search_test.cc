#include "search/evolutionary_search.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "cost_model/analytical_model.h"
#include "cost_model/extractor.h"
#include "scheduler/space.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::search {
namespace {

class EvolutionarySearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sg_ = subgraphs::load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_matmul.json");
    scheduler::TargetInfo t;
    t.vector_lanes = 8;
    space_ = std::make_unique<scheduler::Space>(scheduler::analyze(*sg_, t));
    features_ = std::make_unique<cost_model::FeatureExtractor>(space_->analysis());
    model_ = std::make_unique<cost_model::AnalyticalModel>(t);
    params_.population = 48;
    params_.generations = 2;
    params_.batch = 8;
  }
  std::unique_ptr<subgraphs::SpecSubgraph> sg_;
  std::unique_ptr<scheduler::Space> space_;
  std::unique_ptr<cost_model::FeatureExtractor> features_;
  std::unique_ptr<cost_model::AnalyticalModel> model_;
  SearchParams params_;
};

TEST_F(EvolutionarySearchTest, ProposesDistinctValidUnmeasuredSchedules) {
  EvolutionarySearch search(*space_, *features_, params_);
  scheduler::Rng rng(1);
  const std::set<std::string> measured = {space_->heuristic().hash()};
  const auto proposals = search.propose({space_->heuristic(), space_->naive()}, measured, *model_, rng);
  ASSERT_EQ(proposals.size(), 8u);
  std::set<std::string> hashes;
  int random = 0;
  for (const Proposal& p : proposals) {
    EXPECT_EQ(space_->validate(p.schedule).value_or(""), "");
    EXPECT_FALSE(measured.count(p.schedule.hash()));
    hashes.insert(p.schedule.hash());
    random += p.random;
  }
  EXPECT_EQ(hashes.size(), proposals.size());
  EXPECT_EQ(random, 1) << "epsilon 0.15 of 8 rounds to one exploratory pick";
}

TEST_F(EvolutionarySearchTest, GreedyPicksAreTheBestScoredOfThePool) {
  EvolutionarySearch search(*space_, *features_, params_);
  scheduler::Rng rng(2);
  const auto population = search.seed_population({space_->heuristic()}, rng);
  EXPECT_EQ(static_cast<int>(population.size()), params_.population);
  EXPECT_EQ(population[0], space_->heuristic()) << "seeds come first";
  const auto pool = search.evolve(population, *model_, rng);
  EXPECT_GT(pool.size(), population.size()) << "evolution adds new schedules";
  for (size_t i = 1; i < pool.size(); ++i) EXPECT_GE(pool[i - 1].score, pool[i].score);
  const auto picks = search.pick(pool, {}, rng);
  int greedy = 0;
  for (const Proposal& p : picks) {
    if (p.random) continue;
    EXPECT_EQ(p.schedule.hash(), pool[greedy].hash);
    ++greedy;
  }
}

// Once SearchParams::give_up says so (a stop, the budget's end), the search grows nothing
// more: no generation runs, and what was scored is all it picks from.
TEST_F(EvolutionarySearchTest, GivingUpStopsTheSearchBetweenSteps) {
  int asked = 0;
  params_.give_up = [&asked] { return ++asked > 3; };
  EvolutionarySearch search(*space_, *features_, params_);
  scheduler::Rng rng(4);
  const auto population = search.seed_population({space_->heuristic()}, rng);
  EXPECT_LT(static_cast<int>(population.size()), params_.population) << "sampling stopped early";
  const auto pool = search.evolve(population, *model_, rng);
  EXPECT_TRUE(pool.empty()) << "nothing scored once it gave up";
  EXPECT_TRUE(search.propose({space_->heuristic()}, {}, *model_, rng).empty());
}

TEST_F(EvolutionarySearchTest, InvalidSeedsAreDropped) {
  EvolutionarySearch search(*space_, *features_, params_);
  scheduler::Rng rng(3);
  scheduler::Schedule bad = space_->naive();
  bad.funcs.pop_back();
  const auto population = search.seed_population({bad, space_->naive()}, rng);
  EXPECT_EQ(population[0], space_->naive());
  for (const auto& s : population) EXPECT_EQ(space_->validate(s).value_or(""), "");
}


// A chain of `stages` 3-point stencils along alternating axes, as a spec file in the test's
// temporary directory.
std::string stencil_chain_spec(int stages) {
  std::string ops;
  std::string input = "image";
  for (int i = 0; i < stages; ++i) {
    const std::string output = "s" + std::to_string(i);
    if (!ops.empty()) ops += ",\n";
    ops += R"({"op": "stencil", "inputs": [")" + input + R"("], "output": ")" + output + R"(", "axes": [)" +
           std::to_string(i % 2) + R"(], "weights": [1, 2, 1], "divisor": 4})";
    input = output;
  }
  const std::string path = ::testing::TempDir() + "/stencil_chain_" + std::to_string(stages) + ".json";
  std::ofstream(path) << R"({"name": "chain", "inputs": [{"name": "image", "shape": [256, 512], "dtype": "f32"}],
 "ops": [)" << ops << R"(], "outputs": [")" << input << R"("]})";
  return path;
}

// How many Funcs `a` and `b` schedule differently.
int funcs_differing(const scheduler::Schedule& a, const scheduler::Schedule& b) {
  int n = 0;
  for (size_t i = 0; i < a.funcs.size() && i < b.funcs.size(); ++i) n += !(a.funcs[i] == b.funcs[i]);
  return n;
}

TEST(EvolutionarySearchSeedingTest, TopsUpWithMutantsOfTheSeedsAndFreshSamples) {
  const auto sg = subgraphs::load_spec_subgraph(stencil_chain_spec(10));
  scheduler::TargetInfo t;
  t.vector_lanes = 8;
  const scheduler::Space space(scheduler::analyze(*sg, t));
  const cost_model::FeatureExtractor features(space.analysis());
  SearchParams params;
  params.population = 64;
  EvolutionarySearch search(space, features, params);
  scheduler::Rng rng(3);
  const scheduler::Schedule seed = space.heuristic();
  const auto population = search.seed_population({seed}, rng);
  ASSERT_EQ(static_cast<int>(population.size()), params.population);
  EXPECT_EQ(population[0], seed);
  // A mutant differs from the seed in a Func or two; a fresh sample of a 10-stage chain, in
  // most of them. Half the population is of each kind, less what was drawn twice.
  int neighbours = 0, fresh = 0;
  for (size_t i = 1; i < population.size(); ++i) {
    const int differing = funcs_differing(population[i], seed);
    neighbours += differing <= 2;
    fresh += differing >= 5;
  }
  EXPECT_GE(neighbours, params.population / 4);
  EXPECT_GE(fresh, params.population / 4);
}

}  // namespace
}  // namespace ktune::search
