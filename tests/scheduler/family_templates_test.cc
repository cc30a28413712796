// Tests scheduler/family_templates.cc: which stages each op family recognises (from the
// analysis, whatever the op is called) and the stage each template builds.
#include "scheduler/family_templates.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "scheduler/space.h"
#include "scheduler/stage_template.h"

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

struct Recognised {
  bool row = false, column = false, matmul = false, conv = false;
};

Recognised recognise(const Analysis& a, const std::string& func) {
  const FuncAnalysis& f = *a.find(func);
  const StageAnalysis& update = f.stages.back();
  return {is_row_reduction(f, update, a.target), is_column_reduction(f, update, a.target), is_matmul_update(f, update),
          is_conv_update(f, update)};
}

TEST(FamilyTemplates, EachUpdateBelongsToItsFamilyOnly) {
  const TargetInfo t = testing::test_target();
  const struct {
    const char* subgraph;
    const char* func;
    Recognised want;
  } cases[] = {
      {"softmax", "y_max", {true, false, false, false}},   {"softmax", "y_sum", {true, false, false, false}},
      {"layernorm", "y_var", {true, false, false, false}}, {"colsum", "sums_acc", {false, true, false, false}},
      {"gemm_1024", "C_acc", {false, false, true, false}}, {"bmm_scores", "S_acc", {false, false, true, false}},
      {"mlp_gelu", "xw_acc", {false, false, true, false}}, {"conv3x3_relu", "conv_acc", {false, false, false, true}},
  };
  for (const auto& c : cases) {
    const auto sg = testing::suite_subgraph(c.subgraph);
    const Analysis a = analyze(*sg, t);
    const Recognised r = recognise(a, c.func);
    EXPECT_EQ(r.row, c.want.row) << c.subgraph << " " << c.func;
    EXPECT_EQ(r.column, c.want.column) << c.subgraph << " " << c.func;
    EXPECT_EQ(r.matmul, c.want.matmul) << c.subgraph << " " << c.func;
    EXPECT_EQ(r.conv, c.want.conv) << c.subgraph << " " << c.func;
  }
  // The Funcs that read the accumulators, through a bias and an activation.
  const auto mlp = testing::suite_subgraph("mlp_gelu");
  const Analysis ma = analyze(*mlp, t);
  ASSERT_EQ(accumulator_read(ma, ma.index_of("Y")), ma.index_of("xw_acc"));
  EXPECT_EQ(accumulator_family(ma.funcs[ma.index_of("xw_acc")]), AccumulatorFamily::kMatmul);
  const auto conv = testing::suite_subgraph("conv3x3_relu");
  const Analysis ca = analyze(*conv, t);
  ASSERT_EQ(accumulator_read(ca, ca.index_of("y")), ca.index_of("conv_acc"));
  EXPECT_EQ(accumulator_family(ca.funcs[ca.index_of("conv_acc")]), AccumulatorFamily::kConv);
  EXPECT_EQ(accumulator_family(*ca.find("conv_pad")), AccumulatorFamily::kNone);
}

TEST(FamilyTemplates, TheReadersOfRowReductionsStreamWholeRowsInBlocks) {
  const TargetInfo t = testing::test_target();
  const auto layernorm = testing::suite_subgraph("layernorm");
  const Analysis la = analyze(*layernorm, t);
  EXPECT_TRUE(reads_row_reduction(la, la.index_of("y"))) << "through the inlined inverse deviation too";
  const auto softmax = testing::suite_subgraph("softmax");
  const Analysis sa = analyze(*softmax, t);
  EXPECT_TRUE(reads_row_reduction(sa, sa.index_of("y")));
  EXPECT_TRUE(reads_row_reduction(sa, sa.index_of("y_exp"))) << "the exponentials read the row maximum";
  for (const auto& [subgraph, func] : {std::pair{"gemm_1024", "C"}, {"conv3x3_relu", "y"}, {"colsum", "sums"}}) {
    const auto sg = testing::suite_subgraph(subgraph);
    const Analysis a = analyze(*sg, t);
    ASSERT_GE(a.index_of(func), 0) << subgraph << " " << func;
    EXPECT_FALSE(reads_row_reduction(a, a.index_of(func))) << subgraph << " " << func;
  }

  // Blocks of 64 of layernorm's 4096 rows in parallel, each row walked whole, a vector at a time.
  const StageSchedule st = make_stage(la.find("y")->stages[0], row_consumer_choice(la.find("y")->stages[0], true, t));
  EXPECT_EQ(st.order, (std::vector<std::string>{"x_i", "x_o", "y_i", "y_o"}));
  ASSERT_EQ(st.splits.size(), 2u);
  EXPECT_EQ(st.splits[1].loop, "y");
  EXPECT_EQ(st.splits[1].factor, kRowBlock);
  EXPECT_EQ(st.parallel, std::vector<std::string>{"y_o"});
  EXPECT_EQ(st.vectorize, "x_i");
  EXPECT_TRUE(st.unroll.empty());
  // Computed per block of its consumer: no parallel loop of its own.
  EXPECT_TRUE(make_stage(sa.find("y_exp")->stages[0], row_consumer_choice(sa.find("y_exp")->stages[0], false, t)).parallel.empty());

  // Few rows: smaller blocks, four per core.
  const auto few = testing::spec_subgraph(R"({"name": "few_rows", "inputs": [{"name": "x", "shape": [32, 256]}],
    "ops": [{"op": "softmax", "inputs": ["x"], "output": "y", "axis": -1}], "outputs": ["y"]})");
  const Analysis fa = analyze(*few, t);
  const TilingChoice c = row_consumer_choice(fa.find("y")->stages[0], true, t);
  EXPECT_EQ(c.second_tile, 4) << "32 rows in 8 blocks: four per core of two";
  EXPECT_TRUE(c.whole_rows);
}

TEST(FamilyTemplates, StagesFollowTheTargetsRegisters) {
  const auto sg = testing::suite_subgraph("gemm_1024");
  TargetInfo avx2 = testing::test_target();
  const TargetInfo avx512 = testing::avx512_test_target();
  const Analysis a2 = analyze(*sg, avx2);
  const Analysis a5 = analyze(*sg, avx512);
  // Half the register file in accumulators: 2 vectors by 4 rows on AVX2 (16 x 4), 4 by 4 on
  // AVX-512 (64 x 4); the reduction blocked by 128 outside the tile.
  const StageSchedule s2 = matmul_update_stage(a2.find("C_acc")->stages[1], avx2);
  const StageSchedule s5 = matmul_update_stage(a5.find("C_acc")->stages[1], avx512);
  EXPECT_EQ(s2.splits[0].factor, 16);
  EXPECT_EQ(s2.splits[1].factor, 4);
  EXPECT_EQ(s5.splits[0].factor, 64);
  EXPECT_EQ(s5.splits[1].factor, 4);
  EXPECT_EQ(s5.order, (std::vector<std::string>{"x_i", "y_i", "k_x_i", "x_o", "y_o", "k_x_o"}));
  EXPECT_EQ(s5.unroll, std::vector<std::string>{"y_i"});

  const auto cs = testing::suite_subgraph("colsum");
  const Analysis ca = analyze(*cs, avx512);
  const StageSchedule col = column_reduction_stage(ca.find("sums_acc")->stages[1], avx512);
  ASSERT_TRUE(col.rfactor.has_value());
  EXPECT_EQ(col.rfactor->pure_vector, 16);
  EXPECT_EQ(col.rfactor->loop, "r_x_o");
  EXPECT_EQ(col.unroll, std::vector<std::string>{"r_x_u"});

  const auto sm = testing::suite_subgraph("softmax");
  const Analysis sa = analyze(*sm, avx512);
  const StageSchedule row = row_reduction_stage(sa.find("y_max")->stages[1], avx512);
  ASSERT_TRUE(row.rfactor.has_value());
  EXPECT_TRUE(row.rfactor->at_func && row.rfactor->vectorize_u);
  EXPECT_EQ(row.splits[0].factor, 16);
}

// Column panels (kPanelVectors vectors wide) of a matmul's consumer, x_o outermost and
// parallel, the accumulator per block of rows, B's panel packed in B's own order per panel.
TEST(FamilyTemplates, MatmulConsumersWalkColumnPanelsWithTheOperandPackedPerPanel) {
  const TargetInfo avx512 = testing::avx512_test_target();
  const auto gemm = testing::suite_subgraph("gemm_1024");
  const Analysis a = analyze(*gemm, avx512);
  const StageAnalysis& c = a.find("C")->stages[0];
  ASSERT_TRUE(column_panels_fit(c, avx512));
  const TilingChoice panels = matmul_consumer_choice(c, 1024, avx512, true);
  EXPECT_TRUE(panels.panels);
  EXPECT_EQ(panels.inner_tile, kPanelVectors * 16);
  EXPECT_EQ(panels.second_tile, kPanelRows);
  const StageSchedule walked = make_stage(c, panels);
  EXPECT_EQ(walked.order, (std::vector<std::string>{"x_i", "y_i", "x_m", "y_o", "x_o"}));
  EXPECT_EQ(walked.parallel, std::vector<std::string>{"x_o"});
  const StageSchedule tiled = make_stage(c, matmul_consumer_choice(c, 1024, avx512, false));
  EXPECT_EQ(tiled.order, (std::vector<std::string>{"x_i", "y_i", "x_m", "x_o", "y_o"}));
  EXPECT_EQ(tiled.parallel, std::vector<std::string>{"y_o"});

  const Space space(analyze(*gemm, avx512));
  const Schedule heuristic = space.heuristic();
  EXPECT_EQ(heuristic.find("C_acc")->compute, (ComputeLocation{ComputeLocation::Kind::kAt, "C", 0, "y_o"}));
  const auto pack = panel_operand_pack(space.analysis(), heuristic, *space.analysis().find("C_acc"),
                                       space.analysis().find("C_acc")->stages[1]);
  ASSERT_TRUE(pack.has_value());
  EXPECT_EQ(pack->input, "B") << "A is read across its rows, one element per vector";
  EXPECT_EQ(pack->storage, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(pack->compute, (ComputeLocation{ComputeLocation::Kind::kAt, "C", 0, "x_o"}));
  EXPECT_FALSE(pack->parallel);
  EXPECT_EQ(heuristic.packs, std::vector<InputPack>{*pack});

  // Tiles instead of panels: no panel to pack per.
  Schedule tiles = heuristic;
  tiles.find("C")->stages = {tiled};
  EXPECT_FALSE(panel_operand_pack(space.analysis(), tiles, *space.analysis().find("C_acc"),
                                  space.analysis().find("C_acc")->stages[1])
                   .has_value());
  // Attention scores have a third loop (the heads), a small matmul too few panels.
  const auto bmm = testing::suite_subgraph("bmm_scores");
  EXPECT_FALSE(column_panels_fit(analyze(*bmm, avx512).find("S")->stages[0], avx512));
  const auto small = testing::spec_subgraph(R"({"inputs": [{"name": "A", "shape": [256, 64]}, {"name": "B", "shape": [64, 256]}],
    "ops": [{"op": "matmul", "inputs": ["A", "B"], "output": "C"}], "outputs": ["C"]})");
  EXPECT_FALSE(column_panels_fit(analyze(*small, avx512).find("C")->stages[0], avx512));
}

// A product of few rows (a batch of 8) by many columns: in parallel by rows, each row would
// stream all of B; the consumer walks column panels in parallel, all rows inside, the
// accumulator computed per panel, and B is not packed (each panel is read down one block of
// rows). The heuristic computes the product right, the last panel short (600 = 9 x 64 + 24).
TEST(FamilyTemplates, AProductOfFewRowsWalksColumnPanelsUnpacked) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "A", "shape": [8, 40]}, {"name": "B", "shape": [40, 600]}],
    "ops": [{"op": "matmul", "inputs": ["A", "B"], "output": "C"}], "outputs": ["C"]})");
  const TargetInfo avx512 = testing::avx512_test_target();
  const Space space(analyze(*sg, avx512));
  ASSERT_TRUE(column_panels_fit(space.analysis().find("C")->stages[0], avx512));
  const Schedule s = space.heuristic();
  const StageSchedule& consumer = s.find("C")->stages.at(0);
  EXPECT_EQ(consumer.order.back(), "x_o") << s.to_json().dump();
  EXPECT_EQ(consumer.parallel, std::vector<std::string>{"x_o"}) << s.to_json().dump();
  EXPECT_EQ(s.find("C_acc")->compute.loop, "x_o") << s.to_json().dump();
  EXPECT_TRUE(s.packs.empty()) << s.to_json().dump();
  const auto inputs = sg->make_inputs(6);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

// The heuristic in panels with B packed per panel computes the product right, tails included
// (8 lanes: panels of 32 columns, 300 = 9 panels and 12 columns).
TEST(FamilyTemplates, APanelPackedMatmulIsCorrect) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "A", "shape": [70, 40]}, {"name": "B", "shape": [40, 300]}],
    "ops": [{"op": "matmul", "inputs": ["A", "B"], "output": "C"}], "outputs": ["C"]})");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule s = space.heuristic();
  ASSERT_EQ(s.packs.size(), 1u) << s.to_json().dump();
  EXPECT_EQ(s.packs[0].compute.loop, "x_o");
  const auto inputs = sg->make_inputs(5);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

// A product read transposed: the consumer's panels run down the product's rows, so B (read
// along the product's columns) has no panel to be copied per; the schedule stays right.
TEST(FamilyTemplates, AProductReadTransposedHasNoPanelPack) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "A", "shape": [300, 40]}, {"name": "B", "shape": [40, 100]}],
    "ops": [{"op": "matmul", "inputs": ["A", "B"], "output": "C"}, {"op": "transpose", "inputs": ["C"], "output": "T"}],
    "outputs": ["T"]})");
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule s = space.heuristic();
  ASSERT_TRUE(column_panels_fit(space.analysis().find("T")->stages[0], testing::test_target()));
  ASSERT_FALSE(s.find("T")->stages.empty());
  EXPECT_EQ(s.find("T")->stages[0].order.back(), "x_o") << "T walks column panels";
  EXPECT_TRUE(s.packs.empty()) << s.to_json().dump();
  const auto inputs = sg->make_inputs(6);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

// K of attention scores is packed transposed, per head at the scores' parallel loop of heads
// (`ktune bench bench/suite/bmm_scores.json --methods ktune-heuristic,expert,onednn`, the
// expert being the heuristic with K packed at root in a pass of its own: 0.131 and 0.126 ms
// against 0.136 and 0.133 in two runs of five rounds; oneDNN 0.129 and 0.129).
// AShortReductionTilesTheConsumerByTheRegisterRows runs that heuristic against the reference.
TEST(FamilyTemplates, TheTransposedOperandOfAttentionScoresIsPacked) {
  const auto sg = testing::suite_subgraph("bmm_scores");
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  const FuncAnalysis& acc = *a.find("S_acc");
  const auto pack = transposed_operand_pack(a, space.heuristic(), acc, acc.stages[1]);
  ASSERT_TRUE(pack.has_value());
  EXPECT_EQ(pack->input, "K");
  EXPECT_EQ(pack->storage, (std::vector<std::string>{"y", "x", "z"}));
  // Three loops: no column panels; each head is copied by the thread that computes it.
  EXPECT_EQ(pack->compute.kind, ComputeLocation::Kind::kAt);
  EXPECT_EQ(pack->compute.consumer, "S");
  EXPECT_EQ(pack->compute.loop, "z");
  EXPECT_FALSE(pack->parallel);
  const auto gemm = testing::suite_subgraph("gemm_1024");
  const Space g(analyze(*gemm, testing::test_target()));
  const FuncAnalysis& c_acc = *g.analysis().find("C_acc");
  EXPECT_FALSE(transposed_operand_pack(g.analysis(), g.heuristic(), c_acc, c_acc.stages[1]).has_value())
      << "B is read along its rows already";
}

// A GEMM with B transposed, its columns not a whole number of panels: one split per panel,
// vectorized whole, whose last panel shifts inwards (so the accumulator's region is a
// constant 64 wide), and B^T copied per panel. The heuristic computes C right.
TEST(FamilyTemplates, AnOddTransposedGemmWalksWholePanelsOfBTransposed) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "A", "shape": [70, 40]}, {"name": "B", "shape": [530, 40]}],
    "ops": [{"op": "matmul", "inputs": ["A", "B"], "output": "C", "transpose_b": true}], "outputs": ["C"]})");
  const Space space(analyze(*sg, testing::avx512_test_target()));
  const Schedule s = space.heuristic();
  const StageSchedule& c = s.find("C")->stages.at(0);
  ASSERT_EQ(c.splits.size(), 2u) << s.to_json().dump();
  EXPECT_EQ(c.splits[0], (LoopSplit{"x", "x_o", "x_i", kPanelVectors * 16, Tail::kShiftInwards}));
  EXPECT_EQ(c.vectorize, "x_i");
  EXPECT_EQ(c.order.back(), "x_o") << "column panels outermost";
  ASSERT_EQ(s.packs.size(), 1u) << s.to_json().dump();
  EXPECT_EQ(s.packs[0].input, "B");
  EXPECT_EQ(s.packs[0].storage, (std::vector<std::string>{"y", "x"}));
  EXPECT_EQ(s.packs[0].compute.kind, ComputeLocation::Kind::kAt);
  EXPECT_EQ(s.packs[0].compute.loop, "x_o");
  const auto inputs = sg->make_inputs(7);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

// Attention scores over 77 keys: the consumer's columns are no whole number of its tiles (32
// wide: AFewOddColumnsTakeTheRegisterTileOfFewerColumnsComputed), so they are split once and
// vectorized whole (the last tile shifted inwards), not
// in two nested shifted splits whose last tile is 61 wide: the accumulator per tile has a
// constant width. bench/suite_shapes/bmm_seq77.json (12 heads of 77 by 64): `ktune bench
// --methods ktune-heuristic,Adams2019,onednn` timed the heuristic at 0.293 ms with the
// nested splits, 0.068 with one (Adams2019 0.112, oneDNN 0.058). The heuristic is right.
TEST(FamilyTemplates, ColumnsThatAreNoWholeNumberOfTilesAreSplitOnce) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "Q", "shape": [2, 77, 16]}, {"name": "K", "shape": [2, 77, 16]}],
    "ops": [{"op": "batch_matmul", "inputs": ["Q", "K"], "output": "S", "transpose_b": true}], "outputs": ["S"]})");
  const Space space(analyze(*sg, testing::avx512_test_target()));
  const Schedule s = space.heuristic();
  const StageSchedule& st = s.find("S")->stages.at(0);
  ASSERT_EQ(st.splits.size(), 2u) << s.to_json().dump();
  EXPECT_EQ(st.splits[0], (LoopSplit{"x", "x_o", "x_i", 2 * 16, Tail::kShiftInwards}));
  EXPECT_EQ(st.vectorize, "x_i");
  EXPECT_EQ(s.find("S_acc")->compute.loop, "x_o");
  const auto inputs = sg->make_inputs(5);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

// Without column panels (300 columns are fewer than eight panels), a tile of 256 columns
// that does not divide them becomes one split vectorized at most 64 wide.
TEST(FamilyTemplates, AWideTileThatDoesNotDivideTheColumnsIsOneSplitOfAPanel) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "A", "shape": [40, 24]}, {"name": "B", "shape": [24, 300]}],
    "ops": [{"op": "matmul", "inputs": ["A", "B"], "output": "C"}], "outputs": ["C"]})");
  const TargetInfo t = testing::avx512_test_target();
  const Space space(analyze(*sg, t));
  const StageAnalysis& c = space.analysis().find("C")->stages[0];
  ASSERT_FALSE(column_panels_fit(c, t));
  const TilingChoice choice = matmul_consumer_choice(c, 24, t, true);
  EXPECT_EQ(choice.vector_width, kMaxVectorWidth);
  EXPECT_EQ(choice.inner_tile, 0);
  const Schedule s = space.heuristic();
  EXPECT_EQ(s.find("C")->stages.at(0).splits.at(0), (LoopSplit{"x", "x_o", "x_i", 64, Tail::kShiftInwards})) << s.to_json().dump();
  const auto inputs = sg->make_inputs(4);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

// Attention over 77 keys: tiles of four vectors would compute 128 columns (two tiles
// overlapping by 51), tiles of two 96; the register tile is two vectors by eight rows and the
// consumer is tiled alike. 128 keys, 709 columns (many tiles) and AVX2 keep their tiles. The
// heuristic computes the scores right.
TEST(FamilyTemplates, AFewOddColumnsTakeTheRegisterTileOfFewerColumnsComputed) {
  const TargetInfo avx512 = testing::avx512_test_target();
  EXPECT_EQ(matmul_tile_vectors(77, 16, avx512), 2);
  EXPECT_EQ(matmul_tile_vectors(128, 16, avx512), 4) << "a whole number of tiles";
  EXPECT_EQ(matmul_tile_vectors(120, 16, avx512), 4) << "128 columns either way";
  EXPECT_EQ(matmul_tile_vectors(709, 16, avx512), 4) << "many tiles: the waste is small";
  EXPECT_EQ(matmul_tile_vectors(77, 8, testing::test_target()), 2) << "AVX2: two vectors already";
  EXPECT_EQ(matmul_tile_rows(2, avx512), 8);

  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "Q", "shape": [3, 77, 64]}, {"name": "K", "shape": [3, 77, 64]}],
    "ops": [{"op": "batch_matmul", "inputs": ["Q", "K"], "output": "S", "transpose_b": true}], "outputs": ["S"]})");
  const Space space(analyze(*sg, avx512));
  const Schedule s = space.heuristic();
  const StageSchedule& update = s.find("S_acc")->stages.at(1);
  EXPECT_EQ(update.splits.at(0).factor, 32) << s.to_json().dump();
  EXPECT_EQ(update.splits.at(1).factor, 8) << s.to_json().dump();
  const StageSchedule& consumer = s.find("S")->stages.at(0);
  EXPECT_EQ(consumer.splits.at(0), (LoopSplit{"x", "x_o", "x_i", 32, Tail::kShiftInwards})) << s.to_json().dump();
  EXPECT_EQ(consumer.splits.at(1), (LoopSplit{"y", "y_o", "y_i", 8, Tail::kShiftInwards})) << s.to_json().dump();
  const auto inputs = sg->make_inputs(5);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

// A reduction short enough for one register tile to sum whole (attention's 64): the consumer's
// tiles are one register tile, its rows by its vectors across x in one split vectorized whole
// and shifted inwards, so the accumulator's region is the tile and of constant size; a blocked
// reduction keeps blocks of 32 rows by 16 vectors. The heuristic computes the scores right.
TEST(FamilyTemplates, AShortReductionTilesTheConsumerByOneRegisterTile) {
  const TargetInfo avx512 = testing::avx512_test_target();
  const auto bmm = testing::suite_subgraph("bmm_scores");
  const Analysis a = analyze(*bmm, avx512);
  const StageAnalysis& s = a.find("S")->stages[0];
  EXPECT_EQ(matmul_register_rows(avx512), 4);
  const TilingChoice one_tile = matmul_consumer_choice(s, 64, avx512, false);
  EXPECT_EQ(one_tile.second_tile, 4);
  EXPECT_EQ(one_tile.vector_width, 4 * 16);
  EXPECT_EQ(one_tile.inner_tile, 0);
  const TilingChoice blocked = matmul_consumer_choice(s, 1024, avx512, false);
  EXPECT_EQ(blocked.second_tile, 32);
  EXPECT_EQ(blocked.vector_width, 16);
  EXPECT_GT(blocked.inner_tile, 4 * 16);
  EXPECT_FALSE(matmul_reduction_blocked(2 * kReductionBlock));
  EXPECT_TRUE(matmul_reduction_blocked(2 * kReductionBlock + 1));

  const Space space(analyze(*bmm, avx512));
  const Schedule heuristic = space.heuristic();
  EXPECT_EQ(heuristic.find("S_acc")->compute, (ComputeLocation{ComputeLocation::Kind::kAt, "S", 0, "x_o"}));
  const std::vector<LoopSplit>& splits = heuristic.find("S")->stages[0].splits;
  EXPECT_EQ(splits.at(0), (LoopSplit{"x", "x_o", "x_i", 64, Tail::kShiftInwards})) << heuristic.to_json().dump();
  EXPECT_EQ(splits.at(1), (LoopSplit{"y", "y_o", "y_i", 4, Tail::kShiftInwards})) << heuristic.to_json().dump();

  const Space small_space(analyze(*bmm, testing::test_target()));
  const auto inputs = bmm->make_inputs(7);
  EXPECT_EQ(testing::run_and_compare(*bmm, small_space.analysis(), small_space.heuristic(), inputs, bmm->reference(inputs)),
            "");
}

}  // namespace
}  // namespace ktune::scheduler
