// Tests of tuning_db/tuning_db.cc and tuning_db_best.cc: upserts, the best query and its tie
// rule on real files, stale flags, lookups, models, runs, stats, and restarting the file.
#include "tuning_db/tuning_db.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>

#include "common/error.h"
#include "tests/tuning_db/test_util.h"
#include "tuning_db/schema.h"

namespace ktune::tuning_db {
namespace {

using testing::open_db;
using testing::query_int;
using testing::sample_device;
using testing::sample_workload;
using testing::seed;
using testing::TempDirTest;

class TuningDbTest : public TempDirTest {};

TEST_F(TuningDbTest, UpsertsReturnTheSameIdAndKeepTheFirstRow) {
  TuningDb db = open_db(file("a.db"));
  const int64_t device = db.upsert_device(sample_device());
  EXPECT_EQ(db.upsert_device(sample_device()), device);
  WorkloadRecord renamed = sample_workload();
  const int64_t workload = db.upsert_workload(renamed);
  renamed.name = "same_math_other_name";
  EXPECT_EQ(db.upsert_workload(renamed), workload);
  EXPECT_EQ(db.find_workloads(renamed.key).at(0).name, "matmul_64");
  const int64_t schedule = db.upsert_schedule(workload, "h1", testing::schedule_json("h1"));
  EXPECT_EQ(db.upsert_schedule(workload, "h1", testing::schedule_json("h1")), schedule);
  EXPECT_NE(db.upsert_schedule(workload, "h2", testing::schedule_json("h2")), schedule);
  EXPECT_EQ(query_int(file("a.db"), "SELECT count(*) FROM schedules"), 2);
}

TEST_F(TuningDbTest, BestIsTheFastestOkScheduleAndIgnoresFailures) {
  auto s = seed(file("a.db"));
  s.add("slow", 2000, 10, 1000);
  const int64_t fast = s.add("fast", 1000, 10, 2000);
  const int64_t broken =
      s.db.upsert_schedule(s.workload_id, "broken", testing::schedule_json("broken"));
  s.db.record_measurement(
      testing::failed_measurement(broken, s.device_id, MeasureStatus::kWrongResult, 3000));

  auto best = s.db.best("wl-matmul-64", "host-avx2");
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->schedule_hash, "fast");
  EXPECT_EQ(best->schedule_id, fast);
  EXPECT_EQ(best->schedule_json, testing::schedule_json("fast"));
  EXPECT_EQ(best->workload_name, "matmul_64");
  EXPECT_EQ(best->device_key, "host-avx2");
  EXPECT_DOUBLE_EQ(*best->measurement.median_ns, 1000);
  EXPECT_EQ(best->measurement.status, MeasureStatus::kOk);
  EXPECT_EQ(best->candidates, 2);
  EXPECT_FALSE(best->stale);

  EXPECT_FALSE(s.db.best("wl-matmul-64", "other-device").has_value());
  EXPECT_FALSE(s.db.best("unknown", "host-avx2").has_value());
}

TEST_F(TuningDbTest, BestUsesEachScheduleFastestMeasurement) {
  auto s = seed(file("a.db"));
  s.add("a", 1000, 5, 1000);
  const int64_t b = s.add("b", 1500, 5, 2000);
  s.db.record_measurement(testing::ok_measurement(b, s.device_id, 800, 5, 3000));  // re-timed
  EXPECT_EQ(s.db.best("wl-matmul-64", "host-avx2")->schedule_hash, "b");
}

TEST_F(TuningDbTest, TieRuleKeepsIncumbentInsideTheBandAndSwitchesWhenClearlyFaster) {
  auto s = seed(file("a.db"));
  s.add("zzz-incumbent", 1000, 5, 1000);
  s.add("aaa-slightly-faster", 990, 5, 2000);  // 1% faster: inside the noise
  EXPECT_EQ(s.db.best("wl-matmul-64", "host-avx2")->schedule_hash, "zzz-incumbent");
  s.add("mmm-clearly-faster", 900, 5, 3000);
  EXPECT_EQ(s.db.best("wl-matmul-64", "host-avx2")->schedule_hash, "mmm-clearly-faster");
}

TEST_F(TuningDbTest, EqualTimeTiePicksTheSmallestHashWhateverTheInsertionOrder) {
  for (const bool reversed : {false, true}) {
    const std::string path = file(reversed ? "r.db" : "f.db");
    auto s = seed(path);
    std::vector<std::string> hashes = {"b7", "a3", "c1"};
    if (reversed) std::reverse(hashes.begin(), hashes.end());
    for (const std::string& h : hashes) s.add(h, 1000, 5, 5000);
    EXPECT_EQ(s.db.best("wl-matmul-64", "host-avx2")->schedule_hash, "a3") << path;
  }
}

TEST_F(TuningDbTest, StaleWhenMeasuredByAnotherVersion) {
  const std::string path = file("a.db");
  {
    auto s = seed(path);
    s.add("h", 1000, 5, 1000);
    EXPECT_FALSE(s.db.best("wl-matmul-64", "host-avx2")->stale);
  }
  TuningDb newer = TuningDb::open(path, {sqlite::OpenMode::kReadOnly, {"0.1.0-test", "15.0.0"}});
  auto best = newer.best("wl-matmul-64", "host-avx2");
  ASSERT_TRUE(best);
  EXPECT_TRUE(best->stale);
  EXPECT_EQ(best->measurement.halide_version, "14.0.0");
  TuningDb unknown = TuningDb::open(path, {sqlite::OpenMode::kReadOnly, {}});
  EXPECT_FALSE(unknown.best("wl-matmul-64", "host-avx2")->stale);
}

TEST_F(TuningDbTest, SupersededRowsLeaveTheBestButStayInTheHistoryAndTheExport) {
  const std::string path = file("a.db");
  { seed(path).add("old-fast", 1000, 5, 1000); }  // measured by the test versions (14.0.0)
  TuningDb newer = TuningDb::open(path, {sqlite::OpenMode::kReadWrite, {"0.1.0-test", "15.0.0"}});
  const int64_t device = newer.find_device("host-avx2").value().id;
  const int64_t workload = newer.find_workloads("wl-matmul-64").at(0).id;
  const int64_t slower = newer.upsert_schedule(workload, "new-slow", testing::schedule_json("new-slow"));
  newer.record_measurement(testing::ok_measurement(slower, device, 1500, 5, 2000));  // stamped 15.0.0
  EXPECT_EQ(newer.best("wl-matmul-64", "host-avx2")->schedule_hash, "old-fast");

  EXPECT_EQ(newer.mark_superseded("wl-matmul-64", "host-avx2"), 1);  // only the 14.0.0 row
  EXPECT_EQ(newer.mark_superseded("wl-matmul-64", "host-avx2"), 0);  // already marked
  EXPECT_EQ(newer.mark_superseded("unknown", "host-avx2"), 0);
  const auto best = newer.best("wl-matmul-64", "host-avx2");
  ASSERT_TRUE(best);
  EXPECT_EQ(best->schedule_hash, "new-slow");
  EXPECT_FALSE(best->stale);
  const auto history = newer.measurement_history("wl-matmul-64", "host-avx2");
  ASSERT_EQ(history.size(), 2u);
  EXPECT_TRUE(history[0].stale_at_ms.has_value());
  EXPECT_FALSE(history[1].stale_at_ms.has_value());

  // Through export and import the mark stays: the copy's best is the same.
  std::ostringstream exported;
  newer.export_json(exported);
  TuningDb copy = open_db(file("copy.db"));
  copy.import_json(exported.str(), "export.json");
  EXPECT_EQ(copy.best("wl-matmul-64", "host-avx2")->schedule_hash, "new-slow");
}

TEST_F(TuningDbTest, TopKListsTheWinnerThenTheNextFastest) {
  auto s = seed(file("a.db"));
  s.add("first", 1000, 5, 1000);
  s.add("within-band", 995, 5, 2000);
  s.add("slow", 3000, 5, 3000);
  s.add("medium", 2000, 5, 4000);
  const auto top = s.db.top_k("wl-matmul-64", "host-avx2", 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].schedule_hash, "first");
  EXPECT_EQ(top[1].schedule_hash, "within-band");
  EXPECT_EQ(top[2].schedule_hash, "medium");
  EXPECT_EQ(top[2].candidates, 4);
  EXPECT_TRUE(s.db.top_k("wl-matmul-64", "host-avx2", 0).empty());
}

TEST_F(TuningDbTest, BestAllCoversEveryWorkloadAndDevice) {
  auto s = seed(file("a.db"));
  s.add("h1", 1000, 5, 1000);
  const int64_t gpu = s.db.upsert_device(sample_device("gpu-sm80"));
  const int64_t other = s.db.upsert_workload(sample_workload("wl-other", "aaa_first_by_name"));
  const int64_t sched = s.db.upsert_schedule(other, "h2", testing::schedule_json("h2"));
  s.db.record_measurement(testing::ok_measurement(sched, gpu, 50, 1, 2000));
  const auto all = s.db.best_all();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].workload_name, "aaa_first_by_name");
  EXPECT_EQ(all[0].device_key, "gpu-sm80");
  EXPECT_EQ(all[1].schedule_hash, "h1");
}

TEST_F(TuningDbTest, FindsWorkloadsByKeyPrefixNameAndFamily) {
  TuningDb db = open_db(file("a.db"));
  db.upsert_workload(sample_workload("0123456789abcdef", "matmul"));
  db.upsert_workload(sample_workload("0123999999999999", "matmul"));
  WorkloadRecord other = sample_workload("fedcba9876543210", "softmax");
  other.family_key = "family-softmax";
  db.upsert_workload(other);
  EXPECT_EQ(db.find_workloads("matmul").size(), 2u);
  EXPECT_EQ(db.find_workloads("0123456789abcdef").size(), 1u);
  EXPECT_EQ(db.find_workloads("012345").at(0).key, "0123456789abcdef");
  EXPECT_EQ(db.find_workloads("0123").size(), 0u);  // prefixes need 6 characters
  EXPECT_EQ(db.find_workloads("012399").size(), 1u);
  EXPECT_EQ(db.find_workloads("softmax").at(0).family_key, "family-softmax");
  EXPECT_EQ(db.workloads_in_family("family-matmul").size(), 2u);
  EXPECT_EQ(db.workloads_in_family("family-softmax").at(0).name, "softmax");
  const WorkloadRecord read = db.find_workloads("softmax").at(0);
  EXPECT_EQ(read.shapes, other.shapes);
  EXPECT_EQ(read.spec, other.spec);
  EXPECT_EQ(read.flops, other.flops);
  EXPECT_EQ(read.bytes, other.bytes);
  // An exact key wins over the longer keys it is a prefix of.
  db.upsert_workload(sample_workload("0123456789", "short_key"));
  EXPECT_EQ(db.find_workloads("0123456789").size(), 1u);
  EXPECT_EQ(db.find_workloads("0123456789").at(0).name, "short_key");
  EXPECT_EQ(db.find_workloads("01234567").size(), 2u);
}

TEST_F(TuningDbTest, RunsRecordProvenance) {
  auto s = seed(file("a.db"));
  RunRecord run;
  run.command = R"(["ktune","tune","mm.json"])";
  run.host = "builder-7";
  run.budget = "8h";
  const int64_t run_id = s.db.begin_run(run);
  const int64_t sched = s.db.upsert_schedule(s.workload_id, "h", testing::schedule_json("h"));
  MeasurementRecord m = testing::ok_measurement(sched, s.device_id, 10, 1, 0);
  m.run_id = run_id;
  const int64_t mid = s.db.record_measurement(m);
  s.db.end_run(run_id, RunStatus::kCompleted);

  const auto stored = s.db.find_run(run_id);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, RunStatus::kCompleted);
  EXPECT_TRUE(stored->ended_at_ms.has_value());
  EXPECT_EQ(stored->host, "builder-7");
  EXPECT_EQ(stored->ktune_version, "0.1.0-test");
  EXPECT_EQ(stored->uuid.size(), 36u);
  EXPECT_EQ(
      query_int(file("a.db"), "SELECT run_id FROM measurements WHERE id = " + std::to_string(mid)),
      run_id);
  EXPECT_THROW(s.db.end_run(run_id + 100, RunStatus::kFailed), std::invalid_argument);
}

// Runs of this host left 'running' by a process that is gone become 'killed'; runs of live
// processes, of other hosts and runs that ended are left as they are.
TEST_F(TuningDbTest, RunsWhoseProcessIsGoneAreMarkedKilled) {
  auto s = seed(file("a.db"));
  auto start = [&](const std::string& host, std::optional<int64_t> pid) {
    RunRecord run;
    run.host = host;
    run.pid = pid;
    return s.db.begin_run(run);
  };
  const int64_t dead = start("here", 101), live = start("here", 102), elsewhere = start("there", 101);
  const int64_t older = start("here", std::nullopt);  // a ktune before runs had a pid
  const int64_t ended = start("here", 103);
  s.db.end_run(ended, RunStatus::kCompleted);

  const auto alive = [](int64_t pid) { return pid == 102; };
  EXPECT_EQ(s.db.mark_killed_runs("here", alive), 2);
  EXPECT_EQ(s.db.find_run(dead)->status, RunStatus::kKilled);
  EXPECT_FALSE(s.db.find_run(dead)->ended_at_ms.has_value());
  EXPECT_EQ(s.db.find_run(older)->status, RunStatus::kKilled);
  EXPECT_EQ(s.db.find_run(live)->status, RunStatus::kRunning);
  EXPECT_EQ(s.db.find_run(live)->pid, 102);
  EXPECT_EQ(s.db.find_run(elsewhere)->status, RunStatus::kRunning);
  EXPECT_EQ(s.db.find_run(ended)->status, RunStatus::kCompleted);
  EXPECT_EQ(s.db.mark_killed_runs("here", alive), 0);  // nothing left to mark
}

TEST_F(TuningDbTest, MeasurementOfAnUnknownScheduleIsRefused) {
  auto s = seed(file("a.db"));
  EXPECT_THROW(s.db.record_measurement(testing::ok_measurement(999, s.device_id, 1, 1, 0)),
               std::invalid_argument);
  const int64_t sched = s.db.upsert_schedule(s.workload_id, "h", testing::schedule_json("h"));
  MeasurementRecord no_time = testing::ok_measurement(sched, s.device_id, 1, 1, 0);
  no_time.median_ns.reset();
  EXPECT_THROW(s.db.record_measurement(no_time), std::runtime_error);  // ok needs a time
  EXPECT_EQ(query_int(file("a.db"), "SELECT count(*) FROM measurements"), 0);
}

TEST_F(TuningDbTest, BatchCommitsTogetherAndRollsBackOnError) {
  const std::string path = file("a.db");
  auto s = seed(path);
  const int64_t sched = s.db.upsert_schedule(s.workload_id, "h", testing::schedule_json("h"));
  s.db.batch([&] {
    for (int i = 0; i < 10; ++i) {
      s.db.record_measurement(testing::ok_measurement(sched, s.device_id, 100 + i, 1, 1 + i));
    }
    // Not yet visible to another connection: the batch has not committed.
    EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements"), 0);
  });
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements"), 10);
  EXPECT_THROW(s.db.batch([&] {
    for (int i = 0; i < 5; ++i) {
      s.db.record_measurement(testing::ok_measurement(sched, s.device_id, 1, 1, 100 + i));
    }
    s.db.upsert_device(sample_device("inside-failed-batch"));
    throw std::runtime_error("interrupted");
  }),
               std::runtime_error);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements"), 10);
  EXPECT_FALSE(s.db.find_device("inside-failed-batch"));
  s.db.record_measurement(testing::ok_measurement(sched, s.device_id, 1, 1, 200));
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements"), 11);
}

TEST_F(TuningDbTest, MeasuredHashesIncludeFailures) {
  auto s = seed(file("a.db"));
  s.add("ok1", 10, 1, 1);
  const int64_t bad = s.db.upsert_schedule(s.workload_id, "bad", testing::schedule_json("bad"));
  s.db.record_measurement(testing::failed_measurement(bad, s.device_id, MeasureStatus::kCrash, 2));
  s.db.upsert_schedule(s.workload_id, "unmeasured", testing::schedule_json("unmeasured"));
  EXPECT_EQ(s.db.measured_schedule_hashes("wl-matmul-64", "host-avx2"),
            (std::vector<std::string>{"bad", "ok1"}));
}

TEST_F(TuningDbTest, TimedOutSchedulesAreThoseKilledThatNeverRanToAnOkTiming) {
  auto s = seed(file("a.db"));
  s.add("ok1", 10, 1, 1);
  const auto store_failure = [&](const std::string& hash, MeasureStatus status, int64_t at_ms) {
    const int64_t id = s.db.upsert_schedule(s.workload_id, hash, testing::schedule_json(hash));
    s.db.record_measurement(testing::failed_measurement(id, s.device_id, status, at_ms));
    return id;
  };
  store_failure("killed", MeasureStatus::kRunTimeout, 2);
  store_failure("killed", MeasureStatus::kRunTimeout, 3);  // killed twice: listed once
  store_failure("crashed", MeasureStatus::kCrash, 4);
  // Killed once, then timed ok (a quieter machine): it has a timing, so it is not listed.
  const int64_t later_ok = store_failure("later-ok", MeasureStatus::kRunTimeout, 5);
  s.db.record_measurement(testing::ok_measurement(later_ok, s.device_id, 500, 1, 6));
  // Killed on another device only.
  const int64_t other_device = s.db.upsert_device(testing::sample_device("host-other"));
  const int64_t elsewhere = s.db.upsert_schedule(s.workload_id, "elsewhere", testing::schedule_json("elsewhere"));
  s.db.record_measurement(testing::failed_measurement(elsewhere, other_device, MeasureStatus::kRunTimeout, 7));

  const std::vector<ScheduleRecord> killed = s.db.timed_out_schedules("wl-matmul-64", "host-avx2");
  ASSERT_EQ(killed.size(), 1u);
  EXPECT_EQ(killed[0].hash, "killed");
  EXPECT_EQ(killed[0].json, testing::schedule_json("killed"));
  EXPECT_EQ(killed[0].workload_id, s.workload_id);
  EXPECT_EQ(s.db.timed_out_schedules("wl-matmul-64", "host-other").size(), 1u);
  EXPECT_TRUE(s.db.timed_out_schedules("no-such-workload", "host-avx2").empty());
}

TEST_F(TuningDbTest, ModelsLoadTheNewestOfTheRequestedKindAndFeatureVersion) {
  auto s = seed(file("a.db"));
  auto model = [&](int version, int64_t at, uint8_t byte) {
    ModelRecord m;
    m.device_id = s.device_id;
    m.kind = "xgboost-rank";
    m.feature_version = version;
    m.blob = {byte, 0, byte};
    m.samples = 100;
    m.metrics = R"({"kendall_tau":0.7})";
    m.created_at_ms = at;
    return s.db.save_model(m);
  };
  model(3, 1000, 1);
  const int64_t newest = model(3, 2000, 2);
  model(4, 3000, 3);
  const auto loaded = s.db.load_latest_model("host-avx2", "xgboost-rank", 3);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->id, newest);
  EXPECT_EQ(loaded->blob, (std::vector<uint8_t>{2, 0, 2}));
  EXPECT_EQ(loaded->metrics, R"({"kendall_tau":0.7})");
  EXPECT_FALSE(s.db.load_latest_model("host-avx2", "xgboost-rank", 5));
  EXPECT_FALSE(s.db.load_latest_model("other", "xgboost-rank", 3));
}

TEST_F(TuningDbTest, StatsCountRowsPerTableDeviceAndStatus) {
  auto s = seed(file("a.db"));
  s.add("a", 10, 1, 1);
  s.add("b", 20, 1, 2);
  const int64_t bad = s.db.upsert_schedule(s.workload_id, "bad", testing::schedule_json("bad"));
  s.db.record_measurement(
      testing::failed_measurement(bad, s.device_id, MeasureStatus::kBuildError, 3));
  const DbStats stats = s.db.stats();
  EXPECT_EQ(stats.schema_version, kSchemaVersion);
  EXPECT_EQ(stats.rows.devices, 1);
  EXPECT_EQ(stats.rows.workloads, 1);
  EXPECT_EQ(stats.rows.schedules, 3);
  EXPECT_EQ(stats.rows.measurements, 3);
  EXPECT_GT(stats.file_bytes + stats.wal_bytes, 0);
  ASSERT_EQ(stats.devices.size(), 1u);
  EXPECT_EQ(stats.devices[0].measurements, 3);
  EXPECT_EQ(stats.devices[0].ok, 2);
  EXPECT_EQ(stats.devices[0].workloads, 1);
  EXPECT_EQ(stats.statuses,
            (std::vector<std::pair<std::string, int64_t>>{{"build_error", 1}, {"ok", 2}}));
}

TEST_F(TuningDbTest, ReadOnlyOpenRefusesWritesAndDoesNotCreateFiles) {
  const std::string path = file("a.db");
  EXPECT_THROW(open_db(path, sqlite::OpenMode::kReadOnly), UserError);
  EXPECT_EQ(access(path.c_str(), F_OK), -1);
  { seed(path).add("h", 10, 1, 1); }
  TuningDb ro = open_db(path, sqlite::OpenMode::kReadOnly);
  EXPECT_EQ(ro.best("wl-matmul-64", "host-avx2")->schedule_hash, "h");
  try {
    ro.upsert_device(sample_device("new-device"));
    ADD_FAILURE() << "write through a read-only database";
  } catch (const UserError& e) {
    EXPECT_NE(
        std::string(e.what()).find(path + ": cannot write: the database was opened read-only"),
        std::string::npos)
        << e.what();
  }
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM devices"), 1);
}

// Restart: everything written is there after the handle is closed and the file reopened.
TEST_F(TuningDbTest, RestartKeepsEveryRow) {
  const std::string path = file("a.db");
  std::vector<int64_t> ids;
  {
    auto s = seed(path);
    for (int i = 0; i < 50; ++i) {
      const int64_t sched = s.db.upsert_schedule(s.workload_id, "h" + std::to_string(i),
                                                 testing::schedule_json("h" + std::to_string(i)));
      ids.push_back(s.db.record_measurement(
          testing::ok_measurement(sched, s.device_id, 1000 - i * 15, 1, 1000 + i)));
    }
  }
  TuningDb db = open_db(path);
  EXPECT_EQ(db.stats().rows.measurements, 50);
  EXPECT_EQ(db.best("wl-matmul-64", "host-avx2")->schedule_hash, "h49");
  EXPECT_EQ(db.best("wl-matmul-64", "host-avx2")->measurement.id, ids.back());
}

// Restart without cleanup: a process that exits without closing anything (no destructors,
// no checkpoint) leaves its rows in the WAL; the next open finds them.
TEST_F(TuningDbTest, RestartAfterExitWithoutCleanupKeepsEveryRow) {
  const std::string path = file("a.db");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto s = seed(path);
    for (int i = 0; i < 20; ++i) s.add("h" + std::to_string(i), 100 + i, 1, 1000 + i);
    _exit(0);  // skips every destructor: the connection is never closed
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(access((path + "-wal").c_str(), F_OK), 0) << "expected an uncheckpointed WAL";
  TuningDb db = open_db(path, sqlite::OpenMode::kReadOnly);
  EXPECT_EQ(db.stats().rows.measurements, 20);
  EXPECT_EQ(db.best("wl-matmul-64", "host-avx2")->schedule_hash, "h0");
}

}  // namespace
}  // namespace ktune::tuning_db
