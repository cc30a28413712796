// Tests cluster/coordinator_model.cc: throughput grows with the ranks until the coordinator's
// own work per round takes longer than the ranks' measuring; overlap and batches push that out.
#include "cluster/coordinator_model.h"

#include <gtest/gtest.h>

namespace ktune::cluster {
namespace {

TEST(CoordinatorModel, ScalesUntilTheCoordinatorIsTheBottleneck) {
  const std::vector<double> worker_s = {0.5};  // each candidate takes a rank half a second
  CoordinatorCosts costs;
  costs.propose_fixed_s = 0.2;
  costs.commit_s = 0.001;
  SimulatedRun run;
  run.batch_per_worker = 8;
  run.candidates = 4096;
  run.workers = 1;
  const SimulationResult one = simulate(run, costs, worker_s);
  // A round: 0.2 s of search, then 8 x 0.5 s of measuring.
  EXPECT_NEAR(one.candidates_per_s, 8 / 4.2, 1e-9);
  run.workers = 8;
  const SimulationResult eight = simulate(run, costs, worker_s);
  EXPECT_NEAR(eight.candidates_per_s / one.candidates_per_s, 8, 0.5) << "the search is a small part of a round";
  // 256 ranks: a round's commits (2048 x 1 ms) are half its measuring time; without overlap
  // the search adds to it, with overlap it hides behind the measuring.
  run.workers = 256;
  const SimulationResult serial = simulate(run, costs, worker_s);
  run.overlap = true;
  const SimulationResult overlapped = simulate(run, costs, worker_s);
  EXPECT_GT(overlapped.candidates_per_s, serial.candidates_per_s);
  EXPECT_NEAR(overlapped.worker_busy, 1, 1e-9);
  // A coordinator slower than the measuring it feeds: the ranks wait for it.
  costs.commit_s = 0.01;
  const SimulationResult starved = simulate(run, costs, worker_s);
  EXPECT_NEAR(starved.coordinator_busy, 1, 1e-9);
  EXPECT_LT(starved.worker_busy, 0.5);
  EXPECT_NEAR(starved.candidates_per_s, 1 / (0.01 + 0.2 / 2048), 1) << "one commit at a time";
}

TEST(CoordinatorModel, EmptyInputsSimulateNothing) {
  EXPECT_EQ(simulate(SimulatedRun{}, CoordinatorCosts{}, {}).candidates_per_s, 0);
}

}  // namespace
}  // namespace ktune::cluster
