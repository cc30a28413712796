// A round's proposals (search/internal/tuning_task.h): a search that runs out of time before
// it scores anything leaves the round to random samples instead of ending the task.
#include "search/internal/tuning_task.h"

#include <gtest/gtest.h>

#include "cost_model/analytical_model.h"
#include "tests/scheduler/test_support.h"

namespace ktune::search::internal {
namespace {

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

}  // namespace
}  // namespace ktune::search::internal
