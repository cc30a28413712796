// Synthetic ranking data for the model tests: random feature rows whose runtime follows a
// fixed nonlinear function of a few features (the rest is noise), one group per workload.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "cost_model/cost_model.h"
#include "cost_model/features.h"
#include "scheduler/rng.h"

namespace ktune::cost_model::testing {

// `groups` workloads numbered from `first_group`, `per_group` schedules each.
inline std::vector<TrainingSample> synthetic_samples(int first_group, int groups, int per_group, uint64_t seed) {
  scheduler::Rng rng(seed);
  auto uniform = [&] { return static_cast<double>(rng.below(1 << 20)) / (1 << 20); };
  std::vector<TrainingSample> out;
  for (int g = first_group; g < first_group + groups; ++g) {
    const double scale = 1e5 * (1 + g % 7);  // workloads differ in size
    for (int i = 0; i < per_group; ++i) {
      TrainingSample s;
      s.features.resize(feature_count());
      for (float& f : s.features) f = static_cast<float>(uniform());
      const double x0 = s.features[0], x1 = s.features[1], x2 = s.features[2], x3 = s.features[3];
      const double noise = 0.05 * (uniform() - 0.5);
      s.runtime_ns = scale * std::exp(2 * x0 - 1.5 * x1 + (x2 > 0.5 ? 0.8 * x3 : -0.4) + noise);
      s.group = "w" + std::to_string(g);
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace ktune::cost_model::testing
