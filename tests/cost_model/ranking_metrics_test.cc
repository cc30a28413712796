#include "cost_model/ranking_metrics.h"

#include <gtest/gtest.h>

namespace ktune::cost_model {
namespace {

TEST(ModelRankingMetrics, PerfectAndReversedRankings) {
  const std::vector<double> runtimes = {10, 20, 30, 40, 50, 60, 70};
  const std::vector<float> right = {7, 6, 5, 4, 3, 2, 1};  // fastest scores highest
  const RankingMetrics good = rank_one_workload(right, runtimes);
  EXPECT_EQ(good.workloads, 1);
  EXPECT_DOUBLE_EQ(good.pairwise_accuracy, 1);
  EXPECT_DOUBLE_EQ(good.top1_recall, 1);
  EXPECT_DOUBLE_EQ(good.top5_recall, 1);
  EXPECT_DOUBLE_EQ(good.spearman, 1);
  const std::vector<float> wrong = {1, 2, 3, 4, 5, 6, 7};
  const RankingMetrics bad = rank_one_workload(wrong, runtimes);
  EXPECT_DOUBLE_EQ(bad.pairwise_accuracy, 0);
  EXPECT_DOUBLE_EQ(bad.top1_recall, 0);
  EXPECT_DOUBLE_EQ(bad.top5_recall, 0);  // the best is seventh
  EXPECT_DOUBLE_EQ(bad.spearman, -1);
}

TEST(ModelRankingMetrics, TopFiveAndTiesAndGroups) {
  const std::vector<double> runtimes = {10, 20, 30, 40, 50, 60};
  const RankingMetrics m = rank_one_workload({5, 6, 4, 3, 2, 1}, runtimes);  // best scored second
  EXPECT_DOUBLE_EQ(m.top1_recall, 0);
  EXPECT_DOUBLE_EQ(m.top5_recall, 1);
  EXPECT_NEAR(m.pairwise_accuracy, 14.0 / 15.0, 1e-12);
  // Equal scores count half; equal runtimes are skipped.
  EXPECT_DOUBLE_EQ(rank_one_workload({1, 1}, {10, 20}).pairwise_accuracy, 0.5);
  EXPECT_EQ(rank_one_workload({1, 2}, {10, 10}).workloads, 0);
  // Within 5 %: a tie.
  EXPECT_EQ(rank_one_workload({1, 2}, {100, 104}, 0.05).workloads, 0);
  // Two workloads, one right and one wrong: averaged per workload.
  const RankingMetrics g = rank_by_group({2, 1, 1, 2}, {1, 2, 1, 2}, {"a", "a", "b", "b"});
  EXPECT_EQ(g.workloads, 2);
  EXPECT_DOUBLE_EQ(g.pairwise_accuracy, 0.5);
  EXPECT_EQ(g.samples, 4);
}

}  // namespace
}  // namespace ktune::cost_model
