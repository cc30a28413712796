// How well scores rank the schedules of one workload against their measured runtimes, and
// the average over workloads: pairwise accuracy (ordered pairs with different runtimes that
// the scores order the same way), top-1 and top-5 recall of the true best (is the fastest
// schedule the top-scored one, or among the top five) and Spearman's rank correlation.
#pragma once

#include <string>
#include <vector>

namespace ktune::cost_model {

// Figures of one or several workloads; averages weight each workload equally.
struct RankingMetrics {
  double pairwise_accuracy = 0;  // in [0, 1]; 0.5 is chance
  double top1_recall = 0;        // share of workloads whose fastest schedule scored highest
  double top5_recall = 0;        // share of workloads whose fastest schedule is in the top five scores
  double spearman = 0;           // in [-1, 1]: rank correlation of score and speed (1 / runtime)
  int workloads = 0;             // workloads averaged (those with two or more distinct runtimes)
  int samples = 0;               // schedules behind the figures
};

// Figures of one workload; higher score = predicted faster. Pairs whose runtimes differ by
// at most `tie_ratio` (relative) are ties and skipped; a pair with equal scores counts half.
// Returns workloads = 0 when no two runtimes differ.
RankingMetrics rank_one_workload(const std::vector<float>& scores, const std::vector<double>& runtimes_ns,
                                 double tie_ratio = 0.0);

// Averages per-workload figures over the workloads that have any (workloads > 0).
RankingMetrics average(const std::vector<RankingMetrics>& per_workload);

// Scores and runtimes of many workloads together: `groups[i]` names the workload of row i.
RankingMetrics rank_by_group(const std::vector<float>& scores, const std::vector<double>& runtimes_ns,
                             const std::vector<std::string>& groups, double tie_ratio = 0.0);

}  // namespace ktune::cost_model
