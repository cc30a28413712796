// `ktune show` as a user runs it: output, JSON, exit codes for bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/tools/cli_runner.h"

namespace ktune {
namespace {

using ::testing::HasSubstr;
using testing::run_ktune;

std::string suite(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/bench/suite/" + name + ".json"; }

TEST(CmdShow, TextShowsKeyShapesStagesAndCheck) {
  const auto r = run_ktune("show --check " + suite("bmm_scores"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("workload  bmm_scores"));
  EXPECT_THAT(r.out, HasSubstr("Q f32[12, 128, 64]"));
  EXPECT_THAT(r.out, HasSubstr("S_acc.update(0)"));
  EXPECT_THAT(r.out, HasSubstr("reduce k$x:64"));
  EXPECT_THAT(r.out, HasSubstr("check     ok  max relative error"));
}

TEST(CmdShow, JsonIsParseableAndComplete) {
  const auto r = run_ktune("show --format json --check " + suite("colsum") + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["name"], "colsum");
  EXPECT_EQ(j["key"].get<std::string>().size(), 32u);
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json::array({4096}));
  EXPECT_EQ(j["check"]["passed"], true);
  EXPECT_LT(j["check"]["max_relative_error"].get<double>(), 1e-3);
  EXPECT_DOUBLE_EQ(j["flops"].get<double>(), 4096.0 * 4096.0);
}

TEST(CmdShow, GeneratorIsShownAndChecked) {
  const auto r = run_ktune(std::string("show --check --generator ") + KTUNE_TEST_GENERATORS + ":ktune_test_blur --param scale=2");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("workload  ktune_test_blur (generator"));
  EXPECT_THAT(r.out, HasSubstr("check     ok"));
}

TEST(CmdShow, AGeneratorShowsItsDataAndItsOwnScheduleIsChecked) {
  const std::string gen = std::string(" --generator ") + KTUNE_REAL_GENERATORS + ":ktune_alpha_pyramid";
  const auto r = run_ktune("show --check" + gen);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("data      input in [0, 1)"));
  EXPECT_THAT(r.out, HasSubstr("check     ok"));
  EXPECT_THAT(r.out, HasSubstr("hand      ok"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("WARNING")));

  const auto ranged = run_ktune("show --format json" + gen + " --input-range input=0.1,1");
  ASSERT_EQ(ranged.exit_code, 0) << ranged.out;
  const auto plain = run_ktune("show --format json" + gen);
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  const auto jr = nlohmann::json::parse(ranged.out), jp = nlohmann::json::parse(plain.out);
  EXPECT_EQ(jr["inputs"][0]["range"], nlohmann::json::array({0.1, 1.0}));
  EXPECT_NE(jr["key"], jp["key"]);
}

// ktune_padded_blur's hand schedule bounds its output to whole strips of 32 rows, fewer than
// the workload's 300: it is checked where it computes, against that part of the reference.
TEST(CmdShow, AnOwnScheduleThatBoundsItsOutputIsCheckedWhereItComputes) {
  const auto r = run_ktune(std::string("show --check --generator ") + KTUNE_REAL_GENERATORS + ":ktune_padded_blur");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("hand      ok")) << r.out;
}

TEST(CmdShow, ABadInputRangeExitsWithTwoAndNamesTheInput) {
  const std::string gen = std::string(" --generator ") + KTUNE_REAL_GENERATORS + ":ktune_lut_tone";
  auto r = run_ktune("show" + gen + " --input-range input=0.1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr("--input-range: input: expected input=LO,HI (two numbers, LO below HI)"));
  r = run_ktune("show" + gen + " --input-range input=0,1e6");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr("HI 1000000 is above the u16 maximum 65535"));
  r = run_ktune("show" + gen + " --input-range alpha=0,1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr("no input buffer named \"alpha\""));
  r = run_ktune("show " + suite("colsum") + " --input-range x=0,1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr("--input-range sets the data of generator inputs and needs --generator"));
}

TEST(CmdShow, BadSpecExitsWithTwoAndNamesTheField) {
  const std::string path = testing::scratch_path("bad_spec.json");
  std::ofstream(path) << R"({"inputs": [{"name": "a", "shape": [2]}], "ops": [{"op": "nope", "inputs": ["a"], "output": "b"}], "outputs": ["b"]})";
  const auto r = run_ktune("show " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr(path + ": ops[0].op: unknown op \"nope\""));
}

TEST(CmdShow, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run_ktune("show").exit_code, 2);
  EXPECT_EQ(run_ktune("show --format yaml " + suite("colsum")).exit_code, 2);
  EXPECT_EQ(run_ktune("show /nonexistent.json").exit_code, 2);
  EXPECT_EQ(run_ktune("frobnicate").exit_code, 2);
  EXPECT_EQ(run_ktune("show --generator /nonexistent.so:x").exit_code, 2);
}

TEST(CmdShow, HelpListsSubcommands) {
  const auto r = run_ktune("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("show"));
}

}  // namespace
}  // namespace ktune
