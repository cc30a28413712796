// Held-out evaluation of the learned model against the analytical model and a random
// ranker on the same split, two ways: a random split of every workload's schedules (how
// well it ranks new candidates of workloads it has seen) and whole workloads held out (how
// well it ranks workloads it has never seen).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cost_model/dataset.h"
#include "cost_model/ranking_metrics.h"
#include "cost_model/xgboost_model.h"

namespace ktune::cost_model {

// The three rankers on one workload's held-out rows.
struct WorkloadEvaluation {
  std::string group;          // workload key
  RankingMetrics model;       // XgboostModel
  RankingMetrics analytical;  // AnalyticalModel
  RankingMetrics random;      // random scores
};

// One split, three rankers scored on the same held-out rows.
struct SplitEvaluation {
  std::string name;           // which split, in words
  RankingMetrics model;       // XgboostModel trained on the training rows
  RankingMetrics analytical;  // AnalyticalModel (needs no training)
  RankingMetrics random;      // seeded uniform random scores
  int train_samples = 0;      // rows trained on (summed over folds)
  int test_samples = 0;       // rows scored
  int folds = 0;              // trainings run
  std::vector<WorkloadEvaluation> per_workload;  // by workload key
};

// In both splits, the pairwise accuracy counts only pairs of held-out schedules whose
// runtimes differ by more than `tie_ratio` (relative; 0: every pair with different
// runtimes): pairs closer than the timing noise are ones no ranker can be expected to
// order. A workload left without such a pair is not averaged; top-k recall and Spearman's
// rho use every held-out schedule of the workloads averaged.
//
// Trains on a seeded (1 - test_fraction) share of each workload's rows and scores the rest.
// Throws ktune::UserError when too few rows remain to train.
SplitEvaluation evaluate_within_workloads(const Dataset& data, const XgboostParams& params, double test_fraction,
                                          uint64_t seed, double tie_ratio = 0.0);

// k-fold by workload (k = min(workloads, max_folds)): each workload is scored once by a
// model trained without it. Throws ktune::UserError for fewer than two workloads.
SplitEvaluation evaluate_across_workloads(const Dataset& data, const XgboostParams& params, int max_folds,
                                          uint64_t seed, double tie_ratio = 0.0);

nlohmann::json to_json(const RankingMetrics& m);
nlohmann::json to_json(const SplitEvaluation& e);

}  // namespace ktune::cost_model
