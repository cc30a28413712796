// Tests of json_export.cc and json_import.cc: a stable, sorted text form; export → import →
// export is the identity; importing twice adds nothing; errors name the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "tests/tuning_db/test_util.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using testing::open_db;
using testing::seed;
using testing::TempDirTest;

class DbJson : public TempDirTest {
 protected:
  // A database with two workloads, two devices, a run, ok and failed measurements.
  void fill(const std::string& path) {
    auto s = seed(path);
    RunRecord run;
    run.command = R"(["ktune","tune","--budget","1h"])";
    run.host = "h1";
    run.budget = "1h";
    run.started_at_ms = 1714564800123;
    const int64_t run_id = s.db.begin_run(run);
    const int64_t gpu = s.db.upsert_device(testing::sample_device("gpu-sm80"));
    const int64_t w2 = s.db.upsert_workload(testing::sample_workload("wl-0-first", "softmax"));
    for (int i = 0; i < 3; ++i) {
      const std::string hash = "sched" + std::to_string(i);
      const int64_t a = s.db.upsert_schedule(s.workload_id, hash, testing::schedule_json(hash));
      MeasurementRecord m = testing::ok_measurement(a, i % 2 ? gpu : s.device_id, 1000.25 + i, 0.5,
                                                    1714564800000 + i);
      m.run_id = run_id;
      m.predicted = -0.75;
      m.host = "h1";  // timed by MPI rank i on h1
      m.rank = i;
      s.db.record_measurement(m);
      const int64_t b = s.db.upsert_schedule(w2, hash, testing::schedule_json(hash));
      s.db.record_measurement(
          testing::failed_measurement(b, s.device_id, MeasureStatus::kBuildTimeout, 1714564900000));
    }
    s.db.end_run(run_id, RunStatus::kInterrupted);
  }

  std::string export_of(const std::string& path) {
    TuningDb db = open_db(path, sqlite::OpenMode::kReadOnly);
    std::ostringstream out;
    db.export_json(out);
    return out.str();
  }

  std::string import_error(const std::string& text) {
    TuningDb db = open_db(file("target.db"));
    try {
      db.import_json(text, "in.json");
    } catch (const UserError& e) {
      return e.what();
    }
    return "(no UserError)";
  }
};

TEST_F(DbJson, ExportIsSortedIndentedAndFreeOfIds) {
  fill(file("a.db"));
  const std::string text = export_of(file("a.db"));
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["format"], "ktune-tuning-db");
  EXPECT_EQ(doc["format_version"], 2);
  ASSERT_EQ(doc["workloads"].size(), 2u);
  EXPECT_EQ(doc["workloads"][0]["key"], "wl-0-first");  // sorted by key, not by insertion
  EXPECT_EQ(doc["devices"][0]["key"], "gpu-sm80");
  const auto& m = doc["workloads"][1]["schedules"][0]["measurements"][0];
  EXPECT_EQ(m["device"], "host-avx2");
  EXPECT_EQ(m["run"], doc["runs"][0]["uuid"]);
  EXPECT_EQ(m["created_at"], "2024-05-01T12:00:00.000Z");
  EXPECT_EQ(m["host"], "h1");
  EXPECT_EQ(m["rank"], 0);
  const auto& unknown = doc["workloads"][0]["schedules"][0]["measurements"][0];
  EXPECT_FALSE(unknown.contains("host")) << "no host recorded, none written";
  EXPECT_FALSE(unknown.contains("rank"));
  EXPECT_EQ(doc["runs"][0]["started_at"], "2024-05-01T12:00:00.123Z");
  EXPECT_EQ(doc["runs"][0]["status"], "interrupted");
  EXPECT_TRUE(doc["workloads"][1]["schedules"][0]["schedule"].is_object());
  EXPECT_EQ(text.find("\"id\""), std::string::npos);
  EXPECT_EQ(text.find("schedule_id"), std::string::npos);
  EXPECT_NE(text.find("\n    {\n      \"key\": \"wl-0-first\""), std::string::npos)
      << text.substr(0, 800);
  EXPECT_EQ(text, export_of(file("a.db")));  // stable
}

TEST_F(DbJson, RoundTripThroughAnEmptyDatabaseIsExact) {
  fill(file("a.db"));
  const std::string first = export_of(file("a.db"));
  {
    TuningDb fresh = open_db(file("b.db"));
    const CopyReport report = fresh.import_json(first, "a.json");
    EXPECT_EQ(report.added.workloads, 2);
    EXPECT_EQ(report.added.devices, 2);
    EXPECT_EQ(report.added.measurements, 6);
    EXPECT_EQ(report.added.runs, 1);
  }
  EXPECT_EQ(export_of(file("b.db")), first);
  TuningDb a = open_db(file("a.db"), sqlite::OpenMode::kReadOnly);
  TuningDb b = open_db(file("b.db"), sqlite::OpenMode::kReadOnly);
  const auto best_a = a.best_all();
  const auto best_b = b.best_all();
  ASSERT_EQ(best_a.size(), best_b.size());
  for (size_t i = 0; i < best_a.size(); ++i) {
    EXPECT_EQ(best_a[i].schedule_hash, best_b[i].schedule_hash);
    EXPECT_EQ(best_a[i].schedule_json, best_b[i].schedule_json);
    EXPECT_EQ(best_a[i].measurement.median_ns, best_b[i].measurement.median_ns);
    EXPECT_EQ(best_a[i].measurement.predicted, best_b[i].measurement.predicted);
  }
}

TEST_F(DbJson, ImportingTwiceOrIntoTheSourceAddsNothing) {
  fill(file("a.db"));
  const std::string text = export_of(file("a.db"));
  TuningDb a = open_db(file("a.db"));
  const CopyReport same = a.import_json(text, "a.json");
  EXPECT_EQ(same.added.measurements + same.added.schedules + same.added.runs + same.added.devices +
                same.added.workloads,
            0);
  EXPECT_EQ(same.present.measurements, 6);
  const CopyReport again = a.import_json(text, "a.json");
  EXPECT_EQ(again.added.measurements, 0);
  EXPECT_EQ(a.stats().rows.measurements, 6);
}

TEST_F(DbJson, ErrorsNameTheSourceAndTheField) {
  fill(file("a.db"));
  auto doc = nlohmann::json::parse(export_of(file("a.db")));
  EXPECT_NE(import_error("{ not json").find("in.json: invalid JSON"), std::string::npos);
  EXPECT_NE(import_error(R"({"format":"other","format_version":1})")
                .find("in.json: format: expected \"ktune-tuning-db\""),
            std::string::npos);

  auto newer = doc;
  newer["format_version"] = 7;
  EXPECT_NE(import_error(newer.dump()).find("format_version: made by a newer ktune (format 7"),
            std::string::npos);

  auto bad_status = doc;
  bad_status["workloads"][1]["schedules"][2]["measurements"][0]["status"] = "fast";
  const std::string status_error = import_error(bad_status.dump());
  EXPECT_NE(status_error.find("in.json: workloads[1].schedules[2].measurements[0].status: "
                              "expected one of ok, rejected"),
            std::string::npos)
      << status_error;
  EXPECT_NE(status_error.find("found \"fast\""), std::string::npos);

  auto bad_device = doc;
  bad_device["workloads"][0]["schedules"][0]["measurements"][0]["device"] = "nope";
  EXPECT_NE(import_error(bad_device.dump())
                .find("workloads[0].schedules[0].measurements[0].device: unknown device \"nope\""),
            std::string::npos);

  auto missing = doc;
  missing["workloads"][0].erase("flops");
  EXPECT_NE(import_error(missing.dump()).find("workloads[0].flops: missing"), std::string::npos);

  auto bad_time = doc;
  bad_time["runs"][0]["started_at"] = "yesterday";
  EXPECT_NE(import_error(bad_time.dump()).find("runs[0].started_at: expected a UTC time"),
            std::string::npos);

  auto negative = doc;
  negative["workloads"][1]["schedules"][0]["measurements"][0]["median_ns"] = -5;
  EXPECT_NE(
      import_error(negative.dump()).find("measurements[0].median_ns: expected a non-negative"),
      std::string::npos);

  // A failed import leaves the target as it was: all or nothing.
  TuningDb target = open_db(file("target.db"), sqlite::OpenMode::kReadOnly);
  EXPECT_EQ(target.stats().rows.devices, 0);
  EXPECT_EQ(target.stats().rows.workloads, 0);
}

}  // namespace
}  // namespace ktune::tuning_db
