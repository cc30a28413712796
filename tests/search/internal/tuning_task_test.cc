// A round's proposals (search/internal/tuning_task.h): a search that runs out of time before
// it scores anything leaves the round to random samples instead of ending the task; the
// first round measures the heuristic and its strip variants; a round sums its results' build
// and run seconds.
#include "search/internal/tuning_task.h"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "cost_model/analytical_model.h"
#include "tests/scheduler/test_support.h"

namespace ktune::search::internal {
namespace {

TEST(CountResult, TheRoundSumsItsBuildAndRunSeconds) {
  Task t;
  RoundRecord record;
  measure::MeasureResult built_and_run;
  built_and_run.status = measure::MeasureStatus::kRunTimeout;
  built_and_run.build_ms = 1500;
  built_and_run.run_wall_ms = 3400;
  count_result(t, Proposal{}, built_and_run, record);
  measure::MeasureResult not_built;  // a build error: no build time, no run
  not_built.status = measure::MeasureStatus::kBuildError;
  count_result(t, Proposal{}, not_built, record);
  EXPECT_EQ(record.measured, 2);
  EXPECT_DOUBLE_EQ(record.build_s, 1.5);
  EXPECT_DOUBLE_EQ(record.run_s, 3.4);
}

TEST(SamplesSeenByModel, CountsTheWorkloadAndItsOtherShapesOnly) {
  Task t;
  t.summary.workload_key = "matmul-512";
  t.family_keys = {"matmul-1024", "matmul-64"};
  const std::map<std::string, int> model_samples = {{"matmul-512", 5}, {"matmul-1024", 12}, {"softmax", 400}};
  EXPECT_EQ(samples_seen_by_model(t, model_samples), 17);
  EXPECT_EQ(samples_seen_by_model(t, {}), 0);
  t.family_keys.clear();
  EXPECT_EQ(samples_seen_by_model(t, model_samples), 5);
}

TEST(ProposeRound, ASearchOutOfTimeLeavesTheRoundToRandomSamples) {
  Task t;
  t.subgraph = scheduler::testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [32, 64]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "r"}, {"op": "gelu", "inputs": ["r"], "output": "y"}],
    "outputs": ["y"]})");
  t.space = std::make_unique<scheduler::Space>(scheduler::analyze(*t.subgraph, scheduler::testing::test_target()));
  t.features = std::make_unique<cost_model::FeatureExtractor>(t.space->analysis());
  t.heuristic_hash = t.space->heuristic().hash();
  t.measured.insert(t.heuristic_hash);
  const cost_model::AnalyticalModel model(scheduler::testing::test_target());
  Progress progress(false, "", std::nullopt, std::nullopt);
  scheduler::Rng rng(3);
  SearchParams params;
  params.batch = 4;
  params.give_up = [] { return true; };  // no time at all: the search scores nothing
  const std::vector<Proposal> proposals = propose_round(t, params, model, rng, progress);
  ASSERT_FALSE(proposals.empty());
  for (const Proposal& p : proposals) {
    EXPECT_TRUE(p.random);
    EXPECT_EQ(t.measured.count(p.schedule.hash()), 0u);
    EXPECT_EQ(t.space->validate(p.schedule), std::nullopt);
  }
}

TEST(ProposeRound, TheFirstRoundProposesTheHeuristicAndItsStripVariantsOnce) {
  Task t;
  // Three 3-tap stencils down the columns of a 64 x 256 image, then a ReLU: in strips.
  t.subgraph = scheduler::testing::spec_subgraph(R"({"inputs": [{"name": "in", "shape": [262, 64]}],
    "ops": [{"op": "stencil", "inputs": ["in"], "output": "s0", "axes": [0], "weights": [1, 2, 1], "divisor": 4},
            {"op": "stencil", "inputs": ["s0"], "output": "s1", "axes": [0], "weights": [1, 2, 1], "divisor": 4},
            {"op": "stencil", "inputs": ["s1"], "output": "s2", "axes": [0], "weights": [1, 2, 1], "divisor": 4},
            {"op": "relu", "inputs": ["s2"], "output": "out"}], "outputs": ["out"]})");
  t.space = std::make_unique<scheduler::Space>(scheduler::analyze(*t.subgraph, scheduler::testing::test_target()));
  t.features = std::make_unique<cost_model::FeatureExtractor>(t.space->analysis());
  t.heuristic_hash = t.space->heuristic().hash();
  t.strip_variants = t.space->strip_variants();
  ASSERT_FALSE(t.strip_variants.empty());
  std::vector<std::string> expected{t.heuristic_hash};
  for (const scheduler::Schedule& v : t.strip_variants) expected.push_back(v.hash());
  const cost_model::AnalyticalModel model(scheduler::testing::test_target());
  Progress progress(false, "", std::nullopt, std::nullopt);
  scheduler::Rng rng(3);
  SearchParams params;
  params.batch = 2;
  const std::vector<Proposal> first = propose_round(t, params, model, rng, progress);
  ASSERT_GE(first.size(), expected.size());
  std::set<std::string> hashes;
  for (size_t i = 0; i < first.size(); ++i) {
    if (i < expected.size()) EXPECT_EQ(first[i].schedule.hash(), expected[i]) << i;
    EXPECT_TRUE(hashes.insert(first[i].schedule.hash()).second) << "proposed twice: " << i;
  }
  for (const std::string& h : expected) t.measured.insert(h);
  for (const Proposal& p : propose_round(t, params, model, rng, progress)) {
    EXPECT_EQ(std::count(expected.begin(), expected.end(), p.schedule.hash()), 0);
  }
}

}  // namespace
}  // namespace ktune::search::internal
