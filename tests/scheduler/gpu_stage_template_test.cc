// make_gpu_stage: the loop structure of a GPU stage from a few numbers: thread pieces
// inside block pieces, reductions serial in each thread inside an unrolled register tile,
// no block loops for a Func staged inside a block, and a block loop even when every
// iteration would fit in one block.
#include <gtest/gtest.h>

#include "scheduler/gpu_stage_template.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using Strings = std::vector<std::string>;

TEST(GpuStageTemplate, KernelWithRegisterTileAndUnrolledReduction) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, cuda_target_info("a100")));
  const StageAnalysis& update = space.analysis().find("C_acc")->stages.at(1);
  std::string x, y, k;
  for (const LoopAnalysis& l : update.loops) {
    if (l.is_reduction) k = loop_identifier(l.name);
    else (x.empty() ? x : y) = l.name;
  }
  const StageSchedule st = make_gpu_stage(update, GpuTilingChoice{32, 8, 4, 4}, true);
  EXPECT_EQ(st.order, (Strings{y + "_r", k + "_i", k + "_o", x + "_i", y + "_i", x + "_o", y + "_o"}));
  EXPECT_EQ(st.gpu.threads, (Strings{x + "_i", y + "_i"}));
  EXPECT_EQ(st.gpu.blocks, (Strings{x + "_o", y + "_o"}));
  EXPECT_EQ(st.unroll, (Strings{y + "_r", k + "_i"}));
  ASSERT_EQ(st.splits.size(), 4u);
  EXPECT_EQ(st.splits[1].outer, y + "_t");
  EXPECT_EQ(st.splits[2].loop, y + "_t");
  EXPECT_EQ(st.splits[2].factor, 8);

  Schedule s = space.heuristic();
  FuncSchedule& acc = *s.find("C_acc");
  for (StageSchedule& entry : acc.stages) {
    if (entry.stage == 1) entry = st;
  }
  EXPECT_EQ(space.validate(s).value_or(""), "");
  EXPECT_EQ(lower(apply(s, *sg, space.analysis()), space.analysis().target.halide_target).value_or(""), "");

  // Staged inside a consumer's block: the same threads, no blocks.
  const StageSchedule inner = make_gpu_stage(update, GpuTilingChoice{32, 8, 0, 1}, false);
  EXPECT_TRUE(inner.gpu.blocks.empty());
  EXPECT_EQ(inner.gpu.threads, (Strings{x + "_i", y + "_i"}));
}

TEST(GpuStageTemplate, SmallStageStillGetsABlockLoop) {
  const auto sg = testing::spec_subgraph(R"({"name": "small", "inputs": [{"name": "x", "shape": [20, 48]}],
      "ops": [{"op": "relu", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})");
  const Space space(analyze(*sg, cuda_target_info("h100")));
  const StageAnalysis& sa = space.analysis().funcs.back().stages.at(0);
  // 64 x 32 threads would cover the whole 48 x 20 output: the rows become the block loop.
  const StageSchedule st = make_gpu_stage(sa, GpuTilingChoice{64, 32, 0, 1}, true);
  EXPECT_TRUE(st.splits.empty());
  EXPECT_EQ(st.gpu.threads, (Strings{sa.loops[0].name}));
  EXPECT_EQ(st.gpu.blocks, (Strings{sa.loops[1].name}));
}

}  // namespace
}  // namespace ktune::scheduler
