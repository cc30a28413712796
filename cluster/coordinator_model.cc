#include "cluster/coordinator_model.h"

#include <algorithm>

namespace ktune::cluster {

SimulationResult simulate(const SimulatedRun& run, const CoordinatorCosts& costs, const std::vector<double>& worker_s) {
  SimulationResult out;
  if (worker_s.empty() || run.workers < 1 || run.batch_per_worker < 1) return out;
  const int per_round = run.workers * run.batch_per_worker;
  double clock = 0, busy = 0, coordinator = 0;
  size_t next = 0;
  int measured = 0;
  // Retraining is paid every time the data grows by a tenth: per new sample, about ten
  // times the cost per stored sample.
  const double train_per_candidate = 10 * costs.train_per_sample_s;
  while (measured < run.candidates) {
    const double propose = costs.propose_fixed_s + costs.propose_per_item_s * per_round;
    double slowest = 0;
    for (int w = 0; w < run.workers; ++w) {
      double t = 0;
      for (int i = 0; i < run.batch_per_worker; ++i) t += worker_s[next++ % worker_s.size()];
      busy += t;
      slowest = std::max(slowest, t);
    }
    // Commits and retraining happen as results arrive; those of the last result, and the
    // next round's search unless overlapped, keep the workers waiting.
    const double own = propose + per_round * (costs.commit_s + train_per_candidate);
    coordinator += own;
    const double round = run.overlap ? std::max(slowest, own) : propose + std::max(slowest, own - propose);
    clock += round;
    measured += per_round;
  }
  out.candidates_per_s = measured / clock;
  out.worker_busy = busy / (clock * run.workers);
  out.coordinator_busy = std::min(1.0, coordinator / clock);
  return out;
}

}  // namespace ktune::cluster
