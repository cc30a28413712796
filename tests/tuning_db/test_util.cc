#include "tests/tuning_db/test_util.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>

namespace ktune::tuning_db::testing {

void TempDirTest::SetUp() {
  char pattern[] = "/tmp/ktune_db_test_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  dir_ = pattern;
}

void TempDirTest::TearDown() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

Versions test_versions() { return {"0.1.0-test", "14.0.0"}; }

TuningDb open_db(const std::string& path, sqlite::OpenMode mode, int busy_timeout_ms) {
  return TuningDb::open(path, {mode, test_versions(), busy_timeout_ms});
}

DeviceRecord sample_device(const std::string& key) {
  DeviceRecord d;
  d.key = key;
  d.target = "x86-64-linux-avx2";
  d.description = R"({"cpu":"test cpu","cores":16})";
  return d;
}

WorkloadRecord sample_workload(const std::string& key, const std::string& name) {
  WorkloadRecord w;
  w.key = key;
  w.name = name;
  w.family_key = "family-matmul";
  w.shapes = R"({"A":[64,64],"B":[64,64]})";
  w.spec = R"({"ops":[{"op":"matmul"}]})";
  w.flops = 2 * 64 * 64 * 64;
  w.bytes = 3 * 64 * 64 * 4;
  return w;
}

std::string schedule_json(const std::string& hash) {
  return R"({"stages":[{"name":"C","tile":[8,8]}],"tag":")" + hash + R"("})";
}

MeasurementRecord ok_measurement(int64_t schedule_id, int64_t device_id, double median_ns,
                                 double spread_ns, int64_t created_at_ms) {
  MeasurementRecord m;
  m.schedule_id = schedule_id;
  m.device_id = device_id;
  m.status = MeasureStatus::kOk;
  m.median_ns = median_ns;
  m.min_ns = median_ns * 0.98;
  m.spread_ns = spread_ns;
  m.repeats = 20;
  m.threads = 16;
  m.build_ms = 120.5;
  m.created_at_ms = created_at_ms;
  return m;
}

MeasurementRecord failed_measurement(int64_t schedule_id, int64_t device_id, MeasureStatus status,
                                     int64_t created_at_ms) {
  MeasurementRecord m;
  m.schedule_id = schedule_id;
  m.device_id = device_id;
  m.status = status;
  m.error = "failed: " + std::string(to_string(status));
  m.created_at_ms = created_at_ms;
  return m;
}

int64_t Seeded::add(const std::string& hash, double median_ns, double spread_ns, int64_t at_ms) {
  const int64_t schedule = db.upsert_schedule(workload_id, hash, schedule_json(hash));
  db.record_measurement(ok_measurement(schedule, device_id, median_ns, spread_ns, at_ms));
  return schedule;
}

Seeded seed(const std::string& path) {
  TuningDb db = open_db(path);
  const int64_t device = db.upsert_device(sample_device());
  const int64_t workload = db.upsert_workload(sample_workload());
  return Seeded{std::move(db), device, workload};
}

namespace {

template <typename Read>
auto query(const std::string& path, const std::string& sql, Read read) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + path);
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK ||
      sqlite3_step(stmt) != SQLITE_ROW) {
    const std::string message = sqlite3_errmsg(db);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    throw std::runtime_error(sql + ": " + message);
  }
  auto value = read(stmt);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

}  // namespace

int64_t query_int(const std::string& path, const std::string& sql) {
  return query(path, sql, [](sqlite3_stmt* s) { return sqlite3_column_int64(s, 0); });
}

std::string query_text(const std::string& path, const std::string& sql) {
  return query(path, sql, [](sqlite3_stmt* s) {
    const auto* text = sqlite3_column_text(s, 0);
    return text ? std::string(reinterpret_cast<const char*>(text)) : std::string();
  });
}

}  // namespace ktune::tuning_db::testing
