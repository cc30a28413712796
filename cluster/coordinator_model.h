// A model of a distributed tuning run, to see where the coordinator (rank 0: the search,
// the cost model's retraining, the database commits) becomes the bottleneck as measuring
// ranks are added, and what batch size keeps them busy. Workers' times per candidate are
// drawn from a real run's measurements; the coordinator's costs are measured on this
// machine (bench/micro/coordinator_sim.cc). Plain arithmetic, tested without MPI.
#pragma once

#include <cstdint>
#include <vector>

namespace ktune::cluster {

struct CoordinatorCosts {
  double propose_fixed_s = 0;     // one round's search, whatever its batch (evolving the population)
  double propose_per_item_s = 0;  // and per candidate it returns
  double commit_s = 0;            // committing one result (SQLite, WAL)
  double train_per_sample_s = 0;  // retraining cost per stored sample, paid every time the data
                                  // grows by a tenth: amortized per new candidate
};

struct SimulatedRun {
  int workers = 1;          // measuring ranks
  int batch_per_worker = 8; // candidates each rank gets per round
  bool overlap = false;     // the coordinator proposes the next round while this one is measured
  int candidates = 2000;    // candidates the run measures
};

struct SimulationResult {
  double candidates_per_s = 0;
  double worker_busy = 0;       // fraction of the workers' time spent measuring
  double coordinator_busy = 0;  // fraction of the run the coordinator spends on its own work
};

// Simulates `run` with per-candidate worker times (seconds, one rank's build share and
// isolated run) drawn in turn from `worker_s` (cycled, deterministic).
SimulationResult simulate(const SimulatedRun& run, const CoordinatorCosts& costs, const std::vector<double>& worker_s);

}  // namespace ktune::cluster
