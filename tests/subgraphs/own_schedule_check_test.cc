// The correctness gate passes the Generators' own (hand) schedules on their default data and
// on data given with --input-range, while wrong results (a shifted tile, a row from the row
// above, too many off-by-one roundings) still fail; the range is part of the workload key.
#include "subgraphs/own_schedule_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"

namespace ktune::subgraphs {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<GeneratorSubgraph> load(const std::string& name, const InputRanges& ranges = {},
                                        const std::map<std::string, std::string>& params = {}) {
  return load_generator_subgraph(std::string(KTUNE_REAL_GENERATORS) + ":" + name, params, {}, ranges);
}

class OwnSchedule : public ::testing::TestWithParam<std::string> {};

TEST_P(OwnSchedule, PassesTheGateOnTheDefaultData) {
  const auto sg = load(GetParam());
  const CheckResult r = check_own_schedule(*sg, 1);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.passed()) << r.comparison.describe();
  EXPECT_EQ(own_schedule_gate_warning(*sg, r), "");
}

INSTANTIATE_TEST_SUITE_P(TestGenerators, OwnSchedule,
                         ::testing::Values("ktune_alpha_pyramid", "ktune_lut_tone", "ktune_raw_denoise", "ktune_pyramid",
                                           "ktune_halo_blur", "ktune_histogram", "ktune_recursive_filter",
                                           "ktune_tuple_stats"));

TEST(OwnScheduleGate, PassesOnAGivenRangeAndTheRangeIsPartOfTheKey) {
  const auto plain = load("ktune_alpha_pyramid");
  const auto faint = load("ktune_alpha_pyramid", {{"input", {0.02, 0.2}}});
  EXPECT_TRUE(check_own_schedule(*faint, 1).passed()) << check_own_schedule(*faint, 1).comparison.describe();
  EXPECT_NE(faint->key().key, plain->key().key);
  EXPECT_THAT(faint->key().shapes, HasSubstr(" with input in [0.02, 0.2)"));
  // The default range given explicitly is the same workload.
  EXPECT_EQ(load("ktune_alpha_pyramid", {{"input", {0, 1}}})->key().key, plain->key().key);
  // The data follows the range.
  const Tensor in = faint->make_inputs(1)[0];
  for (size_t i = 0; i < in.size(); i += 97) {
    EXPECT_GE(in.at(i), 0.02);
    EXPECT_LT(in.at(i), 0.2);
  }
}

// Alpha in [-1, 1), data no image holds: the filled alpha cancels to nearly zero in places,
// the division amplifies the rounding of its terms, and the own schedule is 2% off at the
// largest elements (1024x768). The gate fails it, and the warning blames the data.
TEST(OwnScheduleGate, OnDataNoImageHoldsTheOwnScheduleFailsAndTheWarningSaysSo) {
  const auto sg = load("ktune_alpha_pyramid", {{"input", {-1, 1}}}, {{"width", "1024"}, {"height", "768"}});
  const CheckResult r = check_own_schedule(*sg, 1);
  ASSERT_EQ(r.error, "");
  EXPECT_FALSE(r.passed()) << r.comparison.describe();
  EXPECT_THAT(own_schedule_gate_warning(*sg, r), HasSubstr("Seeded data: input in [-1, 1)"));
  // The same image on the default data passes.
  const auto plain = load("ktune_alpha_pyramid", {}, {{"width", "1024"}, {"height", "768"}});
  EXPECT_TRUE(check_own_schedule(*plain, 1).passed());
}

TEST(OwnScheduleGate, ABadRangeNamesTheInput) {
  try {
    load("ktune_lut_tone", {{"input", {0, 70000}}});
    FAIL() << "70000 is not a u16";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("input range input=0,70000: HI 70000 is above the u16 maximum 65535"));
  }
  try {
    load("ktune_lut_tone", {{"alpha", {0, 1}}});
    FAIL() << "no input named alpha";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no input buffer named \"alpha\" (its input buffers: input)"));
  }
}

// The reference with one 16x16 tile of channel 0 read one pixel to the right.
Tensor with_shifted_tile(const Tensor& t) {
  Tensor out = t;
  const int64_t width = t.shape.back();
  for (int64_t y = 32; y < 48; ++y) {
    for (int64_t x = 64; x < 80; ++x) out.set(static_cast<size_t>(y * width + x), t.at(static_cast<size_t>(y * width + x + 1)));
  }
  return out;
}

TEST(OwnScheduleGate, AShiftedTileOfTheAlphaPyramidFails) {
  const auto sg = load("ktune_alpha_pyramid");
  const std::vector<Tensor> want = sg->reference(sg->make_inputs(1));
  EXPECT_TRUE(compare_outputs(want, want, sg->outputs()).passed());
  const Comparison c = compare_outputs({with_shifted_tile(want[0])}, want, sg->outputs());
  EXPECT_FALSE(c.passed()) << c.describe();
}

TEST(OwnScheduleGate, TheLutFiltersWrongResultsFail) {
  const auto sg = load("ktune_lut_tone");
  ASSERT_TRUE(sg->outputs()[0].rounded_from_float);
  const std::vector<Tensor> want = sg->reference(sg->make_inputs(1));
  EXPECT_FALSE(compare_outputs({with_shifted_tile(want[0])}, want, sg->outputs()).passed());
  // A row computed from the row above.
  Tensor row = want[0];
  const int64_t width = row.shape.back();
  for (int64_t x = 0; x < width; ++x) row.set(static_cast<size_t>(7 * width + x), want[0].at(static_cast<size_t>(6 * width + x)));
  EXPECT_FALSE(compare_outputs({row}, want, sg->outputs()).passed());
  // Off by 1 in 2% of the elements: more than float rounding gives.
  Tensor flips = want[0];
  for (size_t i = 0; i < flips.size(); i += 50) flips.set(i, want[0].at(i) < 65535 ? want[0].at(i) + 1 : want[0].at(i) - 1);
  const Comparison c = compare_outputs({flips}, want, sg->outputs());
  EXPECT_FALSE(c.passed());
  EXPECT_THAT(c.describe(), HasSubstr("more than the"));
}

TEST(OwnScheduleGate, TheWarningBlamesTheGateOrTheDataAndSaysHowToGiveARange) {
  const auto sg = load("ktune_alpha_pyramid", {{"input", {0.02, 0.2}}});
  const std::string w = own_schedule_gate_warning(*sg, "max relative error 1.09e-02");
  EXPECT_THAT(w, HasSubstr("WARNING: the Generator's own schedule of ktune_alpha_pyramid fails the correctness gate"));
  EXPECT_THAT(w, HasSubstr("the gate or the seeded data is wrong, not the schedule"));
  EXPECT_THAT(w, HasSubstr("Seeded data: input in [0.02, 0.2)"));
  EXPECT_THAT(w, HasSubstr("--input-range NAME=LO,HI"));
  EXPECT_THAT(w, HasSubstr("KTUNE_INPUTS=NAME=LO:HI"));
}

}  // namespace
}  // namespace ktune::subgraphs
