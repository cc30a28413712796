#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(MutateInline, TogglesPureProducersBothWays) {
  const auto sg = testing::suite_subgraph("softmax");
  const Space space(analyze(*sg, testing::test_target()));
  // Everything at root: y_exp (two consumers) hosts nothing, so it may be inlined.
  const Schedule base = space.naive();
  ASSERT_EQ(space.validate(base).value_or(""), "");
  ASSERT_EQ(base.find("y_exp")->compute.kind, ComputeLocation::Kind::kRoot);
  const auto m = make_inline_mutator();
  const auto seen = testing::reached_alternatives(*m, base, space, [](const Schedule& s) {
    return std::string(to_string(s.find("y_exp")->compute.kind));
  });
  EXPECT_EQ(seen, std::set<std::string>{"inline"}) << "the only pure, non-output Func is y_exp";
  Rng rng(2);
  const auto inlined = m->mutate(base, space, rng);
  ASSERT_TRUE(inlined.has_value());
  const auto seen_back = testing::reached_alternatives(*m, *inlined, space, [](const Schedule& s) {
    return std::string(to_string(s.find("y_exp")->compute.kind));
  });
  EXPECT_EQ(seen_back, std::set<std::string>{"root"});
}

TEST(MutateInline, NeverInlinesReductionsOrOutputs) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, testing::test_target()));
  Rng rng(4);
  for (int i = 0; i < 50; ++i) EXPECT_FALSE(make_inline_mutator()->mutate(space.heuristic(), space, rng).has_value());
}

}  // namespace
}  // namespace ktune::scheduler
