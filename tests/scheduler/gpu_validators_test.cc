// The GPU validators reject, before Halide sees them, schedules a CUDA device cannot run:
// too many threads per block, too much shared memory per block, kernels without block or
// thread loops, CPU decisions on a GPU, and shared memory outside a block. Their messages
// name the stage and the limit.
#include <gtest/gtest.h>

#include "tests/scheduler/gpu_test_support.h"

namespace ktune::scheduler {
namespace {

class GpuValidators : public ::testing::Test {
 protected:
  GpuValidators() : sg_(testing::suite_subgraph("blur3x3")), space_(analyze(*sg_, cuda_target_info("a100"))) {}

  // blur_y's split of its innermost loop (the thread piece).
  static LoopSplit& x_split(Schedule& s) { return s.find("blur_y")->stages.at(0).splits.at(0); }

  std::unique_ptr<subgraphs::SpecSubgraph> sg_;
  Space space_;
};

TEST_F(GpuValidators, SharedScheduleIsAcceptedAndLowers) {
  const Schedule s = testing::blur_shared_schedule(space_);
  EXPECT_EQ(space_.validate(s).value_or(""), "");
  EXPECT_EQ(lower(apply(s, *sg_, space_.analysis()), space_.analysis().target.halide_target).value_or(""), "");
}

TEST_F(GpuValidators, RejectsTooManyThreadsPerBlock) {
  Schedule s = space_.heuristic();
  ASSERT_EQ(space_.validate(s).value_or(""), "");
  const StageSchedule st = s.find("blur_y")->stage_or_empty(0);
  ASSERT_EQ(st.gpu.threads.size(), 2u);
  ASSERT_EQ(x_split(s).inner, st.gpu.threads[0]);
  x_split(s).factor = 256;  // 256 x 8 threads
  const std::string why = space_.validate(s).value_or("");
  EXPECT_EQ(why, "gpu_limits: blur_y stage 0: 2048 threads per block exceed the device's limit of 1024");
  x_split(s).factor = 128;  // 1024: the limit itself is fine
  EXPECT_EQ(space_.validate(s).value_or(""), "");
}

TEST_F(GpuValidators, RejectsSharedMemoryOverTheLimit) {
  Schedule s = testing::blur_shared_schedule(space_);
  // One thread row of 256 threads, each walking 64 rows serially: blur_x's staged tile is
  // 256 x 66 floats (blur_y reads one row above and below), 67584 bytes, over the 48 KiB
  // of a block.
  StageSchedule& by = s.find("blur_y")->stages.at(0);
  by.splits.at(0).factor = 256;
  by.splits.at(1).factor = 64;
  const std::string x_i = by.gpu.threads[0], y_i = by.gpu.threads[1];
  by.order = {y_i, x_i, by.order[2], by.order[3]};
  by.gpu.threads = {x_i};
  const std::string why = space_.validate(s).value_or("");
  EXPECT_EQ(why,
            "gpu_limits: blur_y stage 0: Funcs staged in shared memory at its block level need 67584 bytes per "
            "block, over the device's limit of 49152");
  by.splits.at(1).factor = 32;  // 256 x 34 floats fit
  EXPECT_EQ(space_.validate(s).value_or(""), "");
}

TEST_F(GpuValidators, RejectsUnmappedKernelsAndCpuDecisions) {
  const Schedule good = space_.heuristic();
  Schedule s = good;
  s.find("blur_y")->stages.at(0).gpu.blocks.clear();
  EXPECT_EQ(space_.validate(s).value_or(""), "gpu_mapping: blur_y stage 0: a kernel needs 1 to 3 GPU block loops, has 0");
  s = good;
  StageSchedule& st = s.find("blur_y")->stages.at(0);
  std::swap(st.gpu.threads, st.gpu.blocks);
  EXPECT_EQ(space_.validate(s).value_or(""), "gpu_mapping: blur_y stage 0: block loops must be outside the thread loops");
  s = good;
  s.find("blur_y")->stages.at(0).parallel = {s.find("blur_y")->stages.at(0).order.back()};
  EXPECT_NE(space_.validate(s).value_or("").find("parallel loops on a GPU target"), std::string::npos);
  s = space_.naive();
  s.find("blur_x")->stages.at(0).gpu.memory = "shared";
  EXPECT_EQ(space_.validate(s).value_or(""),
            "gpu_mapping: blur_x stage 0: shared memory is for Funcs computed at a consumer's block level");
}

TEST_F(GpuValidators, CpuTargetStillRefusesGpuMappings) {
  const Space cpu(analyze(*sg_, testing::test_target()));
  Schedule s = cpu.naive();
  s.find("blur_y")->stages.push_back(space_.heuristic().find("blur_y")->stages.at(0));
  s.find("blur_y")->stages.back().gpu.memory.clear();
  EXPECT_EQ(cpu.validate(s).value_or(""), "target: blur_y: a GPU mapping on a CPU target");
}

}  // namespace
}  // namespace ktune::scheduler
