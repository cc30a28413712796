#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

std::string where(const Schedule& s, const std::string& func) {
  const ComputeLocation& c = s.find(func)->compute;
  return c.kind == ComputeLocation::Kind::kAt ? "at " + c.consumer + "." + c.loop : to_string(c.kind);
}

TEST(MutateComputeLocation, ReachesRootAndEveryLegalLoop) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, testing::test_target()));
  // C_acc at C.y_o (the matmul template in column panels); C is [x_i (vector), y_i, x_m,
  // y_o, x_o (parallel)], and B is packed per panel at C.x_o. C_acc at root reads B outside
  // C's panels, so that move drops the panel pack.
  const Schedule base = space.heuristic();
  ASSERT_EQ(where(base, "C_acc"), "at C.y_o");
  ASSERT_EQ(base.packs.size(), 1u);
  const auto seen = testing::reached_alternatives(*make_compute_location_mutator(), base, space, [](const Schedule& s) {
    return where(s, "C_acc") + (s.packs.empty() ? ", no pack" : ", B packed");
  });
  EXPECT_EQ(seen, (std::set<std::string>{"root, no pack", "at C.x_m, B packed", "at C.y_i, B packed",
                                          "at C.x_o, B packed"}));
}

TEST(MutateComputeLocation, LooksThroughInlinedConsumers) {
  const auto sg = testing::suite_subgraph("mlp_gelu");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.heuristic();  // xw and pre are inlined into Y
  ASSERT_EQ(where(base, "xw"), "inline");
  const auto seen = testing::reached_alternatives(*make_compute_location_mutator(), base, space,
                                                  [](const Schedule& s) { return where(s, "xw_acc"); });
  EXPECT_TRUE(seen.count("root"));
  EXPECT_TRUE(seen.count("at Y.x_o"));
}

}  // namespace
}  // namespace ktune::scheduler
