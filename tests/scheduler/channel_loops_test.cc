// Channel loops unrolled just outside the vector: split by their own extent so that the
// unrolled piece has a constant extent wherever the Func is computed.
#include "scheduler/channel_loops.h"

#include <gtest/gtest.h>

#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(ChannelLoops, LoopsPastTheRowsOfAtMostFourIterationsAreChannels) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [1, 3, 12, 64, 96]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "y"}], "outputs": ["y"]})");
  const Analysis a = analyze(*sg, testing::test_target());
  const StageAnalysis& sa = a.funcs.back().stages[0];
  std::vector<std::string> channels, others;
  loops_past_rows(sa, channels, others);
  EXPECT_EQ(channels, (std::vector<std::string>{sa.pure_loop(3)->name, sa.pure_loop(4)->name}));
  EXPECT_EQ(others, (std::vector<std::string>{sa.pure_loop(2)->name}));
  // The 3 channels split by 3 and unrolled; the loop of one iteration left whole.
  StageSchedule st;
  const std::string c = sa.pure_loop(3)->name, n = sa.pure_loop(4)->name;
  EXPECT_EQ(unrolled_channels(sa, channels, st), (std::vector<std::string>{c + "_i", c + "_o", n}));
  ASSERT_EQ(st.splits.size(), 1u);
  EXPECT_EQ(st.splits[0].factor, 3);
  EXPECT_EQ(st.unroll, (std::vector<std::string>{c + "_i"}));
}

// ktune_camera_raw's Bayer planes select their channel with mux: unrolled, each copy loads one
// plane; a channel loop would load all four and select. A 2-D Func per row of the 3-D output
// computes the whole row, so its last vector shifts inwards as the output's does.
TEST(ChannelLoops, TheHeuristicUnrollsTheChannelsOfWindowsAndStrips) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_camera_raw",
                                                     {{"width", "256"}, {"height", "128"}});
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h), std::nullopt);
  for (const char* f : {"planes", "output"}) {
    const FuncSchedule* fs = h.find(f);
    ASSERT_NE(fs, nullptr) << f;
    ASSERT_FALSE(fs->stages.empty()) << f;
    EXPECT_EQ(fs->stages[0].unroll, (std::vector<std::string>{"c_i"})) << f;
    EXPECT_EQ(fs->stages[0].order[1], "c_i") << f << ": just outside the vector";
  }
  const FuncSchedule* g = h.find("g_at_r");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->compute.consumer, "output");
  ASSERT_FALSE(g->stages.empty());
  EXPECT_EQ(g->stages[0].splits[0].tail, Tail::kShiftInwards);
  const auto inputs = sg->make_inputs(5);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

}  // namespace
}  // namespace ktune::scheduler
