#include "subgraphs/tensor.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ktune::subgraphs {
namespace {

TEST(Tensor, ShapesAndStrides) {
  EXPECT_EQ(element_count({2, 3, 4}), 24);
  EXPECT_EQ(element_count({}), 1);
  EXPECT_EQ(row_major_strides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(shape_to_string({512, 768}), "[512, 768]");
}

TEST(Tensor, RandomTensorIsDeterministicPinnedAndInRange) {
  const Tensor a = random_tensor({3, 17}, 42, -1.0, 1.0);
  const Tensor b = random_tensor({3, 17}, 42, -1.0, 1.0);
  EXPECT_EQ(a.floats(), b.floats());
  EXPECT_NE(a.floats(), random_tensor({3, 17}, 43).floats());
  for (float v : random_tensor({1000}, 5, 0.5, 2.0).floats()) {
    EXPECT_GE(v, 0.5f);
    EXPECT_LT(v, 2.0f);
  }
  // Pinned: seeded inputs must be the same on every machine and every version.
  EXPECT_FLOAT_EQ(a.at(0), random_tensor({1}, 42).at(0));
  const Tensor pinned = random_tensor({3}, 42);
  EXPECT_FLOAT_EQ(pinned.at(0), 0.48312977f);
  EXPECT_FLOAT_EQ(pinned.at(1), -0.680179238f);
  EXPECT_FLOAT_EQ(pinned.at(2), -0.44279775f);
}

TEST(Tensor, IntegerTensorsCoverTheirWholeRangeDeterministically) {
  const Tensor u8 = random_tensor({4096}, 7, 0, 255, DType::kU8);
  ASSERT_EQ(u8.bytes.size(), 4096u);
  bool saw_zero = false, saw_max = false;
  for (size_t i = 0; i < u8.size(); ++i) {
    EXPECT_EQ(u8.at(i), std::floor(u8.at(i)));
    saw_zero |= u8.at(i) == 0;
    saw_max |= u8.at(i) == 255;
  }
  EXPECT_TRUE(saw_zero && saw_max);
  EXPECT_EQ(u8.bytes, random_tensor({4096}, 7, 0, 255, DType::kU8).bytes);
  const auto [lo, hi] = default_input_range(DType::kI16);
  EXPECT_EQ(lo, -32768);
  EXPECT_EQ(hi, 32767);
  const Tensor i16 = random_tensor({1000}, 3, lo, hi, DType::kI16);
  for (size_t i = 0; i < i16.size(); ++i) EXPECT_TRUE(i16.at(i) >= lo && i16.at(i) <= hi);
}

TEST(Tensor, ElementsConvertAndRoundTripThroughBytes) {
  Tensor t({3}, DType::kU16);
  t.set(0, 70000);   // saturates
  t.set(1, 2.5);     // rounds to even
  t.set(2, -4);      // saturates at 0
  EXPECT_EQ(t.at(0), 65535);
  EXPECT_EQ(t.at(1), 2);
  EXPECT_EQ(t.at(2), 0);
  const RefTensor r{{2}, {1.0 / 3.0, 1e6}};
  const Tensor h = to_typed(r, DType::kF16);
  EXPECT_NEAR(h.at(0), 1.0 / 3.0, 1.0 / 2048);
  EXPECT_TRUE(std::isinf(h.at(1)));  // beyond f16's 65504
  EXPECT_EQ(to_ref(h).data[0], h.at(0));
}

}  // namespace
}  // namespace ktune::subgraphs
