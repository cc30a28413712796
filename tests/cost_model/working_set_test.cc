// Working sets from isl footprints against values worked out by hand for a tiled matrix
// product and a blur whose first stage is computed inside the second's tiles.
#include <gtest/gtest.h>

#include <algorithm>

#include "cost_model/features.h"
#include "cost_model/internal/footprint_cache.h"
#include "cost_model/internal/pipeline_facts.h"
#include "cost_model/internal/schedule_model.h"
#include "tests/cost_model/test_support.h"

namespace ktune::cost_model {
namespace {

using internal::AccessGroupModel;
using internal::StageModel;
using testing::analyze_spec;
using testing::schedule;

// The value of the named feature in `v`.
float feature(const std::vector<float>& v, const std::string& name) {
  const std::vector<std::string> names = feature_names();
  const auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return it == names.end() ? -1.f : v[it - names.begin()];
}

const StageModel& find_stage(const internal::ScheduleModel& m, int func, int stage) {
  for (const StageModel& s : m.stages) {
    if (s.func == func && s.stage == stage) return s;
  }
  ADD_FAILURE() << "no stage " << func << "." << stage;
  return m.stages.front();
}

const AccessGroupModel& find_group(const StageModel& s, int buffer) {
  for (const AccessGroupModel& g : s.groups) {
    if (g.buffer == buffer) return g;
  }
  ADD_FAILURE() << "no group for buffer " << buffer;
  return s.groups.front();
}

// Elements and cache lines of a group at every level 1..n.
void expect_levels(const AccessGroupModel& g, const std::vector<std::pair<int64_t, int64_t>>& want, const char* what) {
  ASSERT_GE(g.levels.size(), want.size() + 1) << what;
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(g.levels[k + 1]->elements, want[k].first) << what << " level " << k + 1;
    EXPECT_EQ(g.levels[k + 1]->lines, want[k].second) << what << " level " << k + 1;
    EXPECT_TRUE(g.levels[k + 1]->from_isl) << what << " level " << k + 1;
  }
}

// C_acc's update tiled 8 (x, vectorized) by 4 (y) with the whole k loop inside the tile:
// loops x_i(8) y_i(4) k(256) x_o(32) y_o(64). The tile sits in the middle of the domain
// (x from 128, y from 128), so every row starts on a cache line (16 floats).
const char* kTiledMatmul = R"({"funcs": [
  {"func": "C_acc", "compute": {"kind": "root"}, "stages": [{"stage": 1,
    "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 8},
               {"loop": "y", "outer": "y_o", "inner": "y_i", "factor": 4}],
    "order": ["x_i", "y_i", "k$x", "x_o", "y_o"], "vectorize": "x_i"}]},
  {"func": "C", "compute": {"kind": "root"}}]})";

TEST(FeatureWorkingSets, TiledMatmulFootprintsMatchHandCounts) {
  const scheduler::Analysis a = analyze_spec(testing::kMatmulSpec);
  const internal::PipelineFacts facts = internal::build_pipeline_facts(a);
  internal::FootprintCache cache(a, facts);
  const internal::ScheduleModel m = internal::build_schedule_model(a, facts, cache, schedule(kTiledMatmul));
  EXPECT_EQ(m.unknown_loops, 0);
  const int acc = a.index_of("C_acc");
  const StageModel& update = find_stage(m, acc, 1);
  ASSERT_EQ(update.depth(), 5);
  EXPECT_EQ(update.vector_width, 8);
  // A(k, y): one element, then 4 rows of y, then 4 whole rows of k (16 lines each).
  expect_levels(find_group(update, facts.input_buffer("A")),
                {{1, 1}, {4, 4}, {1024, 64}, {1024, 64}, {65536, 4096}}, "A");
  // B(x, k): 8 floats of one line, then 256 rows of k, then all of B.
  expect_levels(find_group(update, facts.input_buffer("B")),
                {{8, 1}, {8, 1}, {2048, 256}, {65536, 4096}, {65536, 4096}}, "B");
  // C_acc(x, y), read and written: the 8x4 accumulator tile, then a 256x4 row block.
  expect_levels(find_group(update, acc), {{8, 1}, {32, 4}, {32, 4}, {1024, 64}, {65536, 4096}}, "C_acc");

  // The same numbers through the public vector: bytes of the lines at each level.
  const std::vector<float> v = extract_features(a, schedule(kTiledMatmul));
  EXPECT_EQ(feature(v, "stage0.ws.bytes_level1"), 3 * 64);
  EXPECT_EQ(feature(v, "stage0.ws.bytes_level2"), 9 * 64);
  EXPECT_EQ(feature(v, "stage0.ws.bytes_level3"), (64 + 256 + 4) * 64);
  EXPECT_EQ(feature(v, "stage0.ws.bytes_level4"), (64 + 4096 + 64) * 64);
  EXPECT_EQ(feature(v, "stage0.ws.bytes_level5"), 3 * 4096 * 64);
  EXPECT_EQ(feature(v, "stage0.ws.bytes_level6"), 3 * 4096 * 64);  // deeper than the nest: the whole nest
  // 20,736 bytes fit the 32 KiB L1, 270,336 do not; everything fits the 1 MiB L2.
  EXPECT_EQ(feature(v, "stage0.ws.l1_level"), 3);
  EXPECT_EQ(feature(v, "stage0.ws.l2_level"), 5);
  EXPECT_EQ(feature(v, "stage0.loop.register_tile"), 32);
  EXPECT_EQ(feature(v, "stage0.loop.reduction_level"), 2);
}

TEST(FeatureWorkingSets, StridedTileIsCountedExactly) {
  // The outer piece of x innermost: 32 values of x, 8 apart, span 249 elements of B's rows.
  const scheduler::Analysis a = analyze_spec(testing::kMatmulSpec);
  const internal::PipelineFacts facts = internal::build_pipeline_facts(a);
  internal::FootprintCache cache(a, facts);
  const internal::ScheduleModel m = internal::build_schedule_model(a, facts, cache, schedule(R"({"funcs": [
    {"func": "C_acc", "compute": {"kind": "root"}, "stages": [{"stage": 1,
      "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 8}],
      "order": ["x_o", "x_i", "k$x", "y"]}]},
    {"func": "C", "compute": {"kind": "root"}}]})"));
  const StageModel& update = find_stage(m, a.index_of("C_acc"), 1);
  const internal::Footprint& b = *find_group(update, facts.input_buffer("B")).levels[1];
  EXPECT_EQ(b.elements, 32);
  ASSERT_EQ(b.box.extent.size(), 2u);
  EXPECT_EQ(b.box.extent[0], 249);
  EXPECT_EQ(b.lines, 16);
  // Both pieces of x inside: contiguous again.
  EXPECT_EQ(find_group(update, facts.input_buffer("B")).levels[2]->elements, 256);
}

// blur_y tiled 16 (x, vectorized) by 8 (y), parallel over y tiles; blur_x computed per
// x tile: each realization covers 16 x 10 of blur_x (two extra rows for the stencil).
const char* kTiledBlur = R"({"funcs": [
  {"func": "blur_x", "compute": {"kind": "at", "consumer": "blur_y", "consumer_stage": 0, "loop": "x_o"}},
  {"func": "blur_y", "compute": {"kind": "root"}, "stages": [{"stage": 0,
    "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 16},
               {"loop": "y", "outer": "y_o", "inner": "y_i", "factor": 8}],
    "order": ["x_i", "y_i", "x_o", "y_o"], "parallel": ["y_o"], "vectorize": "x_i"}]}]})";

TEST(FeatureWorkingSets, BlurComputedAtTilesMatchesHandCounts) {
  const scheduler::Analysis a = analyze_spec(testing::kBlurSpec);
  const internal::PipelineFacts facts = internal::build_pipeline_facts(a);
  internal::FootprintCache cache(a, facts);
  const internal::ScheduleModel m = internal::build_schedule_model(a, facts, cache, schedule(kTiledBlur));
  const int bx = a.index_of("blur_x"), by = a.index_of("blur_y");
  EXPECT_EQ(m.funcs[bx].realizations, 16);  // 4 x tiles times 4 y tiles
  EXPECT_EQ(m.funcs[bx].region, (std::vector<int64_t>{16, 10}));

  const StageModel& x = find_stage(m, bx, 0);
  EXPECT_EQ(x.points, 160);
  EXPECT_EQ(x.outer_tasks, 4);  // inside blur_y's parallel y_o
  // blur_x reads input(x..x+2, y): 18 floats over 2 lines per row; stores 16 floats, 1 line.
  expect_levels(find_group(x, facts.input_buffer("input")), {{18, 2}, {180, 20}}, "input");
  expect_levels(find_group(x, bx), {{16, 1}, {160, 10}}, "blur_x store");

  const StageModel& y = find_stage(m, by, 0);
  // blur_y reads blur_x(x, y..y+2). Beyond x_o the region is recomputed into the same
  // buffer, so the working set stays one realization (16 x 10).
  expect_levels(find_group(y, bx), {{48, 3}, {160, 10}, {160, 10}, {160, 10}}, "blur_x read");
  expect_levels(find_group(y, by), {{16, 1}, {128, 8}, {512, 32}, {2048, 128}}, "blur_y store");

  const std::vector<float> v = extract_features(a, schedule(kTiledBlur));
  EXPECT_EQ(feature(v, "allocation.realizations"), 16);
  EXPECT_EQ(feature(v, "allocation.max_realization_bytes"), 16 * 10 * 4);
  EXPECT_EQ(feature(v, "allocation.realizations_in_parallel"), 16);
  EXPECT_FLOAT_EQ(feature(v, "allocation.max_recompute_ratio"), 16.f * 160.f / (64.f * 34.f));
  EXPECT_EQ(feature(v, "pipeline.points_computed"), 16 * 160 + 64 * 32);
  EXPECT_EQ(feature(v, "pipeline.points_ideal"), 64 * 34 + 64 * 32);
  EXPECT_EQ(feature(v, "allocation.redundant_points"), 16 * 160 - 64 * 34);
  // blur_x does the most work (2,560 points): stage0; blur_y is stage1.
  EXPECT_EQ(feature(v, "stage0.ws.bytes_level1"), 3 * 64);
  EXPECT_EQ(feature(v, "stage0.ws.bytes_level2"), 30 * 64);
  EXPECT_EQ(feature(v, "stage1.ws.bytes_level1"), 4 * 64);
  EXPECT_EQ(feature(v, "stage1.ws.bytes_level2"), 18 * 64);
  EXPECT_EQ(feature(v, "stage1.ws.bytes_level3"), 42 * 64);
  EXPECT_EQ(feature(v, "stage1.ws.bytes_level4"), 138 * 64);
  EXPECT_EQ(feature(v, "stage1.loop.tasks"), 4);
  EXPECT_EQ(feature(v, "stage1.loop.vector_width"), 16);
}

// sums_acc computed per column of sums (a region of one element) with its update split by
// 16 along x: the split's tail is guarded, so only one x of each 16 runs.
TEST(FeatureWorkingSets, GuardedSplitOfAOneElementRegion) {
  const scheduler::Analysis a = analyze_spec(testing::kColsumSpec);
  const internal::PipelineFacts facts = internal::build_pipeline_facts(a);
  internal::FootprintCache cache(a, facts);
  const char* json = R"({"funcs": [
    {"func": "sums_acc", "compute": {"kind": "at", "consumer": "sums", "consumer_stage": 0, "loop": "x"},
     "stages": [{"stage": 1, "splits": [{"loop": "x", "outer": "x_o", "inner": "x_i", "factor": 16}],
                 "order": ["x_i", "r$x", "x_o"]}]},
    {"func": "sums", "compute": {"kind": "root"}}]})";
  const internal::ScheduleModel m = internal::build_schedule_model(a, facts, cache, schedule(json));
  const int acc = a.index_of("sums_acc");
  EXPECT_EQ(m.funcs[acc].realizations, 64);
  EXPECT_EQ(m.funcs[acc].region, (std::vector<int64_t>{1}));
  const StageModel& update = find_stage(m, acc, 1);
  EXPECT_EQ(update.points, 64);
  EXPECT_EQ(update.iterations, 16 * 64);   // the loops as written
  EXPECT_EQ(update.executions(1), 64);     // r$x runs 64 times, not 16 x 64
  EXPECT_EQ(update.executions(2), 1);
  // One column of m: 64 rows of 256 bytes, one line each, on 4 pages.
  const AccessGroupModel& col = find_group(update, facts.input_buffer("m"));
  EXPECT_EQ(col.levels[2]->elements, 64);
  EXPECT_EQ(col.levels[2]->lines, 64);
  EXPECT_EQ(col.levels[2]->pages, 4);
  // The whole host loop needs all of m (4 lines per row) plus 4 lines of sums_acc, which
  // fits L1: consecutive realizations reuse it, so L1 loads it once.
  ASSERT_EQ(update.host_lines.size(), 2u);
  EXPECT_EQ(update.host_lines[0], 64 + 1);
  EXPECT_EQ(update.host_lines[1], 64 * 4 + 4);
  const std::vector<float> v = extract_features(a, schedule(json));
  // update: (256 + 4) lines; pure stage of sums_acc: 4 lines; sums: 1 line of sums_acc (one
  // realization, reused) and 4 of its own store.
  EXPECT_EQ(feature(v, "memory.l1_traffic_bytes"), (260 + 4 + 5) * 64);
  EXPECT_EQ(feature(v, "allocation.realizations"), 64);
}

}  // namespace
}  // namespace ktune::cost_model
