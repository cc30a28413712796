// The GPU schedule space over the public suite, for the A100 (cuda_capability_80) and the
// H100 (Halide 14's newest, cuda_capability_86): sampled schedules validate and Halide
// lowers them for the CUDA target (no GPU needed) at least 99% of the time, GPU rfactors
// of starved reductions among them; the heuristic maps every kernel to blocks and threads;
// a shared-memory schedule's PTX loads from shared memory. Lowering happens in forked
// children so a Halide crash names its schedule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "scheduler/gpu_rfactor.h"
#include "tests/scheduler/gpu_test_support.h"

namespace ktune::scheduler {
namespace {

// Samples per (subgraph, device): each lowering generates PTX (about 0.3 s), so CI runs
// few; KTUNE_GPU_SAMPLES overrides it for acceptance-rate runs.
int samples_per_case() {
  const char* env = std::getenv("KTUNE_GPU_SAMPLES");
  return env ? std::max(1, std::atoi(env)) : 15;
}

// How many schedules stage some Func at a block (shared memory or Halide's choice), hold
// one in a thread, and keep one in registers.
struct StagingCounts {
  int block = 0;
  int thread = 0;
  int registers = 0;
};

// How many schedules split some reduction with rfactor.
int rfactor_count(const std::vector<Schedule>& schedules) {
  int n = 0;
  for (const Schedule& s : schedules) {
    bool any = false;
    for (const FuncSchedule& f : s.funcs) {
      for (const StageSchedule& st : f.stages) any |= st.rfactor.has_value();
    }
    n += any;
  }
  return n;
}

// Whether some stage of the subgraph is a starved reduction the sampler may rfactor.
bool has_starved_reduction(const Analysis& a) {
  for (const FuncAnalysis& fa : a.funcs) {
    for (const StageAnalysis& sa : fa.stages) {
      if (gpu_reduction_starved(fa, sa, a.target)) return true;
    }
  }
  return false;
}

StagingCounts staging_counts(const std::vector<Schedule>& schedules) {
  StagingCounts c;
  for (const Schedule& s : schedules) {
    bool b = false, t = false, r = false;
    for (const FuncSchedule& f : s.funcs) {
      if (f.compute.kind != ComputeLocation::Kind::kAt) continue;
      const StageSchedule host = s.find(f.compute.consumer)->stage_or_empty(f.compute.consumer_stage);
      const bool at_thread = std::find(host.gpu.threads.begin(), host.gpu.threads.end(), f.compute.loop) != host.gpu.threads.end();
      (at_thread ? t : b) = true;
      r |= f.stage_or_empty(0).gpu.memory == "register";
    }
    c.block += b;
    c.thread += t;
    c.registers += r;
  }
  return c;
}

struct Case {
  const char* subgraph;
  const char* device;
};

class GpuSpaceTest : public ::testing::TestWithParam<Case> {};

TEST_P(GpuSpaceTest, SampledSchedulesLowerForCuda) {
  const auto sg = testing::suite_subgraph(GetParam().subgraph);
  const TargetInfo target = cuda_target_info(GetParam().device);
  ASSERT_TRUE(target.is_gpu());
  const Space space(analyze(*sg, target));
  Rng rng(4242);
  const int n = samples_per_case();
  std::vector<Schedule> schedules;
  ValidationCounts counts;
  int draws = 0;
  while (static_cast<int>(schedules.size()) < n && draws < 64 * n) {
    const Schedule s = space.draw(rng);
    ++draws;
    if (!space.validate(s, &counts)) schedules.push_back(s);
  }
  ASSERT_EQ(static_cast<int>(schedules.size()), n) << "too few valid draws";
  // Half of the schedules mutated once more.
  for (int i = 0; i < n / 2; ++i) {
    if (auto m = space.mutate(schedules[i], rng)) schedules[i] = *m;
  }
  int accepted = 0;
  std::string first_error;
  for (const Schedule& s : schedules) {
    const std::string err = testing::isolated([&] {
      return lower(apply(s, *sg, space.analysis()), target.halide_target).value_or("");
    });
    if (err.empty()) {
      ++accepted;
    } else if (first_error.empty()) {
      first_error = err + "\n" + s.to_json().dump();
    }
  }
  const double rate = static_cast<double>(accepted) / schedules.size();
  std::string rejected;
  for (const auto& [name, count] : counts.rejected) rejected += " " + name + "=" + std::to_string(count);
  const StagingCounts staged = staging_counts(schedules);
  const int rfactored = rfactor_count(schedules);
  std::printf("[gpu acceptance] %s on %s (%s): %d of %zu lowered (%.1f%%); validators passed %zu of %d draws;%s; "
              "%d stage a Func at a block, %d in a thread, %d in registers; %d split a reduction with rfactor\n",
              GetParam().subgraph, GetParam().device, target.halide_target.c_str(), accepted, schedules.size(),
              100 * rate, schedules.size(), draws, rejected.c_str(), staged.block, staged.thread, staged.registers,
              rfactored);
  EXPECT_GE(rate, 0.99) << first_error;
  // GPU rfactors are sampled exactly where a reduction is starved.
  if (has_starved_reduction(space.analysis())) {
    EXPECT_GT(rfactored, 0);
  } else {
    EXPECT_EQ(rfactored, 0);
  }
  // The validators pass most draws: the sampler follows the rules they enforce.
  EXPECT_GE(static_cast<double>(n) / draws, 0.5);
}

TEST_P(GpuSpaceTest, HeuristicMapsEveryKernel) {
  const auto sg = testing::suite_subgraph(GetParam().subgraph);
  const TargetInfo target = cuda_target_info(GetParam().device);
  const Space space(analyze(*sg, target));
  const Schedule h = space.heuristic();
  EXPECT_EQ(space.validate(h).value_or(""), "") << h.to_json().dump();
  for (const FuncSchedule& f : h.funcs) {
    if (f.compute.kind != ComputeLocation::Kind::kRoot) continue;
    for (const StageAnalysis& sa : space.analysis().find(f.func)->stages) {
      const StageSchedule st = f.stage_or_empty(sa.stage);
      EXPECT_FALSE(st.gpu.blocks.empty()) << f.func << " stage " << sa.stage;
      EXPECT_FALSE(st.gpu.threads.empty()) << f.func << " stage " << sa.stage;
    }
  }
  EXPECT_EQ(space.validate(space.naive()).value_or(""), "");
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (const char* sg : {"gemm_1024", "mlp_gelu", "bmm_scores", "conv3x3_relu", "dwconv3x3_relu", "softmax",
                         "layernorm", "eltwise", "blur3x3", "colsum"}) {
    for (const char* dev : {"a100", "h100"}) out.push_back({sg, dev});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(PublicSuite, GpuSpaceTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.subgraph) + "_" + info.param.device;
                         });

TEST(GpuSpace, H100UsesHalidesNewestCapability) {
  EXPECT_NE(cuda_target_info("h100").halide_target.find("cuda_capability_86"), std::string::npos);
  EXPECT_NE(cuda_target_info("a100").halide_target.find("cuda_capability_80"), std::string::npos);
  EXPECT_EQ(cuda_target_info("h100").max_threads_per_block, 1024);
  EXPECT_EQ(cuda_target_info("h100").shared_bytes_per_block, 48 * 1024);
  EXPECT_EQ(cuda_target_info("h100").sm_count, 132);
}

TEST(GpuSpace, SharedMemoryScheduleLoadsFromSharedMemory) {
  const auto sg = testing::suite_subgraph("blur3x3");
  const TargetInfo target = cuda_target_info("a100");
  const Space space(analyze(*sg, target));
  const Schedule s = testing::blur_shared_schedule(space);
  ASSERT_EQ(space.validate(s).value_or(""), "") << s.to_json().dump();
  const ApplyResult applied = apply(s, *sg, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_NE(applied.source.find("blur_x.store_in(MemoryType::GPUShared);"), std::string::npos) << applied.source;
  const std::string ptx = testing::device_code(applied, target.halide_target);
  EXPECT_NE(ptx.find(".target sm_80"), std::string::npos) << ptx.substr(0, 2000);
  EXPECT_NE(ptx.find("ld.shared"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("st.shared"), std::string::npos);
  // The same pipeline without the staging reads global memory only.
  const ApplyResult plain = apply(space.heuristic(), *sg, space.analysis());
  const std::string plain_ptx = testing::device_code(plain, target.halide_target);
  ASSERT_EQ(plain_ptx.rfind("error", 0), std::string::npos) << plain_ptx;
  EXPECT_EQ(plain_ptx.find("ld.shared"), std::string::npos);
}

}  // namespace
}  // namespace ktune::scheduler
