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

TEST(Tensor, ACropKeepsTheElementsOfItsRegion) {
  // A 3 x 4 tensor at (1, 2): element (r, c) holds 10 * r + c.
  const TensorInfo whole{"t", DType::kI32, {3, 4}, {1, 2}};
  Tensor t({3, 4}, DType::kI32);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) t.set(static_cast<size_t>(r * 4 + c), 10 * (r + 1) + (c + 2));
  }
  const TensorInfo region{"t", DType::kI32, {2, 2}, {2, 4}};
  ASSERT_TRUE(region_inside(region, whole));
  const Tensor crop = crop_tensor(t, whole, region);
  ASSERT_EQ(crop.shape, (Shape{2, 2}));
  EXPECT_EQ(crop.at(0), 24);
  EXPECT_EQ(crop.at(1), 25);
  EXPECT_EQ(crop.at(2), 34);
  EXPECT_EQ(crop.at(3), 35);
  EXPECT_FALSE(region_inside(TensorInfo{"t", DType::kI32, {2, 2}, {3, 4}}, whole));  // one row past the end
  EXPECT_FALSE(region_inside(TensorInfo{"t", DType::kI32, {2, 2}, {0, 2}}, whole));  // one row before
}

}  // namespace
}  // namespace ktune::subgraphs
