#include "search/budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"

namespace ktune::search {
namespace {

TEST(Budget, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parse_duration_seconds("8h", "--budget"), 8 * 3600);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("90m", "--budget"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1h30m", "--budget"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("45s", "--budget"), 45);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("120", "--budget"), 120);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1.5h", "--budget"), 5400);
}

TEST(Budget, RejectsMalformedDurationsNamingTheFlag) {
  for (const char* bad : {"", "8x", "h", "1h30", "-5m", "0s", "m5"}) {
    try {
      parse_duration_seconds(bad, "--budget");
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const UserError& e) {
      EXPECT_THAT(std::string(e.what()), ::testing::HasSubstr("--budget: expected a duration")) << bad;
    }
  }
}

}  // namespace
}  // namespace ktune::search
