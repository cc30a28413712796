// The expert schedules of bench/expert/ are within reach: on the CPU they were written for
// (AVX-512: 16 lanes, 32 vector registers), the heuristic schedule of each suite subgraph
// gives the expert's key stages (the accumulator's update, the split reductions, the
// normalizations' output in blocks of whole rows, the convolution's output in blocks of
// channels, NCHW and NHWC, and NCHW's padded input stored by channel) the same structure (loops, order, storage order, vectorized and
// unrolled loops, rfactor and its placement, tails) from its op family's template
// (scheduler/family_templates.h, conv_templates.h), and the space's mutators walk the
// heuristic's tile sizes and packs to the expert's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/user_json.h"
#include "scheduler/input_pack.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

struct Case {
  const char* subgraph;
  std::vector<std::pair<const char*, int>> key_stages;  // (Func, stage)
  bool layout = false;                                  // in bench/suite_layouts/, not bench/suite/
};

const Case kCases[] = {
    {"gemm_1024", {{"C_acc", 1}}},
    {"mlp_gelu", {{"xw_acc", 1}}},
    {"bmm_scores", {{"S_acc", 1}}},
    {"conv3x3_relu", {{"conv_pad", 0}, {"conv_acc", 0}, {"conv_acc", 1}, {"y", 0}}},
    {"conv3x3_nhwc_relu", {{"conv_acc", 0}, {"conv_acc", 1}, {"y", 0}}, true},
    {"softmax", {{"y_max", 1}, {"y_sum", 1}, {"y", 0}}},
    {"layernorm", {{"y_mean", 1}, {"y_var", 1}, {"y", 0}}},
    {"colsum", {{"sums_acc", 1}}},
};

// The key stages with their Funcs' compute locations, as text; `factors` false blanks the
// split factors out (the structure only).
std::string key_stages(const Schedule& s, const Case& c, bool factors) {
  std::string out;
  for (const auto& [func, stage] : c.key_stages) {
    const FuncSchedule* f = s.find(func);
    if (!f) return "no Func " + std::string(func);
    StageSchedule st = f->stage_or_empty(stage);
    if (!factors) {
      for (LoopSplit& sp : st.splits) sp.factor = 2;
    }
    Schedule one;
    one.funcs.push_back(FuncSchedule{func, f->compute, {st}, {}});
    out += one.to_json().dump() + "\n";
  }
  return out;
}

// Decisions of the key stages and packs that equal the expert's.
int matching(const Schedule& s, const Schedule& expert, const Case& c) {
  int n = s.packs == expert.packs;
  for (const auto& [func, stage] : c.key_stages) {
    const StageSchedule a = s.find(func)->stage_or_empty(stage);
    const StageSchedule b = expert.find(func)->stage_or_empty(stage);
    for (size_t i = 0; i < a.splits.size() && i < b.splits.size(); ++i) n += a.splits[i] == b.splits[i];
  }
  return n;
}

class ExpertReachabilityTest : public ::testing::TestWithParam<Case> {};

TEST_P(ExpertReachabilityTest, HeuristicHasTheExpertStructureAndMutationsReachIt) {
  const Case& c = GetParam();
  const auto sg = c.layout ? testing::layout_subgraph(c.subgraph) : testing::suite_subgraph(c.subgraph);
  const Space space(analyze(*sg, testing::avx512_test_target()));
  const std::string path = std::string(KTUNE_SOURCE_DIR) + "/bench/expert/" + c.subgraph + ".json";
  const Schedule expert = Schedule::from_json(read_user_json(path, "expert schedule"), path);
  ASSERT_EQ(space.validate(expert).value_or(""), "");
  const Schedule heuristic = space.heuristic();
  EXPECT_EQ(key_stages(heuristic, c, false), key_stages(expert, c, false));
  for (const auto& [func, stage] : c.key_stages) {
    EXPECT_EQ(heuristic.find(func)->storage, expert.find(func)->storage) << func << "'s storage order";
  }
  std::vector<std::string> expert_packs, heuristic_packs;
  for (const InputPack& p : expert.packs) expert_packs.push_back(p.input + " " + p.storage[0]);
  for (const InputPack& p : heuristic.packs) heuristic_packs.push_back(p.input + " " + p.storage[0]);
  EXPECT_EQ(heuristic_packs, expert_packs) << "the same inputs packed, the same dimension innermost";

  // Greedy walk: a tile-size or pack mutation that keeps the structure and matches more of
  // the expert's decisions is kept.
  const std::unique_ptr<Mutator> mutators[] = {make_tile_size_mutator(), make_pack_mutator()};
  Rng rng(5);
  Schedule s = heuristic;
  for (int step = 0; step < 40000 && key_stages(s, c, true) + s.to_json()["packs"].dump() !=
                                         key_stages(expert, c, true) + expert.to_json()["packs"].dump();
       ++step) {
    const auto m = mutators[step % 2]->mutate(s, space, rng);
    if (!m || key_stages(*m, c, false) != key_stages(expert, c, false)) continue;
    if (matching(*m, expert, c) > matching(s, expert, c)) s = *m;
  }
  EXPECT_EQ(key_stages(s, c, true), key_stages(expert, c, true));
  EXPECT_EQ(s.packs, expert.packs);
  EXPECT_EQ(space.validate(s).value_or(""), "");
}

INSTANTIATE_TEST_SUITE_P(BenchExperts, ExpertReachabilityTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.subgraph); });

}  // namespace
}  // namespace ktune::scheduler
