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

double TaskScheduler::roofline_gap(const TaskProgress& t) const {
  if (t.roofline_ns <= 0 || !has_best(t) || t.best_ns.back() <= 0) return params_.unknown_gap;
  // Faster than its roofline: the data stayed in a cache the DRAM bandwidth does not
  // describe (or the limits were under-measured), so the roofline says nothing of it.
  if (t.best_ns.back() < t.roofline_ns) return params_.unknown_gap;
  return std::max(1.0 - t.roofline_ns / t.best_ns.back(), params_.min_gap);
}

// Gain in log time: the recent fall of log(best) per round, or a share of the roofline gap
// that shrinks as the subgraph gets more rounds.
double TaskScheduler::relative_gain(const TaskProgress& t) const {
  const double best = t.best_ns.back();
  const size_t w = window_of(t, params_.window);
  const double earlier = t.best_ns[t.best_ns.size() - 1 - w];
  double backward = 0;
  if (w > 0 && std::isfinite(earlier) && best > 0) backward = std::log(earlier / best) / static_cast<double>(w);
  const double forward = params_.optimism * roofline_gap(t) / std::sqrt(static_cast<double>(t.rounds) + 1.0);
  return std::max(backward, forward);
}

// Gain in nanoseconds: the recent fall of the best time per round, or a share of the best
// time that shrinks as the subgraph gets more rounds.
double TaskScheduler::time_gain(const TaskProgress& t) const {
  const double best = t.best_ns.back();
  const size_t w = window_of(t, params_.window);
  const double earlier = t.best_ns[t.best_ns.size() - 1 - w];
  double backward = 0;
  if (w > 0 && std::isfinite(earlier)) backward = (earlier - best) / static_cast<double>(w);
  const double forward = params_.optimism * best / std::sqrt(static_cast<double>(t.rounds) + 1.0);
  return std::max(backward, forward);
}

double TaskScheduler::expected_gain(const TaskProgress& t) const {
  if (!has_best(t)) return 0;
  return t.weight * (params_.rule == TaskRule::kRooflineGap ? relative_gain(t) : time_gain(t));
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
  size_t pick = 0;
  for (size_t i = 1; i < tasks.size(); ++i) {
    const double a = expected_gain(tasks[i]), b = expected_gain(tasks[pick]);
    if (a > b || (a == b && tasks[i].rounds < tasks[pick].rounds)) pick = i;
  }
  return pick;
}

}  // namespace ktune::search
