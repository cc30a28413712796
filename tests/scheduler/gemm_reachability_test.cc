// The space can express a good gemm schedule: two-level tiling of the output, the
// reduction split and placed inside the tiles, the innermost loop vectorized and the
// outer tiles parallel. The test builds it, checks it is valid and correct, and shows
// it is reachable: a sample with the same structure exists, and the tile-size mutator
// moves each factor to the target's.
#include <gtest/gtest.h>

#include "scheduler/stage_template.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// The reduction stage of C_acc, or an empty stage.
StageSchedule update_stage(const Schedule& s) {
  const FuncSchedule* f = s.find("C_acc");
  if (f && !f->stages.empty() && f->stages.back().stage == 1) return f->stages.back();
  return StageSchedule{};
}

// The same decisions with the split factors blanked out.
std::string structure(StageSchedule st) {
  for (LoopSplit& sp : st.splits) sp.factor = 2;
  Schedule wrapper;
  wrapper.funcs.push_back(FuncSchedule{"C_acc", {}, {st}, {}});
  return wrapper.to_json().dump();
}

TEST(GemmReachability, TiledScheduleIsExpressibleCorrectAndReachable) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, testing::test_target()));
  const FuncAnalysis& acc = *space.analysis().find("C_acc");
  const FuncAnalysis& out = *space.analysis().find("C");

  // C_acc at root: outer 64-wide tiles (parallel), inner 8-wide vectors, a 4-row register
  // tile, and the reduction split by 128 with its inner piece inside the tile.
  TilingChoice update;
  update.vector_width = 8;
  update.inner_tile = 64;
  update.second_tile = 4;
  update.unroll_second = true;
  update.reduction_split = 128;
  update.reduction_inside_tiles = true;
  update.parallel_loops = 1;
  TilingChoice init;
  init.vector_width = 8;
  init.parallel_loops = 1;
  TilingChoice copy = init;
  Schedule target = space.naive();
  target.find("C_acc")->stages = {make_stage(acc.stages[0], init), make_stage(acc.stages[1], update)};
  target.find("C")->stages = {make_stage(out.stages[0], copy)};
  const StageSchedule& u = target.find("C_acc")->stages[1];
  EXPECT_EQ(u.order, (std::vector<std::string>{"x_i", "y_i", "k_x_i", "x_m", "k_x_o", "x_o", "y_o"}));
  EXPECT_EQ(u.splits[0].inner, "x_i") << "the vector split comes first";
  EXPECT_EQ(u.vectorize, "x_i");
  EXPECT_EQ(u.parallel, std::vector<std::string>{"y_o"});
  ASSERT_EQ(space.validate(target).value_or(""), "");
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), target, inputs, sg->reference(inputs)), "");

  // Reachable: some valid sample has the target's reduction stage up to tile sizes...
  Rng rng(1);
  std::optional<Schedule> start;
  for (int i = 0; i < 200000 && !start; ++i) {
    const Schedule s = space.draw(rng);
    if (structure(update_stage(s)) == structure(u) && !space.validate(s)) start = s;
  }
  ASSERT_TRUE(start.has_value()) << "no sample with the target's structure in 200000 draws";
  // ...and the tile-size mutator walks every factor to the target's value.
  const auto tile = make_tile_size_mutator();
  auto matching = [&](const Schedule& s) {
    int n = 0;
    const StageSchedule st = update_stage(s);
    for (size_t i = 0; i < st.splits.size(); ++i) n += st.splits[i].factor == u.splits[i].factor;
    return n;
  };
  Schedule s = *start;
  for (int step = 0; step < 20000 && !(update_stage(s) == u); ++step) {
    const auto m = tile->mutate(s, space, rng);
    if (!m || structure(update_stage(*m)) != structure(u)) continue;
    if (matching(*m) > matching(s)) s = *m;
  }
  EXPECT_EQ(update_stage(s), u);
  EXPECT_EQ(space.validate(s).value_or(""), "");
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

}  // namespace
}  // namespace ktune::scheduler
