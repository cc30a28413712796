#include "search/task_scheduler.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace ktune::search {
namespace {

// Rounds back over which the recent improvement of `t` is measured.
size_t window_of(const TaskProgress& t, int window) {
  return std::min<size_t>(static_cast<size_t>(window), t.best_ns.size() - 1);
}

bool has_best(const TaskProgress& t) { return !t.best_ns.empty() && std::isfinite(t.best_ns.back()); }

}  // namespace

TaskRule parse_task_rule(const std::string& text, const std::string& what) {
  if (text == "gap") return TaskRule::kRooflineGap;
  if (text == "time") return TaskRule::kWeightedTime;
  throw UserError(what + ": expected gap or time, got '" + text + "'");
}

double TaskScheduler::peak_correction(const std::vector<TaskProgress>& tasks) const {
  double correction = 1;
  for (const TaskProgress& t : tasks) {
    if (t.roofline.compute_bound() && has_best(t) && t.best_ns.back() > 0) {
      correction = std::max(correction, t.roofline.compute_ns / t.best_ns.back());
    }
  }
  return std::min(correction, std::max(1.0, params_.max_peak_correction));
}

double TaskScheduler::roofline_gap(const TaskProgress& t, double peak_correction) const {
  const double roofline = std::max(t.roofline.compute_ns / std::max(1.0, peak_correction), t.roofline.memory_ns);
  if (roofline <= 0 || !has_best(t) || t.best_ns.back() <= 0) return params_.unknown_gap;
  // Faster than its roofline: the data stayed in a cache the DRAM bandwidth does not
  // describe (or the limits were under-measured); it gets the smallest gap, as a subgraph
  // close to its roofline does. Counted as halfway, such subgraphs took six times the
  // rounds of gemm_1024 in a 60-minute run of the suite, and had reached 90% of their final
  // speed within a fifth of them.
  if (t.best_ns.back() < roofline) return params_.min_gap;
  return std::max(1.0 - roofline / t.best_ns.back(), params_.min_gap);
}

// The recent fall of the best time per round (of log time under the gap rule), or the
// optimistic share (of the roofline gap, or of the best time) that shrinks as the subgraph
// gets more rounds, whichever is larger; weighted.
double TaskScheduler::expected_gain(const TaskProgress& t, double peak_correction) const {
  if (!has_best(t)) return 0;
  const bool relative = params_.rule == TaskRule::kRooflineGap;
  const double best = t.best_ns.back();
  const size_t w = window_of(t, params_.window);
  const double earlier = t.best_ns[t.best_ns.size() - 1 - w];
  double backward = 0;
  if (w > 0 && std::isfinite(earlier) && best > 0) {
    backward = (relative ? std::log(earlier / best) : earlier - best) / static_cast<double>(w);
  }
  const double share = relative ? roofline_gap(t, peak_correction) : best;
  const double forward = params_.optimism * share / std::sqrt(static_cast<double>(t.rounds) + 1.0);
  return t.weight * std::max(backward, forward);
}

size_t TaskScheduler::next(const std::vector<TaskProgress>& tasks) const {
  // Warm-up: every task gets a round first, in order.
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].rounds == 0) return i;
  }
  // Minimum share.
  int total = 0;
  for (const TaskProgress& t : tasks) total += t.rounds;
  const double floor = params_.min_share * total / static_cast<double>(tasks.size());
  size_t starved = tasks.size();
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].rounds < floor && (starved == tasks.size() || tasks[i].rounds < tasks[starved].rounds)) starved = i;
  }
  if (starved < tasks.size()) return starved;
  // Largest weighted expected gain; ties go to the task with fewer rounds, then the first.
  const double correction = peak_correction(tasks);
  size_t pick = 0;
  for (size_t i = 1; i < tasks.size(); ++i) {
    const double a = expected_gain(tasks[i], correction), b = expected_gain(tasks[pick], correction);
    if (a > b || (a == b && tasks[i].rounds < tasks[pick].rounds)) pick = i;
  }
  return pick;
}

}  // namespace ktune::search
