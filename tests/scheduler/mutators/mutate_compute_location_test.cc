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
  // y_o, x_o (parallel)]. Without B's panel pack at C.x_o, which keeps its reader inside C.
  Schedule base = space.heuristic();
  base.packs.clear();
  ASSERT_EQ(where(base, "C_acc"), "at C.y_o");
  const auto seen = testing::reached_alternatives(*make_compute_location_mutator(), base, space,
                                                  [](const Schedule& s) { return where(s, "C_acc"); });
  EXPECT_EQ(seen, (std::set<std::string>{"root", "at C.x_m", "at C.y_i", "at C.x_o"}));
}

TEST(MutateComputeLocation, LooksThroughInlinedConsumers) {
  const auto sg = testing::suite_subgraph("mlp_gelu");
  const Space space(analyze(*sg, testing::test_target()));
  Schedule base = space.heuristic();  // xw and pre are inlined into Y
  base.packs.clear();                 // W's panel pack at Y.x_o keeps xw_acc inside Y
  ASSERT_EQ(where(base, "xw"), "inline");
  const auto seen = testing::reached_alternatives(*make_compute_location_mutator(), base, space,
                                                  [](const Schedule& s) { return where(s, "xw_acc"); });
  EXPECT_TRUE(seen.count("root"));
  EXPECT_TRUE(seen.count("at Y.x_o"));
}

}  // namespace
}  // namespace ktune::scheduler
