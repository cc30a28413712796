// TuningDb: the typed API of the tuning database, the SQLite file where ktune keeps devices,
// workloads, schedules, measurements, runs and cost models, and answers "what is the best
// schedule of this workload on this device". Every write commits before it returns (WAL),
// so a killed tuning session loses nothing; readers never block a running writer; two
// processes may write at once (the second waits up to the busy timeout).
//
//   OpenOptions options;
//   options.versions = {"0.1.0", "14.0.0"};
//   TuningDb db = TuningDb::open("tuning.db", options);
//   int64_t device = db.upsert_device(device_record);      // DeviceRecord, records.h
//   int64_t workload = db.upsert_workload(workload_record);
//   int64_t schedule = db.upsert_schedule(workload, schedule_hash, schedule_json);
//   measurement.schedule_id = schedule;                     // MeasurementRecord
//   measurement.device_id = device;
//   db.record_measurement(measurement);                     // committed on return
//   std::optional<BestEntry> best = db.best(workload_key, device_key);
//
// "Best" follows the noise-aware rule documented in best_rule.h. A TuningDb is used from one
// thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tuning_db/records.h"
#include "tuning_db/sqlite.h"

namespace ktune::tuning_db {

// Versions of the running program: stamped on new rows, compared with stored ones.
struct Versions {
  std::string ktune;   // e.g. "0.1.0"; empty: not stamped, never reported stale
  std::string halide;  // e.g. "14.0.0"; empty: not stamped, never reported stale
};

// How to open a database.
struct OpenOptions {
  sqlite::OpenMode mode = sqlite::OpenMode::kCreate;    // kReadOnly for queries
  Versions versions;                                    // the running ktune and Halide
  int busy_timeout_ms = sqlite::kDefaultBusyTimeoutMs;  // wait for another writer, ms
};

// Row counts per table; used by stats, merge, import and prune reports.
struct RowCounts {
  int64_t devices = 0;       // rows of `devices`
  int64_t workloads = 0;     // rows of `workloads`
  int64_t schedules = 0;     // rows of `schedules`
  int64_t runs = 0;          // rows of `runs`
  int64_t measurements = 0;  // rows of `measurements`
  int64_t models = 0;        // rows of `models`
  int64_t bench_results = 0;  // rows of `bench_results`
};

// Measurements of one device.
struct DeviceStats {
  std::string device_key;    // device identity
  std::string target;        // its Halide target
  int64_t workloads = 0;     // workloads with at least one measurement on it
  int64_t measurements = 0;  // all measurements on it
  int64_t ok = 0;            // of which status ok
};

// Measurements by who timed them (schema 5 on).
struct MeasurerStats {
  std::string host;            // empty for measurements made before hosts were recorded
  std::optional<int64_t> rank; // the MPI rank; unset for runs without MPI
  int64_t measurements = 0;
  int64_t ok = 0;
};

// What `ktune db stats` shows.
struct DbStats {
  int schema_version = 0;            // PRAGMA user_version
  int64_t file_bytes = 0;            // size of the database file
  int64_t wal_bytes = 0;             // size of its -wal file; 0 when absent
  int64_t free_bytes = 0;            // unused pages inside the file (VACUUM returns them)
  RowCounts rows;                    // rows per table
  std::vector<DeviceStats> devices;  // per device, by key
  std::vector<std::pair<std::string, int64_t>> statuses;  // measurements per status, by name
  std::vector<MeasurerStats> measurers;  // measurements per host and rank, by host then rank
};

// Outcome of merge() and import_json(): rows added, and rows that were already present.
struct CopyReport {
  RowCounts added;    // new rows written
  RowCounts present;  // rows skipped because the same identity was already stored
};

// Outcome of prune().
struct PruneReport {
  RowCounts deleted;        // rows removed
  int64_t freed_bytes = 0;  // pages released inside the file; vacuum() returns them to disk
};

// A workload and a device with at least one measurement of it there (measured_pairs()).
struct MeasuredPair {
  WorkloadRecord workload;   // the workload measured
  DeviceRecord device;       // where it was measured
  int64_t measurements = 0;  // its measurements there, any status
};

class TuningDb {
 public:
  // Opens (and for writable modes creates or migrates) the database at `path`. Throws
  // UserError for a missing file (read modes), a file that is not a ktune database, a
  // corrupted one, or one made by a newer ktune.
  static TuningDb open(const std::string& path, const OpenOptions& options);

  TuningDb(TuningDb&&) noexcept;
  TuningDb& operator=(TuningDb&&) noexcept;
  ~TuningDb();

  const std::string& path() const;
  const Versions& versions() const;

  // --- Writes; each commits before returning. Upserts insert a row whose identity is new and
  // return the row id either way; an existing row is left as it is.
  int64_t upsert_device(const DeviceRecord& device);
  int64_t upsert_workload(const WorkloadRecord& workload);
  int64_t upsert_schedule(int64_t workload_id, const std::string& hash, const std::string& json);
  int64_t begin_run(const RunRecord& run);
  void end_run(int64_t run_id, RunStatus status);
  // Marks the runs of `host` still 'running' whose process is gone (`alive(pid)` is false,
  // or no pid was recorded) as 'killed'; their ended_at stays unset, as nobody saw them end.
  // Returns how many it marked.
  int mark_killed_runs(const std::string& host, const std::function<bool(int64_t pid)>& alive);
  // Marks the measurements of a workload on a device (by key) that another ktune or Halide
  // version took, and that nothing superseded yet, as superseded now: they stay in the
  // history but no longer count for the best. What `ktune db revalidate` does after it
  // re-measured the best schedules. Returns how many rows it marked; 0 for unknown keys.
  int mark_superseded(const std::string& workload_key, const std::string& device_key);
  // Stores one measurement; fills uuid, created_at and versions when empty. Returns its id.
  int64_t record_measurement(const MeasurementRecord& measurement);
  int64_t save_model(const ModelRecord& model);
  // Stores one `ktune bench` result; fills created_at when empty. A row whose identity
  // (bench_uuid, workload_key, method) is already stored is left as it is. Returns its id.
  // Throws std::invalid_argument for a status outside bench_status_names() or a created_at
  // that is not in the form records.h gives.
  int64_t record_bench_result(const BenchResultRecord& result);
  // Runs `writes` (calls of the methods above) in one transaction, committed when it returns
  // and rolled back if it throws: for bulk loads, where one commit per row is too slow. A
  // crash inside a batch loses the whole batch, so tuning sessions record row by row.
  void batch(const std::function<void()>& writes);

  // --- Queries.
  // The best schedule of a workload (by key) on a device (by key); nullopt when the
  // workload has no ok measurement there.
  std::optional<BestEntry> best(const std::string& workload_key, const std::string& device_key);
  // The best, then the next k-1 schedules by median (ties: hash).
  std::vector<BestEntry> top_k(const std::string& workload_key, const std::string& device_key,
                               int k);
  // best() for every (workload, device) pair with an ok measurement, by workload name.
  std::vector<BestEntry> best_all();
  // Workloads whose key or name equals `name_or_key`; if there are none, those whose key
  // starts with it (at least 6 characters). By name, then key.
  std::vector<WorkloadRecord> find_workloads(const std::string& name_or_key);
  // The same algorithm at other shapes, by key.
  std::vector<WorkloadRecord> workloads_in_family(const std::string& family_key);
  std::vector<DeviceRecord> devices();
  std::optional<DeviceRecord> find_device(const std::string& device_key);
  // Hashes of the schedules of a workload with any measurement (ok or failed) on a device,
  // sorted: what a resumed run need not measure again.
  std::vector<std::string> measured_schedule_hashes(const std::string& workload_key,
                                                    const std::string& device_key);
  // The schedules of a workload that the run limit killed on a device and that never ran to
  // an ok measurement there, by hash: slower than anything that finished, which is what a
  // cost model should learn from them.
  std::vector<ScheduleRecord> timed_out_schedules(const std::string& workload_key,
                                                  const std::string& device_key);
  std::optional<RunRecord> find_run(int64_t run_id);
  DbStats stats();
  // Checks every page of the file (PRAGMA quick_check: b-trees, free list, record formats),
  // so that an answer read from intact pages is not given from a damaged file. Throws
  // EnvironmentError naming the file and what SQLite found. About 5 ms per MiB.
  void check_pages();
  // The newest model of `kind` trained with `feature_version` for a device; nullopt if none.
  std::optional<ModelRecord> load_latest_model(const std::string& device_key,
                                               const std::string& kind, int feature_version);
  // The rows of the newest bench invocation that measured this workload on this device, in
  // the order they were stored; empty when none did. Newest: the invocation with the latest
  // created_at among this workload's rows on this device.
  std::vector<BenchResultRecord> latest_bench(const std::string& workload_key,
                                              const std::string& device_key);

  // --- History, for reports (tuning_db_history.cc).
  // Every (workload, device) pair with a measurement, by workload name, workload key, device key.
  std::vector<MeasuredPair> measured_pairs();
  // Every measurement of a workload on a device, any status, oldest first (created_at, then
  // insertion order); empty when either key is unknown.
  std::vector<MeasurementRecord> measurement_history(const std::string& workload_key,
                                                     const std::string& device_key);

  // --- Maintenance.
  // Copies every row of another database that this one lacks (identities: device key,
  // workload key, schedule hash, run/measurement/model uuid, bench uuid + workload key +
  // method), in one transaction. Runs keep their host and versions; measurements keep their
  // run. Merging twice adds nothing.
  CopyReport merge(const std::string& other_path);
  // Keeps, per (workload, device), the measurements of the best `keep_n` schedules (their
  // fastest and first ok rows, so the rule's answer is unchanged) and the latest failure of
  // each failing schedule; deletes schedules left without measurements, and all but the
  // newest model per (device, kind, feature version). One transaction.
  PruneReport prune(int keep_n);
  // Folds the WAL into the file and rewrites it without free pages; returns the bytes saved.
  int64_t vacuum();
  // Writes every row except the cost models (binary blobs) as stable, sorted, indented JSON.
  void export_json(std::ostream& out);
  // Adds the rows of an export (as merge() does), in one transaction. `source` names the
  // input in error messages.
  CopyReport import_json(const std::string& text, const std::string& source);

  struct Impl;

 private:
  explicit TuningDb(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;  // connection, versions and the prepared statements
};

}  // namespace ktune::tuning_db
