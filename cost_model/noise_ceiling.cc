#include "cost_model/noise_ceiling.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace ktune::cost_model {
namespace {

// Log runtimes of one workload, grouped by feature vector.
using FeatureGroups = std::map<std::vector<float>, std::vector<double>>;

// Pooled sum of squared deviations from each group's mean, and its degrees of freedom.
std::pair<double, int> within_group_spread(const FeatureGroups& groups, int& shared_rows) {
  double squares = 0;
  int freedom = 0;
  for (const auto& [features, logs] : groups) {
    if (logs.size() < 2) continue;
    double mean = 0;
    for (double v : logs) mean += v / static_cast<double>(logs.size());
    for (double v : logs) squares += (v - mean) * (v - mean);
    freedom += static_cast<int>(logs.size()) - 1;
    shared_rows += static_cast<int>(logs.size());
  }
  return {squares, freedom};
}

// The distribution of true log runtimes behind timings `logs` with Gaussian noise `sigma`:
// weights on a grid spanning them, half a sigma apart (at least kMinGrid and at most
// kMaxGrid values), fitted by maximum likelihood (EM from uniform weights) to at most
// kMaxTimings of them, evenly spaced in sorted order. Where the grid is coarser than the
// noise, the fit takes the noise as one grid step.
constexpr int kMinGrid = 50;
constexpr int kMaxGrid = 400;
constexpr int kIterations = 200;
constexpr size_t kMaxTimings = 4000;

std::vector<double> grid_over(const std::vector<double>& logs, double sigma) {
  const auto [lo, hi] = std::minmax_element(logs.begin(), logs.end());
  const int size = std::clamp(static_cast<int>((*hi - *lo) / (sigma / 2)) + 1, kMinGrid, kMaxGrid);
  std::vector<double> grid(size);
  for (int k = 0; k < size; ++k) grid[k] = *lo + (*hi - *lo) * k / (size - 1);
  return grid;
}

std::vector<double> thinned(std::vector<double> logs) {
  if (logs.size() <= kMaxTimings) return logs;
  std::sort(logs.begin(), logs.end());
  std::vector<double> out;
  for (size_t k = 0; k < kMaxTimings; ++k) out.push_back(logs[k * logs.size() / kMaxTimings]);
  return out;
}

std::vector<double> fit_true_distribution(const std::vector<double>& all_logs, const std::vector<double>& grid,
                                          double noise) {
  const std::vector<double> logs = thinned(all_logs);
  const size_t n = logs.size();
  const int grid_size = static_cast<int>(grid.size());
  const double sigma = std::max(noise, grid[1] - grid[0]);
  std::vector<double> density(n * grid_size);  // unnormalized likelihood of timing i from grid value k
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < grid_size; ++k) {
      const double z = (logs[i] - grid[k]) / sigma;
      density[i * grid_size + k] = std::exp(-0.5 * z * z);
    }
  }
  std::vector<double> weights(grid_size, 1.0 / grid_size), next(grid_size);
  for (int it = 0; it < kIterations; ++it) {
    std::fill(next.begin(), next.end(), 0.0);
    for (size_t i = 0; i < n; ++i) {
      const double* row = &density[i * grid_size];
      double total = 0;
      for (int k = 0; k < grid_size; ++k) total += weights[k] * row[k];
      if (!(total > 0)) continue;
      for (int k = 0; k < grid_size; ++k) next[k] += weights[k] * row[k] / total;
    }
    for (int k = 0; k < grid_size; ++k) weights[k] = next[k] / static_cast<double>(n);
  }
  return weights;
}

// The chance that two schedules drawn from the fitted distribution are timed in their true
// order: Phi(|difference| / (sigma sqrt 2)) summed over pairs of grid values.
double ceiling_of(const std::vector<double>& logs, double sigma) {
  if (sigma <= 0) return 1.0;
  const std::vector<double> grid = grid_over(logs, sigma);
  const std::vector<double> w = fit_true_distribution(logs, grid, sigma);
  double sum = 0;
  for (size_t k = 0; k < grid.size(); ++k) {
    for (size_t l = 0; l < grid.size(); ++l) {
      sum += w[k] * w[l] * 0.5 * (1 + std::erf(std::abs(grid[k] - grid[l]) / (2 * sigma)));
    }
  }
  return sum;
}

}  // namespace

NoiseCeiling estimate_noise_ceiling(const Dataset& data) {
  std::map<std::string, FeatureGroups> by_workload;
  for (const TrainingSample& s : data.samples) by_workload[s.group][s.features].push_back(std::log(s.runtime_ns));
  NoiseCeiling c;
  double squares = 0;
  int freedom = 0;
  for (const auto& [group, groups] : by_workload) {
    std::vector<double> logs;
    for (const auto& [features, group_logs] : groups) logs.insert(logs.end(), group_logs.begin(), group_logs.end());
    WorkloadNoise w;
    w.group = group;
    w.rows = static_cast<int>(logs.size());
    const auto [sq, df] = within_group_spread(groups, w.shared_rows);
    if (df == 0) continue;
    w.sigma = std::sqrt(sq / df);
    w.pairwise_accuracy = ceiling_of(logs, w.sigma);
    squares += sq;
    freedom += df;
    c.shared_rows += w.shared_rows;
    c.pairwise_accuracy += w.pairwise_accuracy;
    c.per_workload.push_back(w);
  }
  if (c.per_workload.empty()) return c;
  c.sigma = std::sqrt(squares / freedom);
  c.pairwise_accuracy /= static_cast<double>(c.per_workload.size());
  return c;
}

nlohmann::json to_json(const NoiseCeiling& c) {
  nlohmann::json per = nlohmann::json::array();
  for (const WorkloadNoise& w : c.per_workload) {
    per.push_back({{"workload", w.group}, {"rows", w.rows}, {"shared_rows", w.shared_rows}, {"sigma", w.sigma},
                   {"pairwise_accuracy", w.pairwise_accuracy}});
  }
  return {{"sigma", c.sigma}, {"pairwise_accuracy", c.pairwise_accuracy}, {"shared_rows", c.shared_rows},
          {"per_workload", per}};
}

}  // namespace ktune::cost_model
