// How much one kernel's timing moves from one isolated run to the next: the spread of the
// runs' medians and minima (standard deviation of their logarithms), and the fastest and
// slowest run. On a shared machine it is much larger than the spread of the runs inside one
// isolated run (the IQR), and it is the noise every measurement in a database carries.
#pragma once

#include <vector>

#include "measure/measure_result.h"

namespace ktune::measure {

struct RunSpread {
  int runs = 0;                 // ok runs summarized
  double sd_log_median = 0;     // standard deviation of log(median_ns) across runs
  double sd_log_min = 0;        // standard deviation of log(min_ns) across runs
  double fastest_median_ns = -1;  // smallest median of one run; -1 without ok runs
  double slowest_median_ns = -1;  // largest median of one run; -1 without ok runs
};

// The spread across the ok results of `runs` (failed ones are skipped); zero spreads with
// fewer than two ok runs.
RunSpread spread_between_runs(const std::vector<MeasureResult>& runs);

}  // namespace ktune::measure
