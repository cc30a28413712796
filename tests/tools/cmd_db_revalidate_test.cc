// `ktune db revalidate` as a user runs it after an upgrade: a database tuned by "an older
// ktune" (its version stamps rewritten) has its best schedules measured again, the old rows
// superseded and the best no longer stale; a stored best that no longer applies is reported
// and the command exits 1; a database that is current has nothing to do.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "tests/tools/cli_runner.h"
#include "tuning_db/sqlite.h"

namespace ktune {
namespace {

using ::testing::HasSubstr;
using testing::run_ktune;

std::string data(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/tests/data/" + name; }

// `ktune ARGS` with its stdout alone (progress and warnings on stderr are dropped).
testing::CliResult ktune_stdout(const std::string& args) {
  return testing::run_command(std::string(KTUNE_EXE) + " " + args + " 2>/dev/null");
}

class CmdDbRevalidate : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::scratch_path(std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".db");
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db_ + suffix).c_str());
    const auto r = run_ktune("tune " + data("tiny_softmax.json") + " --db " + db_ +
                             " --trials 3 --batch 3 --population 16 --generations 1 --repeat-min-ms 5 --min-repeats 3");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }

  // Rewrites every measurement as if an older ktune with another Halide had taken it.
  void age_measurements() {
    sqlite::Connection conn = sqlite::Connection::open(db_, sqlite::OpenMode::kReadWrite);
    conn.exec("UPDATE measurements SET ktune_version = '0.0.9', halide_version = '13.0.1'");
  }

  nlohmann::json best() {
    const auto r = ktune_stdout("db best --db " + db_ + " --format json");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return nlohmann::json::parse(r.out)["best"].at(0);
  }

  std::string db_;
};

TEST_F(CmdDbRevalidate, MeasuresTheBestAgainAndSupersedesOlderRows) {
  age_measurements();
  const nlohmann::json before = best();
  ASSERT_EQ(before["stale"], true);

  const auto r = ktune_stdout("db revalidate --db " + db_ + " --threads 1 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.size(), 1u);
  const auto& w = doc[0];
  EXPECT_EQ(w["workload"], "tiny_softmax");
  EXPECT_EQ(w["skipped"], "");
  EXPECT_EQ(w["old_best"]["hash"], before["schedule_hash"]);
  ASSERT_GE(w["schedules"].size(), 1u);
  EXPECT_EQ(w["schedules"][0]["hash"], before["schedule_hash"]);
  EXPECT_EQ(w["schedules"][0]["status"], "ok");
  EXPECT_THAT(w["schedules"][0]["old_versions"].get<std::string>(), HasSubstr("ktune 0.0.9, Halide 13.0.1"));
  EXPECT_GE(w["superseded_rows"].get<int>(), 3);  // every aged row, the failed ones too
  ASSERT_TRUE(w["new_best"].is_object());
  EXPECT_GT(w["new_best"]["median_ns"].get<double>(), 0);

  // The best is now a row of the running versions; query no longer warns.
  const nlohmann::json after = best();
  EXPECT_EQ(after["stale"], false);
  EXPECT_EQ(after["median_ns"], w["new_best"]["median_ns"]);
  const auto q = ktune_stdout("query --db " + db_ + " --workload tiny_softmax");
  ASSERT_EQ(q.exit_code, 0) << q.out;
  EXPECT_EQ(nlohmann::json::parse(q.out)["stale"], false);

  // Nothing is left to do, and the superseded rows survive an export.
  const auto again = ktune_stdout("db revalidate --db " + db_);
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_THAT(again.out, HasSubstr("nothing to revalidate"));
  const auto exported = ktune_stdout("db export-json --db " + db_);
  ASSERT_EQ(exported.exit_code, 0);
  EXPECT_THAT(exported.out, HasSubstr("\"stale_at\""));
}

TEST_F(CmdDbRevalidate, ABestThatNoLongerAppliesIsReportedAndExitsOne) {
  age_measurements();
  {
    // The stored schedules name a Func this algorithm does not have (as after a change of
    // canonical names).
    sqlite::Connection conn = sqlite::Connection::open(db_, sqlite::OpenMode::kReadWrite);
    conn.exec("UPDATE schedules SET json = '{\"funcs\": [{\"func\": \"no_such_func\", \"compute\": {\"kind\": \"root\"}}]}'");
  }
  const auto r = ktune_stdout("db revalidate --db " + db_ + " --top 1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("tiny_softmax: best was"));
  EXPECT_THAT(r.out, HasSubstr("tune it again"));
}

TEST_F(CmdDbRevalidate, RefusesAnotherDeviceAndAnUnknownWorkload) {
  const auto device = run_ktune("db revalidate --db " + db_ + " --device h100");
  EXPECT_EQ(device.exit_code, 2) << device.out;
  EXPECT_THAT(device.out, HasSubstr("only this machine"));
  const auto workload = run_ktune("db revalidate --db " + db_ + " --workload no_such_workload");
  EXPECT_EQ(workload.exit_code, 2) << workload.out;
  EXPECT_THAT(workload.out, HasSubstr("no_such_workload"));
}

}  // namespace
}  // namespace ktune
