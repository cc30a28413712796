// The typing rules of spec ops (subgraphs/ops/op_types.h).
#include "subgraphs/ops/op_types.h"

#include <gtest/gtest.h>

namespace ktune::subgraphs {
namespace {

TEST(OpTypes, EightBitOperandsMultiplyInIntegers) {
  EXPECT_TRUE(integer_product({DType::kU8, DType::kI8}));
  EXPECT_TRUE(integer_product({DType::kI8, DType::kI8}));
  EXPECT_FALSE(integer_product({DType::kU8, DType::kF32}));
  EXPECT_FALSE(integer_product({DType::kI16, DType::kI8}));
  EXPECT_FALSE(integer_product({}));
}

TEST(OpTypes, OnlyI32ValuesAddInIntegers) {
  EXPECT_TRUE(all_i32({DType::kI32, DType::kI32}));
  EXPECT_FALSE(all_i32({DType::kI32, DType::kU8}));
  EXPECT_FALSE(all_i32({}));
}

TEST(OpTypes, HalfInputsAreStoredBackInTheirType) {
  EXPECT_EQ(default_storage({DType::kBF16, DType::kBF16}, DType::kF32), DType::kBF16);
  EXPECT_EQ(default_storage({DType::kF16}, DType::kF32), DType::kF16);
  // Mixed halves, halves with f32, and integer images read as floats give f32.
  EXPECT_EQ(default_storage({DType::kF16, DType::kBF16}, DType::kF32), DType::kF32);
  EXPECT_EQ(default_storage({DType::kBF16, DType::kF32}, DType::kF32), DType::kF32);
  EXPECT_EQ(default_storage({DType::kU8}, DType::kF32), DType::kF32);
  // An op that computes in i32 stores i32.
  EXPECT_EQ(default_storage({DType::kU8, DType::kI8}, DType::kI32), DType::kI32);
}

TEST(OpTypes, AccumulationBoundsFollowTheOperandRanges) {
  EXPECT_EQ(largest_magnitude(DType::kI8), 128);
  EXPECT_EQ(largest_magnitude(DType::kU8), 255);
  // 65793 · 255 · 128 < 2^31 - 1 < 65794 · 255 · 128.
  EXPECT_TRUE(accumulation_fits_i32(65793, DType::kU8, DType::kI8));
  EXPECT_FALSE(accumulation_fits_i32(65794, DType::kU8, DType::kI8));
  // (-128)^2 · 131072 is exactly 2^31, one past the largest i32.
  EXPECT_TRUE(accumulation_fits_i32(131071, DType::kI8, DType::kI8));
  EXPECT_FALSE(accumulation_fits_i32(131072, DType::kI8, DType::kI8));
}

TEST(OpTypes, I32SumsWrapLikeTheKernel) {
  EXPECT_EQ(wrap_to_i32(5), 5);
  EXPECT_EQ(wrap_to_i32(2147483647.0 + 1), -2147483648.0);
  EXPECT_EQ(wrap_to_i32(-2147483648.0 - 2), 2147483646.0);
}

}  // namespace
}  // namespace ktune::subgraphs
