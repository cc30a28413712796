// Tests the spread of one kernel's timing between isolated runs.
#include "measure/run_spread.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ktune::measure {
namespace {

MeasureResult timed(double median_ns, double min_ns) {
  MeasureResult r;
  r.median_ns = median_ns;
  r.min_ns = min_ns;
  r.spread_ns = 0;
  r.repeats = 10;
  return r;
}

TEST(RunSpread, TwoRunsAFactorApartSpreadByHalfItsLogarithm) {
  // log(2) apart: each is log(2)/2 from their mean.
  const RunSpread s = spread_between_runs({timed(10e6, 9e6), timed(20e6, 9e6)});
  EXPECT_EQ(s.runs, 2);
  EXPECT_NEAR(s.sd_log_median, std::log(2.0) / 2, 1e-12);
  EXPECT_NEAR(s.sd_log_min, 0, 1e-12) << "equal minima do not spread";
  EXPECT_DOUBLE_EQ(s.fastest_median_ns, 10e6);
  EXPECT_DOUBLE_EQ(s.slowest_median_ns, 20e6);
}

TEST(RunSpread, FailedRunsAreLeftOut) {
  MeasureResult crashed;
  crashed.status = MeasureStatus::kCrash;
  const RunSpread s = spread_between_runs({timed(5e6, 4e6), crashed, timed(5e6, 4e6)});
  EXPECT_EQ(s.runs, 2);
  EXPECT_DOUBLE_EQ(s.sd_log_median, 0);
  EXPECT_DOUBLE_EQ(s.slowest_median_ns, 5e6);
}

TEST(RunSpread, OneRunHasNoSpreadAndNoneHasNoTimes) {
  const RunSpread one = spread_between_runs({timed(3e6, 2e6)});
  EXPECT_EQ(one.runs, 1);
  EXPECT_DOUBLE_EQ(one.sd_log_median, 0);
  EXPECT_DOUBLE_EQ(one.fastest_median_ns, 3e6);
  const RunSpread none = spread_between_runs({});
  EXPECT_EQ(none.runs, 0);
  EXPECT_DOUBLE_EQ(none.fastest_median_ns, -1);
}

}  // namespace
}  // namespace ktune::measure
