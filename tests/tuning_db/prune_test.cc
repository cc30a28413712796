// Tests of TuningDb::prune and vacuum (maintenance.cc): the best N schedules per workload and
// device survive with the rows the best rule needs, one failure per failing schedule stays,
// and the answer of best() does not change.
#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/tuning_db/test_util.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using testing::open_db;
using testing::query_int;
using testing::seed;
using testing::TempDirTest;

class DbPrune : public TempDirTest {};

TEST_F(DbPrune, KeepsTheBestNSchedulesAndOneFailurePerFailingSchedule) {
  const std::string path = file("a.db");
  auto s = seed(path);
  // Ten schedules, 1000..1900 ns, each timed three times; the incumbent "s0" was first.
  for (int i = 0; i < 10; ++i) {
    const std::string hash = "s" + std::to_string(i);
    const int64_t sched = s.db.upsert_schedule(s.workload_id, hash, testing::schedule_json(hash));
    for (int r = 0; r < 3; ++r) {
      s.db.record_measurement(
          testing::ok_measurement(sched, s.device_id, 1000 + 100 * i + r, 1, 1 + 100 * i + r));
    }
  }
  // Two failing schedules, failing three times each.
  for (const char* hash : {"bad1", "bad2"}) {
    const int64_t sched = s.db.upsert_schedule(s.workload_id, hash, testing::schedule_json(hash));
    for (int r = 0; r < 3; ++r) {
      s.db.record_measurement(
          testing::failed_measurement(sched, s.device_id, MeasureStatus::kCrash, 5000 + r));
    }
  }
  const auto before = s.db.top_k("wl-matmul-64", "host-avx2", 3);

  const PruneReport report = s.db.prune(3);
  // Kept: 3 schedules x (fastest + first); here the first timing of each schedule is also
  // its fastest, so 3 ok rows, plus 2 failures.
  const int64_t ok_left = query_int(path, "SELECT count(*) FROM measurements WHERE status = 'ok'");
  EXPECT_EQ(ok_left, 3);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements WHERE status = 'crash'"), 2);
  EXPECT_EQ(query_int(path,
                      "SELECT count(DISTINCT schedule_id) FROM measurements WHERE "
                      "status = 'crash'"),
            2);
  EXPECT_EQ(report.deleted.measurements, 30 + 6 - 5);
  EXPECT_EQ(report.deleted.schedules, 7);  // s3..s9
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM schedules"), 5);

  const auto after = s.db.top_k("wl-matmul-64", "host-avx2", 3);
  ASSERT_EQ(after.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(after[i].schedule_hash, before[i].schedule_hash);
    EXPECT_EQ(after[i].measurement.uuid, before[i].measurement.uuid);
  }
  // The failure kept is the latest one.
  EXPECT_EQ(query_int(path, "SELECT min(created_at) FROM measurements WHERE status = 'crash'"),
            5002);
}

TEST_F(DbPrune, KeepsTheFirstSightingSoTheIncumbentStays) {
  const std::string path = file("a.db");
  auto s = seed(path);
  // "old" was measured first at 1000 ns and later re-timed at 995 ns; "new" (990 ns) came in
  // between. The rule dates "old" by its first timing, so it stays the incumbent.
  const int64_t old_sched = s.add("old", 1000, 5, 100);
  s.add("new", 990, 5, 200);
  s.db.record_measurement(testing::ok_measurement(old_sched, s.device_id, 995, 5, 300));
  ASSERT_EQ(s.db.best("wl-matmul-64", "host-avx2")->schedule_hash, "old");
  s.db.prune(1);
  EXPECT_EQ(s.db.best("wl-matmul-64", "host-avx2")->schedule_hash, "old");
  // Both rows of "old" stay (first and fastest); "new" is gone.
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM measurements"), 2);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM schedules WHERE hash = 'new'"), 0);
}

TEST_F(DbPrune, LeavesUnmeasuredSchedulesAndKeepsTheNewestModels) {
  const std::string path = file("a.db");
  auto s = seed(path);
  s.add("a", 100, 1, 1);
  s.add("b", 200, 1, 2);
  s.db.upsert_schedule(s.workload_id, "queued", testing::schedule_json("queued"));
  for (int64_t at : {10, 20, 30}) {
    ModelRecord m;
    m.device_id = s.device_id;
    m.kind = "xgboost-rank";
    m.feature_version = 2;
    m.blob = std::vector<uint8_t>(1000, static_cast<uint8_t>(at));
    m.created_at_ms = at;
    s.db.save_model(m);
  }
  const PruneReport report = s.db.prune(1);
  EXPECT_EQ(report.deleted.models, 2);
  EXPECT_EQ(s.db.load_latest_model("host-avx2", "xgboost-rank", 2)->created_at_ms, 30);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM schedules WHERE hash = 'queued'"), 1);
  EXPECT_EQ(query_int(path, "SELECT count(*) FROM schedules WHERE hash = 'b'"), 0);
}

TEST_F(DbPrune, RefusesKeepingNothing) {
  auto s = seed(file("a.db"));
  s.add("a", 100, 1, 1);
  try {
    s.db.prune(0);
    ADD_FAILURE() << "prune(0) accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("keep: expected at least 1"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(s.db.stats().rows.measurements, 1);
}

TEST_F(DbPrune, VacuumReturnsFreedPagesToTheDisk) {
  const std::string path = file("a.db");
  auto s = seed(path);
  for (int i = 0; i < 400; ++i) {
    const std::string hash = "h" + std::to_string(i) + std::string(200, 'x');
    s.add(hash, 1000 + i, 1, 1 + i);
  }
  const PruneReport report = s.db.prune(1);
  EXPECT_GT(report.freed_bytes, 0);
  const int64_t saved = s.db.vacuum();
  EXPECT_GT(saved, 0);
  EXPECT_EQ(s.db.stats().free_bytes, 0);
  EXPECT_EQ(s.db.best("wl-matmul-64", "host-avx2")->measurement.median_ns, 1000);
}

}  // namespace
}  // namespace ktune::tuning_db
