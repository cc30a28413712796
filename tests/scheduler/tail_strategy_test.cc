// Tests scheduler/tail_strategy.cc: where a split may shift its last tile inwards or round
// its region up, what the heuristic chooses, and that both keep the answer exact.
#include "scheduler/tail_strategy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "common/child_process.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

using ::testing::HasSubstr;

// A 3x3 convolution over 20 columns: 8-lane vectors leave a tail of 4.
const char* kConv = R"({"name": "cv", "inputs": [{"name": "x", "shape": [1, 4, 6, 20]}, {"name": "w", "shape": [8, 4, 3, 3]}],
  "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "c", "padding": 1}, {"op": "relu", "inputs": ["c"], "output": "y"}],
  "outputs": ["y"]})";

// Two 3-tap stencils down the columns of a 40-wide image: b, then out.
const char* kTwoStencils = R"({"name": "chain", "inputs": [{"name": "in", "shape": [20, 40]}],
  "ops": [{"op": "stencil", "inputs": ["in"], "output": "b", "axes": [0], "weights": [1, 2, 1]},
          {"op": "stencil", "inputs": ["b"], "output": "out", "axes": [0], "weights": [1, 1, 1]}],
  "outputs": ["out"]})";

StageSchedule split_x(int stage, Tail tail) {
  StageSchedule st;
  st.stage = stage;
  st.splits = {{"x", "x_o", "x_i", 8, tail}};
  st.vectorize = "x_i";
  return st;
}

TEST(TailStrategy, WhereEachTailIsAllowed) {
  const auto sg = testing::spec_subgraph(kConv);
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  const Schedule s0 = space.naive();
  const FuncAnalysis& acc = *space.analysis().find("c_acc");
  const FuncAnalysis& out = *space.analysis().find("y");
  const FuncSchedule root{"y", {}, {}, {}};
  const FuncSchedule at{"c_acc", {ComputeLocation::Kind::kAt, "y", 0, "x_o"}, {}, {}};
  // shift_inwards: a root Func without updates only.
  StageSchedule st = split_x(0, Tail::kShiftInwards);
  EXPECT_EQ(tail_refusal(a, s0, out, root, st, st.splits[0]), std::nullopt);
  st = split_x(1, Tail::kShiftInwards);
  EXPECT_THAT(tail_refusal(a, s0, acc, at, st, st.splits[0]).value_or(""), HasSubstr("needs a Func without updates computed at root"));
  // round_up: never an output; an intermediate whose reads along the loop stay in bounds (the
  // accumulator reads the padding, which clamps, and the weights, not indexed by x).
  st = split_x(0, Tail::kRoundUp);
  EXPECT_THAT(tail_refusal(a, s0, out, root, st, st.splits[0]).value_or(""), HasSubstr("would write past the output"));
  st = split_x(1, Tail::kRoundUp);
  EXPECT_EQ(tail_refusal(a, s0, acc, at, st, st.splits[0]), std::nullopt);
  // The padding itself may grow: it reads the input only at clamped indices.
  const FuncAnalysis& pad = *space.analysis().find("c_pad");
  st = split_x(0, Tail::kRoundUp);
  EXPECT_EQ(tail_refusal(a, s0, pad, FuncSchedule{"c_pad", {}, {}, {}}, st, st.splits[0]), std::nullopt);
  // A Func that reads an input along the loop at unclamped indices may not (softmax's row
  // maximum reads x along its rows).
  const auto sm = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [6, 20]}],
    "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})");
  const Space sms(analyze(*sm, testing::test_target()));
  StageSchedule rows;
  rows.splits = {{"x", "x_o", "x_i", 4, Tail::kRoundUp}};
  EXPECT_THAT(tail_refusal(sms.analysis(), sms.naive(), *sms.analysis().find("y_max"), FuncSchedule{"y_max", {}, {}, {}}, rows,
                           rows.splits[0]).value_or(""),
              HasSubstr("would read input \"x\" past its bounds")) << "its update reads x along its rows";
  // Reduction loops keep Halide's guard.
  st.stage = 1;
  st.splits = {{"r$x", "r_o", "r_i", 2, Tail::kRoundUp}};
  st.vectorize.clear();
  EXPECT_THAT(tail_refusal(a, s0, acc, at, st, st.splits[0]).value_or(""), HasSubstr("is for pure loops only"));
  EXPECT_FALSE(splits_pure_loop(acc, st, st.splits[0]));
  // The structure validator refuses a tail its loop does not allow.
  Schedule s = space.naive();
  s.find("y")->stages = {split_x(0, Tail::kRoundUp)};
  EXPECT_THAT(space.validate(s).value_or(""), HasSubstr("structure: y stage 0: the round_up tail of \"x\""));
}

// A Func that reads an input clamped to the input's own bounds may compute past them:
// ktune_stencil_chain's repeat_edge clamps to `input.dim(0).min()` and its extent, which
// are the input's estimates, constants once simplified.
TEST(TailStrategy, AFuncClampedToItsInputsOwnBoundsMayRoundUp) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_stencil_chain",
                                                     {{"width", "128"}, {"height", "96"}});
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  const FuncAnalysis* edge = a.find("repeat_edge");
  ASSERT_NE(edge, nullptr);
  ASSERT_EQ(edge->stages[0].uses.size(), 1u);
  EXPECT_EQ(edge->stages[0].uses[0].clamped_dims, std::vector<bool>(2, true));
  StageSchedule st = split_x(0, Tail::kRoundUp);
  st.splits[0].loop = edge->args[0];
  const FuncSchedule at_root{edge->name, {}, {}, {}};
  EXPECT_EQ(tail_refusal(a, space.naive(), *edge, at_root, st, st.splits[0]), std::nullopt);
}

// A window of an image strip, computed per row of its reader, computes the row's whole
// width each time: its last vector may shift inwards, which keeps a guarded (scalarized)
// tail out of every stage of a long chain. A Func computed per tile of x may not: the tile
// can be narrower than the vector.
TEST(TailStrategy, AWindowPerRowShiftsItsLastVectorInwards) {
  const auto sg = testing::spec_subgraph(kTwoStencils);
  const Space space(analyze(*sg, testing::test_target()));
  StageSchedule strips;
  strips.splits = {{"x", "x_o", "x_i", 8, Tail::kShiftInwards}, {"y", "y_o", "y_i", 4, Tail::kShiftInwards}};
  strips.order = {"x_i", "x_o", "y_i", "y_o"};
  strips.parallel = {"y_o"};
  strips.vectorize = "x_i";
  Schedule s;
  s.funcs = {FuncSchedule{"b", {ComputeLocation::Kind::kAt, "out", 0, "y_i", "y_o"}, {split_x(0, Tail::kShiftInwards)}, {}},
             FuncSchedule{"out", {}, {strips}, {}}};
  const FuncAnalysis& b = *space.analysis().find("b");
  const StageSchedule& row = s.funcs[0].stages[0];
  EXPECT_EQ(tail_refusal(space.analysis(), s, b, s.funcs[0], row, row.splits[0]), std::nullopt);
  EXPECT_EQ(space.validate(s).value_or(""), "");
  const auto inputs = sg->make_inputs(2);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");

  s.funcs[0].compute.loop = "x_o";  // per vector of a row: out walks x outside it
  s.funcs[0].compute.store_loop.clear();
  EXPECT_THAT(tail_refusal(space.analysis(), s, b, s.funcs[0], row, row.splits[0]).value_or(""),
              HasSubstr("outside which its consumer never walks that variable"));
}

// A window stored per strip and computed per pair of rows slides along the strip's rows: a
// strip's last tile shifted inwards recomputes rows its window holds (allowed), but rows of
// a split shifted between the two loops would run backwards inside the strip, which Halide
// does not slide (attention's scores as such a window gave zeros): refused.
TEST(TailStrategy, AShiftBetweenAWindowsComputeAndStoreLoopsIsRefused) {
  const auto sg = testing::spec_subgraph(kTwoStencils);
  const Space space(analyze(*sg, testing::test_target()));
  StageSchedule strips;
  strips.splits = {{"y", "y_t", "y_p", 2, Tail::kShiftInwards}, {"y_t", "y_o", "y_i", 4, Tail::kShiftInwards}};
  strips.order = {"x", "y_p", "y_i", "y_o"};
  Schedule s;
  s.funcs = {FuncSchedule{"b", {ComputeLocation::Kind::kAt, "out", 0, "y_p", "y_o"}, {}, {}},
             FuncSchedule{"out", {}, {strips}, {}}};
  const FuncAnalysis& out = *space.analysis().find("out");
  EXPECT_EQ(tail_refusal(space.analysis(), s, out, s.funcs[1], strips, strips.splits[1]), std::nullopt)
      << "the strip loop is the store loop";
  EXPECT_THAT(tail_refusal(space.analysis(), s, out, s.funcs[1], strips, strips.splits[0]).value_or(""),
              HasSubstr("would walk a sliding window backwards"));
  s.funcs[0].compute.loop = "y_i";  // the shifted pieces are now the compute and store loops
  EXPECT_EQ(tail_refusal(space.analysis(), s, out, s.funcs[1], strips, strips.splits[0]), std::nullopt);
}

// An update rounding its region further than the pure definition computes wrote past the
// buffer Halide sized by the pure definition (a crash, found in a sampled accumulator
// computed per point of its consumer): the region's extent is aligned to the update's tile.
TEST(TailStrategy, AnUpdateRoundingUpPastThePureDefinitionStaysInItsBuffer) {
  const auto sg = testing::suite_subgraph("conv3x3_relu");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule s = Schedule::from_json(nlohmann::json::parse(R"({"funcs": [
    {"func": "conv_pad", "compute": {"kind": "root"}},
    {"func": "conv_acc", "compute": {"kind": "at", "consumer": "conv", "consumer_stage": 0, "loop": "x"},
     "stages": [{"stage": 1, "splits": [{"loop": "x", "outer": "x_t", "inner": "x_i", "factor": 8},
                                        {"loop": "x_t", "outer": "x_o", "inner": "x_m", "factor": 2, "tail": "round_up"}],
                 "order": ["x_i", "r$x", "r$y", "r$z", "x_m", "x_o", "y", "c", "n"], "vectorize": "x_i"}]},
    {"func": "conv", "compute": {"kind": "root"}, "stages": [{"stage": 0, "parallel": ["n", "c", "y"]}]},
    {"func": "biased", "compute": {"kind": "inline"}},
    {"func": "y", "compute": {"kind": "root"}}]})"), "test");
  ASSERT_EQ(space.validate(s).value_or(""), "");
  EXPECT_EQ(update_round_ups(*space.analysis().find("conv_acc"), *s.find("conv_acc")),
            (std::map<std::string, int64_t>{{"x", 16}}));
  const ApplyResult applied = apply(s, *sg, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_THAT(applied.source, HasSubstr("conv_acc.align_extent(x, 16);"));
  const auto inputs = sg->make_inputs(7);
  const auto want = sg->reference(inputs);
  EXPECT_EQ(testing::isolated([&] { return testing::run_and_compare(*sg, space.analysis(), s, inputs, want); }), "");
  // Guarded splits of the update ask for nothing.
  FuncSchedule guarded = *s.find("conv_acc");
  guarded.stages[0].splits[1].tail = Tail::kGuard;
  EXPECT_TRUE(update_round_ups(*space.analysis().find("conv_acc"), guarded).empty());
}

TEST(TailStrategy, TheHeuristicKeepsVectorsWholeAndTheAnswerExact) {
  const auto sg = testing::spec_subgraph(kConv);
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  const LoopSplit* out_x = nullptr;
  for (const LoopSplit& sp : h.find("y")->stages.at(0).splits) {
    if (sp.loop == "x") out_x = &sp;
  }
  ASSERT_NE(out_x, nullptr) << h.to_json().dump();
  EXPECT_EQ(out_x->tail, Tail::kShiftInwards) << "20 columns in 8-lane vectors";
  bool rounded = false;
  for (const StageSchedule& st : h.find("c_acc")->stages) {
    for (const LoopSplit& sp : st.splits) rounded |= sp.tail == Tail::kRoundUp;
  }
  EXPECT_TRUE(rounded) << "the accumulator computed per tile rounds its region up";
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
  const ApplyResult applied = apply(h, *sg, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_THAT(applied.source, HasSubstr("TailStrategy::ShiftInwards"));
  EXPECT_THAT(applied.source, HasSubstr("TailStrategy::RoundUp"));
}

// Analyzes tests/generators/many_paths.cc and asks for the round_up tail of every
// intermediate's x; returns "<funcs> <intermediates> <allowed> <valid samples of 4>
// <heuristic: valid or why not>".
std::string tails_of_many_paths() {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_many_paths", {});
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  // Every intermediate may round its region up along x: each of its paths ends in the
  // input read at clamped indices (a repeated edge).
  int intermediates = 0, allowed = 0;
  for (const FuncAnalysis& f : a.funcs) {
    if (f.is_output || f.args.empty()) continue;
    ++intermediates;
    StageSchedule st = split_x(0, Tail::kRoundUp);
    st.splits[0].loop = f.args[0];
    st.vectorize = st.splits[0].inner;
    const FuncSchedule root{f.name, {}, {}, {}};
    allowed += tail_refusal(a, space.naive(), f, root, st, st.splits[0]) ? 0 : 1;
  }
  // The heuristic and the sampler choose tails for every split.
  Rng rng(5);
  int valid = 0;
  for (int i = 0; i < 4; ++i) {
    if (const auto s = space.sample(rng)) valid += space.validate(*s) ? 0 : 1;
  }
  return std::to_string(a.funcs.size()) + " " + std::to_string(intermediates) + " " + std::to_string(allowed) + " " +
         std::to_string(valid) + " " + space.validate(space.heuristic()).value_or("valid");
}

// A pyramid whose bands each read every band of the level below
// (tests/generators/many_paths.cc: about 90 Funcs, 36^7 paths from its deepest level to the
// input along x). Following every path never ends; in a child with a deadline, the test
// fails instead of hanging.
TEST(TailStrategy, AnalysisOfADagWithExponentiallyManyPathsEnds) {
  constexpr double kDeadlineMs = 120000;
  const ChildOutcome child = run_in_child(
      [](int fd) {
        std::string report;
        try {
          report = tails_of_many_paths();
        } catch (const std::exception& e) {
          report = std::string("failed: ") + e.what();
        }
        write_all(fd, report.data(), report.size());
      },
      kDeadlineMs);
  ASSERT_FALSE(child.timed_out) << "the analysis did not end within " << kDeadlineMs / 1000 << " s";
  ASSERT_EQ(child.exit_code, 0) << describe_abnormal_end(child, "the analysis", kDeadlineMs);
  std::istringstream in(child.output);
  int funcs = 0, intermediates = 0, allowed = 0, samples = 0;
  std::string heuristic;
  ASSERT_TRUE(in >> funcs >> intermediates >> allowed >> samples) << child.output;
  std::getline(in >> std::ws, heuristic);
  EXPECT_GE(funcs, 80);
  EXPECT_EQ(allowed, intermediates) << "every read of the input is clamped";
  EXPECT_EQ(heuristic, "valid");
  EXPECT_GE(samples, 1) << "valid samples of 4";
}

}  // namespace
}  // namespace ktune::scheduler
