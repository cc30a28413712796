// The GPU validators reject, before Halide sees them, schedules a CUDA device cannot run:
// too many threads per block (in a kernel, or in an rfactor's intermediate kernel), too
// much shared memory per block, kernels without block or thread loops, CPU decisions on a
// GPU, GPU rfactors of non-associative updates or with unmapped intermediates, and shared
// memory outside a block, padded rows. Their messages name the stage and the limit.
#include <gtest/gtest.h>

#include <functional>

#include "scheduler/gpu_rfactor.h"
#include "subgraphs/pipeline_subgraph.h"
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

TEST_F(GpuValidators, RejectsPaddedRowsOnAGpu) {
  Schedule s = testing::blur_shared_schedule(space_);
  ASSERT_EQ(s.find("blur_x")->compute.kind, ComputeLocation::Kind::kAt);
  s.find("blur_x")->compute.row_alignment = 16;
  EXPECT_EQ(space_.validate(s).value_or(""), "storage: blur_x row_alignment: padding rows is a CPU decision");
}

TEST_F(GpuValidators, CpuTargetStillRefusesGpuMappings) {
  const Space cpu(analyze(*sg_, testing::test_target()));
  Schedule s = cpu.naive();
  s.find("blur_y")->stages.push_back(space_.heuristic().find("blur_y")->stages.at(0));
  s.find("blur_y")->stages.back().gpu.memory.clear();
  EXPECT_EQ(cpu.validate(s).value_or(""), "target: blur_y: a GPU mapping on a CPU target");
}

TEST(GpuRFactorValidators, RejectTooManyIntermediateThreads) {
  const auto sg = testing::suite_subgraph("colsum");
  const Space space(analyze(*sg, cuda_target_info("a100")));
  Schedule s = space.heuristic();
  ASSERT_EQ(space.validate(s).value_or(""), "");
  RFactor& rf = *s.find("sums_acc")->stages.at(1).rfactor;
  ASSERT_EQ(rf.gpu.threads, (std::vector<std::string>{"x_i", "u"}));
  ASSERT_EQ(rf.splits.at(0).factor * s.find("sums_acc")->stages.at(1).splits.at(0).factor, 1024);
  rf.splits.at(0).factor = 64;  // 64 columns x 32 row groups
  EXPECT_EQ(space.validate(s).value_or(""),
            "gpu_limits: sums_acc stage 1: the rfactor intermediate's 2048 threads per block exceed the device's "
            "limit of 1024");
  rf.splits.at(0).factor = 16;
  EXPECT_EQ(space.validate(s).value_or(""), "");
}

// f(y) = f(y) * 0.5 + in(r, y): an update that is not an associative reduction.
std::unique_ptr<subgraphs::PipelineSubgraph> decay_subgraph() {
  return std::make_unique<subgraphs::PipelineSubgraph>(
      "decay",
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        in.dim(0).set_estimate(0, 1024);
        in.dim(1).set_estimate(0, 16);
        Halide::Func f("decay");
        Halide::Var y("y");
        Halide::RDom r(0, 1024, "r");
        f(y) = 0.0f;
        f(y) = f(y) * 0.5f + in(r, y);
        f.set_estimate(y, 0, 16);
        return Halide::Pipeline(f);
      },
      "test", "pipeline decay");
}

TEST(GpuRFactorValidators, RejectNonAssociativeUpdates) {
  const auto sg = decay_subgraph();
  const Space space(analyze(*sg, cuda_target_info("a100")));
  const FuncAnalysis& fa = space.analysis().funcs.back();
  ASSERT_EQ(fa.stages.size(), 2u);
  EXPECT_FALSE(fa.stages[1].rfactor_ok);
  EXPECT_FALSE(gpu_rfactor_fits(fa, fa.stages[1])) << "the sampler never offers it";
  Schedule s = space.heuristic();
  ASSERT_EQ(space.validate(s).value_or(""), "");
  s.find(fa.name)->stages.at(1) = make_gpu_rfactor_stage(fa.stages[1], GpuRFactorChoice{});
  EXPECT_EQ(space.validate(s).value_or(""),
            "rfactor: " + fa.name + " stage 1: rfactor needs an associative reduction (f = f + e, *, min or max)");
}

TEST(GpuRFactorValidators, RejectIntermediatesNotMappedToTheGpu) {
  const auto sg = testing::suite_subgraph("softmax");
  const Space space(analyze(*sg, cuda_target_info("a100")));
  const Schedule good = space.heuristic();
  ASSERT_EQ(space.validate(good).value_or(""), "");
  const auto with = [&](const std::function<void(RFactor&)>& edit) {
    Schedule s = good;
    edit(*s.find("y_max")->stages.at(1).rfactor);
    return space.validate(s).value_or("");
  };
  const std::string where = "gpu_mapping: y_max stage 1: ";
  EXPECT_EQ(with([](RFactor& r) { std::swap(r.gpu.threads, r.gpu.blocks); }),
            where + "the rfactor intermediate maps u to GPU threads");
  EXPECT_EQ(with([](RFactor& r) { r.gpu.blocks.clear(); }),
            where + "the rfactor intermediate needs 1 to 3 GPU block loops, has 0");
  EXPECT_EQ(with([](RFactor& r) { r.gpu.blocks = {"x_o"}; }), where + "the rfactor intermediate has no loop \"x_o\"");
  EXPECT_EQ(with([](RFactor& r) {
              r.splits = {{"x", "x_o", "x_i", 64}};
              r.gpu.blocks = {"x_o"};
            }),
            where + "the rfactor intermediate's loop \"x_i\" is mapped to neither GPU blocks nor threads");
  EXPECT_EQ(with([](RFactor& r) { r.vectorize_u = true; }),
            where + "rfactor.vectorize_u is a CPU decision (map u to GPU threads)");
  EXPECT_EQ(with([](RFactor& r) { r.gpu = GpuMapping{}; }),
            where + "rfactor on a GPU target needs the intermediate's GPU mapping (rfactor.gpu)");
}

TEST(GpuRFactorValidators, CpuTargetRefusesGpuRFactors) {
  const auto sg = testing::suite_subgraph("softmax");
  const Space gpu(analyze(*sg, cuda_target_info("a100")));
  const Space cpu(analyze(*sg, testing::test_target()));
  Schedule s = cpu.naive();
  StageSchedule st = gpu.heuristic().find("y_max")->stage_or_empty(1);
  st.gpu = GpuMapping{};  // the remaining stage on the CPU; the intermediate still on GPU threads
  s.find("y_max")->stages.push_back(st);
  EXPECT_EQ(cpu.validate(s).value_or(""), "target: y_max: a GPU rfactor on a CPU target");
}

}  // namespace
}  // namespace ktune::scheduler
