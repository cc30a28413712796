#include "subgraphs/tensor.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(a.data, b.data);
  EXPECT_NE(a.data, random_tensor({3, 17}, 43).data);
  for (float v : random_tensor({1000}, 5, 0.5, 2.0).data) {
    EXPECT_GE(v, 0.5f);
    EXPECT_LT(v, 2.0f);
  }
  // Pinned: seeded inputs must be the same on every machine and every version.
  EXPECT_FLOAT_EQ(a.data[0], random_tensor({1}, 42).data[0]);
  const Tensor pinned = random_tensor({3}, 42);
  EXPECT_FLOAT_EQ(pinned.data[0], 0.48312977f);
  EXPECT_FLOAT_EQ(pinned.data[1], -0.680179238f);
  EXPECT_FLOAT_EQ(pinned.data[2], -0.44279775f);
}

}  // namespace
}  // namespace ktune::subgraphs
