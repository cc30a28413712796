// The analytical estimate on CUDA targets: each of the GPU's limits (arithmetic, DRAM,
// launches) shows in the estimate, a GPU left idle (few blocks, low occupancy, uncoalesced
// accesses) costs more, and the AnalyticalModel uses it for CUDA targets only.
#include "cost_model/gpu_roofline.h"

#include <gtest/gtest.h>

#include "cost_model/analytical_model.h"
#include "cost_model/features.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "tests/cost_model/test_support.h"

namespace ktune::cost_model {
namespace {

// A kernel that fills the GPU: 4 full waves, full occupancy, coalesced.
GpuTerms busy_kernel() {
  GpuTerms t;
  t.kernels = 1;
  t.warp_utilization = 1;
  t.occupancy = 1;
  t.waves = 4;
  t.coalesced = 1;
  return t;
}

TEST(GpuRoofline, ArithmeticAndDramBoundsAtPeakRates) {
  scheduler::TargetInfo h100 = scheduler::cuda_target_info("h100");
  ASSERT_EQ(h100.sm_count, 132);
  ASSERT_GT(h100.memory_gbps, 3000);
  const GpuRates r;
  GpuTerms compute = busy_kernel();
  compute.ops = 1e12;
  EXPECT_NEAR(gpu_roofline_seconds(compute, h100), 1e12 / (132 * 128 * 1.5e9) + r.launch_seconds, 1e-6);
  GpuTerms memory = busy_kernel();
  memory.dram_bytes = 1e10;
  EXPECT_NEAR(gpu_roofline_seconds(memory, h100), 1e10 / (h100.memory_gbps * 1e9) + r.launch_seconds, 1e-6);
  // An empty kernel still pays its launch; two pay twice.
  GpuTerms empty = busy_kernel();
  empty.kernels = 2;
  EXPECT_DOUBLE_EQ(gpu_roofline_seconds(empty, h100), 2 * r.launch_seconds);
}

TEST(GpuRoofline, AnIdleGpuCostsMore) {
  const scheduler::TargetInfo a100 = scheduler::cuda_target_info("a100");
  GpuTerms base = busy_kernel();
  base.ops = 1e10;
  base.dram_bytes = 1e9;
  const double busy = gpu_roofline_seconds(base, a100);
  GpuTerms few_blocks = base;
  few_blocks.waves = 0.05;  // a handful of blocks on 108 SMs
  GpuTerms low_occupancy = base;
  low_occupancy.occupancy = 0.05;
  GpuTerms half_warps = base;
  half_warps.warp_utilization = 0.5;
  GpuTerms strided = base;
  strided.coalesced = 0;
  GpuTerms tail = base;
  tail.waves = 1.1;  // a second wave of 10% of the blocks
  for (const GpuTerms& worse : {few_blocks, low_occupancy, half_warps, strided, tail}) {
    EXPECT_GT(gpu_roofline_seconds(worse, a100), 1.2 * busy);
  }
  // Past a quarter of the warp slots, more occupancy does not help.
  GpuTerms quarter = base;
  quarter.occupancy = 0.25;
  EXPECT_DOUBLE_EQ(gpu_roofline_seconds(quarter, a100), busy);
  // Nothing on the GPU: one CPU thread, far slower than the GPU for the same work.
  GpuTerms host = base;
  host.kernels = 0;
  EXPECT_GT(gpu_roofline_seconds(host, a100), 100 * busy);
}

TEST(GpuRoofline, AnalyticalModelUsesItOnCudaTargetsOnly) {
  const scheduler::Analysis gpu =
      scheduler::analyze(*testing::spec_subgraph(testing::kMatmulSpec), scheduler::cuda_target_info("h100"));
  const scheduler::Space space(gpu);
  const AnalyticalModel model(gpu.target);
  const std::vector<float> row = extract_features(gpu, space.heuristic());
  const double seconds = model.estimate_seconds(row);
  // 2 x 256^3 operations on an H100: microseconds, not the CPU estimate's milliseconds.
  EXPECT_GT(seconds, 4e-6);
  EXPECT_LT(seconds, 1e-3);
  // The same features under a CPU target take the CPU roofline.
  const AnalyticalModel cpu(testing::test_target());
  EXPECT_NE(cpu.estimate_seconds(row), seconds);
  // The GPU fields survive saving.
  AnalyticalModel loaded(testing::test_target());
  loaded.load(model.save());
  EXPECT_TRUE(loaded.target().is_gpu());
  EXPECT_EQ(loaded.target().sm_count, 132);
  EXPECT_DOUBLE_EQ(loaded.estimate_seconds(row), seconds);
}

TEST(GpuRoofline, PrefersBlocksOfManyThreadsOverOneThreadPerBlock) {
  const scheduler::Analysis gpu =
      scheduler::analyze(*testing::spec_subgraph(testing::kMatmulSpec), scheduler::cuda_target_info("h100"));
  const scheduler::Space space(gpu);
  const AnalyticalModel model(gpu.target);
  scheduler::Schedule heuristic = space.heuristic();
  ASSERT_EQ(space.validate(heuristic).value_or(""), "");
  // The same kernel with one thread per block: warps of 1 active lane.
  scheduler::Schedule thin = heuristic;
  for (scheduler::FuncSchedule& f : thin.funcs) {
    for (scheduler::StageSchedule& st : f.stages) {
      for (scheduler::LoopSplit& sp : st.splits) sp.factor = 2;
    }
  }
  const double wide = model.estimate_seconds(extract_features(gpu, heuristic));
  const double narrow = model.estimate_seconds(extract_features(gpu, thin));
  EXPECT_GT(narrow, 2 * wide);
}

}  // namespace
}  // namespace ktune::cost_model
