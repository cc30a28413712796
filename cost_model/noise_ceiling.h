// How well any ranker over these features could order a dataset's measurements: schedules
// whose feature vectors are identical look the same to every model, so the spread of their
// runtimes is what the features cannot see plus the timing noise. With that spread (sigma,
// the pooled standard deviation of log runtime within such groups) as Gaussian noise, the
// distribution of true log runtimes behind a workload's timings is fitted (maximum
// likelihood on a grid), and the ceiling is the chance that two schedules drawn from it are
// timed in their true order: the pairwise accuracy a ranker that knew the true runtimes would
// score against these timings.
//
//   NoiseCeiling c = estimate_noise_ceiling(data);  // c.pairwise_accuracy: about 0.70 on a noisy machine
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cost_model/dataset.h"

namespace ktune::cost_model {

// One workload's estimate.
struct WorkloadNoise {
  std::string group;               // workload key
  int rows = 0;                    // schedules measured
  int shared_rows = 0;             // of which share their feature vector with another schedule
  double sigma = 0;                // sd of log runtime among schedules with identical features
  double pairwise_accuracy = 0;    // the ceiling: expected pairwise accuracy of a perfect ranker
};

struct NoiseCeiling {
  std::vector<WorkloadNoise> per_workload;  // workloads with at least two identical feature vectors, by key
  double sigma = 0;                         // pooled over those workloads
  double pairwise_accuracy = 0;             // mean of their ceilings; 0 when there is none
  int shared_rows = 0;                      // summed
};

// The estimate for every workload with two schedules of identical features, and their mean.
NoiseCeiling estimate_noise_ceiling(const Dataset& data);

nlohmann::json to_json(const NoiseCeiling& c);

}  // namespace ktune::cost_model
