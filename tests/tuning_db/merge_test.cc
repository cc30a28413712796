// Tests of TuningDb::merge (maintenance.cc): rows deduplicated by identity, provenance kept,
// idempotence, and refusal of inputs that cannot be merged.
#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"
#include "tests/tuning_db/test_util.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using testing::open_db;
using testing::query_int;
using testing::query_text;
using testing::seed;
using testing::TempDirTest;

class DbMerge : public TempDirTest {
 protected:
  // Machine A: schedules a1 (1000 ns) and shared (900 ns) from a run on host "alpha".
  // Machine B: schedule shared (again) and b1 (500 ns), a second device, a model.
  void SetUp() override {
    TempDirTest::SetUp();
    {
      auto a = seed(file("a.db"));
      RunRecord run;
      run.host = "alpha";
      run.ktune_version = "0.0.9";
      run.halide_version = "13.0.0";
      const int64_t run_id = a.db.begin_run(run);
      for (auto [hash, median] : {std::pair<const char*, double>{"a1", 1000}, {"shared", 900}}) {
        const int64_t sched =
            a.db.upsert_schedule(a.workload_id, hash, testing::schedule_json(hash));
        MeasurementRecord m = testing::ok_measurement(sched, a.device_id, median, 1, 1000);
        m.run_id = run_id;
        m.ktune_version = "0.0.9";
        m.host = "alpha-node3";  // timed by MPI rank 2 on another host
        m.rank = 2;
        a.db.record_measurement(m);
      }
      a.db.end_run(run_id, RunStatus::kCompleted);
    }
    {
      auto b = seed(file("b.db"));
      b.add("shared", 950, 1, 2000);
      b.add("b1", 500, 1, 3000);
      const int64_t gpu = b.db.upsert_device(testing::sample_device("gpu"));
      const int64_t sched = b.db.upsert_schedule(b.workload_id, "g1", testing::schedule_json("g1"));
      b.db.record_measurement(testing::ok_measurement(sched, gpu, 50, 1, 4000));
      ModelRecord model;
      model.device_id = gpu;
      model.kind = "xgboost-rank";
      model.feature_version = 1;
      model.blob = {1, 2, 3};
      b.db.save_model(model);
    }
  }
};

TEST_F(DbMerge, AddsWhatIsMissingAndDeduplicatesByIdentity) {
  TuningDb a = open_db(file("a.db"));
  const CopyReport report = a.merge(file("b.db"));
  EXPECT_EQ(report.added.devices, 1);    // gpu
  EXPECT_EQ(report.present.devices, 1);  // host-avx2
  EXPECT_EQ(report.added.workloads, 0);
  EXPECT_EQ(report.present.workloads, 1);
  EXPECT_EQ(report.added.schedules, 2);    // b1, g1
  EXPECT_EQ(report.present.schedules, 1);  // shared
  EXPECT_EQ(report.added.measurements, 3);
  EXPECT_EQ(report.added.models, 1);

  const DbStats stats = a.stats();
  EXPECT_EQ(stats.rows.devices, 2);
  EXPECT_EQ(stats.rows.workloads, 1);
  EXPECT_EQ(stats.rows.schedules, 4);
  EXPECT_EQ(stats.rows.measurements, 5);
  EXPECT_EQ(stats.rows.runs, 1);
  EXPECT_EQ(a.best("wl-matmul-64", "host-avx2")->schedule_hash, "b1");
  EXPECT_EQ(a.best("wl-matmul-64", "gpu")->schedule_hash, "g1");
  EXPECT_EQ(a.load_latest_model("gpu", "xgboost-rank", 1)->blob, (std::vector<uint8_t>{1, 2, 3}));
  // The shared schedule now has one measurement from each machine.
  EXPECT_EQ(query_int(file("a.db"),
                      "SELECT count(*) FROM measurements m JOIN schedules s ON "
                      "s.id = m.schedule_id WHERE s.hash = 'shared'"),
            2);
}

TEST_F(DbMerge, KeepsProvenanceOfRunsAndMeasurements) {
  TuningDb b = open_db(file("b.db"));
  b.merge(file("a.db"));
  const std::string path = file("b.db");
  EXPECT_EQ(query_text(path,
                       "SELECT host || ' ' || ktune_version || ' ' || halide_version || ' ' "
                       "|| status FROM runs"),
            "alpha 0.0.9 13.0.0 completed");
  // The measurements from A still point at A's run and keep A's versions.
  EXPECT_EQ(query_int(path,
                      "SELECT count(*) FROM measurements m JOIN runs r ON r.id = m.run_id "
                      "WHERE r.host = 'alpha' AND m.ktune_version = '0.0.9'"),
            2);
  EXPECT_EQ(query_text(path,
                       "SELECT group_concat(uuid) FROM (SELECT uuid FROM measurements WHERE "
                       "run_id IS NOT NULL ORDER BY uuid)"),
            query_text(file("a.db"),
                       "SELECT group_concat(uuid) FROM (SELECT uuid FROM "
                       "measurements ORDER BY uuid)"));
  // Who timed each measurement comes along (schema 5), and stats count it.
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements WHERE host = 'alpha-node3' AND rank = 2"), 2);
  bool counted = false;
  for (const MeasurerStats& m : b.stats().measurers) {
    if (m.host == "alpha-node3") {
      counted = true;
      EXPECT_EQ(m.rank, std::optional<int64_t>(2));
      EXPECT_EQ(m.measurements, 2);
    }
  }
  EXPECT_TRUE(counted);
}

TEST_F(DbMerge, MergingTwiceChangesNothing) {
  TuningDb a = open_db(file("a.db"));
  a.merge(file("b.db"));
  const DbStats once = a.stats();
  const CopyReport again = a.merge(file("b.db"));
  EXPECT_EQ(again.added.devices + again.added.workloads + again.added.schedules + again.added.runs +
                again.added.measurements + again.added.models,
            0);
  EXPECT_EQ(again.present.measurements, 3);
  const DbStats twice = a.stats();
  EXPECT_EQ(twice.rows.measurements, once.rows.measurements);
  EXPECT_EQ(twice.rows.schedules, once.rows.schedules);
  EXPECT_EQ(twice.rows.models, once.rows.models);
}

TEST_F(DbMerge, BothDirectionsGiveTheSameAnswer) {
  {
    TuningDb a = open_db(file("a.db"));
    a.merge(file("b.db"));
  }
  {
    TuningDb b = open_db(file("b.db"));
    b.merge(file("a.db"));
  }
  TuningDb a = open_db(file("a.db"), sqlite::OpenMode::kReadOnly);
  TuningDb b = open_db(file("b.db"), sqlite::OpenMode::kReadOnly);
  for (const char* device : {"host-avx2", "gpu"}) {
    EXPECT_EQ(a.best("wl-matmul-64", device)->schedule_hash,
              b.best("wl-matmul-64", device)->schedule_hash);
    EXPECT_EQ(a.best("wl-matmul-64", device)->measurement.uuid,
              b.best("wl-matmul-64", device)->measurement.uuid);
  }
  EXPECT_EQ(a.stats().rows.measurements, b.stats().rows.measurements);
}

TEST_F(DbMerge, RefusesItselfMissingFilesAndNonDatabases) {
  TuningDb a = open_db(file("a.db"));
  auto message_of = [&](const std::string& other) {
    try {
      a.merge(other);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("(no UserError)");
  };
  EXPECT_NE(message_of(file("a.db")).find("is the database being merged into"), std::string::npos);
  EXPECT_NE(message_of(file("missing.db")).find(file("missing.db") + ": no such tuning database"),
            std::string::npos);
  std::ofstream(file("text.db")) << std::string(2000, 'z');
  EXPECT_NE(message_of(file("text.db")).find("not a ktune tuning database"), std::string::npos);
  EXPECT_EQ(a.stats().rows.measurements, 2);
}

}  // namespace
}  // namespace ktune::tuning_db
