#include "cost_model/xgboost_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "cost_model/features.h"
#include "cost_model/ranking_metrics.h"
#include "scheduler/rng.h"
#include "tests/cost_model/synthetic.h"

namespace ktune::cost_model {
namespace {

// The pairwise accuracy and Spearman's rho of `model` on synthetic workloads it did not see.
RankingMetrics held_out_ranking(const XgboostModel& model) {
  const std::vector<TrainingSample> test = testing::synthetic_samples(100, 6, 40, 2);
  std::vector<std::vector<float>> rows;
  std::vector<double> runtimes;
  std::vector<std::string> groups;
  for (const TrainingSample& s : test) {
    rows.push_back(s.features);
    runtimes.push_back(s.runtime_ns);
    groups.push_back(s.group);
  }
  return rank_by_group(model.predict(rows), runtimes, groups);
}

TEST(XgboostModel, LearnsASyntheticRanking) {
  XgboostModel model;
  EXPECT_FALSE(model.trained());
  model.train(testing::synthetic_samples(0, 16, 40, 1));
  EXPECT_TRUE(model.trained());
  const RankingMetrics learned = held_out_ranking(model);
  const std::vector<TrainingSample> test = testing::synthetic_samples(100, 6, 40, 2);
  std::vector<double> runtimes;
  std::vector<std::string> groups;
  scheduler::Rng rng(5);
  std::vector<float> random;
  for (const TrainingSample& s : test) {
    runtimes.push_back(s.runtime_ns);
    groups.push_back(s.group);
    random.push_back(static_cast<float>(rng.below(1 << 20)));
  }
  const RankingMetrics chance = rank_by_group(random, runtimes, groups);
  EXPECT_EQ(learned.workloads, 6);
  EXPECT_GT(learned.pairwise_accuracy, 0.8);
  EXPECT_GT(learned.pairwise_accuracy, chance.pairwise_accuracy + 0.2);
  EXPECT_GT(learned.spearman, 0.7);
}

// Every objective the command line offers learns the ranking (rank:ndcg from relevance
// grades: -log runtime would give it negative gains and a constant model).
TEST(XgboostModel, EveryObjectiveLearnsTheRanking) {
  for (const char* objective : {"rank:pairwise", "rank:ndcg", "reg:squarederror"}) {
    XgboostParams params;
    params.objective = objective;
    params.rounds = 60;
    XgboostModel model(params);
    model.train(testing::synthetic_samples(0, 16, 40, 1));
    const RankingMetrics m = held_out_ranking(model);
    EXPECT_GT(m.pairwise_accuracy, 0.75) << objective;
    EXPECT_GT(m.spearman, 0.6) << objective;
  }
}

TEST(XgboostModel, UntrainedPredictsZerosAndBadDataIsRefused) {
  XgboostModel model;
  const std::vector<float> row(feature_count(), 1.f);
  EXPECT_EQ(model.predict({row, row}), (std::vector<float>{0.f, 0.f}));
  // One schedule per workload: nothing to rank.
  EXPECT_THROW(model.train({{row, 10.0, "a"}, {row, 20.0, "b"}}), UserError);
  // Wrong length.
  EXPECT_THROW(model.train({{std::vector<float>(3, 0.f), 10.0, "a"}, {std::vector<float>(3, 1.f), 20.0, "a"}}),
               UserError);
  EXPECT_FALSE(model.trained());
}

TEST(XgboostModel, TrainingIsReproducible) {
  const std::vector<TrainingSample> train = testing::synthetic_samples(0, 6, 30, 3);
  XgboostModel a, b;
  a.train(train);
  b.train(train);
  std::vector<std::vector<float>> rows;
  for (const TrainingSample& s : train) rows.push_back(s.features);
  EXPECT_EQ(a.predict(rows), b.predict(rows));
  EXPECT_EQ(a.save(), b.save());
}

}  // namespace
}  // namespace ktune::cost_model
