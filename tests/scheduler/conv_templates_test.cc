// Tests scheduler/conv_templates.cc: the layouts a convolution is recognised in (from the
// analysis), the register tiles per target, and the channel layout the heuristic takes in
// NCHW and NHWC, run against the reference.
#include "scheduler/conv_templates.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "scheduler/space.h"
#include "scheduler/stage_template.h"

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(ConvTemplates, TheLayoutIsWhereTheWeightsAloneAreIndexed) {
  const TargetInfo t = testing::test_target();
  const auto nchw = testing::suite_subgraph("conv3x3_relu");
  const Analysis a = analyze(*nchw, t);
  EXPECT_EQ(conv_layout(*a.find("conv_acc")), (ConvLayout{2, 0, 1})) << "channels c, columns x, rows y";
  const auto nhwc = testing::layout_subgraph("conv3x3_nhwc_relu");
  const Analysis b = analyze(*nhwc, t);
  EXPECT_EQ(conv_layout(*b.find("conv_acc")), (ConvLayout{0, 1, 2})) << "channels x, columns y, rows c";
  // A depthwise convolution reads its activations per output channel; a matmul has one
  // reduction loop; a pure Func has none.
  const auto dw = testing::suite_subgraph("dwconv3x3_relu");
  const Analysis d = analyze(*dw, t);
  for (const FuncAnalysis& f : d.funcs) EXPECT_FALSE(conv_layout(f).has_value()) << f.name;
  const auto gemm = testing::suite_subgraph("gemm_1024");
  EXPECT_FALSE(conv_layout(*analyze(*gemm, t).find("C_acc")).has_value());
  EXPECT_FALSE(conv_layout(*a.find("conv_pad")).has_value());
}

// A convolution's register tile holds 8 output channels on AVX-512 (4 on AVX2); its
// consumer's block holds four register tiles, unrolled where that is at most 16 channels.
TEST(ConvTemplates, RegisterTilesFollowTheTargetsRegisters) {
  const auto conv = testing::suite_subgraph("conv3x3_relu");
  for (const TargetInfo& t : {testing::test_target(), testing::avx512_test_target()}) {
    const Analysis cva = analyze(*conv, t);
    const FuncAnalysis& acc = *cva.find("conv_acc");
    const StageSchedule update = conv_update_stage(acc, acc.stages[1], *conv_layout(acc), t);
    const TilingChoice block = conv_consumer_choice(cva.find("y")->stages[0], t);
    const int64_t registers = t.vector_registers == 32 ? 8 : 4;
    ASSERT_EQ(update.splits.size(), 3u);
    EXPECT_EQ(update.splits[2].loop, "c");
    EXPECT_EQ(update.splits[2].factor, registers);
    EXPECT_EQ(block.third_tile, kConvRegisterTilesPerBlock * registers);
    const StageSchedule consumer = make_stage(cva.find("y")->stages[0], block);
    const bool unrolled = std::count(consumer.unroll.begin(), consumer.unroll.end(), "c_i") == 1;
    EXPECT_EQ(unrolled, block.third_tile <= 16) << block.third_tile << " channels";
  }
  // Half the register file: 8 columns of two vectors with 32 registers, 4 with 16.
  EXPECT_EQ(conv_channel_columns(testing::avx512_test_target()), 8);
  EXPECT_EQ(conv_channel_columns(testing::test_target()), 4);
}

// An NCHW convolution whose output channels fill blocks of two vectors is scheduled as oneDNN
// blocks it (bench/expert/conv3x3_relu.json): its output in blocks of channels by columns,
// the accumulator per block stored with its channels innermost, the weights packed with the
// output channels innermost.
TEST(ConvTemplates, NchwChannelsThatFillBlocksAreVectorizedAlongThem) {
  const auto conv = testing::suite_subgraph("conv3x3_relu");
  const Space space(analyze(*conv, testing::avx512_test_target()));
  const Schedule s = space.heuristic();
  const StageSchedule& y = s.find("y")->stages.at(0);
  ASSERT_EQ(y.splits.size(), 3u);
  // The tiles host the accumulator: their last ones shift inwards (tail_strategy.h).
  EXPECT_EQ(y.splits[0], (LoopSplit{"x", "x_o", "x_i", 8, Tail::kShiftInwards}));
  EXPECT_EQ(y.splits[1], (LoopSplit{"c", "c_t", "c_i", 16, Tail::kShiftInwards}));
  EXPECT_EQ(y.splits[2], (LoopSplit{"c_t", "c_b", "c_m", kConvChannelVectors, Tail::kShiftInwards}));
  // With AVX-512 the block's 8 columns are the vector (gathered from the block), its 16
  // channels unrolled: stored a vector of columns at a time, not scattered over the planes.
  EXPECT_EQ(y.order, (std::vector<std::string>{"x_i", "c_i", "c_m", "c_b", "x_o", "y", "n"}));
  EXPECT_EQ(y.parallel, (std::vector<std::string>{"n", "y"}));
  EXPECT_EQ(y.vectorize, "x_i");
  EXPECT_EQ(y.unroll, std::vector<std::string>{"c_i"});
  EXPECT_EQ(channel_block_loop(space.analysis().find("y")->stages[0], y), "c_b");
  const Space avx2(analyze(*conv, testing::test_target()));
  EXPECT_EQ(avx2.heuristic().find("y")->stages.at(0).vectorize, "c_i") << "without AVX-512's gathers, the channels";

  const FuncSchedule& acc = *s.find("conv_acc");
  EXPECT_EQ(acc.compute, (ComputeLocation{ComputeLocation::Kind::kAt, "y", 0, "c_b"}));
  EXPECT_EQ(acc.storage, (std::vector<std::string>{"c", "x", "y", "n"}));
  ASSERT_EQ(acc.stages.size(), 2u);
  EXPECT_EQ(acc.stages[0].vectorize, "c_i");
  EXPECT_EQ(acc.stages[1].order,
            (std::vector<std::string>{"c_i", "c_o", "x_i", "r$z", "r$y", "r$x", "x_o", "y", "n"}))
      << "the window inside the input channels, inside the block";
  EXPECT_EQ(acc.stages[1].unroll, (std::vector<std::string>{"c_o", "x_i"}));
  ASSERT_EQ(s.packs.size(), 1u);
  EXPECT_EQ(s.packs[0].input, "w");
  EXPECT_EQ(s.packs[0].storage, (std::vector<std::string>{"w", "x", "y", "z"}));
  EXPECT_EQ(s.packs[0].compute.kind, ComputeLocation::Kind::kRoot);
  EXPECT_TRUE(s.packs[0].parallel);
  // The padded input stored and computed with its channels innermost.
  const FuncSchedule& pad = *s.find("conv_pad");
  EXPECT_EQ(pad.storage, (std::vector<std::string>{"c", "x", "y", "n"}));
  ASSERT_EQ(pad.stages.size(), 1u);
  EXPECT_EQ(pad.stages[0].splits, (std::vector<LoopSplit>{{"c", "c_o", "c_i", 16}}));
  EXPECT_EQ(pad.stages[0].order, (std::vector<std::string>{"c_i", "x", "c_o", "y", "n"}));
  EXPECT_EQ(pad.stages[0].parallel, (std::vector<std::string>{"n", "y"}));
  EXPECT_EQ(pad.stages[0].vectorize, "c_i");
  EXPECT_EQ(space.validate(s).value_or(""), "");
}

// The same blocking in NHWC (bench/expert/conv3x3_nhwc_relu.json), where the channels are
// the first loop: no storage order and no pack are needed, the HWIO weights have the
// output channels innermost already.
TEST(ConvTemplates, NhwcChannelsThatFillBlocksAreVectorizedAlongThemInPlace) {
  const auto conv = testing::layout_subgraph("conv3x3_nhwc_relu");
  const Space space(analyze(*conv, testing::avx512_test_target()));
  const Schedule s = space.heuristic();
  const StageSchedule& y = s.find("y")->stages.at(0);
  ASSERT_EQ(y.splits.size(), 3u);
  EXPECT_EQ(y.splits[0], (LoopSplit{"y", "y_o", "y_i", 8, Tail::kShiftInwards}));
  EXPECT_EQ(y.splits[1], (LoopSplit{"x", "x_t", "x_i", 16, Tail::kShiftInwards}));
  EXPECT_EQ(y.splits[2], (LoopSplit{"x_t", "x_b", "x_m", kConvChannelVectors, Tail::kShiftInwards}));
  EXPECT_EQ(y.order, (std::vector<std::string>{"x_i", "y_i", "x_m", "x_b", "y_o", "c", "n"}));
  EXPECT_EQ(y.parallel, (std::vector<std::string>{"n", "c"})) << "the rows and the batch";
  EXPECT_EQ(y.vectorize, "x_i");

  const FuncSchedule& acc = *s.find("conv_acc");
  EXPECT_EQ(acc.compute, (ComputeLocation{ComputeLocation::Kind::kAt, "y", 0, "x_b"}));
  EXPECT_TRUE(acc.storage.empty());
  ASSERT_EQ(acc.stages.size(), 2u);
  EXPECT_EQ(acc.stages[0].order, (std::vector<std::string>{"x_i", "x_o", "y", "c", "n"}));
  EXPECT_EQ(acc.stages[1].order,
            (std::vector<std::string>{"x_i", "x_o", "y_i", "r$z", "r$y", "r$x", "y_o", "c", "n"}));
  EXPECT_EQ(acc.stages[1].unroll, (std::vector<std::string>{"x_o", "y_i"}));
  EXPECT_TRUE(s.packs.empty());
  EXPECT_TRUE(s.find("conv_pad")->storage.empty()) << "its channels are innermost already";
  EXPECT_EQ(space.validate(s).value_or(""), "");
}

// An ordinary tiling of an NHWC output also splits x into x_t, x_o and x_m; only the channel
// layout's "_b" piece is a block of channels.
TEST(ConvTemplates, OnlyTheChannelLayoutWalksBlocksOfChannels) {
  const auto conv = testing::layout_subgraph("conv3x3_nhwc_relu");
  const Analysis a = analyze(*conv, testing::avx512_test_target());
  const StageAnalysis& y = a.find("y")->stages[0];
  TilingChoice tiles;
  tiles.vector_width = 16;
  tiles.inner_tile = 32;
  tiles.second_tile = 2;
  const StageSchedule tiled = make_stage(y, tiles);
  ASSERT_EQ(tiled.vectorize, "x_i");
  EXPECT_FALSE(channel_block_loop(y, tiled).has_value());
  const ConvLayout layout = *conv_layout(*a.find("conv_acc"));
  EXPECT_FALSE(at_channel_block(a, ComputeLocation{ComputeLocation::Kind::kAt, "y", 0, "x_o"}, layout));
  EXPECT_TRUE(at_channel_block(a, ComputeLocation{ComputeLocation::Kind::kAt, "y", 0, "x_b"}, layout));
}

// NCHW activations read along their third dimension (the input channels) are the padded
// input, or the input itself where there is no padding (then packed); NHWC's are innermost.
TEST(ConvTemplates, StridedActivationsAreTheReadOfTheInputChannels) {
  const TargetInfo t = testing::test_target();
  const auto nchw = testing::suite_subgraph("conv3x3_relu");
  const Analysis a = analyze(*nchw, t);
  const FuncAnalysis& acc = *a.find("conv_acc");
  const std::optional<StridedActivations> read = strided_activations(acc, *conv_layout(acc));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->name, "conv_pad");
  EXPECT_EQ(read->func, a.index_of("conv_pad"));
  EXPECT_EQ(read->channel_dim, 2);
  EXPECT_FALSE(conv_activation_pack(a, acc, *conv_layout(acc)).has_value()) << "a Func, not an input";

  const auto nhwc = testing::layout_subgraph("conv3x3_nhwc_relu");
  const Analysis b = analyze(*nhwc, t);
  EXPECT_FALSE(strided_activations(*b.find("conv_acc"), ConvLayout{0, 1, 2}).has_value());

  const auto unpadded = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [1, 8, 12, 12]},
    {"name": "w", "shape": [16, 8, 3, 3]}],
    "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "y", "layout": "NCHW"}], "outputs": ["y"]})");
  const Analysis u = analyze(*unpadded, t);
  const FuncAnalysis& uacc = *u.find("y_acc");
  const std::optional<InputPack> pack = conv_activation_pack(u, uacc, *conv_layout(uacc));
  ASSERT_TRUE(pack.has_value());
  EXPECT_EQ(pack->input, "x");
  EXPECT_EQ(pack->storage, (std::vector<std::string>{"z", "x", "y", "w"}));
}

// 24 output channels fill no block of two 16-lane vectors: the output is vectorized along x
// and the accumulator computed per tile, in the definition's order, the weights unpacked.
TEST(ConvTemplates, FewerChannelsStayVectorizedAlongX) {
  const auto conv = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [1, 8, 20, 40]},
    {"name": "w", "shape": [24, 8, 3, 3]}],
    "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "conv", "layout": "NCHW", "padding": [1, 1]},
            {"op": "relu", "inputs": ["conv"], "output": "y"}], "outputs": ["y"]})");
  const Space space(analyze(*conv, testing::avx512_test_target()));
  ASSERT_FALSE(conv_channel_blocks_fit(space.analysis().find("y")->stages[0], ConvLayout{}, testing::avx512_test_target()));
  const Schedule s = space.heuristic();
  const FuncSchedule* acc = s.find("conv_acc");
  ASSERT_NE(acc, nullptr) << s.to_json().dump();
  EXPECT_EQ(acc->compute.loop, "x_o");
  EXPECT_TRUE(acc->storage.empty());
  EXPECT_EQ(s.find("y")->stages.at(0).vectorize, "x_i");
  EXPECT_TRUE(s.packs.empty());
}

// NCHW convolutions the channel layout does not suit, each with a bias and a ReLU after it:
// a 1x1 one, one of 3 input channels, one whose 24 output channels fill no block of 32. The
// consumer is vectorized along the columns in tiles of two rows by a register tile of
// channels, every block of channels inside a row's tiles, the accumulator per tile, the
// input channels innermost in its update, the input and the weights read in place; the
// heuristic computes each right (20 columns in 16-lane vectors). conv3x3_relu and an NHWC
// 1x1 keep the channel layout.
TEST(ConvTemplates, NchwConvsTheChannelLayoutDoesNotSuitAreTiledAlongTheirColumns) {
  const TargetInfo t = testing::avx512_test_target();
  const struct {
    const char* x_shape;
    const char* w_shape;
    int filters;
    const char* padding;
  } cases[] = {{"[1, 16, 6, 20]", "[32, 16, 1, 1]", 32, "[0, 0]"},
               {"[1, 3, 6, 20]", "[32, 3, 3, 3]", 32, "[1, 1]"},
               {"[1, 16, 6, 20]", "[24, 16, 3, 3]", 24, "[1, 1]"}};
  for (const auto& c : cases) {
    const auto sg = testing::spec_subgraph(std::string(R"({"inputs": [{"name": "x", "shape": )") + c.x_shape +
                                           R"(}, {"name": "w", "shape": )" + c.w_shape + R"(}, {"name": "b", "shape": [)" +
                                           std::to_string(c.filters) + R"(]}],
      "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "conv", "layout": "NCHW", "padding": )" + c.padding + R"(},
              {"op": "bias_add", "inputs": ["conv", "b"], "output": "biased", "axis": 1},
              {"op": "relu", "inputs": ["biased"], "output": "y"}], "outputs": ["y"]})");
    const Space space(analyze(*sg, t));
    const Analysis& a = space.analysis();
    ASSERT_TRUE(suits_column_tiles(*a.find("conv_acc"), a.find("y")->stages[0], t)) << c.w_shape;
    if (const FuncAnalysis* pad = a.find("conv_pad")) {
      // Stored by channel (as a sampled schedule may), the split is at most the channels.
      const int64_t channels = pad->stages[0].pure_loop(2)->extent;
      EXPECT_EQ(channels_innermost_stage(pad->stages[0], 2, t).splits.at(0).factor, std::min<int64_t>(16, channels));
    }
    const Schedule s = space.heuristic();
    const StageSchedule& y = s.find("y")->stages.at(0);
    EXPECT_EQ(y.vectorize, "x_i") << c.w_shape;
    EXPECT_EQ(y.order, (std::vector<std::string>{"x_i", "y_i", "c_i", "x_o", "c_o", "y_o", "n"})) << s.to_json().dump();
    const FuncSchedule& acc = *s.find("conv_acc");
    EXPECT_EQ(acc.compute.loop, "x_o") << c.w_shape;
    ASSERT_EQ(acc.stages.size(), 2u) << s.to_json().dump();
    const std::vector<std::string>& order = acc.stages[1].order;
    const auto first_reduction = std::find_if(order.begin(), order.end(), [](const std::string& l) { return l.rfind("r$", 0) == 0; });
    ASSERT_NE(first_reduction, order.end());
    EXPECT_EQ(*first_reduction, "r$x") << "the input channels (the RDom's first dimension) innermost";
    EXPECT_TRUE(s.packs.empty()) << s.to_json().dump();
    const auto inputs = sg->make_inputs(7);
    EXPECT_EQ(testing::run_and_compare(*sg, a, s, inputs, sg->reference(inputs)), "") << c.w_shape;
  }
  // One row of 4 channels: the tiles that do not fit are left out, and the heuristic is right.
  const auto thin = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [1, 8, 1, 20]}, {"name": "w", "shape": [4, 8, 1, 1]}],
    "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "y", "layout": "NCHW"}], "outputs": ["y"]})");
  const Space thin_space(analyze(*thin, t));
  ASSERT_TRUE(suits_column_tiles(*thin_space.analysis().find("y_acc"), thin_space.analysis().find("y")->stages[0], t));
  const Schedule ts = thin_space.heuristic();
  EXPECT_EQ(ts.find("y")->stages.at(0).splits,
            (std::vector<LoopSplit>{{"x", "x_o", "x_i", 16, Tail::kShiftInwards}, {"c", "c_o", "c_i", 4, Tail::kShiftInwards}})) << ts.to_json().dump();
  const auto thin_inputs = thin->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*thin, thin_space.analysis(), ts, thin_inputs, thin->reference(thin_inputs)), "");

  const Analysis suite = analyze(*testing::suite_subgraph("conv3x3_relu"), t);
  EXPECT_FALSE(suits_column_tiles(*suite.find("conv_acc"), suite.find("y")->stages[0], t));
  const auto nhwc = testing::spec_subgraph(R"({"inputs": [{"name": "x", "shape": [1, 6, 20, 16]},
    {"name": "w", "shape": [1, 1, 16, 32]}],
    "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "y", "layout": "NHWC"}], "outputs": ["y"]})");
  const Analysis n = analyze(*nhwc, t);
  EXPECT_FALSE(suits_column_tiles(*n.find("y_acc"), n.find("y")->stages[0], t));
}

// 8-bit NHWC convolutions read their weights in blocks of four input channels
// (subgraphs/ops/conv.cc), which gives VNNI's dot products their operand: on a target with
// them, the heuristic splits the input channels into dot products inside the vector of
// output channels, keeps the blocked weights at root and inlines the zero padding, which
// each dot product reads as a 4-byte broadcast.
TEST(ConvTemplates, EightBitNhwcConvolutionsTakeDotProductsOverBlockedWeights) {
  const auto int8_conv = [](const char* channels) {
    return testing::spec_subgraph(std::string(R"({"inputs": [{"name": "x", "shape": [1, 6, 20, )") + channels +
                                  R"(], "dtype": "u8"}, {"name": "w", "shape": [3, 3, )" + channels +
                                  R"(, 32], "dtype": "i8"}],
      "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "conv", "layout": "NHWC", "padding": 1},
              {"op": "relu", "inputs": ["conv"], "output": "y"}], "outputs": ["y"]})");
  };
  TargetInfo vnni = testing::avx512_test_target();
  vnni.halide_target = "x86-64-linux-avx-avx2-avx512-avx512_cannonlake-avx512_sapphirerapids-avx512_skylake-f16c-fma-sse41";
  const auto conv = int8_conv("16");
  const Space space(analyze(*conv, vnni));
  const FuncAnalysis& acc = *space.analysis().find("conv_acc");
  ASSERT_NE(space.analysis().find("conv_w_quads"), nullptr);
  EXPECT_TRUE(conv_uses_dot_products(acc, acc.stages[1], vnni));
  EXPECT_FALSE(conv_uses_dot_products(acc, acc.stages[1], testing::avx512_test_target())) << "no VNNI";
  EXPECT_EQ(analyze(*int8_conv("6"), vnni).find("conv_w_quads"), nullptr) << "6 input channels make no fours";

  const Schedule s = space.heuristic();
  const StageSchedule& update = s.find("conv_acc")->stages.at(1);
  EXPECT_EQ(update.vector_reduce, "r_x_vr") << s.to_json().dump();
  ASSERT_GE(update.order.size(), 2u);
  EXPECT_EQ(update.order[0], "r_x_vr");
  EXPECT_EQ(update.order[1], update.vectorize);
  EXPECT_EQ(s.find("conv_pad")->compute.kind, ComputeLocation::Kind::kInline);
  EXPECT_EQ(s.find("conv_w_quads")->compute.kind, ComputeLocation::Kind::kRoot);
  EXPECT_EQ(space.validate(s).value_or(""), "");
  const auto inputs = conv->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*conv, space.analysis(), s, inputs, conv->reference(inputs)), "");

  // Without VNNI: no dot products, and the padding at root as for other convolutions.
  const Schedule plain = Space(analyze(*conv, testing::avx512_test_target())).heuristic();
  EXPECT_TRUE(plain.find("conv_acc")->stages.at(1).vector_reduce.empty());
  EXPECT_NE(plain.find("conv_pad")->compute.kind, ComputeLocation::Kind::kInline);
}


// The channel layout computes the convolution right where its columns leave a tail (10
// columns in blocks of 4) and with a bias and a ReLU fused after it (8 lanes, 16
// registers), in both layouts, and with NCHW activations packed by channel where there is
// no padded input to store so.
TEST(ConvTemplates, ConvolutionsInBlocksOfChannelsAreCorrect) {
  const struct {
    const char* layout;
    const char* x_shape;
    const char* w_shape;
    int bias_axis;
    const char* block;
    const char* padding;
    size_t packs;
  } cases[] = {{"NCHW", "[2, 8, 6, 10]", "[32, 8, 3, 3]", 1, "c_b", "[1, 1]", 1},
               {"NCHW", "[2, 8, 6, 12]", "[32, 8, 3, 3]", 1, "c_b", "[0, 0]", 2},
               {"NHWC", "[2, 6, 10, 8]", "[3, 3, 8, 32]", 3, "x_b", "[1, 1]", 0}};
  for (const auto& c : cases) {
    const auto sg = testing::spec_subgraph(std::string(R"({"inputs": [{"name": "x", "shape": )") + c.x_shape +
                                           R"(}, {"name": "w", "shape": )" + c.w_shape +
                                           R"(}, {"name": "b", "shape": [32]}],
      "ops": [{"op": "conv2d", "inputs": ["x", "w"], "output": "conv", "layout": ")" + c.layout +
                                           R"(", "padding": )" + c.padding + R"(},
              {"op": "bias_add", "inputs": ["conv", "b"], "output": "biased", "axis": )" +
                                           std::to_string(c.bias_axis) + R"(},
              {"op": "relu", "inputs": ["biased"], "output": "y"}], "outputs": ["y"]})");
    const Space space(analyze(*sg, testing::test_target()));
    const Schedule s = space.heuristic();
    ASSERT_EQ(s.find("conv_acc")->compute.loop, c.block) << c.layout << ": " << s.to_json().dump();
    EXPECT_EQ(s.packs.size(), c.packs) << c.layout << " padding " << c.padding << ": the weights, and unpadded NCHW activations";
    const auto inputs = sg->make_inputs(7);
    EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "") << c.layout;
  }
}

}  // namespace
}  // namespace ktune::scheduler
