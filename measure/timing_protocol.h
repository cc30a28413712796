// The timing protocol every measurement follows, and the statistics it reports: warm-up
// runs, then timed runs until both a minimum count and a minimum total time are reached;
// median, minimum and interquartile range of the samples. Pure functions, so the protocol
// is tested without kernels.
#pragma once

#include <functional>
#include <vector>

namespace ktune::measure {

struct TimingProtocol {
  // Untimed runs before timing (after the correctness run, which is also untimed); >= 0.
  int warmup_runs = 1;
  // Timed runs at least; >= 1.
  int min_repeats = 10;
  // Timed runs continue until their total reaches this many milliseconds; >= 0.
  double min_total_ms = 200;
  // Timed runs at most, even if min_total_ms is not reached (tiny kernels); >= min_repeats.
  int max_repeats = 100000;
  // A timed run slower than this many nanoseconds is the last (0: none is): a candidate that
  // cannot win needs only its order of magnitude, not min_repeats runs of it.
  double hopeless_ns = 0;
};

// Summary of the timed samples.
struct TimingSummary {
  double median_ns = -1;  // 50th percentile; -1 without samples
  double min_ns = -1;     // fastest sample; -1 without samples
  double spread_ns = -1;  // 75th minus 25th percentile (IQR); -1 without samples
  int repeats = 0;        // number of samples
};

// What a cold first run may add to a kernel's time (starting the thread pool, faulting in
// fresh buffers) before it says anything about the kernel.
inline constexpr double kColdRunAllowanceNs = 50e6;

// Runs `run` warmup_runs times, then times it until the protocol is satisfied or a run is
// hopeless. Returns the timed samples in nanoseconds, in run order. Exceptions from `run`
// propagate. `checked_run_ns` is how long the correctness run before it took (< 0:
// unknown): one hopeless even without kColdRunAllowanceNs is the only sample, and `run` is
// not called, since a candidate that cannot win needs no warm-up either.
std::vector<double> run_timing_protocol(const TimingProtocol& protocol, const std::function<void()>& run,
                                        double checked_run_ns = -1);

// The q-quantile (0 <= q <= 1) of `sorted` (ascending, non-empty), interpolating linearly
// between closest ranks.
double quantile(const std::vector<double>& sorted, double q);

// Median, minimum and IQR of `samples_ns` (any order; may be empty).
TimingSummary summarize(std::vector<double> samples_ns);

}  // namespace ktune::measure
