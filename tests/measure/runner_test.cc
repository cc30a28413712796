#include "measure/runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "measure/usable_cores.h"
#include "targets/cuda_devices.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/compare.h"
#include "tests/measure/test_subgraphs.h"

namespace ktune::measure {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

// A short protocol so that the tests stay fast.
RunOptions quick_options() {
  RunOptions o;
  o.timing = TimingProtocol{/*warmup_runs=*/1, /*min_repeats=*/3, /*min_total_ms=*/5, /*max_repeats=*/1000};
  o.timeout_cap_ms = 1500;
  o.timeout_floor_ms = 300;
  return o;
}

Candidate trivial(const subgraphs::Subgraph* sg, const std::string& label) {
  return Candidate{sg, "hash-" + label, subgraphs::apply_trivial_schedule, label};
}

void expect_sane_timing(const MeasureResult& r, const RunOptions& o) {
  EXPECT_EQ(r.status, MeasureStatus::kOk) << describe(r);
  EXPECT_GE(r.repeats, o.timing.min_repeats);
  EXPECT_GT(r.min_ns, 0);
  EXPECT_LE(r.min_ns, r.median_ns);
  EXPECT_GE(r.spread_ns, 0);
  EXPECT_GE(r.max_error, 0);
  EXPECT_LE(r.max_error, subgraphs::kTolerance);
  EXPECT_GT(r.build_ms, 0);
  EXPECT_GT(r.run_wall_ms, 0);
  EXPECT_TRUE(r.message.empty()) << r.message;
}

// The Done-when list of issue 4: a segfault, a hang, a wrong answer and an illegal
// schedule in one batch, each with its status, while this process goes on measuring.
TEST(RunnerHostileTest, EveryHostileCandidateGetsItsStatusAndTheBatchGoesOn) {
  const auto scale = testing::make_scale();
  const auto wrong = testing::make_scale(/*wrong_reference=*/true);
  const auto gather = testing::make_gather();
  const auto spin = testing::make_spin();
  auto parallel_rvar = [](const subgraphs::BuiltPipeline& built) {
    Halide::Func out = built.outputs.at(0);
    out.update(0).parallel(out.rvars(0).at(0));
  };
  const std::vector<Candidate> candidates = {
      trivial(scale.get(), "good_first"),
      trivial(gather.get(), "segfault"),
      trivial(spin.get(), "hang"),
      trivial(wrong.get(), "wrong_answer"),
      Candidate{spin.get(), "hash-illegal", parallel_rvar, "illegal"},
      trivial(scale.get(), "good_last"),
  };
  // Asserts off so that the out-of-bounds gather really reads out of bounds.
  const BuildBatch built = build_candidates(candidates, BuildOptions{2, 60000, "host-no_asserts-no_bounds_query", std::nullopt});
  const RunOptions options = quick_options();
  Runner runner(options);
  const pid_t me = getpid();
  const std::vector<MeasureResult> results = runner.run_all(built.candidates);
  ASSERT_EQ(getpid(), me);
  ASSERT_EQ(results.size(), candidates.size());

  expect_sane_timing(results[0], options);

  EXPECT_EQ(results[1].status, MeasureStatus::kCrash) << describe(results[1]);
  EXPECT_THAT(results[1].signal, AnyOf(SIGSEGV, SIGBUS));

  EXPECT_EQ(results[2].status, MeasureStatus::kRunTimeout) << describe(results[2]);
  EXPECT_GE(results[2].run_wall_ms, options.timeout_cap_ms);
  EXPECT_LT(results[2].run_wall_ms, options.timeout_cap_ms + 3000);
  EXPECT_THAT(results[2].message, HasSubstr("no incumbent"));

  EXPECT_EQ(results[3].status, MeasureStatus::kWrongResult) << describe(results[3]);
  EXPECT_GT(results[3].max_error, subgraphs::kTolerance);
  EXPECT_NEAR(results[3].max_error, 1.0 / 3.0, 1e-3);  // 2x against 3x
  EXPECT_EQ(results[3].repeats, 0);                    // a wrong answer is never timed
  EXPECT_EQ(results[3].median_ns, -1);

  EXPECT_EQ(results[4].status, MeasureStatus::kRejected) << describe(results[4]);
  EXPECT_EQ(results[4].run_wall_ms, -1);  // never ran

  expect_sane_timing(results[5], options);
}

TEST(RunnerTest, HalideRuntimeErrorCarriesHalidesMessage) {
  const auto gather = testing::make_gather();
  const BuildBatch built = build_candidates({trivial(gather.get(), "oob")}, BuildOptions{1, 60000, "", std::nullopt});
  Runner runner(quick_options());
  const MeasureResult r = runner.run(built.candidates[0]);
  EXPECT_EQ(r.status, MeasureStatus::kRuntimeError) << describe(r);
  EXPECT_THAT(r.message, HasSubstr("data"));
  EXPECT_THAT(r.message, HasSubstr("is accessed at 2000000015"));
}

TEST(RunnerTest, ReferenceThatThrowsIsReportedNotFatal) {
  const auto bad = testing::make_throwing_reference();
  const auto scale = testing::make_scale();
  const BuildBatch built =
      build_candidates({trivial(bad.get(), "bad"), trivial(scale.get(), "good")}, BuildOptions{2, 60000, "", std::nullopt});
  Runner runner(quick_options());
  const MeasureResult r = runner.run(built.candidates[0]);
  EXPECT_EQ(r.status, MeasureStatus::kRuntimeError);
  EXPECT_THAT(r.message, HasSubstr("reference"));
  EXPECT_THAT(r.message, HasSubstr("reference exploded"));
  EXPECT_EQ(runner.run(built.candidates[1]).status, MeasureStatus::kOk);
}

TEST(RunnerTest, RunOptionsForTheFlagsSetThreadsAndTimingOnly) {
  const RunOptions o = run_options_for(3, 7, 150);
  const RunOptions defaults;
  EXPECT_EQ(o.threads, 3);
  EXPECT_EQ(o.timing.min_repeats, 7);
  EXPECT_EQ(o.timing.min_total_ms, 150);
  EXPECT_EQ(o.timing.warmup_runs, defaults.timing.warmup_runs);
  EXPECT_EQ(o.timing.max_repeats, defaults.timing.max_repeats);
  EXPECT_EQ(o.timeout_cap_ms, defaults.timeout_cap_ms);
  EXPECT_EQ(o.input_seed, defaults.input_seed);
  EXPECT_EQ(o.aot_allocation, defaults.aot_allocation);
}

TEST(RunnerTest, TimeoutFollowsTheIncumbent) {
  RunOptions o;
  o.timing = TimingProtocol{1, 10, 200, 1000};
  o.timeout_slowdown = 20;
  o.timeout_floor_ms = 2000;
  o.timeout_cap_ms = 120000;
  EXPECT_EQ(run_timeout_ms(o, std::nullopt), 120000);
  // 2000 + 200 + 20 * 1 ms * (2 + 1 + 10)
  EXPECT_DOUBLE_EQ(run_timeout_ms(o, 1e6), 2000 + 200 + 20 * 13);
  EXPECT_EQ(run_timeout_ms(o, 1e9), 120000);  // capped

  // Timed in full up to 4x the incumbent (13 runs); beyond, the checked run is the only one
  // (and one more of slack).
  o.hopeless_slowdown = 4;
  EXPECT_DOUBLE_EQ(run_timeout_ms(o, 1e6), 2000 + 200 + std::max(4 * 13, 20 * 2));
  o.hopeless_slowdown = 30;  // beyond the timeout's slowdown: nothing changes
  EXPECT_DOUBLE_EQ(run_timeout_ms(o, 1e6), 2000 + 200 + 20 * 13);
  o.hopeless_slowdown = 0;

  Runner runner(o);
  EXPECT_FALSE(runner.incumbent("w").has_value());
  runner.note_incumbent("w", 5e6);
  runner.note_incumbent("w", 9e6);  // slower: not the incumbent
  EXPECT_EQ(runner.incumbent("w"), 5e6);
  EXPECT_DOUBLE_EQ(runner.timeout_ms("w"), run_timeout_ms(o, 5e6));
  EXPECT_EQ(runner.timeout_ms("other"), 120000);
}

TEST(RunnerTest, SlowCandidateIsCutOffRelativeToTheIncumbent) {
  const auto spin = testing::make_spin();
  const BuildBatch built = build_candidates({trivial(spin.get(), "spin")}, BuildOptions{1, 60000, "", std::nullopt});
  RunOptions o = quick_options();
  o.timeout_cap_ms = 60000;
  Runner runner(o);
  runner.note_incumbent(spin->key().key, 1000);  // the best so far took 1 us
  const MeasureResult r = runner.run(built.candidates[0]);
  EXPECT_EQ(r.status, MeasureStatus::kRunTimeout) << describe(r);
  EXPECT_THAT(r.message, HasSubstr("incumbent median"));
  EXPECT_LT(r.run_wall_ms, 5000);  // far below the 60 s cap
}

TEST(RunnerTest, ACandidateFarSlowerThanTheIncumbentIsTimedOnce) {
  const auto scale = testing::make_scale();
  const BuildBatch built = build_candidates({trivial(scale.get(), "s")}, BuildOptions{1, 60000, "", std::nullopt});
  RunOptions o = quick_options();
  o.timeout_floor_ms = 10000;  // a fork and a check on a busy machine, far from the limit
  o.timeout_cap_ms = 60000;
  o.hopeless_slowdown = 4;
  Runner runner(o);
  runner.note_incumbent(scale->key().key, 1);  // the best so far took 1 ns
  const MeasureResult hopeless = runner.run(built.candidates[0]);
  ASSERT_EQ(hopeless.status, MeasureStatus::kOk) << describe(hopeless);
  EXPECT_EQ(hopeless.repeats, 1);

  Runner no_incumbent(o);  // nothing to lose against: timed in full
  const MeasureResult full = no_incumbent.run(built.candidates[0]);
  ASSERT_EQ(full.status, MeasureStatus::kOk) << describe(full);
  EXPECT_GE(full.repeats, o.timing.min_repeats);
}

TEST(RunnerTest, SuccessfulRunBecomesTheIncumbent) {
  const auto scale = testing::make_scale();
  const BuildBatch built = build_candidates({trivial(scale.get(), "s")}, BuildOptions{1, 60000, "", std::nullopt});
  Runner runner(quick_options());
  const MeasureResult r = runner.run(built.candidates[0]);
  ASSERT_EQ(r.status, MeasureStatus::kOk) << describe(r);
  EXPECT_EQ(runner.incumbent(scale->key().key), r.median_ns);
  EXPECT_LT(runner.timeout_ms(scale->key().key), quick_options().timeout_cap_ms);
}

TEST(RunnerTest, MinimumTotalTimeAddsRepeats) {
  const auto scale = testing::make_scale();
  const BuildBatch built = build_candidates({trivial(scale.get(), "s")}, BuildOptions{1, 60000, "", std::nullopt});
  RunOptions o = quick_options();
  o.timing.min_repeats = 2;
  o.timing.min_total_ms = 20;
  o.timing.max_repeats = 10000000;
  Runner runner(o);
  const MeasureResult r = runner.run(built.candidates[0]);
  ASSERT_EQ(r.status, MeasureStatus::kOk) << describe(r);
  EXPECT_GT(r.repeats, 2);
  // The timed total reached about 20 ms; the median can sit well below the mean on a busy
  // machine, so only a loose bound is checked.
  EXPECT_GE(r.repeats * r.median_ns, 20e6 * 0.1);
}

// A parent that ran a parallel pipeline leaves children with one
// thread. The Runner must still give each child every thread it asks for.
TEST(RunnerTest, ChildrenGetEveryThreadEvenAfterTheParentUsedThePool) {
  const int cores = usable_cores();
  if (cores < 2) GTEST_SKIP() << "needs at least 2 cores";
  const auto probe = testing::make_thread_probe();

  // Run the parallel pipeline here in the parent first: its thread pool is now started.
  {
    const subgraphs::BuiltPipeline local = probe->build();
    testing::parallel_rows(local);
    testing::reset_probe_threads();
    subgraphs::run_pipeline(local, probe->make_inputs(1), probe->inputs(), probe->outputs(), Halide::get_jit_target_from_environment());
    ASSERT_GE(testing::probe_threads().size(), 1u);
  }

  const BuildBatch built =
      build_candidates({Candidate{probe.get(), "p", testing::parallel_rows, "parallel"}}, BuildOptions{1, 60000, "", std::nullopt});
  RunOptions o = quick_options();
  o.timeout_cap_ms = 60000;
  o.threads = 0;  // every core
  Runner all_cores(o);
  testing::reset_probe_threads();
  const MeasureResult r = all_cores.run(built.candidates[0]);
  ASSERT_EQ(r.status, MeasureStatus::kOk) << describe(r);
  EXPECT_EQ(r.threads, cores);
  const std::set<int> seen = testing::probe_threads();
  EXPECT_GE(seen.size(), 2u) << "the child ran its parallel loop on one thread";
  EXPECT_LE(seen.size(), static_cast<size_t>(cores));

  o.threads = 1;
  Runner one_thread(o);
  testing::reset_probe_threads();
  const MeasureResult r1 = one_thread.run(built.candidates[0]);
  ASSERT_EQ(r1.status, MeasureStatus::kOk) << describe(r1);
  EXPECT_EQ(r1.threads, 1);
  EXPECT_EQ(testing::probe_threads().size(), 1u);
}

// A GPU kernel is checked and timed on this machine's GPU (each timed run waits for the
// device); without one, the child reports the runtime's CUDA error and the process goes on.
TEST(RunnerTest, GpuCandidateRunsOnTheGpuOrReportsWhyNot) {
  const auto scale = testing::make_scale();
  const RunOptions o = quick_options();
  Runner runner(o);
  const BuildBatch built =
      build_candidates({Candidate{scale.get(), "gpu", testing::gpu_tiles, "gpu"}},
                       BuildOptions{1, 60000, jit_target_for("x86-64-linux-cuda-cuda_capability_50"), std::nullopt});
  ASSERT_EQ(built.candidates[0].build.status, MeasureStatus::kOk) << built.candidates[0].build.message;
  const MeasureResult r = runner.run(built.candidates[0]);
  if (targets::detect_cuda_devices().devices.empty()) {
    EXPECT_EQ(r.status, MeasureStatus::kRuntimeError) << describe(r);
    std::string message = r.message;
    for (char& c : message) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_THAT(message, HasSubstr("cuda")) << r.message;
  } else {
    expect_sane_timing(r, o);
  }
  // The parent is unharmed: a CPU candidate still measures.
  const BuildBatch cpu = build_candidates({trivial(scale.get(), "cpu")}, BuildOptions{1, 60000, "", std::nullopt});
  expect_sane_timing(runner.run(cpu.candidates[0]), o);
}

}  // namespace
}  // namespace ktune::measure
