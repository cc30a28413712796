// The heuristic for image pipelines: the output in parallel strips of rows, its stencil
// producers as sliding windows, long chains cut into groups led by Funcs at root.
#include "scheduler/image_strips.h"
#include "scheduler/window_folds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// A chain of `n` 3-tap stencils down the columns of a 64 x `rows` image, then a ReLU.
std::string column_chain(int n, int rows) {
  std::string ops;
  std::string in = "in";
  for (int k = 0; k < n; ++k) {
    const std::string out = "s" + std::to_string(k);
    ops += R"({"op": "stencil", "inputs": [")" + in + R"("], "output": ")" + out +
           R"(", "axes": [0], "weights": [1, 2, 1], "divisor": 4}, )";
    in = out;
  }
  return R"({"name": "chain", "inputs": [{"name": "in", "shape": [)" + std::to_string(rows + 2 * n) +
         R"(, 64]}], "ops": [)" + ops + R"({"op": "relu", "inputs": [")" + in + R"("], "output": "out"}], "outputs": ["out"]})";
}

TEST(StripRows, AboutFourStripsPerCoreBetween8And256Rows) {
  EXPECT_EQ(strip_rows(1024, 2), 128);
  EXPECT_EQ(strip_rows(100, 2), 8);
  EXPECT_EQ(strip_rows(1 << 20, 16), 256);
  EXPECT_EQ(strip_rows(1024, 2, 16), 32) << "16 strips per core";
  EXPECT_EQ(strip_rows(1024, 2, 2), 256) << "2 strips per core";
}

// The tuner measures the heuristic's strips at the other counts per core first: each variant
// differs from the heuristic in its strip height alone and validates. A pipeline without
// strips has none.
TEST(ImageStrips, TheHeuristicsStripVariantsTakeOtherStripHeights) {
  const auto sg = testing::spec_subgraph(column_chain(3, 512));
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  const auto strip_height = [](const Schedule& s) { return s.find("out")->stages.at(0).splits.at(1).factor; };
  ASSERT_EQ(strip_height(h), 64);
  std::vector<int64_t> heights;
  const std::vector<Schedule> variants = space.strip_variants();
  ASSERT_EQ(variants.size(), 4u);
  for (const Schedule& v : variants) {
    EXPECT_EQ(space.validate(v).value_or(""), "");
    heights.push_back(strip_height(v));
  }
  EXPECT_EQ(heights, (std::vector<int64_t>{128, 32, 16, 64}));
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(variants[k].find("s0")->compute.store_loop, h.find("s0")->compute.store_loop);
  // The last computes the stencils per strip at the heuristic's height instead of sliding them.
  EXPECT_FALSE(variants[3].find("s0")->compute.sliding());
  EXPECT_EQ(variants[3].find("s0")->compute.loop, h.find("out")->stages.at(0).splits.at(1).outer);
  EXPECT_TRUE(Space(analyze(*testing::spec_subgraph(testing::kTwoPointwiseSpec), testing::test_target()))
                  .strip_variants()
                  .empty());
}

TEST(StripStage, ChannelsRunInsideEachRowAndTheStripsInParallel) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [3, 96, 64]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "y"}], "outputs": ["y"]})");
  const Analysis a = analyze(*sg, testing::test_target());
  const FuncAnalysis& y = a.funcs.back();
  const std::optional<StageSchedule> st = strip_stage(y, 8, 16);
  ASSERT_TRUE(st.has_value());
  const std::string c = y.stages[0].pure_loop(2)->name;
  // The channels are unrolled just outside the vector (split by their extent: a piece of
  // constant extent).
  EXPECT_EQ(st->order, (std::vector<std::string>{"x_i", c + "_i", c + "_o", "x_o", "y_i", "y_o"}));
  EXPECT_EQ(st->unroll, (std::vector<std::string>{c + "_i"}));
  EXPECT_EQ(st->splits[1].loop, "y");
  EXPECT_EQ(st->parallel, (std::vector<std::string>{"y_o"}));
  EXPECT_EQ(st->vectorize, "x_i");
  EXPECT_EQ(st->splits[1].tail, Tail::kShiftInwards);
  // A third loop of 64 is no channel loop: no strips.
  const auto wide = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [64, 96, 64]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "y"}], "outputs": ["y"]})");
  EXPECT_FALSE(strip_stage(analyze(*wide, testing::test_target()).funcs.back(), 8, 16).has_value());
}

TEST(ImageStrips, TheHeuristicSlidesEveryStencilOfAShortChainAlongTheOutputsStrips) {
  const auto sg = testing::spec_subgraph(column_chain(3, 128));
  Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "");
  for (const char* f : {"s0", "s1"}) {
    EXPECT_TRUE(h.find(f)->compute.sliding()) << f;
    EXPECT_EQ(h.find(f)->compute.consumer, "out") << f;
  }
  // The ReLU reads s2 at one point: s2 is inlined into it.
  EXPECT_EQ(h.find("s2")->compute.kind, ComputeLocation::Kind::kInline);
  EXPECT_EQ(h.find("out")->stages[0].parallel.size(), 1u);
  // s1 reads 3 rows of s0 per row: 4 rows kept, reused in turn.
  EXPECT_EQ(h.find("s0")->compute.fold_rows, 4);
  // Each row of a window of f32 padded to a cache line of 16 values.
  EXPECT_EQ(h.find("s0")->compute.row_alignment, 16);
  EXPECT_EQ(h.find("s1")->compute.row_alignment, 16);
  const auto inputs = sg->make_inputs(7);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

TEST(ImageStrips, ALongChainIsCutIntoGroupsWhereItsHaloOutgrowsHalfAStrip) {
  // 64 rows on 2 cores: strips of 8 rows, so a window may add at most 4 rows of halo
  // (2 stencils of radius 1): the chain is led again every third stencil.
  const auto sg = testing::spec_subgraph(column_chain(10, 64));
  Space space(analyze(*sg, testing::test_target()));
  Schedule s = space.naive();
  ASSERT_TRUE(apply_image_strips(space.analysis(), s));
  int leaders = 0, windows = 0;
  for (const FuncSchedule& f : s.funcs) {
    if (f.func == "out") continue;
    if (f.compute.kind == ComputeLocation::Kind::kRoot) {
      ++leaders;
      ASSERT_FALSE(f.stages.empty()) << f.func;
      EXPECT_EQ(f.stages[0].parallel.size(), 1u) << f.func << " leads a group in strips of its own";
    }
    windows += f.compute.sliding();
  }
  EXPECT_EQ(leaders, 3);
  EXPECT_EQ(windows, 6);  // s9, read at one point by the ReLU, is inlined into it
  EXPECT_EQ(s.find("s9")->compute.kind, ComputeLocation::Kind::kInline);
  ASSERT_EQ(space.validate(s).value_or(""), "");
  const auto inputs = sg->make_inputs(9);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

// A chain whose halo stays small is still cut where a group would nest more than 12
// windows: Halide's bounds inference and LLVM take time superlinear in their depth.
TEST(ImageStrips, AGroupNestsAtMostTwelveWindows) {
  const auto sg = testing::spec_subgraph(column_chain(20, 2048));
  Space space(analyze(*sg, testing::test_target()));
  Schedule s = space.naive();
  ASSERT_TRUE(apply_image_strips(space.analysis(), s));
  std::map<std::string, int> windows_of;
  int leaders = 0;
  for (const FuncSchedule& f : s.funcs) {
    if (f.compute.kind == ComputeLocation::Kind::kRoot) ++leaders;
    if (f.compute.sliding()) ++windows_of[f.compute.consumer];
  }
  EXPECT_EQ(leaders, 2);
  for (const auto& [leader, windows] : windows_of) EXPECT_LE(windows, 12) << leader;
  ASSERT_EQ(space.validate(s).value_or(""), "");
  const auto inputs = sg->make_inputs(2);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

// ktune_camera_raw reads its raw samples through Halide's mirror_interior, whose index
// arithmetic the interior does not pay (Halide partitions the loops at likely()): it is
// inlined, not copied into a window. Its Bayer planes and the stages after them, at half the
// output's resolution, slide down the strip in 8 rows each, not in a buffer of the strip's
// rows (Halide folds none of them by itself, and bounds a half row loosely).
TEST(ImageStrips, ABayerPipelinesHalfResolutionWindowsAreFoldedAndItsBoundaryConditionInlined) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_camera_raw",
                                                     {{"width", "256"}, {"height", "256"}});
  const Space space(analyze(*sg, testing::test_target()));
  const FuncAnalysis* mirror = space.analysis().find("mirror_interior");
  ASSERT_NE(mirror, nullptr);
  ASSERT_EQ(mirror->stages[0].uses.size(), 1u);
  EXPECT_TRUE(mirror->stages[0].uses[0].likely_index);
  EXPECT_FALSE(space.analysis().find("planes")->stages[0].uses[0].likely_index);
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "");
  EXPECT_EQ(h.find("mirror_interior")->compute.kind, ComputeLocation::Kind::kInline);
  for (const char* f : {"planes", "linear", "g_at_r", "g_at_b"}) {
    const ComputeLocation& at = h.find(f)->compute;
    EXPECT_TRUE(at.sliding()) << f;
    EXPECT_EQ(at.fold_rows, 8) << f;
  }
  const auto inputs = sg->make_inputs(5);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

// ktune_stencil_chain's first stage reads 9 points of its repeat_edge boundary condition.
// Inlined, the boundary's likely() would make Halide compile every strip twice and gather
// the first and last strips' points lane by lane: it slides down the strips as a window of
// its own, its vectors rounded up (it reads the input clamped to the input's bounds).
TEST(ImageStrips, ABoundaryConditionThatAStencilReadsGetsAWindow) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_stencil_chain",
                                                     {{"width", "128"}, {"height", "96"}});
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "");
  const FuncSchedule* edge = h.find("repeat_edge");
  ASSERT_NE(edge, nullptr);
  EXPECT_TRUE(edge->compute.sliding());
  ASSERT_FALSE(edge->stages.empty());
  ASSERT_FALSE(edge->stages[0].splits.empty());
  EXPECT_EQ(edge->stages[0].splits[0].tail, Tail::kRoundUp);
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

// A demosaic reads half-resolution Bayer planes at y / 2: the output's strips are walked two
// rows at a time, and the planes' windows are computed per walk.
TEST(ImageStrips, WindowsAtHalfTheRowsAreComputedPerPairOfRows) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_camera_raw",
                                                     {{"width", "256"}, {"height", "192"}});
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "");
  const FuncSchedule* output = h.find("output");
  ASSERT_NE(output, nullptr);
  const StageSchedule& st = output->stages.front();
  const LoopSplit& walk = st.splits.back();
  EXPECT_EQ(walk.loop, st.splits[1].inner);
  EXPECT_EQ(walk.factor, 2);
  int windows_per_walk = 0;
  for (const FuncSchedule& f : h.funcs) {
    if (!f.compute.sliding()) continue;
    EXPECT_EQ(f.compute.loop, walk.outer) << f.func;
    ++windows_per_walk;
  }
  EXPECT_GT(windows_per_walk, 0);
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

TEST(ImageStrips, AChainAtOneResolutionIsWalkedRowByRow) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_stencil_chain",
                                                     {{"width", "128"}, {"height", "96"}});
  const Schedule h = Space(analyze(*sg, testing::test_target())).heuristic();
  int windows = 0;
  for (const FuncSchedule& f : h.funcs) {
    if (!f.compute.sliding()) continue;
    const StageSchedule& host = h.find(f.compute.consumer)->stages.front();
    EXPECT_EQ(f.compute.loop, host.splits[1].inner) << f.func;
    ++windows;
  }
  EXPECT_GT(windows, 0);
}

// Non-local means sums weights over a search window into each pixel: no stencil slides, but
// the sums, the weights they share across the colour channels and the patch distances the
// weights read are computed per strip of the output, not at root in passes of their own.
TEST(ImageStrips, PerPixelSumsAndTheWeightsTheyShareAreComputedPerStrip) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_patch_search",
                                                     {{"width", "64"}, {"height", "64"}, {"stride", "8"}});
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "");
  const FuncSchedule* output = h.find("output");
  ASSERT_NE(output, nullptr);
  ASSERT_EQ(output->stages.front().parallel.size(), 1u);
  const std::string strip = output->stages.front().parallel.front();
  EXPECT_EQ(strip, output->stages.front().splits[1].outer) << "in parallel over strips of rows, not channels";
  for (const char* name : {"weighted", "total_weight", "weight", "offset_diff"}) {
    const FuncSchedule* f = h.find(name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->compute.kind, ComputeLocation::Kind::kAt) << name << " (the weight is read once per channel)";
    EXPECT_EQ(f->compute.loop, strip) << name;
    for (const StageSchedule& st : f->stages) EXPECT_TRUE(st.parallel.empty()) << name;
    ASSERT_FALSE(f->stages.empty()) << name;
    EXPECT_EQ(f->stages.front().vectorize, "x_i") << name;
  }
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

// Strips computed whole: the depth filter's blurred levels are computed over each strip
// before the output reads them, not slid row by row, and the horizontal pass of each level,
// which only its vertical pass reads, is inlined there. The heuristic keeps its windows.
TEST(ImageStrips, StripsComputedWholeComputeEachLevelPerStripAndInlineItsFirstPass) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_depth_blur",
                                                     {{"width", "128"}, {"height", "256"}});
  const Space space(analyze(*sg, testing::test_target()));
  Schedule whole = space.heuristic();
  EXPECT_TRUE(whole.find("blurred_0")->compute.sliding()) << "the heuristic slides its windows";
  ASSERT_TRUE(apply_image_strips(space.analysis(), whole, kStripsPerCore, StripProducers::kWholeStrips));
  ASSERT_EQ(space.validate(whole).value_or(""), "");
  const std::string strip = whole.find("output")->stages.at(0).splits.at(1).outer;
  for (const char* level : {"blurred_0", "blurred_1"}) {
    const ComputeLocation& c = whole.find(level)->compute;
    EXPECT_EQ(c.kind, ComputeLocation::Kind::kAt) << level;
    EXPECT_EQ(c.loop, strip) << level;
    EXPECT_FALSE(c.sliding()) << level;
    EXPECT_EQ(whole.find(level)->stages.at(0).vectorize, "x_i") << level;
  }
  for (const char* pass : {"horizontal_0", "horizontal_1", "horizontal_2"}) {
    EXPECT_EQ(whole.find(pass)->compute.kind, ComputeLocation::Kind::kInline) << pass;
  }
  const auto inputs = sg->make_inputs(5);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), whole, inputs, sg->reference(inputs)), "");
}

// A window keeps the least power of two of rows that covers what its reader reads: the
// running maximum's last vertical pass, read 7 rows apart, keeps 8 rows (16 ran 1.2x slower),
// and its horizontal passes, read at their own row, keep 2.
TEST(ImageStrips, AWindowKeepsThePowerOfTwoOfRowsItsReaderReads) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_running_max", {});
  const Schedule h = Space(analyze(*sg, testing::test_target())).heuristic();
  EXPECT_EQ(h.find("max8_y")->compute.fold_rows, 8);
  EXPECT_EQ(h.find("max4_y")->compute.fold_rows, 8) << "read 4 rows apart: 5 rows";
  EXPECT_EQ(h.find("max2_y")->compute.fold_rows, 4);
  EXPECT_EQ(h.find("max15_x")->compute.fold_rows, 2);
  EXPECT_EQ(h.find("max2_x")->compute.fold_rows, 2);
}

// With windows too, a separable filter's first pass is inlined where its second pass is
// inlined itself: the depth filter's last level (read once per pixel through the stack)
// inlines its horizontal pass, while the levels below keep theirs as windows.
TEST(ImageStrips, AFirstPassIsInlinedWhereItsSecondPassIs) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_depth_blur",
                                                     {{"width", "128"}, {"height", "256"}});
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "");
  EXPECT_EQ(h.find("blurred_2")->compute.kind, ComputeLocation::Kind::kInline);
  EXPECT_EQ(h.find("horizontal_2")->compute.kind, ComputeLocation::Kind::kInline);
  for (const char* window : {"horizontal_0", "blurred_0", "horizontal_1", "blurred_1"}) {
    EXPECT_TRUE(h.find(window)->compute.sliding()) << window;
  }
  const auto inputs = sg->make_inputs(9);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), h, inputs, sg->reference(inputs)), "");
}

TEST(ImageStrips, APipelineWithoutStencilsIsLeftAlone) {
  const auto sg = testing::spec_subgraph(testing::kTwoPointwiseSpec);
  const Analysis a = analyze(*sg, testing::test_target());
  Schedule s = Space(a).heuristic();
  const Schedule before = s;
  EXPECT_FALSE(apply_image_strips(a, s));
  EXPECT_EQ(s, before);
}

}  // namespace
}  // namespace ktune::scheduler

namespace ktune::scheduler {
namespace {

// A reader computed whole at each row (a window along the row's columns, as a mutation may
// make it) reads its own span of rows of the window below at once: s1 computes the 3 rows the
// inlined s2 reads, and they read 5 rows of s0.
TEST(ImageStrips, AWindowsFoldCoversTheRowsOfAReaderThatDoesNotSlideDownTheStrip) {
  const auto sg = testing::spec_subgraph(column_chain(3, 128));
  Space space(analyze(*sg, testing::test_target()));
  Schedule s = space.heuristic();
  ASSERT_EQ(s.find("s0")->compute.fold_rows, 4);
  ASSERT_EQ(s.find("s2")->compute.kind, ComputeLocation::Kind::kInline);
  s.find("s1")->compute = ComputeLocation{ComputeLocation::Kind::kAt, "out", 0, "x_o", "y_i"};
  s.find("s1")->stages.clear();  // a tile of a row: its last vector may not shift inwards
  refresh_window_folds(space.analysis(), s);
  EXPECT_EQ(s.find("s0")->compute.fold_rows, 8);
  ASSERT_EQ(space.validate(s).value_or(""), "");
  const auto inputs = sg->make_inputs(4);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

TEST(ImageStrips, AWindowsFoldGrowsWhenAMutationInlinesItsReader) {
  const auto sg = testing::spec_subgraph(column_chain(3, 128));
  Space space(analyze(*sg, testing::test_target()));
  Schedule s = space.heuristic();
  ASSERT_EQ(s.find("s0")->compute.fold_rows, 4);
  // s1 inlined: out now reads s0 through s1 and s2, 5 rows of it per row.
  s.find("s1")->compute = ComputeLocation{ComputeLocation::Kind::kInline};
  s.find("s1")->stages.clear();
  refresh_window_folds(space.analysis(), s);
  EXPECT_EQ(s.find("s0")->compute.fold_rows, 8);
  ASSERT_EQ(space.validate(s).value_or(""), "");
  const auto inputs = sg->make_inputs(4);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, sg->reference(inputs)), "");
}

}  // namespace
}  // namespace ktune::scheduler
