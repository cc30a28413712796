// The space can reach the structure of the conv3x3_relu schedule vectorized along x
// (bench/expert/rows/; the heuristic starts from the channel layout of bench/expert/): the
// accumulator computed per output tile, its update vectorized along x with a register tile
// of unrolled rows and unrolled output channels, and the 3x3 window inside the input
// channels. Sampling finds schedules of that shape; the tile-size mutator moves factors.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// True when `s` has the expert's structure (any tile sizes).
bool expert_shaped(const Schedule& s) {
  const FuncSchedule* acc = s.find("conv_acc");
  if (!acc || acc->compute.kind != ComputeLocation::Kind::kAt) return false;
  for (const StageSchedule& st : acc->stages) {
    if (st.stage != 1) continue;
    const auto window = std::find(st.order.begin(), st.order.end(), "r$z");
    const auto channels = std::find(st.order.begin(), st.order.end(), "r$x");
    return !st.vectorize.empty() && has(st.unroll, "y_i") && has(st.unroll, "c_i") && window < channels &&
           channels != st.order.end();
  }
  return false;
}

TEST(ConvReachability, SamplesHaveTheExpertScheduleShape) {
  const auto sg = testing::suite_subgraph("conv3x3_relu");
  const Space space(analyze(*sg, testing::test_target()));
  Rng rng(11);
  int shaped = 0;
  for (int i = 0; i < 2000 && shaped == 0; ++i) {
    const std::optional<Schedule> s = space.sample(rng);
    if (s && expert_shaped(*s)) {
      ++shaped;
      EXPECT_EQ(space.validate(*s).value_or(""), "");
      EXPECT_EQ(testing::isolated([&] { return lower(apply(*s, *sg, space.analysis()), "host").value_or(""); }), "");
    }
  }
  EXPECT_EQ(shaped, 1) << "no sample has the expert's register tile and reduction order";
}

}  // namespace
}  // namespace ktune::scheduler
