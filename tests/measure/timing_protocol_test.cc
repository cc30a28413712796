#include "measure/timing_protocol.h"

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <thread>

namespace ktune::measure {
namespace {

TEST(MeasureTimingProtocolTest, StopsAtMinimumCountForSlowRuns) {
  int calls = 0;
  const TimingProtocol p{/*warmup_runs=*/2, /*min_repeats=*/5, /*min_total_ms=*/0, /*max_repeats=*/100};
  const std::vector<double> samples = run_timing_protocol(p, [&] { ++calls; });
  EXPECT_EQ(samples.size(), 5u);
  EXPECT_EQ(calls, 7);  // two warm-up runs, five timed
}

TEST(MeasureTimingProtocolTest, ContinuesUntilMinimumTotalTime) {
  const TimingProtocol p{/*warmup_runs=*/0, /*min_repeats=*/3, /*min_total_ms=*/30, /*max_repeats=*/1000};
  const std::vector<double> samples =
      run_timing_protocol(p, [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); });
  EXPECT_GT(samples.size(), 3u);
  const double total_ns = std::accumulate(samples.begin(), samples.end(), 0.0);
  EXPECT_GE(total_ns, 30e6);
  // It stops as soon as the total is reached: without the last sample it was short.
  EXPECT_LT(total_ns - samples.back(), 30e6);
  for (double s : samples) EXPECT_GE(s, 2e6);
}

TEST(MeasureTimingProtocolTest, MaxRepeatsBoundsTinyRuns) {
  const TimingProtocol p{/*warmup_runs=*/0, /*min_repeats=*/2, /*min_total_ms=*/1e6, /*max_repeats=*/50};
  EXPECT_EQ(run_timing_protocol(p, [] {}).size(), 50u);
}

TEST(MeasureTimingProtocolTest, AHopelessRunIsTheLast) {
  TimingProtocol p{/*warmup_runs=*/1, /*min_repeats=*/5, /*min_total_ms=*/0, /*max_repeats=*/100};
  p.hopeless_ns = 1e6;
  int calls = 0;
  const auto two_ms = [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  };
  EXPECT_EQ(run_timing_protocol(p, two_ms).size(), 1u);
  EXPECT_EQ(calls, 2);  // the warm-up run and one timed run

  p.hopeless_ns = 60e9;  // a minute: no 2 ms run is hopeless
  EXPECT_EQ(run_timing_protocol(p, two_ms).size(), 5u);
  p.hopeless_ns = 0;  // never
  EXPECT_EQ(run_timing_protocol(p, two_ms).size(), 5u);
}

TEST(MeasureTimingProtocolTest, AHopelessCorrectnessRunIsTheOnlySample) {
  TimingProtocol p{/*warmup_runs=*/1, /*min_repeats=*/5, /*min_total_ms=*/0, /*max_repeats=*/100};
  p.hopeless_ns = 1e6;
  int calls = 0;
  const auto count = [&] { ++calls; };
  const double slow_check_ns = p.hopeless_ns + kColdRunAllowanceNs + 1e6;
  EXPECT_EQ(run_timing_protocol(p, count, slow_check_ns), std::vector<double>{slow_check_ns});
  EXPECT_EQ(calls, 0);  // no warm-up, no timed run

  // A correctness run slower only by what a cold start may add is timed in full.
  EXPECT_EQ(run_timing_protocol(p, count, p.hopeless_ns + kColdRunAllowanceNs / 2).size(), 5u);
  EXPECT_EQ(calls, 6);
  p.hopeless_ns = 0;  // never hopeless
  EXPECT_EQ(run_timing_protocol(p, count, slow_check_ns).size(), 5u);
}

TEST(MeasureTimingProtocolTest, SummaryIsMedianMinAndInterquartileRange) {
  const TimingSummary s = summarize({9, 1, 5, 3, 7});
  EXPECT_EQ(s.repeats, 5);
  EXPECT_DOUBLE_EQ(s.median_ns, 5);
  EXPECT_DOUBLE_EQ(s.min_ns, 1);
  EXPECT_DOUBLE_EQ(s.spread_ns, 7 - 3);  // 75th and 25th percentiles of 1 3 5 7 9
  const TimingSummary even = summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(even.median_ns, 2.5);
  EXPECT_DOUBLE_EQ(even.spread_ns, 3.25 - 1.75);
  const TimingSummary none = summarize({});
  EXPECT_EQ(none.repeats, 0);
  EXPECT_EQ(none.median_ns, -1);
}

}  // namespace
}  // namespace ktune::measure
