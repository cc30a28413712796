#include "search/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/duration_text.h"

namespace ktune::search {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Eta, IsWhatIsLeftOfTheWallClockBudget) {
  EXPECT_DOUBLE_EQ(*eta_seconds(60, 10, 300.0, std::nullopt), 240);
  EXPECT_DOUBLE_EQ(*eta_seconds(400, 10, 300.0, std::nullopt), 0);  // past the end
}

TEST(Eta, FollowsTheRateSoFarForATrialBudget) {
  // 10 of 40 trials in 60 s: 30 more take 180 s.
  EXPECT_DOUBLE_EQ(*eta_seconds(60, 10, std::nullopt, 40), 180);
  EXPECT_FALSE(eta_seconds(5, 0, std::nullopt, 40).has_value());  // no rate yet
  // With both, whichever ends first.
  EXPECT_DOUBLE_EQ(*eta_seconds(60, 10, 120.0, 40), 60);
  EXPECT_FALSE(eta_seconds(60, 10, std::nullopt, std::nullopt).has_value());
}

TEST(ProgressOffATerminal, EachRoundLineCarriesTheEta) {
  Progress progress(false, "", 300.0, std::nullopt);
  progress.update(60, 12, {});
  RoundRecord round;
  round.elapsed_s = 60;
  round.task = "softmax";
  round.round = 2;
  ::testing::internal::CaptureStderr();
  progress.round(round);
  const std::string line = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(line, HasSubstr("softmax round 2"));
  EXPECT_THAT(line, HasSubstr("ETA " + format_seconds(240)));

  Progress unbounded(false, "", std::nullopt, std::nullopt);
  ::testing::internal::CaptureStderr();
  unbounded.round(round);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), Not(HasSubstr("ETA")));
}

TEST(ProgressLog, EachRoundsLineCarriesItsSearchBuildAndRunSeconds) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ktune_progress_" + std::to_string(getpid()) + ".log")).string();
  std::filesystem::remove(path);
  {
    Progress progress(false, path, std::nullopt, std::nullopt);
    RoundRecord round;
    round.task = "softmax";
    round.round = 3;
    round.search_s = 1.5;
    round.build_s = 9.25;
    round.run_s = 2;
    ::testing::internal::CaptureStderr();
    progress.round(round);
    ::testing::internal::GetCapturedStderr();
  }
  std::ifstream in(path);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j.at("round"), 3);
  EXPECT_DOUBLE_EQ(j.at("search_s").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j.at("build_s").get<double>(), 9.25);
  EXPECT_DOUBLE_EQ(j.at("run_s").get<double>(), 2);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ktune::search
