// `ktune measure` as a user runs it: text and JSON output, exit codes, usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <vector>

#include "tests/tools/cli_runner.h"

namespace ktune {
namespace {

using ::testing::HasSubstr;
using testing::run_ktune;

// A small elementwise spec, so that measuring it takes well under a second.
std::string tiny_spec() {
  const std::string path = testing::scratch_path("measure_tiny.json");
  std::ofstream(path) << R"({"name": "tiny_scale", "inputs": [{"name": "a", "shape": [64, 64]}],
    "ops": [{"op": "scale", "inputs": ["a"], "output": "y", "factor": 2}], "outputs": ["y"]})";
  return path;
}

TEST(CmdMeasure, NaivePrintsStatusMedianSpreadAndRates) {
  const auto r = run_ktune("measure " + tiny_spec() + " --named naive --repeat-min-ms 5 --threads 1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("workload  tiny_scale"));
  EXPECT_THAT(r.out, HasSubstr("status    ok"));
  EXPECT_THAT(r.out, HasSubstr("spread (IQR)"));
  EXPECT_THAT(r.out, HasSubstr("1 threads"));
  EXPECT_THAT(r.out, HasSubstr("GFLOP/s"));
  EXPECT_THAT(r.out, HasSubstr("GB/s"));
}

TEST(CmdMeasure, JsonHasEveryField) {
  const auto r = run_ktune("measure " + tiny_spec() + " --named naive --repeat-min-ms 5 --min-repeats 4 --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["schedule"], "naive");
  EXPECT_EQ(j["workload_key"].get<std::string>().size(), 32u);
  EXPECT_GE(j["repeats"].get<int>(), 4);
  EXPECT_LE(j["min_ns"].get<double>(), j["median_ns"].get<double>());
  EXPECT_GE(j["spread_ns"].get<double>(), 0);
  EXPECT_GT(j["gbytes_per_s"].get<double>(), 0);
  EXPECT_GE(j["threads"].get<int>(), 1);
}

TEST(CmdMeasure, RunsRepeatTheIsolatedRunAndPrintTheirSpread) {
  const auto j_out = run_ktune("measure " + tiny_spec() +
                               " --named naive --repeat-min-ms 2 --min-repeats 3 --runs 3 --format json 2>/dev/null");
  ASSERT_EQ(j_out.exit_code, 0) << j_out.out;
  const auto j = nlohmann::json::parse(j_out.out);
  const auto& between = j["between_runs"];
  ASSERT_EQ(between["runs"].size(), 3u);
  EXPECT_EQ(between["ok_runs"], 3);
  EXPECT_GE(between["sd_log_median"].get<double>(), 0);
  EXPECT_LE(between["fastest_median_ns"].get<double>(), between["slowest_median_ns"].get<double>());
  // The combined timing is the median of the runs' medians and the fastest of their minima.
  std::vector<double> medians;
  double fastest = 1e300;
  for (const auto& run : between["runs"]) {
    medians.push_back(run["median_ns"].get<double>());
    fastest = std::min(fastest, run["min_ns"].get<double>());
  }
  std::sort(medians.begin(), medians.end());
  EXPECT_DOUBLE_EQ(j["median_ns"].get<double>(), medians[1]);
  EXPECT_DOUBLE_EQ(j["min_ns"].get<double>(), fastest);
  EXPECT_GE(j["repeats"].get<int>(), 9) << "three runs of at least three repeats";

  const auto text = run_ktune("measure " + tiny_spec() + " --named naive --repeat-min-ms 2 --runs 2 2>&1");
  ASSERT_EQ(text.exit_code, 0) << text.out;
  EXPECT_THAT(text.out, HasSubstr("run 2/2: median"));
  EXPECT_THAT(text.out, HasSubstr("2 ok isolated runs: medians from"));
  EXPECT_EQ(run_ktune("measure " + tiny_spec() + " --named naive --runs 0").exit_code, 2);
}

TEST(CmdMeasure, AllocationIsAsInAnAotBuildOrFromTheProcessHeap) {
  for (const char* regime : {"aot", "process"}) {
    const auto r = run_ktune("measure " + tiny_spec() + " --named naive --repeat-min-ms 2 --threads 1 --format json " +
                             "--allocation " + regime + " 2>/dev/null");
    ASSERT_EQ(r.exit_code, 0) << regime << ": " << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)["status"], "ok") << regime;
  }
  const auto bad = run_ktune("measure " + tiny_spec() + " --named naive --allocation heap 2>&1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.out, HasSubstr("--allocation"));
}

TEST(CmdMeasure, HeuristicAndScheduleFilesAreMeasured) {
  auto r = run_ktune("measure " + tiny_spec() + " --named heuristic --format json --repeat-min-ms 5 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["schedule"], "heuristic");
  EXPECT_EQ(j["schedule_hash"].get<std::string>().size(), 32u);
  // The heuristic as a file gives the same schedule hash.
  const auto printed = run_ktune("space " + tiny_spec() + " --named heuristic --format json 2>/dev/null");
  ASSERT_EQ(printed.exit_code, 0);
  const std::string path = testing::scratch_path("heuristic_schedule.json");
  std::ofstream(path) << printed.out;
  r = run_ktune("measure " + tiny_spec() + " --schedule " + path + " --format json --repeat-min-ms 5 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["schedule_hash"], j["schedule_hash"]);
}

// --assembly writes the code behind the figure: the kernel's own function, whose code
// follows the schedule (the heuristic's vectorized doubling is a packed add, SSE's or AVX's).
TEST(CmdMeasure, AssemblyIsTheScheduledKernelsCode) {
  const std::string naive = testing::scratch_path("measure_naive.s");
  const std::string heuristic = testing::scratch_path("measure_heuristic.s");
  const auto n = run_ktune("measure " + tiny_spec() + " --named naive --repeat-min-ms 5 --threads 1 --assembly " + naive);
  ASSERT_EQ(n.exit_code, 0) << n.out;
  EXPECT_THAT(n.out, HasSubstr("wrote the assembly to " + naive));
  const auto h = run_ktune("measure " + tiny_spec() + " --named heuristic --repeat-min-ms 5 --threads 1 --assembly " + heuristic);
  ASSERT_EQ(h.exit_code, 0) << h.out;
  const auto text = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  EXPECT_THAT(text(naive), HasSubstr("ktune_tiny_scale:")) << "named as ktune export names it";
  EXPECT_THAT(text(heuristic), HasSubstr("ktune_tiny_scale:"));
  EXPECT_THAT(text(heuristic), HasSubstr("addps"));
  EXPECT_NE(text(naive), text(heuristic)) << "two schedules, two kernels";
  const auto bad = run_ktune("measure " + tiny_spec() + " --named naive --assembly /nonexistent-dir/k.s");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.out, HasSubstr("/nonexistent-dir/k.s: --assembly: cannot write this file"));
}

TEST(CmdMeasure, BadScheduleFilesAreUsageErrors) {
  auto r = run_ktune("measure " + tiny_spec() + " --schedule /nonexistent/s.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr("/nonexistent/s.json: cannot open schedule file"));
  const std::string path = testing::scratch_path("wrong_funcs.json");
  std::ofstream(path) << R"({"funcs": [{"func": "nope", "compute": {"kind": "root"}}]})";
  r = run_ktune("measure " + tiny_spec() + " --schedule " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr("not valid for this subgraph"));
}

TEST(CmdMeasure, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run_ktune("measure " + tiny_spec()).exit_code, 2);                          // no schedule
  EXPECT_EQ(run_ktune("measure --named naive").exit_code, 2);                             // no subgraph
  EXPECT_EQ(run_ktune("measure " + tiny_spec() + " --named fastest").exit_code, 2);      // unknown name
  EXPECT_EQ(run_ktune("measure " + tiny_spec() + " --named naive --schedule f").exit_code, 2);
  EXPECT_EQ(run_ktune("measure /nonexistent.json --named naive").exit_code, 2);
  EXPECT_EQ(run_ktune("measure " + tiny_spec() + " --named naive --threads -1").exit_code, 2);
  const auto help = run_ktune("measure --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--repeat-min-ms"));
}

}  // namespace
}  // namespace ktune
