// Tests of tuning_db/best_rule.cc: the tie band, the incumbent rule, deterministic ties, and
// properties over random data (order independence, never clearly slower than the fastest).
#include "tuning_db/best_rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace ktune::tuning_db {
namespace {

Candidate candidate(const std::string& hash, double median, double spread, int64_t first_seen) {
  Candidate c;
  c.schedule_id = static_cast<int64_t>(std::hash<std::string>()(hash) & 0xffff);
  c.schedule_hash = hash;
  c.median_ns = median;
  c.spread_ns = spread;
  c.first_seen_ms = first_seen;
  return c;
}

std::string winner(std::vector<Candidate> candidates) {
  return rank_candidates(std::move(candidates)).front().schedule_hash;
}

TEST(DbBestRule, TieBandIsSpreadWithARelativeFloorAndCeiling) {
  EXPECT_DOUBLE_EQ(tie_band_ns(candidate("a", 1000, 20, 0)), 20);
  EXPECT_DOUBLE_EQ(tie_band_ns(candidate("a", 1000, 1, 0)), 1000 * kRelativeTieBand);
  EXPECT_DOUBLE_EQ(tie_band_ns(candidate("a", 1000, 2260, 0)), 1000 * kMaxRelativeTieBand);
}

// Timings of a 2-core shared machine: IQRs of 12% and 14% of the medians. The schedule
// measured 18% faster is the best, though the two IQRs overlap.
TEST(DbBestRule, AScheduleFasterBeyondTheCappedBandsWinsThoughTheirSpreadsOverlap) {
  const Candidate incumbent = candidate("a-first", 461077, 55556, 1);
  const Candidate faster = candidate("b-later", 379942, 52399, 2);
  EXPECT_TRUE(clearly_faster(faster, incumbent));
  EXPECT_EQ(winner({incumbent, faster}), "b-later");
  // Within the bands (3% faster): the incumbent stays.
  const Candidate close = candidate("c-later", 447000, 50000, 3);
  EXPECT_FALSE(clearly_faster(close, incumbent));
  EXPECT_EQ(winner({incumbent, close}), "a-first");
}

TEST(DbBestRule, ATimingNoisierThanItsMedianCannotBlockAMuchFasterSchedule) {
  // Measured first on a loaded machine: IQR 226% of the median.
  const Candidate loaded = candidate("a-loaded", 1840, 4160, 1);
  const Candidate quiet = candidate("b-quiet", 393, 4, 2);
  EXPECT_TRUE(clearly_faster(quiet, loaded));
  EXPECT_EQ(winner({loaded, quiet}), "b-quiet");
}

TEST(DbBestRule, SlightlyFasterChallengerInsideTheBandDoesNotReplaceTheIncumbent) {
  const Candidate incumbent = candidate("b-incumbent", 1000, 5, 1);
  const Candidate challenger = candidate("a-challenger", 985, 5, 2);  // 1.5% faster
  EXPECT_FALSE(clearly_faster(challenger, incumbent));
  EXPECT_EQ(winner({incumbent, challenger}), "b-incumbent");
  EXPECT_EQ(winner({challenger, incumbent}), "b-incumbent");
}

TEST(DbBestRule, ClearlyFasterChallengerReplacesTheIncumbent) {
  const Candidate incumbent = candidate("a-incumbent", 1000, 5, 1);
  const Candidate challenger = candidate("b-challenger", 900, 5, 2);
  EXPECT_TRUE(clearly_faster(challenger, incumbent));
  EXPECT_EQ(winner({incumbent, challenger}), "b-challenger");
}

TEST(DbBestRule, NoisyIncumbentNeedsALargerMargin) {
  const Candidate noisy = candidate("a", 1000, 25, 1);             // band 25 ns
  EXPECT_FALSE(clearly_faster(candidate("b", 967, 5, 2), noisy));  // 967 + 9.67 >= 975
  EXPECT_TRUE(clearly_faster(candidate("b", 960, 5, 2), noisy));   // 960 + 9.6 < 975
  EXPECT_FALSE(clearly_faster(candidate("b", 985, 5, 2), candidate("a", 1000, 5, 1)))
      << "a quiet incumbent still needs the 1% floor on both sides";
}

TEST(DbBestRule, EqualTimesMeasuredTogetherPickTheSmallestHashInAnyOrder) {
  std::vector<Candidate> c = {candidate("ccc", 1000, 5, 7), candidate("aaa", 1000, 5, 7),
                              candidate("bbb", 1000, 5, 7)};
  std::sort(c.begin(), c.end(), [](auto& x, auto& y) { return x.schedule_hash < y.schedule_hash; });
  do {
    EXPECT_EQ(winner(c), "aaa");
  } while (std::next_permutation(
      c.begin(), c.end(), [](auto& x, auto& y) { return x.schedule_hash < y.schedule_hash; }));
}

TEST(DbBestRule, RankingPutsTheWinnerFirstThenTheRestByMedian) {
  const auto ranked = rank_candidates({candidate("a", 1000, 5, 1), candidate("b", 995, 5, 2),
                                       candidate("c", 2000, 5, 3), candidate("d", 1500, 5, 4)});
  ASSERT_EQ(ranked.size(), 4u);
  EXPECT_EQ(ranked[0].schedule_hash, "a");
  EXPECT_EQ(ranked[1].schedule_hash, "b");
  EXPECT_EQ(ranked[2].schedule_hash, "d");
  EXPECT_EQ(ranked[3].schedule_hash, "c");
}

TEST(DbBestRule, CollapseKeepsTheFastestTimingAndTheFirstSighting) {
  const std::vector<OkTiming> timings = {{10, 1, "s1", 1200, 10, 100},
                                         {11, 2, "s2", 900, 10, 150},
                                         {12, 1, "s1", 1000, 10, 300},
                                         {13, 1, "s1", 1100, 10, 50}};
  auto candidates = collapse_timings(timings);
  ASSERT_EQ(candidates.size(), 2u);
  const Candidate& s1 = candidates[0].schedule_hash == "s1" ? candidates[0] : candidates[1];
  EXPECT_EQ(s1.measurement_id, 12);
  EXPECT_DOUBLE_EQ(s1.median_ns, 1000);
  EXPECT_EQ(s1.first_seen_ms, 50);
  EXPECT_EQ(s1.first_measurement_id, 13);
  EXPECT_EQ(s1.measurements, 3);
}

// Over random data: the answer does not depend on input order, and the winner is never
// clearly slower than the fastest candidate.
TEST(DbBestRule, PropertyOrderIndependentAndNeverClearlySlowerThanTheFastest) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> median(900, 1100);
  std::uniform_real_distribution<double> spread(0, 30);
  std::uniform_int_distribution<int> when(0, 20);  // few distinct times: many time ties
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<Candidate> c;
    const int n = 1 + trial % 12;
    for (int i = 0; i < n; ++i) {
      c.push_back(
          candidate("h" + std::to_string(rng() % 1000), median(rng), spread(rng), when(rng)));
    }
    // Unique hashes, as in the database.
    std::sort(c.begin(), c.end(),
              [](auto& a, auto& b) { return a.schedule_hash < b.schedule_hash; });
    c.erase(std::unique(c.begin(), c.end(),
                        [](auto& a, auto& b) { return a.schedule_hash == b.schedule_hash; }),
            c.end());
    const std::string expected = winner(c);
    const Candidate fastest = *std::min_element(
        c.begin(), c.end(), [](auto& a, auto& b) { return a.median_ns < b.median_ns; });
    const Candidate chosen = rank_candidates(c).front();
    EXPECT_FALSE(clearly_faster(fastest, chosen)) << "trial " << trial;
    for (int shuffle = 0; shuffle < 5; ++shuffle) {
      std::shuffle(c.begin(), c.end(), rng);
      ASSERT_EQ(winner(c), expected) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace ktune::tuning_db
