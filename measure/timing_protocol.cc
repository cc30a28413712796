#include "measure/timing_protocol.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ktune::measure {

std::vector<double> run_timing_protocol(const TimingProtocol& protocol, const std::function<void()>& run,
                                        double checked_run_ns) {
  using Clock = std::chrono::steady_clock;
  if (protocol.hopeless_ns > 0 && checked_run_ns - kColdRunAllowanceNs > protocol.hopeless_ns) return {checked_run_ns};
  for (int i = 0; i < protocol.warmup_runs; ++i) run();
  const int min_repeats = std::max(1, protocol.min_repeats);
  const int max_repeats = std::max(min_repeats, protocol.max_repeats);
  const double min_total_ns = protocol.min_total_ms * 1e6;
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(min_repeats));
  double total_ns = 0;
  while (static_cast<int>(samples.size()) < max_repeats &&
         (static_cast<int>(samples.size()) < min_repeats || total_ns < min_total_ns)) {
    const Clock::time_point start = Clock::now();
    run();
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    samples.push_back(ns);
    total_ns += ns;
    if (protocol.hopeless_ns > 0 && ns > protocol.hopeless_ns) break;
  }
  return samples;
}

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

TimingSummary summarize(std::vector<double> samples_ns) {
  TimingSummary s;
  if (samples_ns.empty()) return s;
  std::sort(samples_ns.begin(), samples_ns.end());
  s.median_ns = quantile(samples_ns, 0.5);
  s.min_ns = samples_ns.front();
  s.spread_ns = quantile(samples_ns, 0.75) - quantile(samples_ns, 0.25);
  s.repeats = static_cast<int>(samples_ns.size());
  return s;
}

}  // namespace ktune::measure
