#include "search/task_scheduler.h"

#include <algorithm>
#include <cmath>

namespace ktune::search {

double TaskScheduler::expected_gain(const TaskProgress& t) const {
  if (t.best_ns.empty() || !std::isfinite(t.best_ns.back())) return 0;
  const double best = t.best_ns.back();
  const size_t n = t.best_ns.size();
  const size_t w = std::min<size_t>(static_cast<size_t>(params_.window), n - 1);
  double backward = 0;
  if (w > 0 && std::isfinite(t.best_ns[n - 1 - w])) backward = (t.best_ns[n - 1 - w] - best) / static_cast<double>(w);
  // Optimistic: gains shrink as a subgraph gets more rounds.
  const double forward = params_.optimism * best / std::sqrt(static_cast<double>(t.rounds) + 1.0);
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
  size_t pick = 0;
  for (size_t i = 1; i < tasks.size(); ++i) {
    const double a = expected_gain(tasks[i]), b = expected_gain(tasks[pick]);
    if (a > b || (a == b && tasks[i].rounds < tasks[pick].rounds)) pick = i;
  }
  return pick;
}

}  // namespace ktune::search
