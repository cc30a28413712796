#include "measure/run_spread.h"

#include <algorithm>
#include <cmath>

namespace ktune::measure {
namespace {

// Population standard deviation of log(values); 0 for fewer than two values.
double sd_of_logs(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  double mean = 0;
  for (double v : values) mean += std::log(v);
  mean /= static_cast<double>(values.size());
  double sum_squares = 0;
  for (double v : values) sum_squares += (std::log(v) - mean) * (std::log(v) - mean);
  return std::sqrt(sum_squares / static_cast<double>(values.size()));
}

}  // namespace

RunSpread spread_between_runs(const std::vector<MeasureResult>& runs) {
  std::vector<double> medians, minima;
  for (const MeasureResult& r : runs) {
    if (!r.ok() || !(r.median_ns > 0) || !(r.min_ns > 0)) continue;
    medians.push_back(r.median_ns);
    minima.push_back(r.min_ns);
  }
  RunSpread spread;
  spread.runs = static_cast<int>(medians.size());
  if (medians.empty()) return spread;
  spread.sd_log_median = sd_of_logs(medians);
  spread.sd_log_min = sd_of_logs(minima);
  spread.fastest_median_ns = *std::min_element(medians.begin(), medians.end());
  spread.slowest_median_ns = *std::max_element(medians.begin(), medians.end());
  return spread;
}

}  // namespace ktune::measure
