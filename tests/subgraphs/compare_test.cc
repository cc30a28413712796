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

TEST(Compare, FloatErrorIsRelativeToTheOutputsLargestValue) {
  // Element 1 is off by 1e-3 on a reference value of 1e-6: relative to the output's largest
  // value (100) that is 1e-5.
  const Comparison c = compare_outputs({Tensor{{2}, {100.0f, 1e-3f + 1e-6f}}}, {Tensor{{2}, {100.0f, 1e-6f}}});
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_NEAR(c.max_error, 1e-5, 1e-8);
  EXPECT_EQ(c.scale, 100);
}

// A value divided by a nearly zero one (a pyramid normalized by its alpha) carries the
// error of its terms: an element 1.09e-2 off its own value passes when that is within 1e-3
// of the output's largest value, and when such elements are rare (1 in 1000).
TEST(Compare, AnIllConditionedElementPassesAWrongTileDoesNot) {
  std::vector<float> want(2000), got;
  for (size_t i = 0; i < want.size(); ++i) want[i] = 1.0f + static_cast<float>(i % 7) * 0.1f;
  want[100] = -295099.0f;
  got = want;
  got[100] = -291877.0f;
  Comparison c = compare_outputs({Tensor{{2000}, got}}, {Tensor{{2000}, want}});
  EXPECT_FALSE(c.passed()) << "the largest element itself is 1% off: " << c.describe();
  want[7] = got[7] = 4e6f;  // 3222 / 4e6 = 8e-4 of the output's largest value
  c = compare_outputs({Tensor{{2000}, got}}, {Tensor{{2000}, want}});
  EXPECT_TRUE(c.passed()) << c.describe();
  EXPECT_EQ(c.rare_elements, 1);
  // A wrong 16-element tile among the small values: within 1e-3 of the huge largest value,
  // but far from their own and the typical value in more places than 1 in 1000.
  for (size_t i = 500; i < 516; ++i) got[i] = want[i + 1];
  c = compare_outputs({Tensor{{2000}, got}}, {Tensor{{2000}, want}});
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_NE(c.describe().find("more than the 2 ill-conditioned elements allowed"), std::string::npos) << c.describe();
  EXPECT_NE(c.describe().find("first at output 0 element 100"), std::string::npos) << c.describe();
}

TEST(Compare, AWrongRowOfAnImageFails) {
  std::vector<float> want(64 * 64), got;
  for (size_t i = 0; i < want.size(); ++i) want[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
  got = want;
  for (size_t x = 0; x < 64; ++x) got[5 * 64 + x] = want[4 * 64 + x];  // row 5 computed from row 4
  const Comparison c = compare_outputs({Tensor{{64, 64}, got}}, {Tensor{{64, 64}, want}});
  EXPECT_FALSE(c.passed());
  EXPECT_GT(c.mismatches, 32);
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
// 100 elements off by exactly 1.
TEST(Compare, IntegersRoundedFromFloatAllowRareOffByOne) {
  TensorInfo info{"out", DType::kU8, {200}, {}};
  info.rounded_from_float = true;
  Tensor want({200}, DType::kU8);
  for (size_t i = 0; i < want.size(); ++i) want.set(i, static_cast<double>(i % 200));
  Tensor got = want;
  got.set(10, want.at(10) + 1);
  got.set(50, want.at(50) + 1);
  const Comparison two = compare_outputs({got}, {want}, {info});
  EXPECT_TRUE(two.passed()) << two.describe();
  EXPECT_EQ(two.rare_elements, 2);
  EXPECT_NE(two.describe().find("2 elements off by 1"), std::string::npos) << two.describe();
  EXPECT_FALSE(compare_outputs({got}, {want}).passed()) << "without the flag integers are exact";
  got.set(90, want.at(90) + 1);
  const Comparison three = compare_outputs({got}, {want}, {info});
  EXPECT_FALSE(three.passed()) << "three flips: more than 1 in 100";
  EXPECT_NE(three.describe().find("first at output 0 element 10"), std::string::npos) << three.describe();
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
