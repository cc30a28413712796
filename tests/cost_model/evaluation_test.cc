// Tests cost_model/evaluation.cc on synthetic workloads: the split sizes of both
// evaluations, that the learned model ranks held-out schedules better than chance, and that
// pairs within the tie ratio are left out of the pairwise accuracy.
#include "cost_model/evaluation.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/cost_model/synthetic.h"

namespace ktune::cost_model {
namespace {

// `groups` synthetic workloads of `per_group` schedules; the analytical baseline scores by
// the feature that matters most to the runtime, so it ranks better than chance.
Dataset synthetic_dataset(int groups, int per_group) {
  Dataset d;
  d.samples = testing::synthetic_samples(0, groups, per_group, 7);
  for (size_t i = 0; i < d.samples.size(); ++i) {
    d.schedule_hashes.push_back("s" + std::to_string(i));
    d.analytical_scores.push_back(-d.samples[i].features[0]);
  }
  return d;
}

XgboostParams small_model() {
  XgboostParams p;
  p.rounds = 40;
  return p;
}

TEST(Evaluation, WithinWorkloadsTheModelIsScoredOnAFifthOfEveryWorkload) {
  const Dataset data = synthetic_dataset(6, 50);
  const SplitEvaluation e = evaluate_within_workloads(data, small_model(), 0.2, 1);
  EXPECT_EQ(e.folds, 1);
  EXPECT_EQ(e.test_samples, 6 * 10);
  EXPECT_EQ(e.train_samples, 6 * 40);
  ASSERT_EQ(e.per_workload.size(), 6u);
  EXPECT_EQ(e.model.workloads, 6);
  EXPECT_GT(e.model.pairwise_accuracy, e.random.pairwise_accuracy + 0.2);
  EXPECT_GT(e.analytical.pairwise_accuracy, e.random.pairwise_accuracy);
}

TEST(Evaluation, HoldingOutWholeWorkloadsScoresEachOnceByAModelThatNeverSawIt) {
  const Dataset data = synthetic_dataset(6, 30);
  const SplitEvaluation e = evaluate_across_workloads(data, small_model(), 3, 1);
  EXPECT_EQ(e.folds, 3);
  EXPECT_EQ(e.test_samples, 6 * 30) << "every schedule is scored once";
  EXPECT_EQ(e.train_samples, 3 * 4 * 30) << "each fold trains on the other two folds' four workloads";
  EXPECT_EQ(e.per_workload.size(), 6u);
  EXPECT_GT(e.model.pairwise_accuracy, e.random.pairwise_accuracy + 0.2);
  EXPECT_THROW(evaluate_across_workloads(synthetic_dataset(1, 30), small_model(), 3, 1), UserError);
}

TEST(Evaluation, PairsWithinTheTieRatioAreNotScored) {
  const Dataset data = synthetic_dataset(6, 50);
  const SplitEvaluation all = evaluate_within_workloads(data, small_model(), 0.2, 1);
  const SplitEvaluation distinct = evaluate_within_workloads(data, small_model(), 0.2, 1, 0.3);
  // The runtimes carry a few percent of noise: the pairs left are easier to order.
  EXPECT_GT(distinct.model.pairwise_accuracy, all.model.pairwise_accuracy);
  // No two runtimes differ by a factor of 1000: nothing is left to score.
  const SplitEvaluation none = evaluate_across_workloads(data, small_model(), 3, 1, 1000);
  EXPECT_EQ(none.model.workloads, 0);
  EXPECT_EQ(none.random.workloads, 0);
}

}  // namespace
}  // namespace ktune::cost_model
