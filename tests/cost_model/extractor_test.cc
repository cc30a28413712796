// FeatureExtractor: the parallel path gives exactly the one-schedule vectors, whatever the
// thread count and the state of the per-thread caches.
#include "cost_model/extractor.h"

#include <gtest/gtest.h>

#include "cost_model/features.h"
#include "scheduler/space.h"
#include "tests/cost_model/test_support.h"

namespace ktune::cost_model {
namespace {

std::vector<scheduler::Schedule> samples(const scheduler::Space& space, int n, uint64_t seed) {
  scheduler::Rng rng(seed);
  std::vector<scheduler::Schedule> out;
  while (static_cast<int>(out.size()) < n) {
    if (auto s = space.sample(rng)) out.push_back(*s);
  }
  return out;
}

TEST(Extractor, ParallelMatchesOneByOne) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kMatmulSpec);
  const scheduler::Space space(a);
  const std::vector<scheduler::Schedule> schedules = samples(space, 64, 3);
  const FeatureExtractor parallel(a);
  const auto rows = parallel.extract(schedules);
  const auto again = parallel.extract(schedules, 1);  // warm caches, one thread
  ASSERT_EQ(rows.size(), schedules.size());
  for (size_t i = 0; i < schedules.size(); ++i) {
    EXPECT_EQ(rows[i], extract_features(a, schedules[i])) << i;
    EXPECT_EQ(again[i], rows[i]) << i;
  }
  const ExtractorStats stats = parallel.stats();
  EXPECT_GT(stats.footprints, 0);
  EXPECT_LT(stats.isl_calls, stats.footprints) << "repeated tiles must come from the cache";
}

TEST(Extractor, DistinctSchedulesGiveDistinctVectors) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kBlurSpec);
  const scheduler::Space space(a);
  const std::vector<scheduler::Schedule> schedules = samples(space, 40, 11);
  const auto rows = FeatureExtractor(a).extract(schedules);
  int distinct_pairs = 0, pairs = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = i + 1; j < rows.size(); ++j) {
      if (schedules[i] == schedules[j]) continue;
      ++pairs;
      distinct_pairs += rows[i] != rows[j];
    }
  }
  // Features cannot tell every pair apart (loop names do not matter), but most.
  EXPECT_GT(distinct_pairs, pairs * 9 / 10);
}

}  // namespace
}  // namespace ktune::cost_model
