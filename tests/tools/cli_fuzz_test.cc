// Fuzzing the `ktune` binary as users meet it: malformed specs (mutations of the suite's)
// through `show` and `query --db`, malformed schedules through `space --schedule`. Each run
// must end with exit 0 (a harmless mutation) or exit 2 with exactly one line on stderr in
// ktune's form (`ktune: error: ...`): never a signal, another exit code, a library's raw
// exception text or an internal error; and a database the runs read keeps its bytes. The
// counts (tried / exit 0 / clean exit 2 / other / signal) are printed for the record.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/json_fuzz.h"
#include "tests/tools/cli_runner.h"

namespace ktune {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string suite(const std::string& name) { return std::string(KTUNE_SOURCE_DIR) + "/bench/suite/" + name + ".json"; }

// Outcomes of the runs of one test.
struct Tally {
  int tried = 0, accepted = 0, refused = 0, other = 0, signalled = 0;

  std::string line() const {
    return "tried " + std::to_string(tried) + " / exit 0 " + std::to_string(accepted) + " / clean exit 2 " +
           std::to_string(refused) + " / other code " + std::to_string(other) + " / signal " + std::to_string(signalled);
  }
};

// Runs `ktune ARGS` and checks the outcome rule above; `input` is the file it was handed.
void run_and_check(const std::string& args, const std::string& input, Tally& tally) {
  const std::string err_file = testing::scratch_path("fuzz_stderr.txt");
  const auto r = testing::run_command(std::string(KTUNE_EXE) + " " + args + " > /dev/null 2> " + err_file);
  const std::string err = slurp(err_file);
  ++tally.tried;
  if (r.exit_code < 0 || r.exit_code >= 128) {
    ++tally.signalled;
  } else if (r.exit_code == 0) {
    ++tally.accepted;
  } else if (r.exit_code == 2) {
    ++tally.refused;
  } else {
    ++tally.other;
  }
  const std::string context = args + "\n" + err.substr(0, 600) + "\ninput: " + slurp(input).substr(0, 600);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 2) << "exit " << r.exit_code << ": " << context;
  if (r.exit_code != 2) return;
  EXPECT_EQ(err.rfind("ktune: error: ", 0), 0u) << context;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << context;
  EXPECT_THAT(err, ::testing::Not(::testing::HasSubstr("json.exception"))) << context;
  EXPECT_THAT(err, ::testing::Not(::testing::HasSubstr("internal error"))) << context;
}

TEST(CliFuzz, MalformedSpecsAreRefusedInOneLineAndLeaveTheDatabaseAlone) {
  // A database to read: tuned once, hashed before and after the runs that query it.
  const std::string db = testing::scratch_path("fuzz.db");
  const auto made = testing::run_ktune("tune " + std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_softmax.json --db " +
                                       db + " --trials 1 --repeat-min-ms 1 --min-repeats 1");
  ASSERT_EQ(made.exit_code, 0) << made.out;
  const std::string before = slurp(db);

  std::mt19937 rng(20261125);
  const std::vector<std::string> names = {"gemm_1024", "conv3x3_relu", "softmax", "layernorm", "blur3x3", "colsum"};
  const std::string spec = testing::scratch_path("fuzz_spec.json");
  Tally tally;
  for (int i = 0; i < 900; ++i) {
    const nlohmann::json base = nlohmann::json::parse(slurp(suite(names[i % names.size()])));
    std::ofstream(spec, std::ios::binary) << ::ktune::testing::mutated_text(base, rng);
    if (i % 4 == 3) {
      run_and_check("query --db " + db + " --workload " + spec, spec, tally);
    } else {
      run_and_check("show " + spec, spec, tally);
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf("ktune specs: %s\n", tally.line().c_str());
  EXPECT_GT(tally.refused, tally.tried / 2) << "the mutations should mostly produce bad specs";
  EXPECT_EQ(slurp(db), before) << "a read of the database changed its bytes";
}

TEST(CliFuzz, MalformedSchedulesAreRefusedInOneLine) {
  const std::string softmax = suite("softmax");
  const auto heuristic = testing::run_command(std::string(KTUNE_EXE) + " space " + softmax + " --named heuristic 2>/dev/null");
  ASSERT_EQ(heuristic.exit_code, 0);
  const nlohmann::json base = nlohmann::json::parse(heuristic.out);
  std::mt19937 rng(11);
  const std::string schedule = testing::scratch_path("fuzz_schedule.json");
  Tally tally;
  for (int i = 0; i < 450; ++i) {
    std::ofstream(schedule, std::ios::binary) << ::ktune::testing::mutated_text(base, rng);
    run_and_check("space " + softmax + " --schedule " + schedule, schedule, tally);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::printf("ktune schedules: %s\n", tally.line().c_str());
  EXPECT_GT(tally.refused, tally.tried / 2);
}

}  // namespace
}  // namespace ktune
