// TaskScheduler: splits one tuning budget across many subgraphs. After every subgraph has
// had a round, the next round goes where the weighted expected gain of one more round is
// largest, with a minimum share so that no subgraph starves. Two rules estimate the gain:
//   gap (the default): the gain is relative (the fall of log time, so that every subgraph's
//   speed counts alike, as in a geometric mean) and its optimistic term is a share of the
//   gap left between the best time and the subgraph's roofline time: a subgraph at 50% of
//   its roofline gets rounds before one at 95%. A compute peak measured under another load
//   is corrected by the fastest compute-bound kernel of the run (peak_correction);
//   time: the gain is in nanoseconds (the gradient rule of Ansor's task scheduler), so the
//   longest kernels get the most rounds: what minimizes the total time of a model.
// Both take the recent rate at which the best time fell, or the optimistic term where that
// is larger, so that no estimate is ever zero.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace ktune::search {

// A subgraph's roofline time (ns) by limit: its FLOPs at the measured compute peak, its
// compulsory bytes at the measured DRAM bandwidth; both 0 when unknown.
struct RooflineTimes {
  double compute_ns = 0;
  double memory_ns = 0;
  // The time the machine's limits allow; 0 when unknown.
  double total_ns() const { return std::max(compute_ns, memory_ns); }
  // The peak, not the bandwidth, sets it.
  bool compute_bound() const { return compute_ns > 0 && compute_ns >= memory_ns; }
};

// What the scheduler knows of one subgraph.
struct TaskProgress {
  double weight = 1.0;              // how often it runs in the user's model
  int rounds = 0;                   // rounds of measurements so far
  std::vector<double> best_ns;      // best time after each round (ns); empty before the first
  RooflineTimes roofline;
};

enum class TaskRule { kRooflineGap, kWeightedTime };

// "gap" or "time"; throws UserError naming `what` for anything else.
TaskRule parse_task_rule(const std::string& text, const std::string& what);

struct TaskSchedulerParams {
  TaskRule rule = TaskRule::kRooflineGap;
  int window = 3;             // rounds over which the recent improvement is measured
  double optimism = 0.05;     // assumed further gain per round, as a fraction of the best time
                              // (time) or of the gap to the roofline (gap)
  double min_gap = 0.1;       // the gap rule's smallest gap: a subgraph at 90% of its roofline
                              // or beyond, or timed faster than it (its data stays in cache,
                              // a limit the DRAM roofline does not describe), still gets this
                              // much optimism. Larger, the cache-resident subgraphs take
                              // rounds from the compute-bound ones still far from their roofline
  double unknown_gap = 0.5;   // the gap rule's guess where the roofline is unknown: halfway
  double min_share = 0.25;    // every task gets at least this fraction of an equal share of rounds
  double max_peak_correction = 4;  // the most the measured compute peak is scaled up by
};

class TaskScheduler {
 public:
  explicit TaskScheduler(TaskSchedulerParams params = {}) : params_(params) {}
  // The index of the task that gets the next round. `tasks` is non-empty.
  size_t next(const std::vector<TaskProgress>& tasks) const;
  // The weighted expected gain of one more round of task `t`, in the rule's unit, with the
  // compute peak scaled by `peak_correction`.
  double expected_gain(const TaskProgress& t, double peak_correction = 1) const;
  // The fraction of its best time that separates task `t` from its roofline (its compute
  // time divided by `peak_correction`), in [min_gap, 1] (min_gap also when the best time
  // beats the roofline); unknown_gap when the roofline or the best time is unknown.
  double roofline_gap(const TaskProgress& t, double peak_correction = 1) const;
  // How much faster the machine computes than its measured peak says: the largest ratio of
  // a compute-bound task's compute time to its best time, in [1, max_peak_correction]. No
  // kernel outruns the FMA units, so one that beats its compute time shows the peak was
  // measured while something else ran. The bandwidth gets no such correction: a kernel that
  // beats its DRAM time kept its data in cache, which the DRAM roofline does not describe.
  double peak_correction(const std::vector<TaskProgress>& tasks) const;

 private:
  TaskSchedulerParams params_;
};

}  // namespace ktune::search
