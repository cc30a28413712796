// The heuristic's inlining of large Funcs left at root: how often inlining computes each
// point, and which Funcs of a Gaussian pyramid it inlines at a size past the caches and at one
// within them.
#include "scheduler/root_inlining.h"

#include <gtest/gtest.h>

#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// The test Generator's pyramid: `f` is level 0 (a cast through a mirrored boundary), `f_2` the
// first pass of level 1's 1-3-3-1 filter, reading `f` at 4 columns 2 apart.
std::unique_ptr<subgraphs::GeneratorSubgraph> pyramid(int width, int height) {
  return subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":ktune_pyramid",
                                            {{"width", std::to_string(width)}, {"height", std::to_string(height)}});
}

Schedule all_at_root(const Analysis& a) {
  Schedule s;
  for (const FuncAnalysis& fa : a.funcs) {
    FuncSchedule fs;
    fs.func = fa.name;
    fs.compute.kind = ComputeLocation::Kind::kRoot;
    s.funcs.push_back(fs);
  }
  return s;
}

TEST(TimesComputedInlined, ADownsamplingFilterComputesEachPointTwicePerPassInlined) {
  const auto sg = pyramid(512, 384);
  const Analysis a = analyze(*sg, testing::test_target());
  Schedule s = all_at_root(a);
  const int level0 = a.index_of("f"), first_pass = a.index_of("f_2");
  ASSERT_GE(level0, 0);
  ASSERT_GE(first_pass, 0);
  // Four taps two columns apart: each point read twice.
  EXPECT_NEAR(times_computed_inlined(a, s, level0), 2.0, 0.1);
  // With the first pass inlined into the second (four taps two rows apart), twice again.
  s.funcs[first_pass].compute.kind = ComputeLocation::Kind::kInline;
  EXPECT_NEAR(times_computed_inlined(a, s, level0), 4.0, 0.2);
  // The output reads the last level of the collapse once per point.
  EXPECT_NEAR(times_computed_inlined(a, s, a.index_of("output") - 1), 1.0, 0.01);
}

TEST(RootInlining, TheHeuristicInlinesALargeCheapLevelAndKeepsOneThatInlinesItAtRoot) {
  const auto sg = pyramid(2048, 1536);
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  ASSERT_EQ(space.validate(h).value_or(""), "") << h.to_json().dump();
  // Level 0 (12 MB of f32, 31 operations computed twice) is inlined into the first pass...
  EXPECT_EQ(h.find("f")->compute.kind, ComputeLocation::Kind::kInline);
  // ...which then costs 4 x 31 operations a point, read twice: it stays at root.
  EXPECT_EQ(h.find("f_2")->compute.kind, ComputeLocation::Kind::kRoot);
  // Running it again finds nothing more to inline.
  Schedule again = h;
  EXPECT_EQ(inline_cheap_roots(space.analysis(), again), 0);
  EXPECT_EQ(again, h);
}

TEST(RootInlining, AFuncThatFitsInACacheStaysAtRoot) {
  const auto sg = pyramid(512, 384);  // level 0: 768 KiB of f32
  const Space space(analyze(*sg, testing::test_target()));
  Schedule h = space.heuristic();
  ASSERT_EQ(h.find("f")->compute.kind, ComputeLocation::Kind::kRoot);
  EXPECT_EQ(inline_cheap_roots(space.analysis(), h), 0);
}

TEST(RootInlining, AFuncWithAProducerAtItsLoopsStaysAtRoot) {
  const auto sg = pyramid(2048, 1536);
  const Analysis a = analyze(*sg, testing::test_target());
  const int level0 = a.index_of("f"), boundary = a.index_of("mirror_interior");
  ASSERT_GE(boundary, 0);
  Schedule s = all_at_root(a);
  Schedule anchored = s;
  anchored.funcs[boundary].compute = ComputeLocation{ComputeLocation::Kind::kAt, "f", 0, a.funcs[level0].args[1]};
  inline_cheap_roots(a, anchored);
  EXPECT_EQ(anchored.funcs[level0].compute.kind, ComputeLocation::Kind::kRoot);
  // The same level with its boundary condition at root of its own is inlined.
  inline_cheap_roots(a, s);
  EXPECT_EQ(s.funcs[level0].compute.kind, ComputeLocation::Kind::kInline);
}

TEST(RootInlining, TheInlinedPyramidComputesTheReference) {
  const auto sg = pyramid(2048, 1536);
  const Analysis a = analyze(*sg, testing::test_target());
  const Space space(a);
  const Schedule h = space.heuristic();
  ASSERT_EQ(h.find("f")->compute.kind, ComputeLocation::Kind::kInline);
  const auto inputs = sg->make_inputs(3);
  EXPECT_EQ(testing::run_and_compare(*sg, a, h, inputs, sg->reference(inputs)), "");
}

}  // namespace
}  // namespace ktune::scheduler
