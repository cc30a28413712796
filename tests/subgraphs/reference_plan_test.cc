// The reference of a pipeline is computed where the trivial schedule cannot be: a Func read
// over an unbounded region (a data-dependent index clamped on one side) is inlined, a huge
// intermediate read sparsely is inlined, a buffer too large is computed tile by tile, and
// large_buffers is the last resort. Each plan gives what the trivial schedule gives.
#include "subgraphs/reference_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "subgraphs/check.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/pipeline_subgraph.h"
#include "targets/host_target.h"

namespace ktune::subgraphs {
namespace {

using Halide::Func;
using Halide::Var;
using ::testing::HasSubstr;

const Var x("x"), y("y"), z("z");

// out(x, y) = stack(x, y, level(x, y)), level = max(int(depth * 4), 0): no upper bound.
Halide::Pipeline one_sided_gather(bool stack_has_update) {
  Halide::ImageParam in(Halide::Float(32), 2, "in"), depth(Halide::Float(32), 2, "depth");
  Func stack("stack"), level("level"), out("out");
  stack(x, y, z) = Halide::select(z <= 0, in(x, y), z == 1, in(x, y) * 2.0f, in(x, y) * 3.0f);
  if (stack_has_update) stack(x, y, z) += 1.0f;
  level(x, y) = Halide::max(Halide::cast<int>(depth(x, y) * 4.0f), 0);
  out(x, y) = stack(x, y, level(x, y));
  out.set_estimate(x, 0, 64).set_estimate(y, 0, 32);
  return Halide::Pipeline(out);
}

const StageInfo* find_stage(const Subgraph& sg, const std::string& func) {
  for (const StageInfo& s : sg.stages()) {
    if (s.func == func) return &s;
  }
  return nullptr;
}

ReferencePlan plan_of(const Subgraph& sg, const BuiltPipeline& built, const ReferenceLimits& limits = {}) {
  return plan_reference(built, sg.outputs(), known_values(built, sg.inputs(), sg.outputs(), sg.scalars()), limits);
}

TEST(ReferencePlan, AOneSidedClampGivesAKeyAndAnInlinedStack) {
  const PipelineSubgraph sg("gather", [] { return one_sided_gather(false); }, "test", "");
  EXPECT_EQ(sg.key().key.size(), 32u);
  const StageInfo* stack = find_stage(sg, "stack");
  ASSERT_NE(stack, nullptr);
  ASSERT_EQ(stack->pure_loops.size(), 3u);
  EXPECT_EQ(stack->pure_loops[0].extent, 64);
  EXPECT_EQ(stack->pure_loops[2].extent, -1);  // z: unbounded above
  EXPECT_EQ(plan_of(sg, sg.build()).describe(), "inlined stack");
  const CheckResult r = check_subgraph(sg, 1);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
  EXPECT_EQ(r.plan, "inlined stack");
}

TEST(ReferencePlan, AnUnboundedFuncWithAnUpdateIsNamedWithItsDimension) {
  const PipelineSubgraph sg("gather", [] { return one_sided_gather(true); }, "test", "");
  const CheckResult r = check_subgraph(sg, 1);
  EXPECT_FALSE(r.passed());
  EXPECT_THAT(r.error, HasSubstr("Func \"stack\" is read over an unbounded region in dimension 2 (z)"));
}

TEST(ReferencePlan, AClampInAProducerBoundsTheRegionItIndexes) {
  const PipelineSubgraph sg(
      "lut",
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Func lut("lut"), index("index"), out("out");
        lut(x) = Halide::cast<float>(x) * 0.5f;
        index(x, y) = Halide::clamp(Halide::cast<int>(in(x, y) * 100.0f), 0, 9);
        out(x, y) = lut(index(x, y));
        out.set_estimate(x, 0, 16).set_estimate(y, 0, 8);
        return Halide::Pipeline(out);
      },
      "test", "");
  const StageInfo* lut = find_stage(sg, "lut");
  ASSERT_NE(lut, nullptr);
  EXPECT_EQ(lut->pure_loops[0].extent, 10);  // Halide's bounds of index's values: [0, 9]
}

TEST(ReferencePlan, AnInputReadAtAnUnboundedIndexIsSizedByItsEstimate) {
  const PipelineSubgraph sg(
      "shifted",
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in"), shift(Halide::Float(32), 2, "shift");
        in.dim(0).set_estimate(0, 100).dim(1).set_estimate(0, 20);
        Func out("out");
        out(x, y) = in(x + Halide::max(Halide::cast<int>(shift(x, y) * 8.0f), 0), y);
        out.set_estimate(x, 0, 64).set_estimate(y, 0, 20);
        return Halide::Pipeline(out);
      },
      "test", "");
  ASSERT_EQ(sg.inputs().size(), 2u);
  for (const TensorInfo& t : sg.inputs()) {
    // in's x is unbounded above, so its estimate; shift is read where the output is.
    EXPECT_EQ(t.shape, t.name == "in" ? (Shape{20, 100}) : (Shape{20, 64})) << t.name;
  }
  EXPECT_EQ(sg.key().key.size(), 32u);
}

// big(x, y, d) read at d = 0, 300000, 600000, 900000: its bounding box is 7 GB of f32.
Halide::Pipeline sparse_read_of_a_huge_func() {
  Halide::ImageParam in(Halide::Float(32), 2, "in");
  Func big("big"), out("out");
  Halide::RDom r(0, 4);
  big(x, y, z) = in(x, y) + Halide::cast<float>(z);
  out(x, y) = 0.0f;
  out(x, y) += big(x, y, r * 300000);
  out.set_estimate(x, 0, 64).set_estimate(y, 0, 32);
  return Halide::Pipeline(out);
}

TEST(ReferencePlan, AHugeFuncReadSparselyIsInlined) {
  const PipelineSubgraph sg("sparse", sparse_read_of_a_huge_func, "test", "");
  EXPECT_EQ(plan_of(sg, sg.build()).describe(), "inlined big");
  const CheckResult r = check_subgraph(sg, 1);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
}

// A separable blur of 64 x 48: blur_x is read twice per point, so it stays at root.
Halide::Pipeline separable_blur() {
  Halide::ImageParam in(Halide::Float(32), 2, "in");
  Func blur_x("blur_x"), out("out");
  blur_x(x, y) = in(x - 1, y) + in(x + 1, y);
  out(x, y) = blur_x(x, y - 1) + blur_x(x, y + 1);
  out.set_estimate(x, 0, 64).set_estimate(y, 0, 48);
  return Halide::Pipeline(out);
}

TEST(ReferencePlan, ABufferTooLargeIsComputedInTilesThatGiveTheSameResult) {
  const PipelineSubgraph sg("blur", separable_blur, "test", "");
  const BuiltPipeline built = sg.build();
  // At most 12 rows of blur_x: tiles of 6 rows need 8 (48 -> 24 -> 12 -> 6).
  const ReferencePlan plan = plan_of(sg, built, {64 * 12 * 4, 1e9});
  EXPECT_EQ(plan.tile, (std::vector<int64_t>{64, 6}));
  EXPECT_FALSE(plan.large_buffers);
  EXPECT_DOUBLE_EQ(plan.peak_bytes, 64 * 8 * 4);
  apply_reference_schedule(built, plan);
  const std::vector<Tensor> inputs = sg.make_inputs(3);
  const std::vector<Tensor> tiled = run_reference_plan(built, plan, inputs, sg.inputs(), sg.outputs(),
                                                       Halide::Target(targets::jit_halide_target()));
  const std::vector<Tensor> whole = sg.reference(inputs);
  ASSERT_EQ(tiled.size(), 1u);
  EXPECT_EQ(tiled[0].bytes, whole[0].bytes);
}

TEST(ReferencePlan, WhenNoTileFitsLargeBuffersRunsItWhole) {
  const PipelineSubgraph sg(
      "table",
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Func table("table"), out("out");
        table(x) = Halide::sqrt(Halide::cast<float>(x));
        out(x, y) = table(Halide::clamp(Halide::cast<int>(in(x, y) * 1000.0f), 0, 999)) +
                    table(Halide::clamp(Halide::cast<int>(in(x, y) * 500.0f), 0, 999));
        out.set_estimate(x, 0, 32).set_estimate(y, 0, 16);
        return Halide::Pipeline(out);
      },
      "test", "");
  // The table's 1000 entries are needed by every tile.
  const ReferencePlan plan = plan_of(sg, sg.build(), {1000, 1e9});
  EXPECT_TRUE(plan.tile.empty());
  EXPECT_TRUE(plan.large_buffers);
  EXPECT_EQ(plan.describe(), "large_buffers");
}

TEST(ReferencePlan, APipelineThatFitsKeepsTheTrivialSchedule) {
  const PipelineSubgraph sg("blur", separable_blur, "test", "");
  const ReferencePlan plan = plan_of(sg, sg.build());
  EXPECT_EQ(plan.describe(), "trivial");
  EXPECT_DOUBLE_EQ(plan.peak_bytes, 64 * 50 * 4);
}

std::unique_ptr<GeneratorSubgraph> load(const std::string& name) {
  return load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":" + name, {});
}

// What the trivial schedule says when it runs `sg` on seeded inputs ("" when it runs).
std::string trivial_schedule_error(const Subgraph& sg) {
  const BuiltPipeline built = sg.build();
  apply_trivial_schedule(built);
  try {
    run_pipeline(built, sg.make_inputs(1), sg.inputs(), sg.outputs(), Halide::Target(targets::jit_halide_target()));
  } catch (const Halide::Error& e) {
    return e.what();
  }
  return "";
}

TEST(ReferencePlan, PatchSearchWhoseTrivialScheduleNeedsOver2GBChecks) {
  const auto sg = load("ktune_patch_search");
  EXPECT_THAT(trivial_schedule_error(*sg), HasSubstr("exceeds the maximum size of 2147483647"));
  const CheckResult r = check_subgraph(*sg, 1);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
  EXPECT_EQ(r.plan, "inlined diff");  // the 4-D difference over every offset, 2.5 GB
}

TEST(ReferencePlan, DepthBlurWithAOneSidedClampHasAKeyAndChecks) {
  const auto sg = load("ktune_depth_blur");
  EXPECT_THAT(trivial_schedule_error(*sg), HasSubstr("in an unbounded way in dimension 2"));
  EXPECT_EQ(sg->key().key.size(), 32u);
  const StageInfo* stack = find_stage(*sg, "stack");
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack->pure_loops.back().extent, -1);
  const CheckResult r = check_subgraph(*sg, 1);
  EXPECT_TRUE(r.passed()) << r.error << r.comparison.describe();
  EXPECT_EQ(r.plan, "inlined stack");
}

}  // namespace
}  // namespace ktune::subgraphs
