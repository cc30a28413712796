// Inlined stencils multiply: the validator refuses a chain whose inlined body would take
// LLVM minutes, and accepts it once one stage of the chain is stored. A stage that gathers
// through an inlined boundary condition keeps to one native vector.
#include "scheduler/inline_cost.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "subgraphs/pipeline_subgraph.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// s1 .. s9: nine 3-tap stencils along one axis, then a pointwise output.
std::string stencil_chain_spec() {
  std::string ops;
  std::string prev = "in";
  for (int i = 1; i <= 9; ++i) {
    const std::string name = "s" + std::to_string(i);
    ops += R"({"op": "stencil", "inputs": [")" + prev + R"("], "output": ")" + name +
           R"(", "axes": [1], "weights": [1, 2, 1]},)";
    prev = name;
  }
  return R"({"name": "deep", "inputs": [{"name": "in", "shape": [8, 276]}], "ops": [)" + ops +
         R"({"op": "relu", "inputs": [")" + prev + R"("], "output": "out"}], "outputs": ["out"]})";
}

Schedule all_inlined(const Analysis& a) {
  Schedule s;
  for (const FuncAnalysis& fa : a.funcs) {
    FuncSchedule f;
    f.func = fa.name;
    f.compute.kind = fa.is_output ? ComputeLocation::Kind::kRoot : ComputeLocation::Kind::kInline;
    s.funcs.push_back(f);
  }
  return s;
}

TEST(InlineCost, DistinctAccessesOfInlinedFuncsMultiply) {
  const auto sg = testing::spec_subgraph(stencil_chain_spec());
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  Schedule s = all_inlined(a);
  const int out = a.index_of("out");
  const int64_t inlined = inlined_ops(a, s, out, 0);
  EXPECT_GT(inlined, 19683);  // 3^9 reads of the input, with their arithmetic
  EXPECT_TRUE(reads_a_stencil_of(a, a.index_of("s2"), 0, a.index_of("s1")));
  EXPECT_FALSE(reads_a_stencil_of(a, out, 0, a.index_of("s9")));
  EXPECT_THAT(space.validate(s).value_or(""), ::testing::StartsWith("inline_expansion: out: the Funcs it inlines make"));
  // Storing the middle of the chain cuts both halves to 3^5 and 3^4.
  s.find("s5")->compute.kind = ComputeLocation::Kind::kRoot;
  EXPECT_LT(inlined_ops(a, s, out, 0), kMaxInlinedOps);
  EXPECT_LT(inlined_ops(a, s, a.index_of("s5"), 0), kMaxInlinedOps);
  EXPECT_EQ(space.validate(s).value_or(""), "");
  EXPECT_EQ(space.validate(space.heuristic()).value_or(""), "");
}

// out(x, y) = a 4-tap downsampling of a mirror_interior boundary condition: the boundary's
// indices are not affine, so out gathers while the boundary is inlined into it.
std::unique_ptr<subgraphs::PipelineSubgraph> mirrored_downsample() {
  return std::make_unique<subgraphs::PipelineSubgraph>(
      "mirrored_downsample",
      [] {
        Halide::ImageParam in(Halide::Float(32), 2, "in");
        in.dim(0).set_estimate(0, 512);
        in.dim(1).set_estimate(0, 64);
        Halide::Func mirrored = Halide::BoundaryConditions::mirror_interior(in);
        Halide::Func out("out");
        Halide::Var x("x"), y("y");
        out(x, y) = mirrored(2 * x - 1, y) + 3.0f * (mirrored(2 * x, y) + mirrored(2 * x + 1, y)) + mirrored(2 * x + 2, y);
        out.set_estimate(x, 0, 256).set_estimate(y, 0, 64);
        return Halide::Pipeline(out);
      },
      "test", "pipeline mirrored_downsample");
}

// Vectorizes out's x by `width` lanes.
void vectorize_out(Schedule& s, int64_t width) {
  StageSchedule st;
  st.stage = 0;
  st.splits.push_back(LoopSplit{"x", "x_o", "x_i", width});
  st.order = {"x_i", "x_o", "y"};
  st.vectorize = "x_i";
  s.find("out")->stages = {st};
}

TEST(InlineCost, AStageGatheringThroughAnInlinedBoundaryKeepsToOneNativeVector) {
  const auto sg = mirrored_downsample();
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  const int out = a.index_of("out");
  ASSERT_GE(out, 0);
  const int lanes = a.funcs[out].stages[0].native_lanes(a.target);
  Schedule s = all_inlined(a);
  EXPECT_TRUE(gathers(a, s, out, 0));
  EXPECT_EQ(widest_vector(a, s, out, 0), lanes);
  vectorize_out(s, 4 * lanes);
  EXPECT_THAT(space.validate(s).value_or(""), ::testing::HasSubstr("one scalar load per lane"));
  vectorize_out(s, lanes);
  EXPECT_EQ(space.validate(s).value_or(""), "");
  // Stored, the boundary is read by out at affine indices again: four vectors are allowed.
  s.find(a.funcs[0].name)->compute.kind = ComputeLocation::Kind::kRoot;
  EXPECT_FALSE(gathers(a, s, out, 0));
  EXPECT_EQ(widest_vector(a, s, out, 0), a.funcs[out].stages[0].max_vector_width(a.target));
  vectorize_out(s, 4 * lanes);
  EXPECT_EQ(space.validate(s).value_or(""), "");
}

TEST(InlineCost, NarrowingLowersOnlyTheVectorsOfGatheringStages) {
  const auto sg = mirrored_downsample();
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  const int lanes = a.funcs[a.index_of("out")].stages[0].native_lanes(a.target);
  Schedule s = all_inlined(a);
  vectorize_out(s, 4 * lanes);
  narrow_gathering_vectors(a, s);
  EXPECT_EQ(s.find("out")->stages.at(0).splits.at(0).factor, lanes);
  EXPECT_EQ(space.validate(s).value_or(""), "");
  s.find(a.funcs[0].name)->compute.kind = ComputeLocation::Kind::kRoot;
  vectorize_out(s, 4 * lanes);
  narrow_gathering_vectors(a, s);
  EXPECT_EQ(s.find("out")->stages.at(0).splits.at(0).factor, 4 * lanes);
}

}  // namespace
}  // namespace ktune::scheduler
