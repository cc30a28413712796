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
  EXPECT_TRUE(model.trained());
  // About 2 x 256^3 operations: tens of microseconds at best, seconds at worst.
  const double naive = model.estimate_seconds(ex.extract_one(space.naive()));
  EXPECT_GT(naive, 1e-5);
  EXPECT_LT(naive, 10);
}

TEST(AnalyticalModel, MoreCoresHelpParallelSchedulesOnly) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kMatmulSpec);
  const scheduler::Space space(a);
  const FeatureExtractor ex(a);
  scheduler::TargetInfo big = a.target;
  big.cores = 16;
  const AnalyticalModel two(a.target), sixteen(big);
  const auto tuned = ex.extract_one(space.heuristic());
  const auto naive = ex.extract_one(space.naive());
  EXPECT_LT(sixteen.estimate_seconds(tuned), two.estimate_seconds(tuned));
  EXPECT_DOUBLE_EQ(sixteen.estimate_seconds(naive), two.estimate_seconds(naive));
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
