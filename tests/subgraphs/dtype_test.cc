#include "subgraphs/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace ktune::subgraphs {
namespace {

TEST(DType, NamesRoundTripAndUnknownNamesAreRejected) {
  for (DType d : all_dtypes()) EXPECT_EQ(parse_dtype_name(to_string(d)), d) << to_string(d);
  EXPECT_EQ(parse_dtype_name("uint16"), DType::kU16);
  EXPECT_EQ(parse_dtype_name("float32"), DType::kF32);
  EXPECT_FALSE(parse_dtype_name("f8").has_value());
  EXPECT_EQ(bytes_of(DType::kBF16), 2);
  EXPECT_EQ(bytes_of(DType::kF64), 8);
  EXPECT_EQ(c_type_name(DType::kI8), "int8_t");
}

TEST(DType, IntegersRoundToNearestEvenAndSaturate) {
  EXPECT_EQ(round_to(DType::kU8, 2.5), 2);
  EXPECT_EQ(round_to(DType::kU8, 3.5), 4);
  EXPECT_EQ(round_to(DType::kU8, -7), 0);
  EXPECT_EQ(round_to(DType::kU8, 1e9), 255);
  EXPECT_EQ(round_to(DType::kI8, -200), -128);
  EXPECT_EQ(round_to(DType::kI32, 3e10), 2147483647.0);
  EXPECT_EQ(round_to(DType::kU16, std::nan("")), 0);
  EXPECT_EQ(round_to(DType::kBool, 0.25), 1);
}

TEST(DType, HalfConversionsMatchIeee) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(65520.0f), 0x7c00);  // rounds up to infinity
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);  // the smallest subnormal
  EXPECT_EQ(float_to_half_bits(std::ldexp(1.0f, -26)), 0x0000);  // below half of it
  // 1 + 2^-11 is halfway between 1 and the next half: ties to even (1).
  EXPECT_EQ(float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(NAN))));
  for (uint32_t bits = 0; bits < 0x7c00; bits += 7) {
    EXPECT_EQ(float_to_half_bits(half_bits_to_float(static_cast<uint16_t>(bits))), bits);
  }
}

TEST(DType, Bfloat16KeepsTheTopSixteenBitsRounded) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits_to_float(0x3f80), 1.0f);
  // 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: ties to even.
  EXPECT_EQ(float_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(float_to_bf16_bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(NAN))));
}

TEST(DType, ElementsRoundTripThroughMemory) {
  unsigned char mem[8];
  for (DType d : all_dtypes()) {
    const double v = is_float(d) ? 0.75 : d == DType::kBool ? 1 : 3;
    store_element(d, v, mem);
    EXPECT_EQ(load_element(d, mem), v) << to_string(d);
  }
  store_element(DType::kI16, -5, mem);
  int16_t raw;
  std::memcpy(&raw, mem, 2);
  EXPECT_EQ(raw, -5);
}

}  // namespace
}  // namespace ktune::subgraphs
