// Which dimensions a stencil taps, and a separable filter's passes told apart from a chain
// of stencils along one dimension.
#include "scheduler/stencil_taps.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/scheduler/test_support.h"

namespace ktune::scheduler {
namespace {

// A 3-tap stencil along one axis of `in` (h), one along the other axis of h (v), and one more
// along that same axis of v (w).
constexpr const char* kSeparableThenChained = R"({"name": "taps", "inputs": [{"name": "in", "shape": [70, 70]}],
  "ops": [{"op": "stencil", "inputs": ["in"], "output": "h", "axes": [1], "weights": [1, 2, 1], "divisor": 4},
          {"op": "stencil", "inputs": ["h"], "output": "v", "axes": [0], "weights": [1, 2, 1], "divisor": 4},
          {"op": "stencil", "inputs": ["v"], "output": "w", "axes": [0], "weights": [1, 2, 1], "divisor": 4}],
  "outputs": ["w"]})";

const FuncAnalysis& func(const Analysis& a, const std::string& name) { return a.funcs.at(a.index_of(name)); }

int tapped_count(const std::vector<bool>& dims) { return static_cast<int>(std::count(dims.begin(), dims.end(), true)); }

TEST(TappedDims, AOneAxisStencilTapsOneDimensionOfWhatItReads) {
  const Analysis a = analyze(*testing::spec_subgraph(kSeparableThenChained), testing::test_target());
  const auto v_taps = tapped_dims(func(a, "v").stages[0], "h");
  const auto w_taps = tapped_dims(func(a, "w").stages[0], "v");
  ASSERT_TRUE(v_taps && w_taps);
  ASSERT_EQ(v_taps->size(), 2u);
  EXPECT_EQ(tapped_count(*v_taps), 1);
  EXPECT_EQ(*v_taps, *w_taps) << "both tap the same axis";
  EXPECT_TRUE(tapped_dims(func(a, "w").stages[0], "h")->empty()) << "w does not read h";
}

TEST(TapsAcross, TheFirstPassOfASeparableFilterButNotAChainAlongOneAxis) {
  const Analysis a = analyze(*testing::spec_subgraph(kSeparableThenChained), testing::test_target());
  EXPECT_TRUE(taps_across(func(a, "h"), func(a, "v").stages[0]));
  EXPECT_FALSE(taps_across(func(a, "v"), func(a, "w").stages[0]));
}

}  // namespace
}  // namespace ktune::scheduler
