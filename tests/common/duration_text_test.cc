#include "common/duration_text.h"

#include <gtest/gtest.h>

#include <limits>

namespace ktune {
namespace {

TEST(FormatNs, PicksTheUnitThatFits) {
  EXPECT_EQ(format_ns(850), "850 ns");
  EXPECT_EQ(format_ns(30900), "30.9 us");
  EXPECT_EQ(format_ns(1.5e6), "1.50 ms");
  EXPECT_EQ(format_ns(2.1e9), "2.10 s");
  EXPECT_EQ(format_ns(-1), "-");
  EXPECT_EQ(format_ns(std::numeric_limits<double>::infinity()), "-");
}

TEST(FormatSeconds, HoursMinutesSeconds) {
  EXPECT_EQ(format_seconds(42), "42s");
  EXPECT_EQ(format_seconds(185), "3m05s");
  EXPECT_EQ(format_seconds(3720), "1h02m");
}

}  // namespace
}  // namespace ktune
