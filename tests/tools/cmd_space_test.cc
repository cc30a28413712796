// `ktune space` as a user runs it.
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

TEST(CmdSpace, SamplesAreJsonSchedulesThatRoundTrip) {
  const auto r = run_ktune("space " + suite("softmax") + " --sample 3 --seed 7 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::istringstream lines(r.out);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_TRUE(j.contains("funcs"));
    // Feed it back: a valid schedule is accepted and printed as Halide source.
    const std::string path = testing::scratch_path("sched" + std::to_string(count) + ".json");
    std::ofstream(path) << line;
    const auto back = run_ktune("space " + suite("softmax") + " --schedule " + path + " --format halide");
    EXPECT_EQ(back.exit_code, 0) << back.out;
    EXPECT_THAT(back.out, HasSubstr("y.compute_root();"));
    ++count;
  }
  EXPECT_EQ(count, 3);
}

TEST(CmdSpace, HeuristicAsHalideAndLoopNest) {
  const auto h = run_ktune("space " + suite("gemm_1024") + " --named heuristic --format halide");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_THAT(h.out, HasSubstr("C_acc.compute_at(C, y_o);"));
  EXPECT_THAT(h.out, HasSubstr("Func B_pack = B.in();"));
  EXPECT_THAT(h.out, HasSubstr(".vectorize(x_i);"));
  const auto l = run_ktune("space " + suite("gemm_1024") + " --named heuristic --format loopnest");
  EXPECT_EQ(l.exit_code, 0);
  EXPECT_THAT(l.out, HasSubstr("produce C_acc"));
  EXPECT_THAT(l.out, HasSubstr("parallel x.x_t.x_o"));
  EXPECT_THAT(l.out, HasSubstr("produce B_im"));
}

TEST(CmdSpace, StatsReportAcceptance) {
  const auto r = run_ktune("space " + suite("colsum") + " --stats 20 2>/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("schedules/s"));
  EXPECT_THAT(r.out, HasSubstr("Halide lowering accepted"));
  EXPECT_THAT(r.out, HasSubstr("dependence"));
}

TEST(CmdSpace, BadScheduleFileExitsTwoNamingTheField) {
  const std::string path = testing::scratch_path("bad_schedule.json");
  std::ofstream(path) << R"({"funcs": [{"func": "y", "compute": {"kind": "sideways"}}]})";
  const auto r = run_ktune("space " + suite("softmax") + " --schedule " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr(path + ": funcs[0].compute.kind: expected inline, root or at"));
  std::ofstream(path) << R"({"funcs": [{"func": "y", "compute": {"kind": "root"}}]})";
  const auto invalid = run_ktune("space " + suite("softmax") + " --schedule " + path);
  EXPECT_EQ(invalid.exit_code, 2);
  EXPECT_THAT(invalid.out, HasSubstr("not valid for softmax: structure:"));
}

}  // namespace
}  // namespace ktune
