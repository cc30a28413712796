// Where the heuristic computes a Func: a lookup table whose entries cost more than the
// lookups stays out of line, once per entry; a cheap one is inlined into its reader.
#include "scheduler/compute_choice.h"

#include <gtest/gtest.h>

#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

Schedule heuristic_of(const std::string& generator, const std::map<std::string, std::string>& params) {
  const auto sg = subgraphs::load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":" + generator, params);
  const Space space(analyze(*sg, testing::test_target()));
  const Schedule h = space.heuristic();
  EXPECT_EQ(space.validate(h), std::nullopt) << generator;
  return h;
}

TEST(ComputeChoice, ATableOfCostlyEntriesLookedUpPerPixelIsComputedOnceAtRoot) {
  // ktune_camera_raw's tone curve: 1024 entries of a power law, looked up by every pixel.
  const Schedule h = heuristic_of("ktune_camera_raw", {{"width", "256"}, {"height", "128"}});
  ASSERT_NE(h.find("curve"), nullptr);
  EXPECT_EQ(h.find("curve")->compute.kind, ComputeLocation::Kind::kRoot);
}

TEST(ComputeChoice, ATableOfCheapEntriesIsInlinedIntoItsLookups) {
  // ktune_lut_tone's curve costs 5 operations an entry: cheaper than a gathered lookup.
  const Schedule h = heuristic_of("ktune_lut_tone", {});
  ASSERT_NE(h.find("curve"), nullptr);
  EXPECT_EQ(h.find("curve")->compute.kind, ComputeLocation::Kind::kInline);
}

}  // namespace
}  // namespace ktune::scheduler
