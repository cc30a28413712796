// The range a Generator's input is seeded from: parsed from --input-range and KTUNE_INPUTS
// with errors that name the input, the field and what was expected; checked against the
// input's type; and part of the workload key only where it differs from the default.
#include "subgraphs/input_range.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"

namespace ktune::subgraphs {
namespace {

using ::testing::HasSubstr;

std::string parse_error(const std::vector<std::string>& items) {
  try {
    parse_input_range_flags(items);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(InputRange, ParsesNameLoHi) {
  const InputRanges r = parse_input_range_flags({"alpha=0.1,1", "input=0,4095"});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r.at("alpha"), (InputRange{0.1, 1}));
  EXPECT_EQ(r.at("input"), (InputRange{0, 4095}));
  EXPECT_EQ(parse_input_range("KTUNE_INPUTS", "alpha", "-0.5:2e3", ':'), (InputRange{-0.5, 2000}));
}

TEST(InputRange, BadTextNamesTheInputTheFieldAndWhatWasExpected) {
  EXPECT_THAT(parse_error({"alpha"}), HasSubstr("--input-range: expected NAME=LO,HI"));
  EXPECT_THAT(parse_error({"=0,1"}), HasSubstr("expected NAME=LO,HI"));
  EXPECT_THAT(parse_error({"alpha=0.1"}),
              HasSubstr("--input-range: alpha: expected alpha=LO,HI (two numbers, LO below HI), found \"alpha=0.1\""));
  EXPECT_THAT(parse_error({"alpha=low,1"}), HasSubstr("alpha: LO: expected alpha=LO,HI"));
  EXPECT_THAT(parse_error({"alpha=low,1"}), HasSubstr("found \"low\""));
  EXPECT_THAT(parse_error({"alpha=0,inf"}), HasSubstr("alpha: HI: expected"));
  EXPECT_THAT(parse_error({"alpha=0,1,2"}), HasSubstr("found \"alpha=0,1,2\""));
  EXPECT_THAT(parse_error({"alpha=1,0"}), HasSubstr("found LO 1 above HI 0"));
  EXPECT_THAT(parse_error({"alpha=0,1", "alpha=0,2"}), HasSubstr("alpha: given twice"));
  try {
    parse_input_range("KTUNE_INPUTS", "alpha", "0.1,1", ':');
    FAIL() << "a comma in KTUNE_INPUTS separates items, not LO and HI";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("KTUNE_INPUTS: alpha: expected alpha=LO:HI"));
  }
}

std::vector<TensorInfo> rgba_and_u8() {
  return {TensorInfo{"rgba", DType::kF32, {4, 8, 8}, {}}, TensorInfo{"mask", DType::kU8, {8, 8}, {}}};
}

TEST(InputRange, DefaultsAreImageRanges) {
  EXPECT_EQ(default_generator_range(DType::kF32), (InputRange{0, 1}));
  EXPECT_EQ(default_generator_range(DType::kU16), (InputRange{0, 65535}));
  EXPECT_EQ(default_generator_range(DType::kI8), (InputRange{-128, 127}));
  const SeededRanges s = seeded_ranges(rgba_and_u8(), {{"mask", {0, 1}}});
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.ranges, (std::vector<InputRange>{{0, 1}, {0, 1}}));
}

TEST(InputRange, RangesMustNameAnInputAndSuitItsType) {
  EXPECT_THAT(seeded_ranges(rgba_and_u8(), {{"alpha", {0, 1}}}).error,
              HasSubstr("no input buffer named \"alpha\" (its input buffers: rgba, mask)"));
  EXPECT_THAT(seeded_ranges(rgba_and_u8(), {{"mask", {0, 300}}}).error,
              HasSubstr("input range mask=0,300: HI 300 is above the u8 maximum 255"));
  EXPECT_THAT(seeded_ranges(rgba_and_u8(), {{"mask", {-1, 3}}}).error, HasSubstr("LO -1 is below the u8 minimum 0"));
  EXPECT_THAT(seeded_ranges(rgba_and_u8(), {{"mask", {0.5, 3}}}).error, HasSubstr("LO 0.5 is not a whole number"));
  EXPECT_THAT(seeded_ranges(rgba_and_u8(), {{"rgba", {1, 1}}}).error, HasSubstr("LO must be below HI for a f32 input"));
  EXPECT_EQ(seeded_ranges(rgba_and_u8(), {{"mask", {7, 7}}}).error, "") << "one integer value is a range";
}

TEST(InputRange, OnlyRangesOtherThanTheDefaultEnterTheKey) {
  const auto inputs = rgba_and_u8();
  EXPECT_EQ(range_key_text(inputs, {{0, 1}, {0, 255}}), "");
  EXPECT_EQ(range_display_text(inputs, {{0, 1}, {0, 255}}), "");
  EXPECT_EQ(range_key_text(inputs, {{0.5, 1}, {0, 255}}), "|range in0=[0x1p-1,0x1p+0)");
  EXPECT_NE(range_key_text(inputs, {{0.5, 1}, {0, 255}}), range_key_text(inputs, {{0.25, 1}, {0, 255}}));
  EXPECT_EQ(range_display_text(inputs, {{0.5, 1}, {0, 16}}), "rgba in [0.5, 1); mask in [0, 16]");
}

}  // namespace
}  // namespace ktune::subgraphs
