// TaskScheduler: splits one tuning budget across many subgraphs. After every subgraph has
// had a round, the next round goes where weight x expected improvement is largest (the
// gradient rule of Ansor's task scheduler: the recent rate at which the best time fell,
// with an optimistic term so that no estimate is ever zero), with a minimum share so that
// no subgraph starves.
#pragma once

#include <cstddef>
#include <vector>

namespace ktune::search {

// What the scheduler knows of one subgraph.
struct TaskProgress {
  double weight = 1.0;              // how often it runs in the user's model
  int rounds = 0;                   // rounds of measurements so far
  std::vector<double> best_ns;      // best time after each round (ns); empty before the first
};

struct TaskSchedulerParams {
  int window = 3;             // rounds over which the recent improvement is measured
  double optimism = 0.05;     // assumed further gain per round, as a fraction of the best time
  double min_share = 0.25;    // every task gets at least this fraction of an equal share of rounds
};

class TaskScheduler {
 public:
  explicit TaskScheduler(TaskSchedulerParams params = {}) : params_(params) {}
  // The index of the task that gets the next round. `tasks` is non-empty.
  size_t next(const std::vector<TaskProgress>& tasks) const;
  // The expected gain in weighted nanoseconds of one more round of task `t`.
  double expected_gain(const TaskProgress& t) const;

 private:
  TaskSchedulerParams params_;
};

}  // namespace ktune::search
