#include <gtest/gtest.h>

#include "scheduler/gpu_mapping.h"
#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(MutateTileSize, ReachesEveryFactorOfASplit) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.heuristic();
  const auto m = make_tile_size_mutator();
  // C's x split feeds the vector loop (factor 8 with 8 lanes): widths up to 64.
  const auto seen = testing::reached_alternatives(*m, base, space, [&](const Schedule& s) {
    const StageSchedule a = testing::stage_of(s, "C", 0), b = testing::stage_of(base, "C", 0);
    for (size_t i = 0; i < a.splits.size(); ++i) {
      if (a.splits[i].factor != b.splits[i].factor) return "C." + a.splits[i].loop + "=" + std::to_string(a.splits[i].factor);
    }
    return std::string("other");
  }, 1500);
  for (const char* want : {"C.x=2", "C.x=4", "C.x=16", "C.x=32", "C.x=64", "C.y=2", "C.y=4", "C.y=16", "C.y=512"}) {
    EXPECT_TRUE(seen.count(want)) << want;
  }
  EXPECT_FALSE(seen.count("C.x=128")) << "a vectorized split stays within 64 lanes";
  EXPECT_FALSE(seen.count("C.x=8")) << "never the current factor";
}

TEST(MutateTileSize, KeepsGpuBlocksWithinTheThreadLimit) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, cuda_target_info("a100")));
  const Schedule base = space.heuristic();
  // C: 32 x 8 threads per block.
  ASSERT_EQ(testing::stage_of(base, "C", 0).splits.at(0).factor, 32);
  ASSERT_EQ(testing::stage_of(base, "C", 0).splits.at(1).factor, 8);
  const auto m = make_tile_size_mutator();
  Rng rng(8);
  std::set<int64_t> x_factors;
  for (int i = 0; i < 1500; ++i) {
    const auto out = m->propose(base, space, rng);
    if (!out) continue;
    // Every proposal, before validation, keeps every block within 1024 threads.
    for (const FuncSchedule& f : out->funcs) {
      for (const StageSchedule& st : f.stages) {
        std::string error;
        const auto nest = build_loop_nest(space.analysis().find(f.func)->stages[st.stage], st, &error);
        ASSERT_TRUE(nest.has_value()) << error;
        const auto g = gpu_levels(*nest, st.gpu, &error);
        ASSERT_TRUE(g.has_value()) << error;
        EXPECT_LE(g->threads, 1024) << out->to_json().dump();
      }
    }
    x_factors.insert(testing::stage_of(*out, "C", 0).splits.at(0).factor);
  }
  // With 8 threads along y, x takes up to 128 threads; never 256 or more.
  EXPECT_EQ(x_factors, (std::set<int64_t>{2, 4, 8, 16, 32, 64, 128}));
}

TEST(MutateTileSize, NothingToChangeWithoutSplits) {
  const auto sg = testing::suite_subgraph("colsum");
  const Space space(analyze(*sg, testing::test_target()));
  Rng rng(1);
  EXPECT_FALSE(make_tile_size_mutator()->mutate(space.naive(), space, rng).has_value());
}

}  // namespace
}  // namespace ktune::scheduler
