#include "cost_model/analytical_model.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "cost_model/extractor.h"
#include "cost_model/features.h"
#include "cost_model/xgboost_model.h"
#include "scheduler/space.h"
#include "tests/cost_model/test_support.h"

namespace ktune::cost_model {
namespace {

TEST(AnalyticalModel, PrefersTheTiledParallelVectorSchedule) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kMatmulSpec);
  const scheduler::Space space(a);
  const FeatureExtractor ex(a);
  const AnalyticalModel model(a.target);
  const auto scores = model.predict(ex.extract({space.naive(), space.heuristic()}));
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_GT(scores[1], scores[0]);
  // About 2 x 256^3 operations: tens of microseconds at best, seconds at worst.
  const double naive = model.estimate_seconds(ex.extract_one(space.naive()));
  EXPECT_GT(naive, 1e-5);
  EXPECT_LT(naive, 10);
}

TEST(AnalyticalModel, MoreCoresHelpParallelSchedulesOnly) {
  // The features divide each stage's work by its speed-up on the analysis's cores.
  scheduler::TargetInfo big = testing::test_target();
  big.cores = 16;
  const scheduler::Analysis a2 = testing::analyze_spec(testing::kMatmulSpec);
  const scheduler::Analysis a16 = scheduler::analyze(*testing::spec_subgraph(testing::kMatmulSpec), big);
  const scheduler::Space space(a2);
  const AnalyticalModel two(a2.target), sixteen(big);
  const scheduler::Schedule tuned = space.heuristic(), naive = space.naive();
  EXPECT_LT(sixteen.estimate_seconds(extract_features(a16, tuned)), two.estimate_seconds(extract_features(a2, tuned)));
  EXPECT_DOUBLE_EQ(sixteen.estimate_seconds(extract_features(a16, naive)),
                   two.estimate_seconds(extract_features(a2, naive)));
}

TEST(AnalyticalModel, SaveLoadRoundTripAndKindCheck) {
  scheduler::TargetInfo t = testing::test_target();
  t.cores = 7;
  const AnalyticalModel model(t);
  AnalyticalModel other(testing::test_target());
  other.load(model.save());
  EXPECT_EQ(other.target().cores, 7);
  XgboostModel xgb;
  try {
    xgb.load(model.save());
    FAIL() << "an analytical blob must not load as XGBoost";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("\"analytical\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ktune::cost_model
