// The feature vector's shape (names, groups, length) and that it reflects the schedule.
#include "cost_model/features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "scheduler/space.h"
#include "tests/cost_model/test_support.h"

namespace ktune::cost_model {
namespace {

size_t index_of(const std::string& name) {
  const std::vector<std::string> names = feature_names();
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

TEST(Features, NamesMatchTheVectorLength) {
  const std::vector<std::string> names = feature_names();
  EXPECT_EQ(static_cast<int>(names.size()), feature_count());
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "names must be unique";
  const scheduler::Analysis a = testing::analyze_spec(testing::kMatmulSpec);
  const scheduler::Space space(a);
  EXPECT_EQ(extract_features(a, space.naive()).size(), names.size());
  EXPECT_EQ(extract_features(a, space.heuristic()).size(), names.size());
}

TEST(Features, EveryGroupWritesAsManyValuesAsItNames) {
  auto written = [](const auto& group) {
    std::vector<float> out;
    group.append_to(out);
    return out.size();
  };
  EXPECT_EQ(PipelineFeatures::names().size(), static_cast<size_t>(PipelineFeatures::kCount));
  EXPECT_EQ(written(PipelineFeatures{}), static_cast<size_t>(PipelineFeatures::kCount));
  EXPECT_EQ(ArithFeatures::names().size(), static_cast<size_t>(ArithFeatures::kCount));
  EXPECT_EQ(written(ArithFeatures{}), static_cast<size_t>(ArithFeatures::kCount));
  EXPECT_EQ(MemoryFeatures::names().size(), static_cast<size_t>(MemoryFeatures::kCount));
  EXPECT_EQ(written(MemoryFeatures{}), static_cast<size_t>(MemoryFeatures::kCount));
  EXPECT_EQ(AllocationFeatures::names().size(), static_cast<size_t>(AllocationFeatures::kCount));
  EXPECT_EQ(written(AllocationFeatures{}), static_cast<size_t>(AllocationFeatures::kCount));
  EXPECT_EQ(LoopFeatures::names().size(), static_cast<size_t>(LoopFeatures::kCount));
  EXPECT_EQ(written(LoopFeatures{}), static_cast<size_t>(LoopFeatures::kCount));
  EXPECT_EQ(WorkingSetFeatures::names().size(), static_cast<size_t>(WorkingSetFeatures::kCount));
  EXPECT_EQ(written(WorkingSetFeatures{}), static_cast<size_t>(WorkingSetFeatures::kCount));
  EXPECT_EQ(StageFeatures::names().size(), static_cast<size_t>(StageFeatures::kCount));
  EXPECT_EQ(written(StageFeatures{}), static_cast<size_t>(StageFeatures::kCount));
  EXPECT_EQ(AccessFeatures::names().size(), static_cast<size_t>(AccessFeatures::kCount));
  EXPECT_EQ(written(AccessFeatures{}), static_cast<size_t>(AccessFeatures::kCount));
}

TEST(Features, DeterministicAndFinite) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kBlurSpec);
  const scheduler::Space space(a);
  scheduler::Rng rng(7);
  for (int i = 0; i < 20; ++i) {
    const auto s = space.sample(rng);
    ASSERT_TRUE(s.has_value());
    const std::vector<float> first = extract_features(a, *s);
    EXPECT_EQ(extract_features(a, *s), first) << s->to_json().dump();
    for (size_t k = 0; k < first.size(); ++k) EXPECT_TRUE(std::isfinite(first[k])) << feature_names()[k];
  }
}

TEST(Features, ReflectTheSchedule) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kMatmulSpec);
  const scheduler::Space space(a);
  const std::vector<float> naive = extract_features(a, space.naive());
  const std::vector<float> tuned = extract_features(a, space.heuristic());
  // Naive: serial, scalar; heuristic: the matmul template's two native vectors, and parallel.
  EXPECT_EQ(naive[index_of("stage0.loop.vector_width")], 1);
  EXPECT_EQ(tuned[index_of("stage0.loop.vector_width")], 16);
  EXPECT_EQ(naive[index_of("arith.ops_parallel")], 0);
  EXPECT_GT(tuned[index_of("arith.ops_parallel")], 0);
  // Same algorithm: the same arithmetic.
  EXPECT_EQ(naive[index_of("arith.ops")], tuned[index_of("arith.ops")]);
  EXPECT_EQ(naive[index_of("arith.ops")], 2.f * 256 * 256 * 256);
  // The heuristic's register tile keeps the working set of the k loop far smaller.
  EXPECT_LT(tuned[index_of("memory.l1_traffic_bytes")], naive[index_of("memory.l1_traffic_bytes")]);
}

TEST(Features, InliningMovesArithmeticIntoTheConsumer) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kBlurSpec);
  const std::vector<float> inlined = extract_features(a, testing::schedule(R"({"funcs": [
    {"func": "blur_x", "compute": {"kind": "inline"}}, {"func": "blur_y", "compute": {"kind": "root"}}]})"));
  const std::vector<float> root = extract_features(a, testing::schedule(R"({"funcs": [
    {"func": "blur_x", "compute": {"kind": "root"}}, {"func": "blur_y", "compute": {"kind": "root"}}]})"));
  EXPECT_EQ(inlined[index_of("pipeline.stages_run")], 1);
  EXPECT_EQ(root[index_of("pipeline.stages_run")], 2);
  // Inlined, each of blur_y's 3 calls recomputes blur_x (6 ops): 6 + 3 x 6 per output point.
  EXPECT_EQ(inlined[index_of("arith.ops")], 64.f * 32 * (6 + 3 * 6));
  EXPECT_EQ(root[index_of("arith.ops")], 64.f * 34 * 6 + 64.f * 32 * 6);
  // Inlined, blur_y reads the input 9 times per point; at root, blur_x 3 times.
  EXPECT_EQ(inlined[index_of("arith.loads")], 64.f * 32 * 9);
  EXPECT_EQ(inlined[index_of("buffer0.is_input")], 1);
  EXPECT_EQ(root[index_of("pipeline.root_funcs")], 2);
}

// A packed input is read through its copy: attention's K read across its rows by a vector
// of keys is a gather; packed with the keys innermost, the same loads are dense.
TEST(Features, PackedInputsAreReadInTheirStorageOrder) {
  const scheduler::Analysis a = testing::analyze_spec(R"({"name": "scores",
    "inputs": [{"name": "Q", "shape": [2, 64, 32]}, {"name": "K", "shape": [2, 64, 32]}],
    "ops": [{"op": "batch_matmul", "inputs": ["Q", "K"], "output": "S", "transpose_b": true}], "outputs": ["S"]})");
  const scheduler::Space space(a);
  scheduler::Schedule packed = space.heuristic();
  ASSERT_EQ(packed.packs.size(), 1u) << "the heuristic packs the transposed operand";
  scheduler::Schedule unpacked = packed;
  unpacked.packs.clear();
  const std::vector<float> with = extract_features(a, packed);
  const std::vector<float> without = extract_features(a, unpacked);
  EXPECT_EQ(with[index_of("pipeline.packed_inputs")], 1);
  EXPECT_EQ(with[index_of("pipeline.packed_bytes")], 2.f * 64 * 32 * 4);
  EXPECT_EQ(without[index_of("pipeline.packed_inputs")], 0);
  EXPECT_GT(without[index_of("arith.loads_strided")], 0);
  EXPECT_EQ(with[index_of("arith.loads_strided")], 0);
  EXPECT_GT(with[index_of("arith.loads_dense")], without[index_of("arith.loads_dense")]);
}

// A pack copies its part of the input once per iteration of its loop: per head at the
// parallel loop of heads, every element once; at the loop of 4-row tiles of the scores,
// each head's keys again for each of the 16 tiles. At root it copies once, split between
// the cores when its outer loop is parallel.
TEST(Features, APackCountsEveryCopyAndTheTasksThatShareIt) {
  const scheduler::Analysis a = testing::analyze_spec(R"({"name": "scores",
    "inputs": [{"name": "Q", "shape": [2, 64, 32]}, {"name": "K", "shape": [2, 64, 32]}],
    "ops": [{"op": "batch_matmul", "inputs": ["Q", "K"], "output": "S", "transpose_b": true}], "outputs": ["S"]})");
  const scheduler::Space space(a);
  const scheduler::Schedule per_head = space.heuristic();
  ASSERT_EQ(per_head.packs.size(), 1u);
  ASSERT_EQ(per_head.packs[0].compute.loop, "z") << "the heuristic packs K per head";
  scheduler::Schedule per_row_tile = per_head;
  per_row_tile.packs[0].compute.loop = "y_o";
  scheduler::Schedule at_root = per_head;
  at_root.packs[0].compute = scheduler::ComputeLocation{};
  scheduler::Schedule at_root_parallel = at_root;
  at_root_parallel.packs[0].parallel = true;
  const float bytes = 2.f * 64 * 32 * 4;
  const std::vector<float> head = extract_features(a, per_head);
  const std::vector<float> tile = extract_features(a, per_row_tile);
  const std::vector<float> root = extract_features(a, at_root);
  const std::vector<float> root_parallel = extract_features(a, at_root_parallel);
  EXPECT_EQ(head[index_of("pipeline.pack_copied_bytes")], bytes);
  EXPECT_EQ(head[index_of("pipeline.pack_recopy_ratio")], 1);
  EXPECT_EQ(head[index_of("cost.pack_copy")], bytes / 2) << "each core copies its head";
  EXPECT_EQ(tile[index_of("pipeline.packed_bytes")], bytes);
  EXPECT_EQ(tile[index_of("pipeline.pack_copied_bytes")], 16 * bytes);
  EXPECT_EQ(tile[index_of("pipeline.pack_recopy_ratio")], 16);
  EXPECT_GT(tile[index_of("cost.estimate_seconds")], head[index_of("cost.estimate_seconds")]);
  EXPECT_EQ(root[index_of("pipeline.pack_copied_bytes")], bytes);
  EXPECT_EQ(root[index_of("cost.pack_copy")], bytes) << "a serial copy";
  EXPECT_EQ(root_parallel[index_of("cost.pack_copy")], bytes / 2);
  EXPECT_EQ(extract_features(a, space.naive())[index_of("pipeline.pack_recopy_ratio")], 0) << "no pack";
}

// The values a feature takes in every buffer slot ("buffer0.<name>", "buffer1.<name>", ...).
std::vector<float> per_buffer(const std::vector<float>& features, const std::string& name) {
  std::vector<float> out;
  for (int b = 0; b < kFeatureBuffers; ++b) out.push_back(features[index_of("buffer" + std::to_string(b) + "." + name)]);
  return out;
}

// A Func stored with another variable innermost is read in that order: C reading C_acc along
// x steps 1 element in C_acc's own order and a whole column of one realization (C_acc is
// computed per block of C's rows: the block's height) with y innermost.
TEST(Features, AFuncStoredInAnotherOrderIsReadInThatOrder) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kMatmulSpec);
  const scheduler::Space space(a);
  scheduler::Schedule own = space.heuristic();
  ASSERT_NE(own.find("C_acc"), nullptr);
  ASSERT_EQ(own.find("C_acc")->compute.loop, "y_o");
  int64_t rows = 0;
  for (const scheduler::LoopSplit& split : own.find("C")->stages.at(0).splits) {
    if (split.loop == "y") rows = split.factor;
  }
  ASSERT_GT(rows, 1);
  ASSERT_LT(rows, 256);
  scheduler::Schedule transposed = own;
  transposed.find("C_acc")->storage = {"y", "x"};
  ASSERT_EQ(space.validate(transposed).value_or(""), "");
  const std::vector<float> with = extract_features(a, transposed);
  const std::vector<float> without = extract_features(a, own);
  EXPECT_EQ(with[index_of("pipeline.reordered_funcs")], 1);
  EXPECT_EQ(without[index_of("pipeline.reordered_funcs")], 0);
  const std::vector<float> steps_with = per_buffer(with, "vector_stride"), steps_without = per_buffer(without, "vector_stride");
  bool c_acc_slot = false;
  for (size_t b = 0; b < steps_with.size(); ++b) c_acc_slot |= steps_without[b] == 1 && steps_with[b] == rows;
  EXPECT_TRUE(c_acc_slot) << "no buffer read along x with a step of 1 that becomes " << rows;
}

// Along the reduction loop of a naive matmul (k innermost of C_acc's update), A(k, y) steps
// one element and B(x, k) a whole row of 256.
TEST(Features, TheReductionStrideIsTheStepAlongTheInnermostReductionLoop) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kMatmulSpec);
  const scheduler::Space space(a);
  const std::vector<float> steps = per_buffer(extract_features(a, space.naive()), "reduction_stride");
  EXPECT_NE(std::find(steps.begin(), steps.end(), 1.f), steps.end());
  EXPECT_NE(std::find(steps.begin(), steps.end(), 256.f), steps.end());
  // A stage without a reduction loop has no such step: an elementwise subgraph has none.
  const scheduler::Analysis relu = testing::analyze_spec(R"({"name": "relu", "inputs": [{"name": "a", "shape": [64, 64]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "y"}], "outputs": ["y"]})");
  const std::vector<float> none = per_buffer(extract_features(relu, scheduler::Space(relu).naive()), "reduction_stride");
  EXPECT_EQ(none[0], -1.f);
}

// B packed per column panel of C (the heuristic's matmul): along k the update steps one row
// of the panel's copy, the panel's width, where unpacked it steps a row of B (256).
TEST(Features, StridesAreTakenInOneRealizationOfEachBuffer) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kMatmulSpec);
  const scheduler::Space space(a);
  const scheduler::Schedule packed = space.heuristic();
  ASSERT_EQ(packed.packs.size(), 1u);
  ASSERT_EQ(packed.packs[0].input, "B");
  ASSERT_EQ(packed.packs[0].compute.kind, scheduler::ComputeLocation::Kind::kAt) << "a copy per panel";
  int64_t panel = 1;
  for (const scheduler::LoopSplit& split : packed.find("C")->stages.at(0).splits) {
    if (split.loop == "x" || split.loop == "x_t") panel *= split.factor;
  }
  ASSERT_LT(panel, 256);
  scheduler::Schedule unpacked = packed;
  unpacked.packs.clear();
  const std::vector<float> with = per_buffer(extract_features(a, packed), "reduction_stride");
  const std::vector<float> without = per_buffer(extract_features(a, unpacked), "reduction_stride");
  EXPECT_NE(std::find(with.begin(), with.end(), static_cast<float>(panel)), with.end()) << "panel " << panel;
  EXPECT_EQ(std::find(with.begin(), with.end(), 256.f), with.end());
  EXPECT_NE(std::find(without.begin(), without.end(), 256.f), without.end());
}

// A u8 image is a quarter of the bytes of an f32 one: what a subgraph reads and stores is
// counted in the bytes of each buffer's type, not 4 per element.
TEST(Features, BytesFollowEachBuffersType) {
  const std::string f32 = testing::kBlurSpec;
  std::string u8 = f32;
  u8.replace(u8.find("\"shape\": [34, 66]"), std::string("\"shape\": [34, 66]").size(),
             "\"shape\": [34, 66], \"dtype\": \"u8\"");
  const std::string root = R"({"funcs": [
    {"func": "blur_x", "compute": {"kind": "root"}}, {"func": "blur_y", "compute": {"kind": "root"}}]})";
  const std::vector<float> as_f32 = extract_features(testing::analyze_spec(f32.c_str()), testing::schedule(root));
  const std::vector<float> as_u8 = extract_features(testing::analyze_spec(u8.c_str()), testing::schedule(root));
  // Compulsory bytes: the input (34 x 66) and the f32 output (32 x 64).
  EXPECT_EQ(as_f32[index_of("pipeline.compulsory_bytes")], 4.f * (34 * 66) + 4.f * (32 * 64));
  EXPECT_EQ(as_u8[index_of("pipeline.compulsory_bytes")], 1.f * (34 * 66) + 4.f * (32 * 64));
  EXPECT_EQ(as_u8[index_of("arith.ops")], as_f32[index_of("arith.ops")]);  // the same arithmetic
}

}  // namespace
}  // namespace ktune::cost_model

namespace ktune::cost_model {
namespace {

// blur_y in strips of 8 rows (y_i inside y_o), blur_x computed per row: stored per row, or
// per strip (a sliding window, `store_loop`).
std::string per_row_blur(const std::string& store) {
  return R"({"funcs": [{"func": "blur_x", "compute": {"kind": "at", "consumer": "blur_y", "consumer_stage": 0,
    "loop": "y_i")" + store + R"(}}, {"func": "blur_y", "compute": {"kind": "root"}, "stages": [{"stage": 0,
    "splits": [{"loop": "y", "outer": "y_o", "inner": "y_i", "factor": 8, "tail": "shift_inwards"}]}]}]})";
}

TEST(Features, ASlidingWindowComputesEachRowOnceAndKeepsAFewLive) {
  const scheduler::Analysis a = testing::analyze_spec(testing::kBlurSpec);
  const std::vector<float> window = extract_features(a, testing::schedule(per_row_blur(R"(, "store_loop": "y_o")")));
  const std::vector<float> per_row = extract_features(a, testing::schedule(per_row_blur("")));
  EXPECT_EQ(window[index_of("allocation.sliding_windows")], 1);
  EXPECT_EQ(per_row[index_of("allocation.sliding_windows")], 0);
  // One row of blur_y reads 3 rows of blur_x: those stay live.
  EXPECT_EQ(window[index_of("allocation.window_bytes")], 3.f * 64 * 4);
  // Per row, blur_x computes 3 rows for each of blur_y's 32; sliding, each strip of 8
  // computes 10: 4 strips x 10 rows.
  const float blur_y_ops = 64.f * 32 * 3;  // 2 adds and a divide per point
  EXPECT_LT(window[index_of("arith.ops")] - blur_y_ops, 0.5f * (per_row[index_of("arith.ops")] - blur_y_ops));
}

}  // namespace
}  // namespace ktune::cost_model
