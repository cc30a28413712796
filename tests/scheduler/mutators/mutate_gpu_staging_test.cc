#include <gtest/gtest.h>

#include "tests/scheduler/gpu_test_support.h"
#include "tests/scheduler/mutators/mutator_test_support.h"

namespace ktune::scheduler {
namespace {

std::string placement(const Schedule& s) {
  const FuncSchedule& f = *s.find("blur_x");
  std::string out = to_string(f.compute.kind);
  if (f.compute.kind == ComputeLocation::Kind::kAt) out += "@" + f.compute.loop;
  const StageSchedule st = f.stage_or_empty(0);
  out += " blocks=" + std::to_string(st.gpu.blocks.size()) + " memory=" + st.gpu.memory;
  return out;
}

TEST(MutateGpuStaging, MovesBetweenKernelAndSharedStaging) {
  const auto sg = testing::suite_subgraph("blur3x3");
  const Space space(analyze(*sg, cuda_target_info("a100")));
  const Schedule staged = testing::blur_shared_schedule(space);
  const std::string block = staged.find("blur_x")->compute.loop;
  const auto mutator = make_gpu_staging_mutator();
  // From shared staging: Halide's choice of memory, or a kernel of its own.
  EXPECT_EQ(testing::reached_alternatives(*mutator, staged, space, placement),
            (std::set<std::string>{"at@" + block + " blocks=0 memory=", "root blocks=2 memory="}));
  // From a kernel: staged in shared memory at blur_y's block.
  Schedule root = staged;
  {
    Rng rng(1);
    for (int i = 0; i < 50 && root.find("blur_x")->compute.kind != ComputeLocation::Kind::kRoot; ++i) {
      root = mutator->mutate(staged, space, rng).value_or(staged);
    }
  }
  ASSERT_EQ(root.find("blur_x")->compute.kind, ComputeLocation::Kind::kRoot);
  EXPECT_EQ(testing::reached_alternatives(*mutator, root, space, placement),
            (std::set<std::string>{"at@" + block + " blocks=0 memory=shared"}));
  // On a CPU target it has nothing to do.
  const Space cpu(analyze(*sg, testing::test_target()));
  Rng rng(5);
  EXPECT_FALSE(mutator->propose(cpu.heuristic(), cpu, rng).has_value());
}

}  // namespace
}  // namespace ktune::scheduler
