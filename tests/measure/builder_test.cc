#include "measure/builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "common/error.h"
#include "measure/compiled_kernel.h"
#include "subgraphs/built_pipeline.h"
#include "targets/host_target.h"
#include "tests/measure/test_subgraphs.h"

namespace ktune::measure {
namespace {

using ::testing::HasSubstr;

Candidate make_candidate(const subgraphs::Subgraph* sg, std::string label,
                         std::function<void(const subgraphs::BuiltPipeline&)> apply) {
  return Candidate{sg, "hash-" + label, std::move(apply), label};
}

void parallel_reduction(const subgraphs::BuiltPipeline& built) {
  Halide::Func out = built.outputs.at(0);
  out.compute_root();
  out.update(0).parallel(out.rvars(0).at(0));
}

TEST(BuilderTest, BuildsRejectsAndFailsEachCandidateInOneBatch) {
  const auto scale = testing::make_scale();
  const auto spin = testing::make_spin();
  const std::vector<Candidate> batch = {
      make_candidate(scale.get(), "trivial", subgraphs::apply_trivial_schedule),
      make_candidate(spin.get(), "parallel_rvar", parallel_reduction),
      make_candidate(scale.get(), "internal_error",
                     [](const subgraphs::BuiltPipeline&) { throw Halide::InternalError("boom inside"); }),
      make_candidate(scale.get(), "std_exception",
                     [](const subgraphs::BuiltPipeline&) { throw std::runtime_error("plain failure"); }),
      make_candidate(nullptr, "no_subgraph", nullptr),
      make_candidate(scale.get(), "default_schedule", nullptr),
  };
  const BuildBatch built = build_candidates(batch, BuildOptions{2, 60000, "", std::nullopt});
  ASSERT_EQ(built.candidates.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) EXPECT_EQ(built.candidates[i].candidate.label, batch[i].label);

  const BuiltCandidate& ok = built.candidates[0];
  EXPECT_EQ(ok.build.status, MeasureStatus::kOk) << ok.build.message;
  ASSERT_NE(ok.kernel, nullptr);
  EXPECT_GT(ok.build.build_ms, 0);

  const BuiltCandidate& rejected = built.candidates[1];
  EXPECT_EQ(rejected.build.status, MeasureStatus::kRejected);
  EXPECT_THAT(rejected.build.message, HasSubstr("race"));
  EXPECT_EQ(rejected.kernel, nullptr);

  EXPECT_EQ(built.candidates[2].build.status, MeasureStatus::kBuildError);
  EXPECT_THAT(built.candidates[2].build.message, HasSubstr("boom inside"));
  EXPECT_EQ(built.candidates[3].build.status, MeasureStatus::kBuildError);
  EXPECT_THAT(built.candidates[3].build.message, HasSubstr("plain failure"));
  EXPECT_EQ(built.candidates[4].build.status, MeasureStatus::kBuildError);
  EXPECT_THAT(built.candidates[4].build.message, HasSubstr("no subgraph"));
  EXPECT_EQ(built.candidates[5].build.status, MeasureStatus::kOk) << built.candidates[5].build.message;

  const BuildStats& s = built.stats;
  EXPECT_EQ(s.candidates, 6);
  EXPECT_EQ(s.built, 2);
  EXPECT_EQ(s.rejected, 1);
  EXPECT_EQ(s.errors, 3);
  EXPECT_EQ(s.timeouts, 0);
  EXPECT_EQ(s.threads, 2);
  EXPECT_GT(s.wall_ms, 0);
  EXPECT_GT(s.per_minute(), 0);
}

TEST(BuilderTest, EachCandidateGetsAFreshPipeline) {
  const auto scale = testing::make_scale();
  std::vector<Halide::Func> seen;
  std::mutex mutex;
  auto record = [&](const subgraphs::BuiltPipeline& built) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(built.outputs.at(0));
  };
  const BuildBatch built = build_candidates({make_candidate(scale.get(), "a", record),
                                             make_candidate(scale.get(), "b", record)},
                                            BuildOptions{2, 60000, "", std::nullopt});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_FALSE(seen[0].function().same_as(seen[1].function()));
  EXPECT_EQ(built.candidates[0].build.status, MeasureStatus::kOk);
  EXPECT_EQ(built.candidates[1].build.status, MeasureStatus::kOk);
}

TEST(BuilderTest, SlowCompileIsAbandonedAtItsDeadline) {
  const auto scale = testing::make_scale();
  auto slow = [](const subgraphs::BuiltPipeline& built) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    subgraphs::apply_trivial_schedule(built);
  };
  const auto start = std::chrono::steady_clock::now();
  const BuildBatch built = build_candidates(
      {make_candidate(scale.get(), "slow", slow), make_candidate(scale.get(), "fast", subgraphs::apply_trivial_schedule)},
      BuildOptions{2, 300, "", std::nullopt});
  const double batch_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(built.candidates[0].build.status, MeasureStatus::kBuildTimeout);
  EXPECT_THAT(built.candidates[0].build.message, HasSubstr("300 ms"));
  EXPECT_EQ(built.candidates[0].kernel, nullptr);
  EXPECT_EQ(built.candidates[1].build.status, MeasureStatus::kOk);
  EXPECT_EQ(built.stats.timeouts, 1);
  EXPECT_LT(batch_ms, 1400);  // did not wait for the slow one
  EXPECT_EQ(late_builds_in_flight(), 1);
  EXPECT_TRUE(wait_for_late_builds(30000));
  EXPECT_EQ(late_builds_in_flight(), 0);
}

TEST(BuilderTest, CandidatesNotStartedBeforeTheCutoffAreSkipped) {
  const auto scale = testing::make_scale();
  auto slow = [](const subgraphs::BuiltPipeline& built) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    subgraphs::apply_trivial_schedule(built);
  };
  const std::vector<Candidate> batch = {make_candidate(scale.get(), "a", slow), make_candidate(scale.get(), "b", slow),
                                        make_candidate(scale.get(), "c", slow)};
  build_candidates({make_candidate(scale.get(), "warm", nullptr)}, BuildOptions{1, 60000, "", std::nullopt});
  BuildOptions options{1, 60000, "", std::nullopt};
  options.start_before = std::chrono::steady_clock::now() + std::chrono::milliseconds(1000);
  const BuildBatch built = build_candidates(batch, options);
  ASSERT_EQ(built.candidates.size(), 3u);
  // One compile thread and candidates start in order: the first starts before the cutoff and
  // ends after it, the others are skipped (and still say which they are).
  EXPECT_FALSE(built.candidates[0].skipped);
  EXPECT_EQ(built.candidates[0].build.status, MeasureStatus::kOk) << built.candidates[0].build.message;
  for (size_t i : {1u, 2u}) {
    EXPECT_TRUE(built.candidates[i].skipped) << i;
    EXPECT_EQ(built.candidates[i].candidate.label, std::string(1, static_cast<char>('a' + i)));
    EXPECT_EQ(built.candidates[i].kernel, nullptr);
  }
  EXPECT_EQ(built.stats.skipped, 2);  // and count nowhere else
  EXPECT_EQ(built.stats.candidates, 1);
  EXPECT_EQ(built.stats.built, 1);
}

// A stop (SIGTERM to `ktune tune`) must not wait for a compile: the one in flight is
// abandoned, the rest never start, and none of them is a verdict on its candidate.
TEST(BuilderTest, AStopAbandonsTheCompileInFlightAndStartsNoOther) {
  const auto scale = testing::make_scale();
  auto slow = [](const subgraphs::BuiltPipeline& built) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    subgraphs::apply_trivial_schedule(built);
  };
  build_candidates({make_candidate(scale.get(), "warm", nullptr)}, BuildOptions{1, 60000, "", std::nullopt});
  std::atomic<int> stop{0};
  BuildOptions options{1, 60000, "", std::nullopt};
  options.stop = &stop;
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = 1;
  });
  const auto start = std::chrono::steady_clock::now();
  const BuildBatch built = build_candidates(
      {make_candidate(scale.get(), "a", slow), make_candidate(scale.get(), "b", slow), make_candidate(scale.get(), "c", slow)},
      options);
  const double batch_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  stopper.join();
  EXPECT_LT(batch_ms, 1000) << "waited for the compile in flight";
  for (const BuiltCandidate& b : built.candidates) {
    EXPECT_TRUE(b.skipped) << b.candidate.label;
    EXPECT_EQ(b.kernel, nullptr);
  }
  EXPECT_EQ(built.stats.skipped, 3);
  EXPECT_EQ(late_builds_in_flight(), 1) << "the abandoned compile finishes in the background";
  EXPECT_TRUE(wait_for_late_builds(30000));
}

TEST(BuilderTest, CompilesForTheRequestedTarget) {
  const auto scale = testing::make_scale();
  const BuildBatch built = build_candidates({make_candidate(scale.get(), "t", subgraphs::apply_trivial_schedule)},
                                            BuildOptions{1, 0, "host-no_asserts", std::nullopt});
  ASSERT_EQ(built.candidates[0].build.status, MeasureStatus::kOk) << built.candidates[0].build.message;
  EXPECT_TRUE(built.candidates[0].kernel->target.has_feature(Halide::Target::NoAsserts));
}

TEST(BuilderTest, MalformedTargetIsAUserError) {
  const auto scale = testing::make_scale();
  try {
    build_candidates({make_candidate(scale.get(), "t", nullptr)}, BuildOptions{1, 0, "x86-64-nonsense-os", std::nullopt});
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("target"));
    EXPECT_THAT(e.what(), HasSubstr("x86-64-nonsense-os"));
  }
}

TEST(BuilderTest, GpuDeviceTargetBecomesTheHostJitTargetWithTheGpu) {
  const Halide::Target jit(jit_target_for("x86-64-linux-avx-avx2-f16c-fma-sse41-cuda-cuda_capability_86"));
  EXPECT_TRUE(jit.has_feature(Halide::Target::CUDA));
  EXPECT_TRUE(jit.has_feature(Halide::Target::CUDACapability86));
  EXPECT_FALSE(jit.has_feature(Halide::Target::CUDACapability80));
  // The CPU part is this machine's, not the device string's.
  const Halide::Target host(targets::jit_halide_target());
  EXPECT_EQ(jit.arch, host.arch);
  EXPECT_EQ(jit.os, host.os);
  EXPECT_EQ(jit.has_feature(Halide::Target::AVX512), host.has_feature(Halide::Target::AVX512));
  EXPECT_EQ(jit.without_feature(Halide::Target::CUDA).without_feature(Halide::Target::CUDACapability86), host);
  // A CPU device runs on the host JIT target.
  EXPECT_EQ(jit_target_for("x86-64-linux-avx2"), "");
  EXPECT_EQ(jit_target_for(""), "");
  EXPECT_THROW(jit_target_for("x86-64-nonsense-os"), UserError);
}

TEST(BuilderTest, GpuScheduleCompilesForTheGpuWithoutOne) {
  // JIT compilation generates PTX through LLVM: no driver is needed until the kernel runs.
  const auto scale = testing::make_scale();
  const BuildBatch built = build_candidates({make_candidate(scale.get(), "gpu", testing::gpu_tiles)},
                                            BuildOptions{1, 0, jit_target_for("x86-64-linux-cuda-cuda_capability_80"), std::nullopt});
  ASSERT_EQ(built.candidates[0].build.status, MeasureStatus::kOk) << built.candidates[0].build.message;
  EXPECT_TRUE(built.candidates[0].kernel->target.has_feature(Halide::Target::CUDA));
}

}  // namespace
}  // namespace ktune::measure
