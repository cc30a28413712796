// Sibling windows computed together: the corner response's two gradients, windows over the
// same rows of grey, share the heuristic's loop around their vectors, the variant validates,
// computes the reference, and is among the strip variants the tuner measures first; a
// pipeline without such siblings is left alone.
#include "scheduler/sibling_windows.h"

#include <gtest/gtest.h>

#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

TEST(SiblingWindows, TheCornerResponsesGradientsShareTheLoopAroundTheirVectors) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_corner_response",
                                                     {{"width", "256"}, {"height", "128"}});
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_TRUE(h.find("Ix")->compute.sliding());
  ASSERT_TRUE(h.find("Iy")->compute.sliding());
  Schedule fused = h;
  ASSERT_TRUE(fuse_sibling_windows(space.analysis(), fused));
  ASSERT_EQ(space.validate(fused).value_or(""), "");
  const FuncSchedule& iy = *fused.find("Iy");
  EXPECT_EQ(iy.compute_with.func, "Ix");
  const StageSchedule& ix_stage = fused.find("Ix")->stages.at(0);
  EXPECT_EQ(iy.stages.at(0), ix_stage) << "Iy takes Ix's loops";
  EXPECT_NE(iy.compute_with.loop, ix_stage.vectorize);
  EXPECT_TRUE(fused.find("gray")->compute_with.empty()) << "grey is what both read, not a sibling";
  EXPECT_TRUE(fused.find("Ix")->compute_with.empty());

  bool a_variant = false;
  for (const Schedule& v : space.strip_variants()) a_variant |= v == fused;
  EXPECT_TRUE(a_variant) << "the tuner measures it first";
  const auto inputs = sg->make_inputs(4);
  EXPECT_EQ(testing::run_and_compare(*sg, space.analysis(), fused, inputs, sg->reference(inputs)), "");
}

TEST(SiblingWindows, AChainWithoutSiblingsIsLeftAlone) {
  const auto sg = testing::spec_subgraph(R"({"inputs": [{"name": "in", "shape": [262, 64]}],
    "ops": [{"op": "stencil", "inputs": ["in"], "output": "s0", "axes": [0], "weights": [1, 2, 1], "divisor": 4},
            {"op": "stencil", "inputs": ["s0"], "output": "s1", "axes": [0], "weights": [1, 2, 1], "divisor": 4},
            {"op": "relu", "inputs": ["s1"], "output": "out"}], "outputs": ["out"]})");
  const Space space(analyze(*sg, testing::test_target()));
  Schedule h = space.heuristic();
  const Schedule before = h;
  EXPECT_FALSE(fuse_sibling_windows(space.analysis(), h));
  EXPECT_EQ(h, before);
}

}  // namespace
}  // namespace ktune::scheduler
