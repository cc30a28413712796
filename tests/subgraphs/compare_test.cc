#include "subgraphs/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ktune::subgraphs {
namespace {

TEST(Compare, IdenticalOutputsHaveZeroError) {
  const std::vector<Tensor> t = {Tensor{{3}, {1, -2, 3}}};
  const Comparison c = compare_outputs(t, t);
  EXPECT_EQ(c.max_error, 0);
  EXPECT_TRUE(c.passed());
}

TEST(Compare, RelativeErrorIsFlooredAtOnePercentOfTheScale) {
  // Element 1 is off by 1e-3 on a reference value of 1e-6: relative to the 1% floor
  // (0.01 * 100 = 1) that is 1e-3, at the tolerance.
  const Comparison c = compare_outputs({Tensor{{2}, {100.0f, 1e-3f + 1e-6f}}}, {Tensor{{2}, {100.0f, 1e-6f}}});
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_NEAR(c.max_error, 1e-3, 1e-6);
}

TEST(Compare, WrongValueFailsAndIsLocated) {
  const Comparison c = compare_outputs({Tensor{{2, 2}, {1, 2, 3, 5}}}, {Tensor{{2, 2}, {1, 2, 3, 4}}});
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.worst_index, 3);
  EXPECT_NEAR(c.max_error, 0.25, 1e-12);
  EXPECT_NE(c.describe().find("element 3 (got 5, want 4)"), std::string::npos) << c.describe();
}

TEST(Compare, NanShapeMismatchAndCountMismatchFail) {
  EXPECT_FALSE(compare_outputs({Tensor{{1}, {std::nanf("")}}}, {Tensor{{1}, {1}}}).passed());
  EXPECT_FALSE(compare_outputs({Tensor{{2}, {1, 2}}}, {Tensor{{1, 2}, {1, 2}}}).passed());
  EXPECT_FALSE(compare_outputs({}, {Tensor{{1}, {1}}}).passed());
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(compare_outputs({Tensor{{1}, {-inf}}}, {Tensor{{1}, {-inf}}}).passed());
}

}  // namespace
}  // namespace ktune::subgraphs
