// The heuristic's rows for grids: Funcs of more than two pure loops in parallel rows with
// their channels unrolled inside, and producers read at their reader's own row computed per
// row of it (a bilateral grid's histogram and its blurs along intensity and x), and the
// operand of an accumulator computed per slice of the accumulator's host (a depthwise
// convolution per output row of the 1x1 convolution after it).
#include "scheduler/row_producers.h"

#include <gtest/gtest.h>

#include "scheduler/image_strips.h"
#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// The test Generator's bilateral grid on a small image: grid (x, y, z, c) scattered from the
// input, blurred along z, x and y into blur_y, sliced per output row by slice_y.
std::unique_ptr<subgraphs::GeneratorSubgraph> small_bilateral_grid() {
  return subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_bilateral_grid",
                                            {{"width", "256"}, {"height", "128"}});
}

TEST(RowsOutermostStage, APureGridRunsItsRowsInParallelWithItsChannelsUnrolledInsideTheVector) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [2, 12, 64, 96]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "y"}], "outputs": ["y"]})");
  const Analysis a = analyze(*sg, testing::test_target());
  const StageAnalysis& sa = a.funcs.back().stages[0];
  const std::optional<StageSchedule> st = rows_outermost_stage(sa, 8, true);
  ASSERT_TRUE(st.has_value());
  const std::string x = sa.pure_loop(0)->name, y = sa.pure_loop(1)->name;
  const std::string z = sa.pure_loop(2)->name, c = sa.pure_loop(3)->name;
  EXPECT_EQ(st->order, (std::vector<std::string>{x + "_i", c + "_i", c + "_o", x + "_o", z, y}));
  EXPECT_EQ(st->vectorize, x + "_i");
  EXPECT_EQ(st->unroll, (std::vector<std::string>{c + "_i"}));
  EXPECT_EQ(st->parallel, (std::vector<std::string>{y}));
  // Not in parallel where asked not to be; no vector where the rows are shorter than one.
  EXPECT_TRUE(rows_outermost_stage(sa, 8, false)->parallel.empty());
  EXPECT_TRUE(rows_outermost_stage(sa, 128, false)->vectorize.empty());
}

TEST(RowsOutermostStage, AScatterKeepsItsChannelsInnermostAndItsReductionInsideTheRows) {
  const auto sg = small_bilateral_grid();
  const Analysis a = analyze(*sg, testing::test_target());
  const FuncAnalysis* grid = a.find("grid");
  ASSERT_NE(grid, nullptr);
  EXPECT_TRUE(scatters_into_grid(*grid));
  EXPECT_FALSE(scatters_into_grid(*a.find("blur_z")));
  const std::optional<StageSchedule> st = rows_outermost_stage(grid->stages[1], 8, false);
  ASSERT_TRUE(st.has_value());
  const StageAnalysis& update = grid->stages[1];
  const std::string rx = update.loops[0].name, ry = update.loops[1].name;
  ASSERT_TRUE(update.loops[0].is_reduction);
  EXPECT_EQ(st->order, (std::vector<std::string>{"c_i", "c_o", rx, ry, "x", "y"}));
  EXPECT_TRUE(st->vectorize.empty());
}

TEST(RowProducers, TheHeuristicScattersAndBlursEachGridRowWhereItIsReadAndSlicesPerOutputRow) {
  const auto sg = small_bilateral_grid();
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "") << h.to_json().dump();
  // The histogram and its blur along intensity are read by blur_x at blur_x's own grid row.
  for (const char* f : {"grid", "blur_z"}) {
    const ComputeLocation& at = h.find(f)->compute;
    EXPECT_EQ(at.kind, ComputeLocation::Kind::kAt) << f;
    EXPECT_EQ(at.consumer, "blur_x") << f;
    EXPECT_EQ(at.loop, "y") << f;
  }
  EXPECT_EQ(h.find("blur_x")->stages[0].parallel, (std::vector<std::string>{"y"}));
  // blur_y reads five rows of blur_x: blur_x stays at root; blur_y runs in parallel rows.
  EXPECT_EQ(h.find("blur_x")->compute.kind, ComputeLocation::Kind::kRoot);
  EXPECT_EQ(h.find("blur_y")->stages[0].parallel, (std::vector<std::string>{"y"}));
  // The slice is read at the output's row through the inlined interpolation, which reads each
  // of its points once (the value and the weight channel); the output runs in strips.
  EXPECT_EQ(h.find("interpolated")->compute.kind, ComputeLocation::Kind::kInline);
  const ComputeLocation& slice = h.find("slice_y")->compute;
  EXPECT_EQ(slice.consumer, "output");
  EXPECT_EQ(slice.loop, "y_i");
  EXPECT_FALSE(slice.sliding());
  EXPECT_EQ(h.find("output")->stages[0].parallel, (std::vector<std::string>{"y_o"}));
  // The boundary condition, read only by the histogram, is inlined into it.
  EXPECT_EQ(h.find("repeat_edge")->compute.kind, ComputeLocation::Kind::kInline);
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

TEST(RowProducers, AMatmulReadAtItsReadersRowIsNotComputedPerRow) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "X", "shape": [64, 32]}, {"name": "W", "shape": [32, 48]}],
    "ops": [{"op": "matmul", "inputs": ["X", "W"], "output": "xw"}, {"op": "relu", "inputs": ["xw"], "output": "y"}],
    "outputs": ["y"]})");
  const Analysis a = analyze(*sg, testing::test_target());
  Schedule s = Space(a).naive();
  const int out = a.index_of("y");
  s.funcs[out].stages = {*strip_stage(a.funcs[out], 8, 8)};
  compute_row_producers_per_row(a, s);
  // The accumulator (the Func with the update over k) keeps its rows whole at root.
  int accumulators = 0;
  for (size_t f = 0; f < a.funcs.size(); ++f) {
    if (!a.funcs[f].has_updates()) continue;
    ++accumulators;
    EXPECT_EQ(s.funcs[f].compute.kind, ComputeLocation::Kind::kRoot) << a.funcs[f].name;
  }
  EXPECT_EQ(accumulators, 1);
}

TEST(RowProducers, APointwiseProducerOfAStripIsComputedPerRowOfIt) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [32, 20]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "r"}, {"op": "gelu", "inputs": ["r"], "output": "y"}],
    "outputs": ["y"]})");
  const Analysis a = analyze(*sg, testing::test_target());
  Schedule s = Space(a).naive();
  const int out = a.index_of("y");
  s.funcs[out].stages = {*strip_stage(a.funcs[out], 4, 4)};
  compute_row_producers_per_row(a, s);
  const ComputeLocation& r = s.find("r")->compute;
  EXPECT_EQ(r.kind, ComputeLocation::Kind::kAt);
  EXPECT_EQ(r.consumer, "y");
  EXPECT_EQ(r.loop, s.find("y")->stages[0].splits[1].inner);
}

// The test Generator's depthwise-separable layer, small: depthwise (c, x, y) read by the
// pointwise accumulator's update at its own (x, y), the accumulator per tile of the output.
TEST(AccumulatorOperands, TheHeuristicComputesTheDepthwiseConvolutionPerOutputRow) {
  const auto sg = subgraphs::load_generator_subgraph(
      std::string(KTUNE_REAL_GENERATORS) + ":ktune_depthwise_separable",
      {{"width", "40"}, {"height", "12"}, {"channels_in", "16"}, {"channels_out", "32"}});
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "") << h.to_json().dump();
  const ComputeLocation& depthwise = h.find("depthwise")->compute;
  EXPECT_EQ(depthwise.kind, ComputeLocation::Kind::kAt);
  EXPECT_EQ(depthwise.consumer, "output");
  EXPECT_EQ(depthwise.loop, "y");
  EXPECT_EQ(h.find("output")->stages[0].parallel, (std::vector<std::string>{"y"}));
  for (const StageSchedule& st : h.find("depthwise")->stages) EXPECT_TRUE(st.parallel.empty());
  EXPECT_EQ(h.find("pointwise")->compute.consumer, "output");
  // The padding, computed inside the depthwise convolution at root, is inlined into it.
  EXPECT_EQ(h.find("constant_exterior")->compute.kind, ComputeLocation::Kind::kInline);
  // The output's tiles, which host the accumulator, shift inwards: its region stays constant.
  for (const LoopSplit& split : h.find("output")->stages[0].splits) EXPECT_EQ(split.tail, Tail::kShiftInwards) << split.loop;
  const auto inputs = sg->make_inputs(5);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

// A convolution reads its padded input three rows at a time: the padding stays at root.
TEST(AccumulatorOperands, AnOperandReadAcrossRowsStaysAtRoot) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [1, 16, 24, 20]}, {"name": "w", "shape": [32, 16, 3, 3]}],
    "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "c", "padding": 1}, {"op": "relu", "inputs": ["c"], "output": "y"}],
    "outputs": ["y"]})");
  const Space space(analyze(*sg, testing::test_target()));
  Schedule h = space.heuristic();
  ASSERT_EQ(h.find("c_pad")->compute.kind, ComputeLocation::Kind::kRoot);
  ASSERT_EQ(h.find("c_acc")->compute.kind, ComputeLocation::Kind::kAt);
  EXPECT_FALSE(compute_accumulator_operands_per_slice(space.analysis(), h));
  EXPECT_EQ(h.find("c_pad")->compute.kind, ComputeLocation::Kind::kRoot);
}

}  // namespace
}  // namespace ktune::scheduler
