// Property test over the public suite with a fixed seed: of 250 sampled and 250 mutated
// schedules, at least 99% are accepted by Halide's lowering, and 15 of them, compiled and
// run, all match the reference. Lowering and running happen in forked children so that a
// crash inside Halide is reported with its schedule instead of ending the test. (Twice as
// many took up to 80 s per subgraph on 2 cores, a sixth of the whole test run.)
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

constexpr int kSamples = 250;
constexpr int kMutations = 250;
constexpr int kRun = 15;

class SpaceAcceptanceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(SpaceAcceptanceTest, HalideAcceptsAndResultsMatch) {
  const auto sg = testing::suite_subgraph(GetParam());
  const Space space(analyze(*sg, testing::test_target()));
  Rng rng(2024);
  std::vector<Schedule> schedules;
  for (int i = 0; i < kSamples; ++i) {
    const auto s = space.sample(rng);
    ASSERT_TRUE(s.has_value()) << "sample " << i;
    schedules.push_back(*s);
  }
  for (int i = 0; i < kMutations; ++i) {
    const auto m = space.mutate(schedules[rng.below(kSamples)], rng);
    ASSERT_TRUE(m.has_value()) << "mutation " << i;
    schedules.push_back(*m);
  }
  int accepted = 0;
  std::string first_error;
  for (const Schedule& s : schedules) {
    // Each lowering in a child: a Halide crash counts as a rejection, not the end of the test.
    const std::string err = testing::isolated([&] { return lower(apply(s, *sg, space.analysis()), "host").value_or(""); });
    if (err.empty()) {
      ++accepted;
    } else if (first_error.empty()) {
      first_error = err + "\n" + s.to_json().dump();
    }
  }
  const double rate = static_cast<double>(accepted) / schedules.size();
  std::printf("[acceptance] %s: %d of %zu schedules accepted by Halide lowering (%.2f%%)\n", GetParam(), accepted,
              schedules.size(), 100 * rate);
  // The first rejection is printed even within the bound: it is the next validator to write.
  if (!first_error.empty()) std::printf("[acceptance] %s: first rejection: %s\n", GetParam(), first_error.c_str());
  EXPECT_GE(rate, 0.99) << first_error;

  const auto inputs = sg->make_inputs(17);
  const auto want = sg->reference(inputs);
  for (int i = 0; i < kRun; ++i) {
    // Spread the runs over samples and mutations.
    const Schedule& s = schedules[(i * 997) % schedules.size()];
    EXPECT_EQ(testing::isolated([&] { return testing::run_and_compare(*sg, space.analysis(), s, inputs, want); }), "")
        << s.to_json().dump();
  }
}

INSTANTIATE_TEST_SUITE_P(PublicSuite, SpaceAcceptanceTest,
                         ::testing::Values("gemm_1024", "mlp_gelu", "bmm_scores", "conv3x3_relu", "dwconv3x3_relu",
                                           "softmax", "layernorm", "eltwise", "blur3x3", "colsum"));

}  // namespace
}  // namespace ktune::scheduler
