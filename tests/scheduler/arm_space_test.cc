// The CPU schedule space for an Arm device: the target facts of a known Arm CPU (128-bit
// NEON vectors, 32 vector registers, its cores and caches), the heuristic's vectors of four
// floats, and sampled schedules that Halide lowers for AArch64.
#include <gtest/gtest.h>

#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "targets/device_lookup.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(ArmSpace, AKnownArmCpuHasNeonLanesThirtyTwoRegistersAndItsCaches) {
  const targets::Device a76 = targets::device_by_name("cortex-a76");
  const TargetInfo t = target_info_from_device(a76);
  EXPECT_EQ(t.vector_lanes, 4);
  EXPECT_EQ(t.vector_registers, 32);
  EXPECT_EQ(t.cores, 4);
  EXPECT_EQ(t.l1_bytes, 64 * 1024);
  EXPECT_EQ(t.llc_bytes, 2 * 1024 * 1024);
  EXPECT_FALSE(t.is_gpu());
  EXPECT_EQ(vector_registers_of("x86-64-linux-avx-avx2-fma"), 16);
  EXPECT_EQ(vector_registers_of("x86-64-linux-avx512-avx512_skylake"), 32);
}

TEST(ArmSpace, TheHeuristicVectorizesFourFloatsAndSamplesLowerForAArch64) {
  const targets::Device a76 = targets::device_by_name("cortex-a76");
  const auto sg = testing::suite_subgraph("gemm_1024");
  const Space space(analyze(*sg, target_info_from_device(a76)));
  const Schedule h = space.heuristic();
  const FuncSchedule* c = h.find("C");
  ASSERT_NE(c, nullptr);
  ASSERT_FALSE(c->stages.empty());
  for (const LoopSplit& s : c->stages[0].splits) {
    if (s.inner == c->stages[0].vectorize) {
      EXPECT_EQ(s.factor, 4) << s.loop;
    }
  }
  Rng rng(7);
  int lowered = 0;
  for (int i = 0; i < 12; ++i) {
    const std::optional<Schedule> s = i == 0 ? std::optional<Schedule>(h) : space.sample(rng);
    if (!s) continue;
    const ApplyResult applied = apply(*s, *sg, space.analysis());
    ASSERT_TRUE(applied.ok) << applied.error;
    const std::optional<std::string> error = lower(applied, a76.halide_target);
    EXPECT_FALSE(error) << *error;
    ++lowered;
  }
  EXPECT_GE(lowered, 8);
}

}  // namespace
}  // namespace ktune::scheduler
