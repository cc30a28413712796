#include <gtest/gtest.h>

#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(MutateLoopOrder, ReachesEveryLegalAdjacentSwap) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.heuristic();
  auto order = [](const Schedule& s, const char* f, int stage) {
    std::string out = std::string(f) + "." + std::to_string(stage) + ":";
    for (const std::string& l : testing::stage_of(s, f, stage).order) out += " " + l;
    return out;
  };
  const auto seen = testing::reached_alternatives(*make_loop_order_mutator(), base, space, [&](const Schedule& s) {
    for (auto [f, st] : {std::pair{"C_acc", 0}, std::pair{"C_acc", 1}, std::pair{"C", 0}}) {
      if (order(s, f, st) != order(base, f, st)) return order(s, f, st);
    }
    return std::string("unchanged");
  });
  // The matmul template: C_acc.1 is [x_i, y_i, k_x_i, x_o, y_o, k_x_o]; C is [x_i, y_i, x_m,
  // y_o, x_o] (column panels, x_o parallel, so it stays outermost).
  EXPECT_EQ(seen, (std::set<std::string>{
                      "C_acc.0: x_i x_o y_i y_o", "C_acc.0: x_i y_i y_o x_o",
                      "C_acc.1: x_i k_x_i y_i x_o y_o k_x_o", "C_acc.1: x_i y_i x_o k_x_i y_o k_x_o",
                      "C_acc.1: x_i y_i k_x_i y_o x_o k_x_o", "C_acc.1: x_i y_i k_x_i x_o k_x_o y_o",
                      "C.0: x_i x_m y_i y_o x_o", "C.0: x_i y_i y_o x_m x_o"}));
}

}  // namespace
}  // namespace ktune::scheduler
