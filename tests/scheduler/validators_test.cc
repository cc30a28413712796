// Each validator rejects what it is for, with a reason, before Halide sees the schedule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "subgraphs/pipeline_subgraph.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ValidatorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sg_ = testing::suite_subgraph("gemm_1024");
    space_ = std::make_unique<Space>(analyze(*sg_, testing::test_target()));
  }
  // The naive schedule with C_acc's update stage replaced by `st`.
  Schedule with_update(const StageSchedule& st) const {
    Schedule s = space_->naive();
    s.find("C_acc")->stages = {st};
    return s;
  }
  // The naive schedule with output C's stage replaced by `st`.
  Schedule with_output_stage(const StageSchedule& st) const {
    Schedule s = space_->naive();
    s.find("C")->stages = {st};
    return s;
  }
  std::string reason(const Schedule& s) const { return space_->validate(s).value_or(""); }

  std::unique_ptr<subgraphs::SpecSubgraph> sg_;
  std::unique_ptr<Space> space_;
};

TEST_F(ValidatorsTest, NaiveAndHeuristicAreValid) {
  EXPECT_EQ(reason(space_->naive()), "");
  EXPECT_EQ(reason(space_->heuristic()), "");
}

TEST_F(ValidatorsTest, ParallelReductionLoopIsARaceRejectedBeforeHalide) {
  StageSchedule st;
  st.stage = 1;
  st.order = {"x", "y", "k$x"};  // k outermost
  st.parallel = {"k$x"};
  const Schedule s = with_update(st);
  EXPECT_THAT(reason(s), AllOf(StartsWith("dependence:"), HasSubstr("carries a dependence")));
  // Halide itself would only refuse it inside the scheduling call (or not at all for
  // schedules that race silently); the validator answers first.
  StageSchedule ok = st;
  ok.order = {"k$x", "x", "y"};
  ok.parallel = {"y"};
  EXPECT_EQ(reason(with_update(ok)), "");
}

TEST_F(ValidatorsTest, VectorizingTheReductionIsRejected) {
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"k$x", "k_x_o", "k_x_i", 8}};
  st.vectorize = "k_x_i";
  EXPECT_THAT(reason(with_update(st)), StartsWith("dependence:"));
}

TEST_F(ValidatorsTest, StructureErrors) {
  Schedule s = space_->naive();
  s.funcs.pop_back();
  EXPECT_THAT(reason(s), StartsWith("structure: schedules 1 Funcs"));
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"q", "q_o", "q_i", 4}};
  EXPECT_THAT(reason(with_update(st)), HasSubstr("split of unknown loop \"q\""));
  st.splits = {{"x", "x_o", "x_i", 2048}};
  EXPECT_THAT(reason(with_update(st)), HasSubstr("split factor 2048 exceeds the extent 1024"));
  st.splits = {{"x", "x_o", "x_i", 16}};
  st.order = {"x_i", "y"};
  EXPECT_THAT(reason(with_update(st)), HasSubstr("order lists 2 loops, the stage has 4"));
  st.order = {"x_o", "x_i", "k$x", "y"};
  st.vectorize = "x_i";
  EXPECT_THAT(reason(with_update(st)), HasSubstr("must be innermost"));
  st.order = {"x_i", "k$x", "x_o", "y"};
  st.parallel = {"x_o"};
  EXPECT_THAT(reason(with_update(st)), HasSubstr("parallel loops must be the outermost loops"));
}

TEST_F(ValidatorsTest, InnerPieceOfASplitIsNotSplitAgain) {
  // Halide 14 miscompiles this (wrong results once the piece is vectorized inside a
  // producer computed at a small tile), so the structure validator refuses it.
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"x", "x_o", "x_t", 64}, {"x_t", "x_m", "x_i", 8}};
  EXPECT_THAT(reason(with_update(st)), HasSubstr("\"x_t\" is the inner piece of an earlier split"));
  st.splits = {{"x", "x_t", "x_i", 8}, {"x_t", "x_o", "x_m", 8}};
  EXPECT_EQ(reason(with_update(st)), "");
}

TEST_F(ValidatorsTest, AnInnerPieceWithoutAGuardSplitsIntoWholeScalarParts) {
  // A strip's rows walked in pairs: the pieces of a shifted split cut evenly, no vector.
  StageSchedule st;
  st.stage = 0;
  st.splits = {{"y", "y_o", "y_t", 64, Tail::kShiftInwards}, {"y_t", "y_i", "y_p", 2, Tail::kShiftInwards}};
  EXPECT_EQ(reason(with_output_stage(st)), "");
  st.splits[1].factor = 3;  // 64 rows do not make whole triples
  EXPECT_THAT(reason(with_output_stage(st)), HasSubstr("\"y_t\" is the inner piece of an earlier split"));
  st.splits[1].factor = 2;
  st.splits[0].tail = Tail::kGuard;  // the guard Halide 14 loses
  EXPECT_THAT(reason(with_output_stage(st)), HasSubstr("\"y_t\" is the inner piece of an earlier split"));
  st.splits[0].tail = Tail::kShiftInwards;
  st.order = {"y_p", "x", "y_i", "y_o"};
  st.vectorize = "y_p";  // a vector of the piece, innermost
  EXPECT_THAT(reason(with_output_stage(st)), HasSubstr("\"y_t\" is the inner piece of an earlier split"));
}

TEST_F(ValidatorsTest, ReductionPiecesKeepTheirOrder) {
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"k$x", "k_x_o", "k_x_i", 8}};
  st.order = {"k_x_o", "k_x_i", "x", "y"};
  EXPECT_THAT(reason(with_update(st)), HasSubstr("outer reduction piece is inside its inner piece"));
}

TEST_F(ValidatorsTest, ComputeLocations) {
  Schedule s = space_->naive();
  s.find("C")->compute.kind = ComputeLocation::Kind::kInline;
  EXPECT_THAT(reason(s), HasSubstr("an output must be computed at root"));
  s = space_->naive();
  s.find("C_acc")->compute.kind = ComputeLocation::Kind::kInline;
  EXPECT_THAT(reason(s), HasSubstr("with an update definition cannot be inlined"));
  s = space_->naive();
  s.find("C_acc")->compute = {ComputeLocation::Kind::kAt, "C", 0, "nowhere"};
  EXPECT_THAT(reason(s), HasSubstr("computed at loop \"nowhere\""));
  s.find("C_acc")->compute.loop = "y";
  EXPECT_EQ(reason(s), "");
}

TEST_F(ValidatorsTest, VectorWidthBeyondTheDataIsRejected) {
  StageSchedule st;
  st.stage = 0;
  st.vectorize = "x";  // 1024 lanes
  Schedule s = space_->naive();
  s.find("C")->stages = {st};
  EXPECT_THAT(reason(s), AllOf(StartsWith("vector_width:"), HasSubstr("outside [2, 64]")));
  // A narrow tensor: vectorizing 8 lanes of a 3-wide axis would only fail at run time.
  const auto narrow = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [5, 3]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "b"}], "outputs": ["b"]})");
  Space ns(analyze(*narrow, testing::test_target()));
  Schedule t = ns.naive();
  StageSchedule bad;
  bad.splits = {{"x", "x_o", "x_i", 8}};
  bad.vectorize = "x_i";
  t.funcs[0].stages = {bad};
  EXPECT_THAT(ns.validate(t).value_or(""), HasSubstr("exceeds the extent 3"));
}

TEST_F(ValidatorsTest, RFactorOnlyOnAssociativeReductionLoops) {
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"k$x", "k_x_o", "k_x_i", 8}};
  st.rfactor = RFactor{"x", false};
  EXPECT_THAT(reason(with_update(st)), HasSubstr("is not a reduction loop"));
  st.rfactor = RFactor{"k_x_o", false};
  EXPECT_EQ(reason(with_update(st)), "");
  Schedule s = space_->naive();
  StageSchedule pure;
  pure.splits = {{"x", "x_o", "x_i", 8}};
  pure.rfactor = RFactor{"x_o", false};
  s.find("C")->stages = {pure};
  EXPECT_THAT(reason(s), HasSubstr("rfactor needs an associative reduction"));
}

// The reduction loops of an associative update may be reordered (a convolution's input
// channels outside its window, as oneDNN orders them); those of any other update may not.
TEST_F(ValidatorsTest, OnlyAnAssociativeUpdateReordersItsReductionLoops) {
  const auto conv = testing::suite_subgraph("conv3x3_relu");
  const Space space(analyze(*conv, testing::test_target()));
  Schedule s = space.naive();
  StageSchedule update;
  update.stage = 1;
  update.order = {"x", "y", "r$z", "r$y", "r$x", "c", "n"};  // the window inside the channels
  s.find("conv_acc")->stages = {update};
  EXPECT_EQ(space.validate(s).value_or(""), "");
  const ApplyResult applied = apply(s, *conv, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_FALSE(lower(applied, testing::test_target().halide_target)) << "Halide reorders them too";

  // f(y) = f(y) * 0.5 + in(r.x, r.y, y) is not associative: its order is the algorithm's.
  const subgraphs::PipelineSubgraph decay(
      "decay2d",
      [] {
        Halide::ImageParam in(Halide::Float(32), 3, "in");
        Halide::Func f("decay2d");
        Halide::Var y("y");
        Halide::RDom r(0, 8, 0, 8, "r");
        f(y) = 0.0f;
        f(y) = f(y) * 0.5f + in(r.x, r.y, y);
        f.set_estimate(y, 0, 16);
        in.dim(0).set_estimate(0, 8);
        in.dim(1).set_estimate(0, 8);
        in.dim(2).set_estimate(0, 16);
        return Halide::Pipeline(f);
      },
      "test", "pipeline decay2d");
  const Space ds(analyze(decay, testing::test_target()));
  Schedule d = ds.naive();
  StageSchedule swapped;
  swapped.stage = 1;
  swapped.order = {"r$y", "r$x", "y"};
  d.find("decay2d")->stages = {swapped};
  EXPECT_THAT(ds.validate(d).value_or(""), HasSubstr("reduction loops are reordered relative to each other"));
}

// Halide computes an rfactor's intermediate at root: a producer it reads computed inside a
// consumer's loop is out of its reach (a sampled conv3x3_relu schedule Halide rejected).
TEST_F(ValidatorsTest, WhatAnRFactoredReductionReadsIsComputedAtRootOrInlined) {
  const auto conv = testing::suite_subgraph("conv3x3_relu");
  const Space space(analyze(*conv, testing::test_target()));
  const char* sampled = R"({"funcs":[
    {"compute":{"consumer":"y","consumer_stage":0,"kind":"at","loop":"y_o"},"func":"conv_pad",
     "stages":[{"order":["x","y","c","n"],"stage":0}]},
    {"compute":{"consumer":"y","consumer_stage":0,"kind":"at","loop":"y_i"},"func":"conv_acc",
     "stages":[{"order":["x","y","c","n"],"stage":0},{"rfactor":{"loop":"r_x_i","vectorize_u":true},
       "splits":[{"factor":16,"inner":"r_x_i","loop":"r$x","outer":"r_x_o"}],"stage":1}]},
    {"compute":{"kind":"inline"},"func":"conv"},{"compute":{"kind":"inline"},"func":"biased"},
    {"compute":{"kind":"root"},"func":"y","stages":[{"order":["x_i","y_i","x_o","y_o","c","n"],"parallel":["n"],
      "splits":[{"factor":8,"inner":"x_i","loop":"x","outer":"x_o"},{"factor":4,"inner":"y_i","loop":"y","outer":"y_o"}],
      "stage":0,"vectorize":"x_i"}]}]})";
  Schedule s = Schedule::from_json(nlohmann::json::parse(sampled), "test");
  EXPECT_THAT(space.validate(s).value_or(""), HasSubstr("\"conv_pad\", which it reads, must be computed at root"));
  s.find("conv_pad")->compute = ComputeLocation{};  // at root: Halide accepts it
  EXPECT_EQ(space.validate(s).value_or(""), "");
  const ApplyResult applied = apply(s, *conv, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_FALSE(lower(applied, testing::test_target().halide_target));
}

// rfactor's CPU placements: at_func only for a Func computed at a consumer's loop, with u
// vectorized, and then its producers may sit at that same loop; pure_vector only with u
// parallel, no wider than the Func's innermost pure loop.
TEST_F(ValidatorsTest, RFactorPlacementsNeedTheirConditions) {
  const auto sm = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [20, 48]}],
    "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})");
  const Space space(analyze(*sm, testing::test_target()));
  Schedule s = space.naive();
  const ComputeLocation at_row{ComputeLocation::Kind::kAt, "y", 0, "y"};
  StageSchedule update;
  update.stage = 1;
  update.splits = {{"k$x", "k_x_o", "k_x_i", 8}};
  update.rfactor = RFactor{"k_x_i", true};
  update.rfactor->at_func = true;
  s.find("y_sum")->stages = {update};
  EXPECT_THAT(space.validate(s).value_or(""), HasSubstr("rfactor.at_func needs the Func computed at a consumer's loop"));
  s.find("y_sum")->compute = at_row;
  s.find("y_exp")->compute = at_row;
  EXPECT_EQ(space.validate(s).value_or(""), "") << "y_exp at the Func's own loop is visible to the intermediate";
  update.rfactor->at_func = false;
  s.find("y_sum")->stages = {update};
  EXPECT_THAT(space.validate(s).value_or(""), HasSubstr("\"y_exp\", which it reads, must be computed at root"));
  update.rfactor->at_func = true;
  update.rfactor->vectorize_u = false;
  s.find("y_sum")->stages = {update};
  EXPECT_THAT(space.validate(s).value_or(""), HasSubstr("rfactor.at_func needs vectorize_u"));

  Schedule g = space_->naive();
  StageSchedule rows;
  rows.stage = 1;
  rows.splits = {{"k$x", "k_x_o", "k_x_i", 8}};
  rows.rfactor = RFactor{"k_x_o", false};
  rows.rfactor->pure_vector = 8;
  g.find("C_acc")->stages = {rows};
  EXPECT_EQ(reason(g), "");
  rows.rfactor->pure_vector = 4096;
  g.find("C_acc")->stages = {rows};
  EXPECT_THAT(reason(g), HasSubstr("rfactor.pure_vector 4096 is wider than \"x\" (1024)"));
  rows.rfactor->pure_vector = 8;
  rows.rfactor->vectorize_u = true;
  g.find("C_acc")->stages = {rows};
  EXPECT_THAT(reason(g), HasSubstr("rfactor.pure_vector needs u parallel"));
}

// vector_reduce: a reduction piece of 2 or 4, innermost, inside the vectorized pure loop
// of an associative update, without an rfactor.
TEST_F(ValidatorsTest, VectorReduceOnlyWhereHalideMakesDotProducts) {
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"x", "x_o", "x_i", 16}, {"k$x", "k_x_vo", "k_x_vr", 4}};
  st.order = {"k_x_vr", "x_i", "k_x_vo", "x_o", "y"};
  st.vectorize = "x_i";
  st.vector_reduce = "k_x_vr";
  EXPECT_EQ(reason(with_update(st)), "");
  StageSchedule wide = st;
  wide.splits[1].factor = 8;
  EXPECT_THAT(reason(with_update(wide)), HasSubstr("vector_reduce \"k_x_vr\" has 8 iterations (2 or 4)"));
  StageSchedule outside = st;
  outside.order = {"x_i", "k_x_vr", "k_x_vo", "x_o", "y"};
  EXPECT_THAT(reason(with_update(outside)), HasSubstr("is not the innermost loop"));
  StageSchedule unvectorized = st;
  unvectorized.vectorize.clear();
  EXPECT_THAT(reason(with_update(unvectorized)), HasSubstr("needs the stage's vectorized pure loop right outside it"));
  StageSchedule outer_piece = st;
  outer_piece.vector_reduce = "k_x_vo";
  EXPECT_THAT(reason(with_update(outer_piece)), HasSubstr("the vectorized loop \"x_i\" must be innermost"));
  StageSchedule factored = st;
  factored.rfactor = RFactor{"k_x_vo", false};
  EXPECT_THAT(reason(with_update(factored)), HasSubstr("rfactor"));
  Schedule on_init = space_->naive();
  StageSchedule init;
  init.stage = 0;
  init.vector_reduce = "x";
  on_init.find("C_acc")->stages = {init};
  EXPECT_THAT(reason(on_init), HasSubstr("on a pure definition"));
}

TEST_F(ValidatorsTest, PacksNameAnInputPermuteItAndSitWhereItsHostAllows) {
  Schedule s = space_->naive();
  InputPack pack;
  pack.input = "B";
  pack.storage = {"y", "x"};
  pack.parallel = true;
  pack.vector_width = 8;
  s.packs = {pack};
  EXPECT_EQ(reason(s), "");
  s.packs[0].input = "D";
  EXPECT_THAT(reason(s), HasSubstr("pack of \"D\": the pipeline has no such input"));
  s.packs[0] = pack;
  s.packs[0].storage = {"y", "y"};
  EXPECT_THAT(reason(s), HasSubstr("pack of B: storage must list each of the input's 2 dimensions once"));
  s.packs[0] = pack;
  s.packs[0].compute = {ComputeLocation::Kind::kAt, "C", 0, "y"};
  EXPECT_THAT(reason(s), HasSubstr("pack of B: it cannot be computed at C.y")) << "C_acc, which reads B, is at root";
  s.packs[0] = pack;
  s.packs[0].vector_width = 128;  // y has 1024 keys, the widest vector here is 64 lanes
  EXPECT_THAT(reason(s), HasSubstr("vector_width 128 is wider than \"y\" (1024) or the target's widest vector"));
  s.packs[0] = pack;
  s.packs[0].compute = {ComputeLocation::Kind::kAt, "C_acc", 1, "k$x"};
  EXPECT_THAT(reason(s), HasSubstr("only a pack at root runs in parallel"));
  s.packs[0].parallel = false;
  EXPECT_EQ(reason(s), "");
  s.packs[0].storage = {"x", "y"};  // B's own order: a copy per loop only
  EXPECT_EQ(reason(s), "");
  s.packs[0].compute = ComputeLocation{};
  EXPECT_THAT(reason(s), HasSubstr("pack of B: a copy in the input's own order is made per loop of its host, not at root"));
  s.packs = {pack, pack};
  EXPECT_THAT(reason(s), HasSubstr("input \"B\" is packed twice"));

  // A pack made inside a loop of C_acc is out of reach of an rfactor intermediate at root.
  s.packs = {pack};
  s.packs[0].compute = {ComputeLocation::Kind::kAt, "C_acc", 1, "y"};
  s.packs[0].parallel = false;
  StageSchedule split;
  split.stage = 1;
  split.splits = {{"k$x", "k_x_o", "k_x_i", 8}};
  split.rfactor = RFactor{"k_x_o", false};
  s.find("C_acc")->stages = {split};
  EXPECT_THAT(reason(s), HasSubstr("\"the pack of B\", which it reads, must be computed at root"));
}

TEST_F(ValidatorsTest, AStorageOrderPermutesTheBufferOfAStoredFuncThatIsNotAnOutput) {
  Schedule s = space_->naive();  // C_acc and C at root
  s.find("C_acc")->storage = {"y", "x"};
  EXPECT_EQ(reason(s), "");
  s.find("C_acc")->storage = {"y"};
  EXPECT_THAT(reason(s), HasSubstr("C_acc storage: must list each of the Func's 2 pure variables once"));
  s.find("C_acc")->storage = {"y", "k$x"};
  EXPECT_THAT(reason(s), HasSubstr("C_acc storage: must list each of the Func's 2 pure variables once"));
  s.find("C_acc")->storage.clear();
  s.find("C")->storage = {"y", "x"};
  EXPECT_THAT(reason(s), HasSubstr("C storage: an output is stored as its caller's buffer is laid out"));
}

TEST(Validators, AnInlinedFuncHasNoStorageOrder) {
  const auto sg = testing::spec_subgraph(testing::kTwoPointwiseSpec);
  const Space space(analyze(*sg, testing::test_target()));
  Schedule s = space.naive();
  s.find("r")->storage = {"y", "x"};
  EXPECT_EQ(space.validate(s).value_or(""), "") << "r at root";
  s.find("r")->compute = ComputeLocation{ComputeLocation::Kind::kInline, "", 0, ""};
  s.find("r")->stages.clear();
  EXPECT_THAT(space.validate(s).value_or(""), HasSubstr("r storage: an inlined Func has no buffer to order"));
}

TEST_F(ValidatorsTest, APackNeedsAReaderAndAnRFactoredStageOneParallelLoop) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [4, 8, 16]}, {"name": "unused", "shape": [4, 4]}],
    "ops": [{"op": "reduce_sum", "inputs": ["a"], "output": "cols", "axes": [0]}], "outputs": ["cols"]})");
  const Space space(analyze(*sg, testing::test_target()));
  Schedule s = space.naive();
  InputPack pack;
  pack.input = "unused";
  pack.storage = {"y", "x"};
  s.packs = {pack};
  EXPECT_THAT(space.validate(s).value_or(""), HasSubstr("pack of unused: no Func reads the input"));
  s.packs.clear();
  StageSchedule update;
  update.stage = 1;
  update.splits = {{"r$x", "r_x_o", "r_x_i", 2}};
  update.rfactor = RFactor{"r_x_o", false};
  update.parallel = {"y"};
  s.find("cols_acc")->stages = {update};
  EXPECT_EQ(space.validate(s).value_or(""), "");
  update.parallel = {"y", "x"};  // apply() parallelizes one loop of what remains after rfactor
  s.find("cols_acc")->stages = {update};
  EXPECT_THAT(space.validate(s).value_or(""), HasSubstr("after rfactor, one pure loop at most runs in parallel"));
}

TEST_F(ValidatorsTest, ARootRFactorIntermediateStaysUnderAGibibyte) {
  // A 1000 x 1000 sum over 1000 rows: rfactor by 2-row pieces keeps 500 partial sums of the
  // whole output (2 GB), by 128-row pieces 8 of them (32 MB).
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [1000, 1000, 1000]}],
    "ops": [{"op": "reduce_sum", "inputs": ["a"], "output": "cols", "axes": [0]}], "outputs": ["cols"]})");
  const Space space(analyze(*sg, testing::test_target()));
  Schedule s = space.naive();
  StageSchedule update;
  update.stage = 1;
  update.splits = {{"r$x", "r_x_o", "r_x_i", 2}};
  update.rfactor = RFactor{"r_x_o", false};
  s.find("cols_acc")->stages = {update};
  EXPECT_THAT(space.validate(s).value_or(""), HasSubstr("needs a root intermediate over 1 GiB"));
  update.splits = {{"r$x", "r_x_o", "r_x_i", 128}};
  s.find("cols_acc")->stages = {update};
  EXPECT_EQ(space.validate(s).value_or(""), "");
}

TEST_F(ValidatorsTest, UnrollAndTarget) {
  StageSchedule st;
  st.stage = 1;
  st.splits = {{"x", "x_o", "x_i", 64}};
  st.unroll = {"x_i"};
  EXPECT_THAT(reason(with_update(st)), StartsWith("unroll:"));
  StageSchedule g;
  g.stage = 1;
  g.gpu.blocks = {"y"};
  EXPECT_THAT(reason(with_update(g)), StartsWith("target: "));
}

TEST_F(ValidatorsTest, CountsRejectionsPerValidator) {
  ValidationCounts counts;
  space_->validate(space_->naive(), &counts);
  StageSchedule st;
  st.stage = 1;
  st.vectorize = "x";
  st.order = {"x", "k$x", "y"};
  space_->validate(with_update(st), &counts);
  EXPECT_EQ(counts.checked, 2);
  EXPECT_EQ(counts.rejected.size(), 1u);
  EXPECT_EQ(counts.rejected.begin()->second, 1);
}

}  // namespace
}  // namespace ktune::scheduler
