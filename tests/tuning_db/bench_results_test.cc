// Tests of tuning_db/bench_results.cc: recording `ktune bench` rows, latest_bench picking the
// newest invocation per (workload, device), identity, validation, restart, and the rows
// travelling through merge and JSON export/import.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "tests/tuning_db/test_util.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using testing::open_db;
using testing::query_int;
using testing::TempDirTest;

class BenchResults : public TempDirTest {};

BenchResultRecord row(const std::string& bench, const std::string& workload,
                      const std::string& method, double median_ns,
                      const std::string& created_at = "") {
  BenchResultRecord r;
  r.bench_uuid = bench;
  r.workload_key = workload;
  r.device_key = "host-avx2";
  r.method = method;
  r.status = median_ns > 0 ? "ok" : "failed";
  r.median_ns = median_ns;
  r.min_ns = median_ns * 0.9;
  r.iqr_ns = median_ns * 0.05;
  r.repeats = median_ns > 0 ? 10 : 0;
  r.threads = 2;
  r.detail = median_ns > 0 ? "" : "Adams2019: crashed (signal 11)";
  r.created_at = created_at;
  return r;
}

TEST_F(BenchResults, LatestBenchReturnsTheNewestInvocationsRowsInOrder) {
  TuningDb db = open_db(file("a.db"));
  db.record_bench_result(row("bench-1", "wl-a", "ktune", 1000, "2026-01-01T00:00:00.000Z"));
  db.record_bench_result(row("bench-1", "wl-a", "Adams2019", 3000, "2026-01-01T00:00:01.000Z"));
  db.record_bench_result(row("bench-2", "wl-a", "ktune", 800, "2026-01-02T00:00:00.000Z"));
  db.record_bench_result(row("bench-2", "wl-a", "Adams2019", 0, "2026-01-02T00:00:01.000Z"));
  db.record_bench_result(row("bench-2", "wl-a", "openblas", 900, "2026-01-02T00:00:02.000Z"));
  // A later invocation that measured another workload does not hide bench-2 for wl-a.
  db.record_bench_result(row("bench-3", "wl-b", "ktune", 50, "2026-01-03T00:00:00.000Z"));

  const auto latest = db.latest_bench("wl-a", "host-avx2");
  ASSERT_EQ(latest.size(), 3u);
  EXPECT_EQ(latest[0].bench_uuid, "bench-2");
  EXPECT_EQ(latest[0].method, "ktune");
  EXPECT_DOUBLE_EQ(latest[0].median_ns, 800);
  EXPECT_DOUBLE_EQ(latest[0].min_ns, 720);
  EXPECT_DOUBLE_EQ(latest[0].iqr_ns, 40);
  EXPECT_EQ(latest[0].repeats, 10);
  EXPECT_EQ(latest[0].threads, 2);
  EXPECT_EQ(latest[0].created_at, "2026-01-02T00:00:00.000Z");
  EXPECT_EQ(latest[1].method, "Adams2019");
  EXPECT_EQ(latest[1].status, "failed");
  EXPECT_EQ(latest[1].detail, "Adams2019: crashed (signal 11)");
  EXPECT_EQ(latest[2].method, "openblas");

  EXPECT_EQ(db.latest_bench("wl-b", "host-avx2").size(), 1u);
  EXPECT_TRUE(db.latest_bench("wl-a", "other-device").empty());
  EXPECT_TRUE(db.latest_bench("wl-missing", "host-avx2").empty());
  EXPECT_EQ(db.stats().rows.bench_results, 6);
}

TEST_F(BenchResults, EmptyCreatedAtIsFilledAndSameIdentityIsStoredOnce) {
  TuningDb db = open_db(file("a.db"));
  const int64_t id = db.record_bench_result(row("bench-1", "wl-a", "ktune", 1000));
  EXPECT_EQ(db.record_bench_result(row("bench-1", "wl-a", "ktune", 5)), id);
  const auto latest = db.latest_bench("wl-a", "host-avx2");
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_DOUBLE_EQ(latest[0].median_ns, 1000);  // the first row stays
  EXPECT_EQ(latest[0].created_at.size(), std::string("2026-01-01T00:00:00.000Z").size());
  EXPECT_EQ(latest[0].created_at.back(), 'Z');
}

TEST_F(BenchResults, RefusesUnknownStatusAndMalformedTime) {
  TuningDb db = open_db(file("a.db"));
  BenchResultRecord bad = row("bench-1", "wl-a", "ktune", 1000);
  bad.status = "fast";
  EXPECT_THROW(db.record_bench_result(bad), std::invalid_argument);
  bad = row("bench-1", "wl-a", "ktune", 1000, "yesterday");
  EXPECT_THROW(db.record_bench_result(bad), std::invalid_argument);
  EXPECT_EQ(query_int(file("a.db"), "SELECT count(*) FROM bench_results"), 0);
}

TEST_F(BenchResults, RowsSurviveReopening) {
  { open_db(file("a.db")).record_bench_result(row("bench-1", "wl-a", "onednn", 700)); }
  TuningDb db = open_db(file("a.db"), sqlite::OpenMode::kReadOnly);
  const auto latest = db.latest_bench("wl-a", "host-avx2");
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest[0].method, "onednn");
}

TEST_F(BenchResults, MergeCarriesRowsOnce) {
  { open_db(file("b.db")).record_bench_result(row("bench-9", "wl-a", "roofline", 100)); }
  TuningDb a = open_db(file("a.db"));
  a.record_bench_result(row("bench-1", "wl-a", "ktune", 1000, "2020-01-01T00:00:00.000Z"));
  EXPECT_EQ(a.merge(file("b.db")).added.bench_results, 1);
  const CopyReport again = a.merge(file("b.db"));
  EXPECT_EQ(again.added.bench_results, 0);
  EXPECT_EQ(again.present.bench_results, 1);
  const auto latest = a.latest_bench("wl-a", "host-avx2");
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest[0].bench_uuid, "bench-9");
}

TEST_F(BenchResults, ExportImportRoundTripsRows) {
  std::ostringstream exported;
  {
    TuningDb a = open_db(file("a.db"));
    a.record_bench_result(row("bench-1", "wl-a", "ktune", 1000, "2026-01-01T00:00:00.000Z"));
    a.record_bench_result(row("bench-1", "wl-a", "Li2018", 0, "2026-01-01T00:00:01.000Z"));
    a.export_json(exported);
  }
  TuningDb b = open_db(file("b.db"));
  const CopyReport report = b.import_json(exported.str(), "a.json");
  EXPECT_EQ(report.added.bench_results, 2);
  const auto latest = b.latest_bench("wl-a", "host-avx2");
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[1].method, "Li2018");
  EXPECT_EQ(latest[1].status, "failed");
  EXPECT_EQ(latest[0].created_at, "2026-01-01T00:00:00.000Z");
  std::ostringstream again;
  b.export_json(again);
  EXPECT_EQ(again.str(), exported.str());
}

}  // namespace
}  // namespace ktune::tuning_db
