#include <gtest/gtest.h>

#include "scheduler/input_pack.h"
#include "tests/scheduler/mutators/mutator_test_support.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

const char* kScores = R"({"name": "scores", "inputs": [{"name": "Q", "shape": [2, 8, 16]}, {"name": "K", "shape": [2, 24, 16]}],
  "ops": [{"op": "batch_matmul", "inputs": ["Q", "K"], "output": "S", "transpose_b": true}], "outputs": ["S"]})";

std::string packs_of(const Schedule& s) {
  std::string out;
  for (const InputPack& p : s.packs) {
    out += p.input + ":" + p.storage[0] + "@" + (p.compute.kind == ComputeLocation::Kind::kRoot ? "root" : "loop") + " ";
  }
  return out.empty() ? "none" : out;
}

TEST(MutatePack, PacksEitherInputEitherWayAndUndoes) {
  const auto sg = testing::spec_subgraph(kScores);
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule base = space.naive();  // no packs (the heuristic packs K)
  const auto m = make_pack_mutator();
  const auto seen = testing::reached_alternatives(*m, base, space, packs_of);
  // A transpose at root or at a loop; a copy in the input's own order ("x") only at a loop.
  EXPECT_EQ(seen, (std::set<std::string>{"Q:x@loop ", "Q:y@root ", "Q:y@loop ", "Q:z@root ", "Q:z@loop ", "K:x@loop ",
                                          "K:y@root ", "K:y@loop ", "K:z@root ", "K:z@loop "}));
  // From a packed K: dropped, moved, restored in another order, or Q packed beside it.
  Schedule packed = base;
  Rng rng(5);
  packed.packs = {*draw_pack(space.analysis(), base, *space.analysis().find_input("K"), rng)};
  packed.packs[0].storage = {"y", "x", "z"};
  packed.packs[0].compute = ComputeLocation{};
  packed.packs[0].parallel = true;
  packed.packs[0].vector_width = 8;
  const auto from_packed = testing::reached_alternatives(*m, packed, space, packs_of);
  EXPECT_TRUE(from_packed.count("none"));
  EXPECT_TRUE(from_packed.count("K:y@loop "));
  EXPECT_TRUE(from_packed.count("K:z@root "));
  EXPECT_FALSE(from_packed.count("K:x@root ")) << "a copy in K's own order at root is a copy for nothing";
  EXPECT_TRUE(from_packed.count("Q:y@root K:y@root ")) << "packs stay in input order";
  // From a copy of K in its own order at a loop: moved to other loops, never to root.
  Schedule panel = base;
  panel.packs = {packed.packs[0]};
  panel.packs[0].storage = {"x", "y", "z"};
  panel.packs[0].compute = pack_locations(space.analysis(), base, "K").back();
  panel.packs[0].parallel = false;
  ASSERT_EQ(space.validate(panel).value_or(""), "");
  const auto from_panel = testing::reached_alternatives(*m, panel, space, packs_of);
  EXPECT_TRUE(from_panel.count("none"));
  EXPECT_TRUE(from_panel.count("K:y@loop ")) << "transposed where it is";
  EXPECT_FALSE(from_panel.count("K:x@root "));
  // A pack changes the kernel, not the answer.
  const auto inputs = sg->make_inputs(4);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), packed, inputs, sg->reference(inputs)), "");
}

TEST(MutatePack, NothingToPackForVectors) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "a", "shape": [64]}],
    "ops": [{"op": "relu", "inputs": ["a"], "output": "y"}], "outputs": ["y"]})");
  const Space space(analyze(*sg, testing::test_target()));
  Rng rng(1);
  EXPECT_FALSE(make_pack_mutator()->propose(space.naive(), space, rng).has_value());
}

}  // namespace
}  // namespace ktune::scheduler
