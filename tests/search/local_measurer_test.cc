// Tests search/local_measurer.cc: a round measured on this machine reports every item with
// this host as its provenance, confirms a first timing that beats the incumbent with more
// runs (in turns with the incumbent when the round names it), and stops when the caller
// says so.
#include "search/local_measurer.h"

#include <gtest/gtest.h>

#include "scheduler/space.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"

namespace ktune::search {
namespace {

const char* kSpec = R"({"name": "lm", "inputs": [{"name": "x", "shape": [64, 64]}],
  "ops": [{"op": "relu", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})";

LocalMeasurerOptions options() {
  LocalMeasurerOptions o;
  o.run.threads = 1;
  o.run.timing.min_repeats = 3;
  o.run.timing.min_total_ms = 0;
  o.host = "test-host";
  return o;
}

TEST(LocalMeasurer, ReportsEveryItemAndConfirmsANewBest) {
  const auto sg = std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(kSpec, "lm.json"));
  const scheduler::Space space(scheduler::analyze(*sg, scheduler::target_info_from_device(targets::detect_host_device())));
  LocalMeasurer measurer(options());
  EXPECT_EQ(measurer.prepare(*sg), "");
  MeasureRound round;
  round.subgraph = sg.get();
  round.analysis = &space.analysis();
  round.workload_key = sg->key().key;
  for (const scheduler::Schedule& s : {space.naive(), space.heuristic()}) round.items.push_back({s.hash(), s, "test"});
  std::vector<size_t> seen;
  int confirmed = 0;
  const std::atomic<int> no_stop{0};
  measurer.measure(round, no_stop, [&](size_t i, const measure::MeasureResult& r, const Provenance& who) {
    EXPECT_TRUE(r.ok()) << measure::describe(r);
    EXPECT_EQ(who.host, "test-host");
    EXPECT_EQ(who.rank, 0);
    confirmed += r.repeats >= 3 * (1 + kConfirmRuns);
    seen.push_back(i);
    return true;
  });
  EXPECT_EQ(seen, (std::vector<size_t>{0, 1}));
  EXPECT_GE(confirmed, 1) << "the first ok result beats no incumbent: it is timed three times";

  // The caller ends the round after the first result.
  seen.clear();
  round.incumbent_ns = 1;  // nothing beats 1 ns: no confirmation runs
  measurer.measure(round, no_stop, [&](size_t i, const measure::MeasureResult& r, const Provenance&) {
    EXPECT_LT(r.repeats, 3 * (1 + kConfirmRuns));
    seen.push_back(i);
    return false;
  });
  EXPECT_EQ(seen, std::vector<size_t>{0});
  measurer.finish();
}

TEST(LocalMeasurer, TimesTheNamedIncumbentBesideAChallenger) {
  const auto sg = std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(kSpec, "lm.json"));
  const scheduler::Space space(scheduler::analyze(*sg, scheduler::target_info_from_device(targets::detect_host_device())));
  LocalMeasurer measurer(options());
  ASSERT_EQ(measurer.prepare(*sg), "");
  MeasureRound round;
  round.subgraph = sg.get();
  round.analysis = &space.analysis();
  round.workload_key = sg->key().key;
  const scheduler::Schedule naive = space.naive(), heuristic = space.heuristic();
  ASSERT_NE(naive.hash(), heuristic.hash());
  round.items.push_back({heuristic.hash(), heuristic, "test"});
  round.incumbent = MeasureItem{naive.hash(), naive, "incumbent"};
  round.incumbent_ns = 1e12;  // every first timing beats it: each is confirmed
  const std::atomic<int> no_stop{0};
  std::vector<size_t> seen;
  std::vector<measure::MeasureResult> results;
  measurer.measure(round, no_stop, [&](size_t i, const measure::MeasureResult& r, const Provenance&) {
    seen.push_back(i);
    results.push_back(r);
    return true;
  });
  ASSERT_EQ(seen, (std::vector<size_t>{1, 0})) << "the incumbent's new timing comes just before the challenger's";
  EXPECT_TRUE(results[0].ok()) << measure::describe(results[0]);
  EXPECT_GE(results[0].repeats, 3 * (1 + kConfirmRuns)) << "the incumbent runs before and after each confirming run";
  EXPECT_LT(results[0].repeats, 3 * (2 + kConfirmRuns));
  EXPECT_LT(results[0].build_ms, 0) << "no build time is charged to a round for the incumbent";
  EXPECT_GE(results[1].repeats, 3 * (1 + kConfirmRuns));

  // A round that names no incumbent confirms alone and reports only its items.
  seen.clear();
  round.incumbent.reset();
  measurer.measure(round, no_stop, [&](size_t i, const measure::MeasureResult&, const Provenance&) {
    seen.push_back(i);
    return true;
  });
  EXPECT_EQ(seen, std::vector<size_t>{0});

  measurer.finish();
}

}  // namespace
}  // namespace ktune::search
