// Tests of report/report_data.cc: collect_report() on a real SQLite file written
// through TuningDb: summary figures, filters and their errors, and the latest bench rows.
#include "report/report_data.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <tuple>

#include "common/error.h"
#include "tests/tuning_db/test_util.h"

namespace ktune::report {
namespace {

using tuning_db::BenchResultRecord;
using tuning_db::MeasureStatus;
using tuning_db::testing::sample_device;
using tuning_db::testing::sample_workload;
using tuning_db::testing::TempDirTest;

class ReportDataTest : public TempDirTest {
 protected:
  // Two workloads on one device, one of them also on a second device.
  void SetUp() override {
    TempDirTest::SetUp();
    auto s = tuning_db::testing::seed(file("a.db"));
    tuning_db::RunRecord run;
    const int64_t run_id = s.db.begin_run(run);
    const double times[] = {900, 700, 800, 400};
    const double scores[] = {0.1, 0.2, 0.3, 0.9};
    for (int i = 0; i < 4; ++i) {
      const std::string hash = "h" + std::to_string(i);
      const int64_t schedule = s.db.upsert_schedule(s.workload_id, hash, tuning_db::testing::schedule_json(hash));
      auto m = tuning_db::testing::ok_measurement(schedule, s.device_id, times[i], 5, 1000 + 1000 * i);
      m.run_id = run_id;
      m.predicted = scores[i];
      s.db.record_measurement(m);
    }
    const int64_t bad = s.db.upsert_schedule(s.workload_id, "bad", tuning_db::testing::schedule_json("bad"));
    s.db.record_measurement(tuning_db::testing::failed_measurement(bad, s.device_id, MeasureStatus::kCrash, 6000));

    const int64_t arm = s.db.upsert_device(sample_device("arm-neon-0001"));
    s.db.record_measurement(tuning_db::testing::ok_measurement(bad, arm, 50, 1, 7000));
    const int64_t other = s.db.upsert_workload(sample_workload("wl-softmax-8", "softmax_8"));
    const int64_t soft = s.db.upsert_schedule(other, "s", tuning_db::testing::schedule_json("s"));
    s.db.record_measurement(tuning_db::testing::failed_measurement(soft, s.device_id, MeasureStatus::kWrongResult, 8000));

    // Two bench invocations of matmul on the host; only the second is reported.
    for (const char* uuid : {"bench-old", "bench-new"}) {
      const bool newest = std::string(uuid) == "bench-new";
      for (const auto& [method, status, ns] : {std::tuple<const char*, const char*, double>{"ktune", "ok", newest ? 400 : 999},
                                               {"Adams2019", "ok", 1000},
                                               {"Li2018", "crash", 0},
                                               {"roofline", "ok", 100}}) {
        BenchResultRecord row;
        row.bench_uuid = uuid;
        row.workload_key = "wl-matmul-64";
        row.device_key = "host-avx2";
        row.method = method;
        row.status = status;
        row.median_ns = ns;
        row.detail = std::string(status) == "ok" ? "" : "signal 11";
        row.created_at = newest ? "2026-01-02T00:00:00.000Z" : "2026-01-01T00:00:00.000Z";
        s.db.record_bench_result(row);
      }
    }
  }

  ReportData collect(const std::string& workload = "", const std::string& device = "") {
    auto db = tuning_db::testing::open_db(file("a.db"), sqlite::OpenMode::kReadOnly);
    return collect_report(db, ReportFilter{workload, device});
  }
};

TEST_F(ReportDataTest, OnePairPerWorkloadAndDeviceWithItsFigures) {
  const ReportData data = collect();
  ASSERT_EQ(data.pairs.size(), 3u);
  EXPECT_EQ(data.pairs[0].device_key, "arm-neon-0001");
  const PairReport& p = data.pairs[1];
  EXPECT_EQ(p.workload_name, "matmul_64");
  EXPECT_EQ(p.device_key, "host-avx2");
  EXPECT_EQ(p.trials, 5);
  EXPECT_EQ(p.ok, 4);
  EXPECT_DOUBLE_EQ(*p.first_ns, 900);
  EXPECT_DOUBLE_EQ(*p.best_ns, 400);
  ASSERT_EQ(p.curve.size(), 5u);
  EXPECT_DOUBLE_EQ(p.curve.back().best_ns, 400);
  ASSERT_EQ(p.statuses.size(), 2u);
  EXPECT_EQ(p.statuses[1].status, "crash");
  EXPECT_EQ(p.ranks.points.size(), 4u);
  EXPECT_EQ(p.ranks.runs, 1);

  // Never ok: no curve, no times, but its statuses are there.
  const PairReport& soft = data.pairs[2];
  EXPECT_EQ(soft.workload_name, "softmax_8");
  EXPECT_FALSE(soft.best_ns.has_value());
  EXPECT_TRUE(soft.curve.empty());
  EXPECT_TRUE(soft.histogram.empty());
  ASSERT_EQ(soft.statuses.size(), 1u);
  EXPECT_EQ(soft.statuses[0].status, "wrong_result");
  EXPECT_TRUE(soft.bench.empty());
}

TEST_F(ReportDataTest, LatestBenchKeepsFailuresAndComparesWithKtune) {
  const PairReport p = collect("matmul_64", "host").pairs.at(0);
  EXPECT_EQ(p.bench_uuid, "bench-new");
  ASSERT_EQ(p.bench.size(), 4u);
  for (const BenchBar& bar : p.bench) {
    if (bar.method == "ktune") {
      EXPECT_DOUBLE_EQ(bar.median_ns, 400);
      EXPECT_DOUBLE_EQ(*bar.vs_ktune, 1.0);
    } else if (bar.method == "Adams2019") {
      EXPECT_DOUBLE_EQ(*bar.vs_ktune, 2.5);
    } else if (bar.method == "Li2018") {
      EXPECT_EQ(bar.status, "crash");
      EXPECT_EQ(bar.detail, "signal 11");
      EXPECT_FALSE(bar.vs_ktune.has_value());
    } else {
      EXPECT_EQ(bar.method, "roofline");
      EXPECT_DOUBLE_EQ(*bar.vs_ktune, 0.25);
    }
  }
}

TEST_F(ReportDataTest, FiltersByWorkloadAndDevicePrefix) {
  EXPECT_EQ(collect("matmul_64").pairs.size(), 2u);
  EXPECT_EQ(collect("wl-matmul-64", "arm").pairs.size(), 1u);
  EXPECT_EQ(collect("", "host-avx2").pairs.size(), 2u);
  EXPECT_EQ(collect("softmax_8", "host").pairs.at(0).workload_key, "wl-softmax-8");
}

TEST_F(ReportDataTest, FiltersThatMatchNothingNameTheFlag) {
  try {
    collect("no_such_workload");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--workload"), std::string::npos) << e.what();
  }
  try {
    collect("softmax_8", "arm");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--device"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("host-avx2"), std::string::npos) << e.what();
  }
}

TEST(ReportDataEmpty, AnEmptyDatabaseGivesNoPairs) {
  const std::string path = ::testing::TempDir() + "/report_empty_" + std::to_string(::getpid()) + ".db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  {
    auto db = tuning_db::testing::open_db(path);
    EXPECT_TRUE(collect_report(db, {}).pairs.empty());
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
}

}  // namespace
}  // namespace ktune::report
