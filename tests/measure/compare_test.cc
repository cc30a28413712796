#include "measure/compare.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace ktune::measure {
namespace {

MeasureResult timed(double median_ns, double spread_ns) {
  MeasureResult r;
  r.median_ns = median_ns;
  r.min_ns = median_ns - spread_ns;
  r.spread_ns = spread_ns;
  r.repeats = 10;
  return r;
}

MeasureResult failed(MeasureStatus status) {
  MeasureResult r;
  r.status = status;
  return r;
}

TEST(CompareTest, HalfWidthIsSpreadOrRelativeFloor) {
  const TieBand band{0.5, 0.01};
  EXPECT_DOUBLE_EQ(tie_half_width(timed(1000, 100), band), 50);  // 0.5 * IQR
  EXPECT_DOUBLE_EQ(tie_half_width(timed(1000, 2), band), 10);    // 1% of the median
  EXPECT_DOUBLE_EQ(tie_half_width(failed(MeasureStatus::kCrash), band), 0);
}

TEST(CompareTest, FasterOnlyOutsideTheTieBand) {
  const TieBand band{0.5, 0.01};
  const MeasureResult a = timed(1000, 40);  // interval 980..1020
  EXPECT_EQ(compare_timings(a, timed(1030, 40), band), Verdict::kTie);   // 1010..1050 overlaps
  EXPECT_EQ(compare_timings(a, timed(1050, 40), band), Verdict::kFaster);  // 1030..1070 does not
  EXPECT_EQ(compare_timings(timed(1050, 40), a, band), Verdict::kSlower);
  // A wider spread turns the same medians into a tie.
  EXPECT_EQ(compare_timings(a, timed(1050, 200), band), Verdict::kTie);
  // Identical tiny spreads still tie within the 1% floor.
  EXPECT_EQ(compare_timings(timed(1000, 0), timed(1015, 0), band), Verdict::kTie);
  EXPECT_EQ(compare_timings(timed(1000, 0), timed(1025, 0), band), Verdict::kFaster);
}

TEST(CompareTest, TimedResultBeatsAnyFailure) {
  const MeasureResult ok = timed(1e9, 0);
  for (MeasureStatus s : {MeasureStatus::kCrash, MeasureStatus::kWrongResult, MeasureStatus::kRunTimeout}) {
    EXPECT_EQ(compare_timings(ok, failed(s)), Verdict::kFaster);
    EXPECT_EQ(compare_timings(failed(s), ok), Verdict::kSlower);
  }
  EXPECT_EQ(compare_timings(failed(MeasureStatus::kCrash), failed(MeasureStatus::kRejected)), Verdict::kTie);
}

TEST(CompareTest, RankingLeavesFailuresOutAndBreaksEqualMediansByHash) {
  const std::vector<MeasureResult> results = {timed(300, 1), failed(MeasureStatus::kCrash), timed(100, 1),
                                              timed(300, 1)};
  const std::vector<std::string> hashes = {"c", "a", "z", "b"};
  EXPECT_EQ(rank_by_median(results, hashes), (std::vector<size_t>{2, 3, 0}));
}

TEST(CompareTest, TiedCandidatesAreDecidedByTheSmallestHash) {
  const TieBand band{0.5, 0.01};
  // "m" is measured fastest but ties with "d"; "a" is clearly slower.
  const std::vector<MeasureResult> results = {timed(1000, 40), timed(1010, 40), timed(2000, 40)};
  const std::vector<std::string> hashes = {"m", "d", "a"};
  EXPECT_EQ(pick_winner(results, hashes, band), 1u);
  // A clear winner wins whatever its hash.
  const std::vector<MeasureResult> clear = {timed(1000, 10), timed(1500, 10)};
  EXPECT_EQ(pick_winner(clear, {"z", "a"}, band), 0u);
  EXPECT_FALSE(pick_winner({failed(MeasureStatus::kCrash)}, {"a"}, band).has_value());
}

TEST(CompareTest, SameDataPicksTheSameWinnerInAnyOrder) {
  std::vector<MeasureResult> results;
  std::vector<std::string> hashes;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(0.98, 1.02);
  for (int i = 0; i < 12; ++i) {
    results.push_back(i % 5 == 4 ? failed(MeasureStatus::kWrongResult) : timed(1e6 * noise(rng) * (1 + i / 6), 2e4));
    hashes.push_back("h" + std::to_string((i * 7919) % 97));
  }
  const std::optional<size_t> first = pick_winner(results, hashes);
  ASSERT_TRUE(first.has_value());
  const std::string winner_hash = hashes[*first];
  std::vector<size_t> perm(results.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  for (int trial = 0; trial < 20; ++trial) {
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<MeasureResult> r2;
    std::vector<std::string> h2;
    for (size_t i : perm) {
      r2.push_back(results[i]);
      h2.push_back(hashes[i]);
    }
    const std::optional<size_t> w = pick_winner(r2, h2);
    ASSERT_TRUE(w.has_value());
    EXPECT_EQ(h2[*w], winner_hash);
  }
}

}  // namespace
}  // namespace ktune::measure
