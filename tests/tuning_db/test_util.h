// Helpers for the tuning database tests: a temporary directory per test, sample rows, and
// raw SQLite queries that check the file independently of TuningDb.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db::testing {

// A fresh directory under /tmp, removed with everything in it when the test ends.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  // `name` inside the directory.
  std::string file(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;  // absolute path of the directory
};

// Versions the tests run as.
Versions test_versions();
// Opens `path` with the test versions.
TuningDb open_db(const std::string& path, sqlite::OpenMode mode = sqlite::OpenMode::kCreate,
                 int busy_timeout_ms = sqlite::kDefaultBusyTimeoutMs);

DeviceRecord sample_device(const std::string& key = "host-avx2");
WorkloadRecord sample_workload(const std::string& key = "wl-matmul-64",
                               const std::string& name = "matmul_64");
// A valid schedule JSON text naming `hash`.
std::string schedule_json(const std::string& hash);

// An ok measurement of `schedule_id` on `device_id`.
MeasurementRecord ok_measurement(int64_t schedule_id, int64_t device_id, double median_ns,
                                 double spread_ns, int64_t created_at_ms);
// A failed measurement.
MeasurementRecord failed_measurement(int64_t schedule_id, int64_t device_id, MeasureStatus status,
                                     int64_t created_at_ms);

// A database with one device and one workload, the usual starting point.
struct Seeded {
  TuningDb db;          // the open database
  int64_t device_id;    // id of sample_device()
  int64_t workload_id;  // id of sample_workload()
  // Stores schedule `hash` and one ok timing of it; returns the schedule id.
  int64_t add(const std::string& hash, double median_ns, double spread_ns, int64_t at_ms);
};
Seeded seed(const std::string& path);

// Single integer result of `sql` run on `path` through a separate raw connection.
int64_t query_int(const std::string& path, const std::string& sql);
// Single text result of `sql` run on `path` through a separate raw connection.
std::string query_text(const std::string& path, const std::string& sql);

}  // namespace ktune::tuning_db::testing
