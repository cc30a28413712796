// Tests cost_model/noise_ceiling.cc: the spread among schedules with identical features, and
// that the ceiling it estimates matches how often noisy timings order schedules right.
#include "cost_model/noise_ceiling.h"

#include <gtest/gtest.h>

#include <cmath>

#include "scheduler/rng.h"

namespace ktune::cost_model {
namespace {

double uniform(scheduler::Rng& rng) { return (static_cast<double>(rng.next() >> 11) + 0.5) / 9007199254740992.0; }

double gaussian(scheduler::Rng& rng) {
  return std::sqrt(-2 * std::log(uniform(rng))) * std::cos(2 * M_PI * uniform(rng));
}

// One workload of `schedules` schedules whose true log runtimes spread evenly over `range`,
// each timed twice with Gaussian noise of deviation `sigma` in log runtime; both timings
// carry the schedule's own feature vector.
Dataset timed_twice(int schedules, double range, double sigma, std::vector<double>& truth) {
  Dataset d;
  scheduler::Rng rng(3);
  for (int s = 0; s < schedules; ++s) {
    const double log_runtime = 10 + range * s / schedules;
    for (int t = 0; t < 2; ++t) {
      d.samples.push_back({{static_cast<float>(s), 1.f}, std::exp(log_runtime + sigma * gaussian(rng)), "w"});
      truth.push_back(log_runtime);
    }
  }
  return d;
}

// How often the timings order two schedules as their true runtimes do.
double timed_order_right(const Dataset& d, const std::vector<double>& truth) {
  double right = 0, pairs = 0;
  for (size_t i = 0; i < truth.size(); ++i) {
    for (size_t j = i + 1; j < truth.size(); ++j) {
      if (truth[i] == truth[j]) continue;
      right += (truth[i] < truth[j]) == (d.samples[i].runtime_ns < d.samples[j].runtime_ns);
      ++pairs;
    }
  }
  return right / pairs;
}

TEST(NoiseCeiling, TheSpreadOfIdenticalFeaturesIsTheTimingNoise) {
  std::vector<double> truth;
  const NoiseCeiling c = estimate_noise_ceiling(timed_twice(400, 2.0, 0.1, truth));
  ASSERT_EQ(c.per_workload.size(), 1u);
  EXPECT_EQ(c.shared_rows, 800);
  EXPECT_NEAR(c.sigma, 0.1, 0.01);
}

TEST(NoiseCeiling, TheCeilingIsHowOftenNoisyTimingsOrderSchedulesRight) {
  for (const double sigma : {0.02, 0.1, 0.3}) {
    std::vector<double> truth;
    const Dataset d = timed_twice(300, 1.0, sigma, truth);
    const double actual = timed_order_right(d, truth);
    const NoiseCeiling c = estimate_noise_ceiling(d);
    EXPECT_NEAR(c.pairwise_accuracy, actual, 0.03) << "noise " << sigma;
  }
  std::vector<double> truth;
  EXPECT_GT(estimate_noise_ceiling(timed_twice(300, 1.0, 0.02, truth)).pairwise_accuracy, 0.95);
}

// A workload of more timings than the fit takes is thinned evenly: the same answer.
TEST(NoiseCeiling, ALargeWorkloadIsFittedOnEvenlySpacedTimings) {
  std::vector<double> truth;
  const Dataset d = timed_twice(3000, 1.0, 0.1, truth);
  EXPECT_NEAR(estimate_noise_ceiling(d).pairwise_accuracy, timed_order_right(d, truth), 0.03);
}

// Where the true differences are all far below the noise, timings order schedules right half
// the time; the fit spreads the true runtimes a little there (the estimate reads about 0.58).
TEST(NoiseCeiling, BelowTheNoiseTheCeilingIsNearHalf) {
  std::vector<double> truth;
  const Dataset d = timed_twice(300, 0.01, 0.3, truth);
  EXPECT_NEAR(timed_order_right(d, truth), 0.5, 0.03);
  EXPECT_NEAR(estimate_noise_ceiling(d).pairwise_accuracy, 0.5, 0.1);
}

TEST(NoiseCeiling, WorkloadsWithoutIdenticalFeaturesGiveNoEstimate) {
  Dataset d;
  for (int s = 0; s < 10; ++s) d.samples.push_back({{static_cast<float>(s)}, 100.0 + s, "w"});
  const NoiseCeiling c = estimate_noise_ceiling(d);
  EXPECT_TRUE(c.per_workload.empty());
  EXPECT_EQ(c.pairwise_accuracy, 0);
  EXPECT_EQ(to_json(c)["per_workload"].size(), 0u);
}

}  // namespace
}  // namespace ktune::cost_model
