// Tests of report/report_series.cc: the tuning curve, the time histogram, the
// status counts and the predicted-vs-measured ranks, on measurement histories built in memory.
#include "report/report_series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace ktune::report {
namespace {

using tuning_db::MeasurementRecord;
using tuning_db::MeasureStatus;

MeasurementRecord ok(double median_ns, int64_t at_ms, std::optional<double> predicted = std::nullopt,
                     std::optional<int64_t> run = 1) {
  MeasurementRecord m;
  m.status = MeasureStatus::kOk;
  m.median_ns = median_ns;
  m.created_at_ms = at_ms;
  m.predicted = predicted;
  m.run_id = run;
  return m;
}

MeasurementRecord failed(MeasureStatus status, int64_t at_ms) {
  MeasurementRecord m;
  m.status = status;
  m.created_at_ms = at_ms;
  m.run_id = 1;
  return m;
}

TEST(TuningCurve, StartsAtTheFirstOkTrialAndKeepsTheBestSoFar) {
  const std::vector<MeasurementRecord> history = {
      failed(MeasureStatus::kBuildError, 10'000), ok(500, 11'000), ok(800, 12'500),
      failed(MeasureStatus::kCrash, 13'000), ok(300, 20'000), ok(400, 21'000)};
  const auto curve = tuning_curve(history);
  ASSERT_EQ(curve.size(), 5u);
  EXPECT_EQ(curve[0].trial, 2);
  EXPECT_DOUBLE_EQ(curve[0].elapsed_s, 1.0);
  EXPECT_DOUBLE_EQ(curve[0].best_ns, 500);
  EXPECT_DOUBLE_EQ(curve[1].best_ns, 500);
  EXPECT_DOUBLE_EQ(curve[2].best_ns, 500);  // a crash keeps the best
  EXPECT_EQ(curve[3].trial, 5);
  EXPECT_DOUBLE_EQ(curve[3].elapsed_s, 10.0);
  EXPECT_DOUBLE_EQ(curve[3].best_ns, 300);
  EXPECT_DOUBLE_EQ(curve[4].best_ns, 300);
  EXPECT_TRUE(tuning_curve({failed(MeasureStatus::kCrash, 1)}).empty());
}

TEST(TuningCurve, WallClockTimeLeavesOutTheGapsBetweenRuns) {
  // Run 1 measures for 3 s; run 2 starts a day later and measures for 2 s.
  const int64_t day_ms = 86'400'000;
  const std::vector<MeasurementRecord> history = {ok(900, 0, std::nullopt, 1), ok(800, 3000, std::nullopt, 1),
                                                  ok(700, day_ms, std::nullopt, 2),
                                                  ok(750, day_ms + 2000, std::nullopt, 2)};
  const auto curve = tuning_curve(history);
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_DOUBLE_EQ(curve[0].elapsed_s, 0);
  EXPECT_DOUBLE_EQ(curve[1].elapsed_s, 3);
  EXPECT_DOUBLE_EQ(curve[2].elapsed_s, 3);
  EXPECT_DOUBLE_EQ(curve[3].elapsed_s, 5);
  EXPECT_DOUBLE_EQ(curve[3].best_ns, 700);
}

TEST(TuningCurve, IsNonIncreasingAndEndsAtTheMinimumOnRandomHistories) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> time(100, 10'000);
  for (int round = 0; round < 20; ++round) {
    std::vector<MeasurementRecord> history;
    double min_ok = INFINITY;
    for (int i = 0; i < 50; ++i) {
      if (rng() % 4 == 0) {
        history.push_back(failed(MeasureStatus::kWrongResult, i * 100));
      } else {
        history.push_back(ok(time(rng), i * 100));
        min_ok = std::min(min_ok, *history.back().median_ns);
      }
    }
    const auto curve = tuning_curve(history);
    ASSERT_FALSE(curve.empty());
    for (size_t i = 1; i < curve.size(); ++i) {
      EXPECT_LE(curve[i].best_ns, curve[i - 1].best_ns);
      EXPECT_GT(curve[i].trial, curve[i - 1].trial);
      EXPECT_GE(curve[i].elapsed_s, curve[i - 1].elapsed_s);
    }
    EXPECT_DOUBLE_EQ(curve.back().best_ns, min_ok);
    EXPECT_EQ(curve.back().trial, 50);
  }
}

TEST(LogHistogram, BinsEveryOkTimeOnALogScale) {
  const std::vector<MeasurementRecord> history = {ok(100, 0), ok(1000, 0), ok(10'000, 0), ok(10'000, 0),
                                                  ok(999, 0), failed(MeasureStatus::kCrash, 0)};
  const auto bins = log_histogram(history, 4);
  ASSERT_EQ(bins.size(), 4u);
  EXPECT_DOUBLE_EQ(bins.front().lo_ns, 100);
  EXPECT_NEAR(bins.back().hi_ns, 10'000, 1e-6);
  // log10 spans 2..4 in four bins of 0.5: 100 | 999 | 1000 | 10000 x2.
  EXPECT_EQ(bins[0].count, 1);
  EXPECT_EQ(bins[1].count, 1);
  EXPECT_EQ(bins[2].count, 1);
  EXPECT_EQ(bins[3].count, 2);
  for (size_t i = 1; i < bins.size(); ++i) EXPECT_NEAR(bins[i].lo_ns, bins[i - 1].hi_ns, 1e-9);
  EXPECT_NEAR(bins[1].lo_ns, std::sqrt(10.0) * 100, 1e-9);
}

TEST(LogHistogram, EqualTimesGiveOneBinAndNoOkTimesNone) {
  const auto one = log_histogram({ok(250, 0), ok(250, 1)}, 10);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].count, 2);
  EXPECT_TRUE(log_histogram({failed(MeasureStatus::kRejected, 0)}, 10).empty());
}

TEST(CountStatuses, CountsEachStatusInEnumOrderAndSkipsZeros) {
  const auto counts = count_statuses({failed(MeasureStatus::kCrash, 0), ok(5, 0), failed(MeasureStatus::kCrash, 0),
                                      failed(MeasureStatus::kBuildError, 0), ok(6, 0), ok(7, 0)});
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts[0].status, "ok");
  EXPECT_EQ(counts[0].count, 3);
  EXPECT_EQ(counts[1].status, "build_error");
  EXPECT_EQ(counts[1].count, 1);
  EXPECT_EQ(counts[2].status, "crash");
  EXPECT_EQ(counts[2].count, 2);
}

TEST(CountMeasurers, CountsByHostThenRankWithRanklessRowsFirst) {
  const auto timed_by = [](const std::string& host, std::optional<int64_t> rank) {
    MeasurementRecord m = ok(5, 0);
    m.host = host;
    m.rank = rank;
    return m;
  };
  const auto counts = count_measurers({timed_by("b", 2), timed_by("a", std::nullopt), timed_by("b", 1),
                                       timed_by("b", 2), timed_by("", std::nullopt)});
  ASSERT_EQ(counts.size(), 4u);
  EXPECT_EQ(counts[0].host, "");  // stored before hosts were recorded
  EXPECT_EQ(counts[1].host, "a");
  EXPECT_FALSE(counts[1].rank.has_value());
  EXPECT_EQ(counts[2].rank, std::optional<int64_t>(1));
  EXPECT_EQ(counts[2].count, 1);
  EXPECT_EQ(counts[3].host, "b");
  EXPECT_EQ(counts[3].rank, std::optional<int64_t>(2));
  EXPECT_EQ(counts[3].count, 2);
}

TEST(RankAgreement, PerfectAndReversedScores) {
  // Higher score = predicted faster: scores that follow speed agree perfectly.
  const auto perfect = rank_agreement({ok(100, 0, 3.0), ok(300, 1, 1.0), ok(200, 2, 2.0)});
  ASSERT_EQ(perfect.points.size(), 3u);
  for (const auto& p : perfect.points) EXPECT_DOUBLE_EQ(p.predicted_rank, p.measured_rank);
  EXPECT_DOUBLE_EQ(perfect.points[0].measured_rank, 1);
  EXPECT_DOUBLE_EQ(perfect.points[1].measured_rank, 3);
  EXPECT_EQ(perfect.runs, 1);
  EXPECT_DOUBLE_EQ(perfect.pairwise_accuracy, 1.0);
  EXPECT_NEAR(perfect.spearman, 1.0, 1e-9);

  const auto reversed = rank_agreement({ok(100, 0, 1.0), ok(300, 1, 3.0), ok(200, 2, 2.0)});
  EXPECT_DOUBLE_EQ(reversed.points[0].predicted_rank, 3);
  EXPECT_DOUBLE_EQ(reversed.points[0].measured_rank, 1);
  EXPECT_DOUBLE_EQ(reversed.pairwise_accuracy, 0.0);
  EXPECT_NEAR(reversed.spearman, -1.0, 1e-9);
}

TEST(RankAgreement, RanksWithinEachRunSharesTiesAndSkipsUnscoredRows) {
  const std::vector<MeasurementRecord> history = {
      ok(100, 0, 2.0, 1), ok(200, 1, 2.0, 1), ok(300, 2, 1.0, 1),  // run 1, a tie in scores
      ok(50, 3, 1.0, 2), ok(70, 4, 5.0, 2),                          // run 2, wrong order
      ok(10, 5, std::nullopt, 1),                                    // no score: not ranked
      ok(20, 6, 9.0, 3),                                             // alone in its run
      failed(MeasureStatus::kCrash, 7)};
  const auto r = rank_agreement(history);
  ASSERT_EQ(r.points.size(), 5u);
  EXPECT_EQ(r.points[0].run_id, 1);
  EXPECT_DOUBLE_EQ(r.points[0].predicted_rank, 1.5);
  EXPECT_DOUBLE_EQ(r.points[1].predicted_rank, 1.5);
  EXPECT_DOUBLE_EQ(r.points[2].predicted_rank, 3);
  EXPECT_DOUBLE_EQ(r.points[2].measured_rank, 3);
  EXPECT_EQ(r.points[3].run_id, 2);
  EXPECT_DOUBLE_EQ(r.points[3].predicted_rank, 2);
  EXPECT_DOUBLE_EQ(r.points[3].measured_rank, 1);
  EXPECT_EQ(r.runs, 2);
  // Run 1: pairs (100,300) and (200,300) right, (100,200) tied in score counts half: 2.5/3.
  // Run 2: its one pair wrong. Mean: (2.5/3 + 0) / 2.
  EXPECT_NEAR(r.pairwise_accuracy, (2.5 / 3 + 0) / 2, 1e-9);
  EXPECT_TRUE(rank_agreement({ok(1, 0), ok(2, 1)}).points.empty());
}

}  // namespace
}  // namespace ktune::report
