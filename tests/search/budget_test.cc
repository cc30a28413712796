#include "search/budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"

namespace ktune::search {
namespace {

TEST(Budget, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parse_duration_seconds("8h", "--budget"), 8 * 3600);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("90m", "--budget"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1h30m", "--budget"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("45s", "--budget"), 45);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("120", "--budget"), 120);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1.5h", "--budget"), 5400);
}

TEST(Budget, RejectsMalformedDurationsNamingTheFlag) {
  for (const char* bad : {"", "8x", "h", "1h30", "-5m", "0s", "m5"}) {
    try {
      parse_duration_seconds(bad, "--budget");
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const UserError& e) {
      EXPECT_THAT(std::string(e.what()), ::testing::HasSubstr("--budget: expected a duration")) << bad;
    }
  }
}

TEST(RoundEnd, WithoutAWallClockBudgetThereIsNone) {
  Budget trials_only;
  trials_only.trials = 100;
  EXPECT_FALSE(round_end_s(trials_only, 10, 3).has_value());
}

TEST(RoundEnd, TheWarmUpSharesWhatIsLeftEquallyAmongTasksWithoutARound) {
  Budget budget;
  budget.seconds = 45;
  // Three tasks wait at the start: the first round may take a third of the budget.
  EXPECT_DOUBLE_EQ(*round_end_s(budget, 0, 3), 15);
  // The first took 20 s after all: the other two share the 25 s left.
  EXPECT_DOUBLE_EQ(*round_end_s(budget, 20, 2), 32.5);
  // The last task of the warm-up, and every round after it, may run to the budget's end.
  EXPECT_DOUBLE_EQ(*round_end_s(budget, 32.5, 1), 45);
  EXPECT_DOUBLE_EQ(*round_end_s(budget, 40, 0), 45);
  // Past the end nothing is left to share.
  EXPECT_DOUBLE_EQ(*round_end_s(budget, 50, 2), 50);
}

TEST(RoundEnd, NoCandidateStartsThatWouldEndAfterTheRound) {
  EXPECT_DOUBLE_EQ(last_start_s(45, 4), 41);
  EXPECT_DOUBLE_EQ(last_start_s(45, 0), 45);
}

TEST(SearchWindow, AQuarterOfTheRoundsBuildsAndAtLeastTwoSeconds) {
  EXPECT_EQ(search_window_s(0, 8, 2), std::nullopt) << "no build timed yet";
  EXPECT_DOUBLE_EQ(*search_window_s(2.5, 8, 2), 2.5);  // 8 builds of 2.5 s, 2 at a time
  EXPECT_DOUBLE_EQ(*search_window_s(4, 8, 1), 8);
  EXPECT_DOUBLE_EQ(*search_window_s(0.2, 8, 2), kMinSearchWindowS);
  EXPECT_DOUBLE_EQ(*search_window_s(3, 4, 0), 3) << "a builder at least";
}

}  // namespace
}  // namespace ktune::search
