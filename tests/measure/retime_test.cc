#include "measure/retime.h"

#include <gtest/gtest.h>

namespace ktune::measure {
namespace {

MeasureResult timed(double median_ns, double spread_ns = 0) {
  MeasureResult r;
  r.median_ns = median_ns;
  r.min_ns = median_ns * 0.9;
  r.spread_ns = spread_ns;
  r.repeats = 10;
  r.run_wall_ms = 1;
  return r;
}

TEST(CompareRetimeTest, CombinesRoundsByMedianOfMedians) {
  const MeasureResult c = combine_rounds({timed(10, 1), timed(14, 3), timed(11, 2)});
  EXPECT_EQ(c.status, MeasureStatus::kOk);
  EXPECT_DOUBLE_EQ(c.median_ns, 11);
  EXPECT_DOUBLE_EQ(c.min_ns, 9);
  EXPECT_EQ(c.repeats, 30);
  EXPECT_DOUBLE_EQ(c.run_wall_ms, 3);
  // The IQR of the medians (12.5 - 10.5) and the median of the IQRs are both 2.
  EXPECT_DOUBLE_EQ(c.spread_ns, 2);
  const MeasureResult noisy = combine_rounds({timed(10, 0.1), timed(20, 0.1), timed(30, 0.1)});
  EXPECT_DOUBLE_EQ(noisy.spread_ns, 10);  // medians disagree more than each run's IQR
}

TEST(CompareRetimeTest, AnyFailedRoundFailsTheCandidate) {
  MeasureResult wrong;
  wrong.status = MeasureStatus::kWrongResult;
  EXPECT_EQ(combine_rounds({timed(10), wrong, timed(10)}).status, MeasureStatus::kWrongResult);
}

TEST(CompareRetimeTest, MeasuresTheTopCandidatesInterleaved) {
  // Batch: 0 slow, 1 fastest, 2 failed, 3 second, 4 third.
  MeasureResult crash;
  crash.status = MeasureStatus::kCrash;
  const std::vector<MeasureResult> first = {timed(900), timed(100), crash, timed(200), timed(300)};
  const std::vector<std::string> hashes = {"e", "d", "c", "b", "a"};
  std::vector<size_t> calls;
  const RetimeOutcome out = retime_top(
      first, hashes,
      [&](size_t i) {
        calls.push_back(i);
        return first[i];
      },
      RetimeOptions{3, 2, TieBand{}});
  EXPECT_EQ(out.contenders, (std::vector<size_t>{1, 3, 4}));
  EXPECT_EQ(calls, (std::vector<size_t>{1, 3, 4, 1, 3, 4}));  // A B C A B C
  ASSERT_EQ(out.rounds.size(), 2u);
  ASSERT_EQ(out.combined.size(), 3u);
  EXPECT_EQ(out.first_winner, 1u);
  EXPECT_EQ(out.winner, 1u);
  EXPECT_TRUE(out.confirmed());
}

TEST(CompareRetimeTest, RetimingCanOverturnTheFirstWinner) {
  const std::vector<MeasureResult> first = {timed(100), timed(200)};
  const std::vector<std::string> hashes = {"x", "y"};
  // On re-timing, candidate 0 turns out slow (its first run was lucky).
  const RetimeOutcome out =
      retime_top(first, hashes, [&](size_t i) { return i == 0 ? timed(400) : timed(200); }, RetimeOptions{2, 3, {}});
  EXPECT_EQ(out.first_winner, 0u);
  EXPECT_EQ(out.winner, 1u);
  EXPECT_FALSE(out.confirmed());
}

TEST(CompareRetimeTest, FlakyWinnerLosesItsPlace) {
  const std::vector<MeasureResult> first = {timed(100), timed(200)};
  int call = 0;
  const RetimeOutcome out = retime_top(
      first, {"x", "y"},
      [&](size_t i) {
        ++call;
        if (i == 0 && call > 2) {
          MeasureResult wrong;
          wrong.status = MeasureStatus::kWrongResult;
          return wrong;
        }
        return first[i];
      },
      RetimeOptions{2, 2, {}});
  EXPECT_EQ(out.combined[0].status, MeasureStatus::kWrongResult);
  EXPECT_EQ(out.winner, 1u);
}

}  // namespace
}  // namespace ktune::measure
