#include <gtest/gtest.h>

#include "scheduler/gpu_rfactor.h"
#include "scheduler/gpu_stage_template.h"
#include "tests/scheduler/gpu_test_support.h"
#include "tests/scheduler/mutators/mutator_test_support.h"

namespace ktune::scheduler {
namespace {

// The rfactor of `func`'s update: "none", or "F x <threads>".
std::string rfactor_of(const Schedule& s, const std::string& func) {
  const StageSchedule st = testing::stage_of(s, func, 1);
  if (!st.rfactor) return "none";
  std::string threads;
  for (const std::string& t : st.rfactor->gpu.threads) threads += (threads.empty() ? "" : ",") + t;
  return std::to_string(st.splits.at(0).factor) + " x " + threads;
}

// The schedule with every GPU rfactor undone (the reductions serial in each thread).
Schedule serial(const Schedule& s, const Analysis& a) {
  Schedule out = s;
  for (FuncSchedule& f : out.funcs) {
    for (StageSchedule& st : f.stages) {
      if (st.rfactor) st = make_gpu_stage(a.find(f.func)->stages[st.stage], heuristic_gpu_tiling(a.find(f.func)->stages[st.stage]), true);
    }
  }
  return out;
}

TEST(MutateGpuRFactor, SplitsReshapesAndUndoesStarvedRowReductions) {
  const auto sg = testing::suite_subgraph("softmax");
  const Space space(analyze(*sg, cuda_target_info("a100")));
  const auto m = make_gpu_rfactor_mutator();
  const Schedule base = serial(space.heuristic(), space.analysis());
  ASSERT_EQ(space.validate(base).value_or(""), "");
  const auto describe = [](const Schedule& s) { return rfactor_of(s, "y_max"); };
  // Every row factor, u alone on threads; or y_sum changed instead.
  EXPECT_EQ(testing::reached_alternatives(*m, base, space, describe),
            (std::set<std::string>{"none", "32 x u", "64 x u", "128 x u", "256 x u"}));
  // From the heuristic's rfactor (F = 128): undone, or another factor.
  const Schedule h = space.heuristic();
  ASSERT_EQ(describe(h), "128 x u");
  EXPECT_EQ(testing::reached_alternatives(*m, h, space, describe),
            (std::set<std::string>{"none", "32 x u", "64 x u", "128 x u", "256 x u"}));
  // Some mutation of the heuristic's y_max undoes its rfactor and some keeps F = 128 with
  // other threads for what remains; each lowers for the GPU.
  Rng rng(12);
  int lowered = 0;
  for (int i = 0; i < 4; ++i) {
    const auto out = m->mutate(h, space, rng);
    ASSERT_TRUE(out);
    lowered += lower(apply(*out, *sg, space.analysis()), space.analysis().target.halide_target).value_or("") == "";
  }
  EXPECT_EQ(lowered, 4);
}

TEST(MutateGpuRFactor, ColumnReductionsKeepXThreadsBesideU) {
  const auto sg = testing::suite_subgraph("colsum");
  const Space space(analyze(*sg, cuda_target_info("a100")));
  const auto m = make_gpu_rfactor_mutator();
  const auto describe = [](const Schedule& s) { return rfactor_of(s, "sums_acc"); };
  const std::set<std::string> seen =
      testing::reached_alternatives(*m, serial(space.heuristic(), space.analysis()), space, describe);
  EXPECT_EQ(seen, (std::set<std::string>{"8 x x_i,u", "16 x x_i,u", "32 x x_i,u"}));
}

TEST(MutateGpuRFactor, NothingToDoOnWellFedReductionsOrCpus) {
  const auto m = make_gpu_rfactor_mutator();
  Rng rng(5);
  const auto gemm = testing::suite_subgraph("gemm_1024");
  const Space gpu(analyze(*gemm, cuda_target_info("a100")));
  EXPECT_FALSE(m->propose(gpu.heuristic(), gpu, rng).has_value());
  const auto sm = testing::suite_subgraph("softmax");
  const Space cpu(analyze(*sm, testing::test_target()));
  EXPECT_FALSE(m->propose(cpu.heuristic(), cpu, rng).has_value());
}

}  // namespace
}  // namespace ktune::scheduler
