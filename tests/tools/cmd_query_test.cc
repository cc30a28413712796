// `ktune query` as a build would run it: JSON, Halide source and CMake variables for a tuned
// workload; exit 1 for a workload the database holds but has not tuned, exit 2 for a workload
// or device it does not hold, each with a message saying what is there.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>

#include "tests/tools/cli_runner.h"
#include "tuning_db/tuning_db.h"

namespace ktune {
namespace {

using ::testing::HasSubstr;
using testing::run_ktune;

std::string data(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/tests/data/" + name; }

class CmdQuery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One database per process: ctest runs each test of this suite in its own process, in parallel.
    db_ = testing::scratch_path("query.db");
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db_ + suffix).c_str());
    const auto r = run_ktune("tune " + data("tiny_softmax.json") + " --db " + db_ +
                             " --trials 4 --batch 4 --population 16 --generations 1 --repeat-min-ms 5 --min-repeats 3 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  static std::string db_;
};
std::string CmdQuery::db_;

TEST_F(CmdQuery, JsonByNameKeyAndSpec) {
  const auto r = run_ktune("query --db " + db_ + " --workload tiny_softmax");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["workload"], "tiny_softmax");
  EXPECT_GT(j["median_ns"].get<double>(), 0);
  EXPECT_TRUE(j["schedule"].contains("funcs"));
  const auto by_key = run_ktune("query --db " + db_ + " --workload " + j["workload_key"].get<std::string>());
  EXPECT_EQ(nlohmann::json::parse(by_key.out)["schedule_hash"], j["schedule_hash"]);
  const auto by_spec = run_ktune("query --db " + db_ + " --workload " + data("tiny_softmax.json"));
  EXPECT_EQ(nlohmann::json::parse(by_spec.out)["schedule_hash"], j["schedule_hash"]);
}

TEST_F(CmdQuery, HalideSourceAndCmakeVariables) {
  const auto h = run_ktune("query --db " + db_ + " --workload tiny_softmax --format halide");
  ASSERT_EQ(h.exit_code, 0) << h.out;
  EXPECT_THAT(h.out, HasSubstr("using namespace Halide;"));
  EXPECT_THAT(h.out, HasSubstr(".compute_root();"));
  const auto c = run_ktune("query --db " + db_ + " --workload tiny_softmax --format cmake");
  ASSERT_EQ(c.exit_code, 0) << c.out;
  EXPECT_THAT(c.out, HasSubstr("set(KTUNE_TINY_SOFTMAX_SCHEDULE_HASH \""));
  EXPECT_THAT(c.out, HasSubstr("set(KTUNE_TINY_SOFTMAX_STALE OFF)"));
}

TEST_F(CmdQuery, AWorkloadOrDeviceTheDatabaseDoesNotHoldIsBadInput) {
  const auto r = run_ktune("query --db " + db_ + " --workload " + data("tiny_matmul.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr("no workload with the key of"));
  const auto by_name = run_ktune("query --db " + db_ + " --workload no_such_workload");
  EXPECT_EQ(by_name.exit_code, 2);
  EXPECT_THAT(by_name.out, HasSubstr("--workload: no workload named or keyed \"no_such_workload\""));
  const auto other_device = run_ktune("query --db " + db_ + " --workload tiny_softmax --device 0123456789abcdef");
  EXPECT_EQ(other_device.exit_code, 2);
  EXPECT_THAT(other_device.out, HasSubstr("tuned on another device"));
  EXPECT_EQ(run_ktune("query --db /nonexistent.db --workload x").exit_code, 2);
  EXPECT_EQ(run_ktune("query --db " + db_ + " --workload tiny_softmax --format yaml").exit_code, 2);
}

TEST_F(CmdQuery, AHeldWorkloadWithoutATunedScheduleExitsOne) {
  {
    tuning_db::TuningDb db = tuning_db::TuningDb::open(db_, tuning_db::OpenOptions{});
    tuning_db::WorkloadRecord untuned;
    untuned.key = "untuned-workload-key";
    untuned.name = "untuned";
    db.upsert_workload(untuned);
  }
  const auto r = run_ktune("query --db " + db_ + " --workload untuned");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("no tuned schedule for untuned"));
}

}  // namespace
}  // namespace ktune
