// The gpu feature group: zeros on a CPU; on a CUDA target it reports the heaviest kernel's
// block shape, whether its innermost thread loop is coalesced, and what it stages in shared
// memory, and it changes when those decisions change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "cost_model/features.h"
#include "scheduler/gpu_stage_template.h"
#include "scheduler/space.h"
#include "tests/cost_model/test_support.h"

namespace ktune::cost_model {
namespace {

float feature(const std::vector<float>& v, const std::string& name) {
  const std::vector<std::string> names = feature_names();
  const auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return it == names.end() ? -1.f : v[static_cast<size_t>(it - names.begin())];
}

TEST(GpuFeatures, NamesAndCount) {
  EXPECT_EQ(GpuFeatures::names().size(), static_cast<size_t>(GpuFeatures::kCount));
  std::vector<float> out;
  GpuFeatures{}.append_to(out);
  EXPECT_EQ(out.size(), static_cast<size_t>(GpuFeatures::kCount));
  EXPECT_EQ(feature_names().back(), "gpu.unrolled_per_thread");
}

TEST(GpuFeatures, ZeroOnCpu) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kBlurSpec);
  const scheduler::Space space(a);
  const std::vector<float> v = extract_features(a, space.heuristic());
  for (const std::string& n : GpuFeatures::names()) EXPECT_EQ(feature(v, "gpu." + n), 0.f) << n;
}

TEST(GpuFeatures, BlockShapeCoalescingAndSharedStaging) {
  const scheduler::Analysis a =
      scheduler::analyze(*testing::spec_subgraph(testing::kBlurSpec), scheduler::cuda_target_info("a100"));
  const scheduler::Space space(a);
  // 64 x 32 output, blocks of 32 x 8 threads: 2 x 4 blocks; blur_x inlined.
  const scheduler::Schedule plain = space.heuristic();
  ASSERT_EQ(space.validate(plain).value_or(""), "");
  const std::vector<float> p = extract_features(a, plain);
  EXPECT_EQ(feature(p, "gpu.kernels"), 1.f);
  EXPECT_EQ(feature(p, "gpu.threads_per_block"), 256.f);
  EXPECT_EQ(feature(p, "gpu.blocks"), 8.f);
  EXPECT_EQ(feature(p, "gpu.warp_utilization"), 1.f);
  EXPECT_EQ(feature(p, "gpu.coalesced"), 1.f);
  EXPECT_EQ(feature(p, "gpu.shared_bytes"), 0.f);
  EXPECT_GT(feature(p, "gpu.occupancy"), 0.f);
  EXPECT_LE(feature(p, "gpu.occupancy"), 1.f);

  // blur_x staged in shared memory at blur_y's block: a 32 x 10 tile of floats.
  scheduler::Schedule staged = plain;
  scheduler::FuncSchedule& bx = *staged.find("blur_x");
  const scheduler::StageSchedule by = staged.find("blur_y")->stage_or_empty(0);
  bx.compute = {scheduler::ComputeLocation::Kind::kAt, "blur_y", 0, by.gpu.blocks.at(0)};
  bx.stages = {scheduler::make_gpu_stage(a.find("blur_x")->stages[0], {32, 8, 0}, false)};
  bx.stages[0].gpu.memory = "shared";
  ASSERT_EQ(space.validate(staged).value_or(""), "");
  const std::vector<float> s = extract_features(a, staged);
  EXPECT_EQ(feature(s, "gpu.shared_bytes"), 32.f * 10 * 4);
  EXPECT_EQ(feature(s, "gpu.shared_funcs"), 1.f);
  EXPECT_EQ(feature(s, "gpu.register_funcs"), 0.f);

  // Rows as the innermost thread dimension: a warp's stores stride across rows.
  scheduler::Schedule rows = plain;
  scheduler::StageSchedule& st = rows.find("blur_y")->stages.at(0);
  std::swap(st.order[0], st.order[1]);
  std::swap(st.gpu.threads[0], st.gpu.threads[1]);
  ASSERT_EQ(space.validate(rows).value_or(""), "");
  EXPECT_EQ(feature(extract_features(a, rows), "gpu.coalesced"), 0.f);
}

TEST(GpuFeatures, ExtractForReductionsSplitWithRFactor) {
  // 12 rows of 2048: the GPU heuristic splits the row max and the row sum with rfactor.
  const auto sg = testing::spec_subgraph(R"({"name": "sm", "inputs": [{"name": "x", "shape": [12, 2048]}],
    "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})");
  const scheduler::Analysis a = scheduler::analyze(*sg, scheduler::cuda_target_info("a100"));
  const scheduler::Space space(a);
  const scheduler::Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "");
  ASSERT_TRUE(h.find("y_max")->stage_or_empty(1).rfactor);
  const std::vector<float> v = extract_features(a, h);
  ASSERT_EQ(v.size(), feature_names().size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_TRUE(std::isfinite(v[i])) << feature_names()[i];
  EXPECT_EQ(feature(v, "pipeline.rfactor_stages"), 2.f);
  EXPECT_GT(feature(v, "gpu.kernels"), 0.f);
  // The same schedule with the reductions serial in each thread reads differently.
  scheduler::Schedule serial = h;
  for (scheduler::FuncSchedule& f : serial.funcs) {
    for (scheduler::StageSchedule& st : f.stages) {
      if (!st.rfactor) continue;
      const scheduler::StageAnalysis& sa = a.find(f.func)->stages[st.stage];
      st = scheduler::make_gpu_stage(sa, scheduler::heuristic_gpu_tiling(sa), true);
    }
  }
  ASSERT_EQ(space.validate(serial).value_or(""), "");
  const std::vector<float> w = extract_features(a, serial);
  EXPECT_EQ(feature(w, "pipeline.rfactor_stages"), 0.f);
  EXPECT_NE(v, w);
}

}  // namespace
}  // namespace ktune::cost_model
