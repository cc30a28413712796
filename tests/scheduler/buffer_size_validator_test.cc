// A Func whose region is beyond Halide's 2 GB buffer limit is never computed at root, and one
// whose region has no bound is only inlined: the schedule is refused with the Func and why
// before Halide refuses it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "subgraphs/built_pipeline.h"
#include "subgraphs/pipeline_subgraph.h"
#include "scheduler/rng.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// big(x, y, z) read at z = 0, 300000, 600000, 900000: its region is 64 x 32 x 900001 f32 (7.4 GB).
subgraphs::PipelineSubgraph sparse_read() {
  return subgraphs::PipelineSubgraph(
      "sparse",
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        Halide::Func big("big"), out("out");
        Halide::Var x("x"), y("y"), z("z");
        Halide::RDom r(0, 4);
        big(x, y, z) = in(x, y) + Halide::cast<float>(z);
        out(x, y) = 0.0f;
        out(x, y) += big(x, y, r * 300000);
        out.set_estimate(x, 0, 64).set_estimate(y, 0, 32);
        return Halide::Pipeline(out);
      },
      "test", "");
}

TEST(BufferSizeValidator, AHugeRegionAtRootIsRefusedAndInlinedItPasses) {
  const subgraphs::PipelineSubgraph sg = sparse_read();
  const Space space(analyze(sg, testing::test_target()));
  Schedule s = space.naive();
  EXPECT_THAT(space.validate(s).value_or(""),
              AllOf(StartsWith("buffer_size: big: computed at root it needs a buffer of 7.37 GB"),
                    HasSubstr("inline it or compute it at a loop of its consumer")));
  s.find("big")->compute.kind = ComputeLocation::Kind::kInline;
  s.find("big")->stages.clear();
  EXPECT_EQ(space.validate(s).value_or(""), "");
  // Read by a reduction, big would be computed at root; the heuristic inlines it instead.
  const Schedule heuristic = space.heuristic();
  EXPECT_EQ(heuristic.find("big")->compute.kind, ComputeLocation::Kind::kInline);
  EXPECT_EQ(space.validate(heuristic).value_or(""), "");
}

// stack read at level(x, y) = max(int(depth * 4), 0), which has no upper bound.
subgraphs::PipelineSubgraph one_sided_gather() {
  return subgraphs::PipelineSubgraph(
      "gather",
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in"), depth(Halide::Float(32), 2, "depth");
        Halide::Func stack("stack"), level("level"), sharp("sharp"), out("out");
        Halide::Var x("x"), y("y"), z("z");
        stack(x, y, z) = Halide::select(z <= 0, in(x, y), in(x, y) * 2.0f);
        level(x, y) = Halide::max(Halide::cast<int>(depth(x, y) * 4.0f), 0);
        // Read by two Funcs (a blend of two levels): the heuristic would store it, but cannot.
        sharp(x, y) = stack(x, y, level(x, y));
        out(x, y) = sharp(x, y) + 0.5f * stack(x, y, level(x, y) + 1);
        out.set_estimate(x, 0, 64).set_estimate(y, 0, 32);
        return Halide::Pipeline(out);
      },
      "test", "");
}

TEST(BufferSizeValidator, AnUnboundedRegionIsOnlyInlined) {
  const subgraphs::PipelineSubgraph sg = one_sided_gather();
  const Space space(analyze(sg, testing::test_target()));
  const FuncAnalysis* stack = space.analysis().find("stack");
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(stack->unbounded_dims, (std::vector<bool>{false, false, true}));
  Schedule s = space.naive();
  EXPECT_THAT(space.validate(s).value_or(""), StartsWith("buffer_size: stack: its region along z has no bound"));
  s.find("sharp")->compute.kind = ComputeLocation::Kind::kInline;  // so that out hosts every read
  s.find("sharp")->stages.clear();
  s.find("stack")->compute = {ComputeLocation::Kind::kAt, "out", 0, "y"};
  EXPECT_THAT(space.validate(s).value_or(""), StartsWith("buffer_size: stack:"));
  s.find("stack")->compute.kind = ComputeLocation::Kind::kInline;
  s.find("stack")->stages.clear();
  EXPECT_EQ(space.validate(s).value_or(""), "");
  const Schedule heuristic = space.heuristic();
  EXPECT_EQ(heuristic.find("stack")->compute.kind, ComputeLocation::Kind::kInline);
  EXPECT_EQ(space.validate(heuristic).value_or(""), "");
  Rng rng(7);
  for (int i = 0; i < 50; ++i) {
    const std::optional<Schedule> sample = space.sample(rng);
    ASSERT_TRUE(sample.has_value());
    EXPECT_EQ(sample->find("stack")->compute.kind, ComputeLocation::Kind::kInline);
  }
}

}  // namespace
}  // namespace ktune::scheduler
