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

TEST(Compare, IntegersAreExact) {
  Tensor want({4}, DType::kU16), got({4}, DType::kU16);
  for (size_t i = 0; i < 4; ++i) want.set(i, 1000.0 * static_cast<double>(i));
  got = want;
  EXPECT_TRUE(compare_outputs({got}, {want}).passed());
  EXPECT_EQ(compare_outputs({got}, {want}).describe(), "exact");
  got.set(2, 2001);
  const Comparison c = compare_outputs({got}, {want});
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_NE(c.describe().find("1 elements differ"), std::string::npos) << c.describe();
}

// An integer image computed in f32 may round differently in rare places: at most 1 in
// 1000 elements off by exactly 1.
TEST(Compare, IntegersRoundedFromFloatAllowRareOffByOne) {
  TensorInfo info{"out", DType::kU8, {2000}, {}};
  info.rounded_from_float = true;
  Tensor want({2000}, DType::kU8);
  for (size_t i = 0; i < want.size(); ++i) want.set(i, static_cast<double>(i % 200));
  Tensor got = want;
  got.set(10, want.at(10) + 1);
  got.set(500, want.at(500) + 1);
  const Comparison two = compare_outputs({got}, {want}, {info});
  EXPECT_TRUE(two.passed()) << two.describe();
  EXPECT_EQ(two.rounding_flips, 2);
  EXPECT_NE(two.describe().find("2 elements off by 1"), std::string::npos) << two.describe();
  EXPECT_FALSE(compare_outputs({got}, {want}).passed()) << "without the flag integers are exact";
  got.set(900, want.at(900) + 1);
  EXPECT_FALSE(compare_outputs({got}, {want}, {info}).passed()) << "three flips: more than 1 in 1000";
  got = want;
  got.set(7, want.at(7) + 2);
  EXPECT_FALSE(compare_outputs({got}, {want}, {info}).passed()) << "off by 2 is never rounding";
}

TEST(Compare, HalfPrecisionHasItsOwnTolerance) {
  const RefTensor ref{{2}, {1.0, 2.0}};
  Tensor got = to_typed(ref, DType::kF16), want = got;
  got.set(0, 1.0 + 1.0 / 512);  // two f16 steps above 1
  EXPECT_TRUE(compare_outputs({got}, {want}).passed());
  got.set(0, 1.05);
  EXPECT_FALSE(compare_outputs({got}, {want}).passed());
  EXPECT_EQ(tolerance_of(DType::kF16), 1e-2);
  EXPECT_EQ(tolerance_of(DType::kI32), 0);
}

}  // namespace
}  // namespace ktune::subgraphs
