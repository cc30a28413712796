// Tests scheduler/input_pack.cc and the packs of apply(): where a packed copy of an input may
// be computed, what a drawn pack looks like (a transpose, or a copy per loop), and that a
// pack computes the right answer at root and at a loop of its host (a transposed K of
// attention scores).
#include "scheduler/input_pack.h"

#include <gtest/gtest.h>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// S[h,i,j] = sum_k Q[h,i,k] K[h,j,k]: a vector of j reads K with a stride of 16 floats.
const char* kScores = R"({"name": "scores", "inputs": [{"name": "Q", "shape": [2, 8, 16]}, {"name": "K", "shape": [2, 24, 16]}],
  "ops": [{"op": "batch_matmul", "inputs": ["Q", "K"], "output": "S", "transpose_b": true}], "outputs": ["S"]})";

TEST(InputPack, DimensionsAndLocations) {
  const auto sg = testing::spec_subgraph(kScores);
  const Space space(analyze(*sg, testing::test_target()));
  const Analysis& a = space.analysis();
  ASSERT_NE(a.find_input("K"), nullptr);
  EXPECT_EQ(a.find_input("K")->extents, (std::vector<int64_t>{16, 24, 2}));
  EXPECT_EQ(input_dims(*a.find_input("K")), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(input_dim_name(5), "d5");
  // S_acc reads K; computed at root it hosts the pack's loops; computed at a loop of S, S does.
  Schedule s = space.naive();
  std::vector<ComputeLocation> at = pack_locations(a, s, "K");
  ASSERT_GE(at.size(), 2u);
  EXPECT_EQ(at[0].kind, ComputeLocation::Kind::kRoot);
  for (size_t i = 1; i < at.size(); ++i) EXPECT_EQ(at[i].consumer, "S_acc");
  s.find("S_acc")->compute = {ComputeLocation::Kind::kAt, "S", 0, "z"};
  at = pack_locations(a, s, "K");
  ASSERT_EQ(at.size(), 2u) << "root, or S's z (S_acc is computed inside it)";
  EXPECT_EQ(at[1], (ComputeLocation{ComputeLocation::Kind::kAt, "S", 0, "z"}));
  EXPECT_EQ(pack_vector_width(a, *a.find_input("K"), "y"), 8);
  EXPECT_EQ(pack_vector_width(a, *a.find_input("K"), "z"), 2);
}

TEST(InputPack, DrawnPacksTransposeOrCopyAPanelAndValidate) {
  const auto sg = testing::spec_subgraph(kScores);
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.heuristic();
  Rng rng(3);
  std::set<std::string> innermost;
  for (int i = 0; i < 60; ++i) {
    auto pack = draw_pack(space.analysis(), base, *space.analysis().find_input("K"), rng);
    ASSERT_TRUE(pack.has_value());
    if (pack->storage[0] == "x") {
      EXPECT_EQ(pack->storage, (std::vector<std::string>{"x", "y", "z"}));
      EXPECT_EQ(pack->compute.kind, ComputeLocation::Kind::kAt) << "a copy in the input's own order is a panel, per loop";
    }
    innermost.insert(pack->storage[0]);
    Schedule s = base;
    s.packs = {*pack};
    EXPECT_EQ(space.validate(s).value_or(""), "") << s.to_json().dump();
  }
  EXPECT_EQ(innermost, (std::set<std::string>{"x", "y", "z"}));
}

TEST(InputPack, PackedScheduleIsCorrectAtRootAndAtAHostLoop) {
  const auto sg = testing::spec_subgraph(kScores);
  const Space space(analyze(*sg, testing::test_target()));
  const auto inputs = sg->make_inputs(2);
  const auto want = sg->reference(inputs);
  Schedule s = space.heuristic();
  InputPack pack;
  pack.input = "K";
  pack.storage = {"y", "x", "z"};
  pack.vector_width = 8;
  pack.parallel = true;
  s.packs = {pack};
  ASSERT_EQ(space.validate(s).value_or(""), "");
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, want), "");
  const ApplyResult applied = apply(s, *sg, space.analysis());
  ASSERT_TRUE(applied.ok) << applied.error;
  EXPECT_NE(applied.source.find("Func K_pack = K.in();"), std::string::npos) << applied.source;
  EXPECT_NE(applied.source.find("K_pack.reorder_storage(K_pack.args()[1], K_pack.args()[0], K_pack.args()[2]);"),
            std::string::npos)
      << applied.source;
  EXPECT_NE(loop_nest_text(applied).find("produce K_im:\n  parallel"), std::string::npos) << loop_nest_text(applied);

  const std::vector<ComputeLocation> at = pack_locations(space.analysis(), s, "K");
  ASSERT_GE(at.size(), 2u);
  s.packs[0].compute = at.back();
  s.packs[0].parallel = false;
  ASSERT_EQ(space.validate(s).value_or(""), "");
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), s, inputs, want), "") << s.to_json().dump();
}

}  // namespace
}  // namespace ktune::scheduler
