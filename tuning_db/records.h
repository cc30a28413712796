// Plain rows of the tuning database, as TuningDb reads and writes them. Ids are local to one
// database file; keys, hashes and uuids are the identities that survive merge and export.
// Timestamps are milliseconds since the Unix epoch, UTC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::tuning_db {

// Outcome of one measurement; stored as the lowercase text that to_string() returns.
enum class MeasureStatus {
  kOk,            // built, ran, matched the reference; timings are valid
  kRejected,      // refused before building (a validator or Halide rejected the schedule)
  kBuildError,    // compiling failed
  kBuildTimeout,  // compiling took longer than its limit
  kCrash,         // the kernel process died (signal)
  kRunTimeout,    // running took longer than its limit
  kRuntimeError,  // the kernel returned an error
  kWrongResult,   // the output differed from the reference
};

// State of a tuning run; stored as the lowercase text that to_string() returns.
enum class RunStatus {
  kRunning,      // started and not ended (or killed, until a later run notices)
  kCompleted,    // ended normally
  kInterrupted,  // stopped by the user or the budget before finishing its plan
  kFailed,       // ended by an error
  kKilled,       // its process died without ending it (a signal, a power cut): found by a later run
};

std::string_view to_string(MeasureStatus status);
std::string_view to_string(RunStatus status);
// Parses the stored text; nullopt for anything else.
std::optional<MeasureStatus> parse_measure_status(std::string_view text);
std::optional<RunStatus> parse_run_status(std::string_view text);
// The stored names of all MeasureStatus values, in enum order.
const std::vector<std::string_view>& measure_status_names();

// A device schedules are tuned for.
struct DeviceRecord {
  int64_t id = 0;                  // row id; 0 before it is stored
  std::string key;                 // stable device key (target plus hardware fingerprint)
  std::string target;              // Halide target string, e.g. "x86-64-linux-avx2"
  std::string description = "{}";  // JSON object: CPU model, cores, caches, GPU name...
  int64_t created_at_ms = 0;       // when first stored; 0 on input means now
};

// A fully shaped algorithm: the unit that schedules are tuned for.
struct WorkloadRecord {
  int64_t id = 0;             // row id; 0 before it is stored
  std::string key;            // stable hash of the canonical algorithm and shapes
  std::string name;           // human name from the spec (not part of the identity)
  std::string family_key;     // same algorithm at any shapes; groups related workloads
  std::string shapes = "{}";  // JSON: input and output shapes
  std::string spec = "{}";    // JSON: canonical spec the workload was built from
  int64_t flops = 0;          // arithmetic operations per call; 0 if unknown
  int64_t bytes = 0;          // bytes read and written per call; 0 if unknown
  int64_t created_at_ms = 0;  // when first stored; 0 on input means now
};

// A schedule of one workload, stored as its canonical JSON.
struct ScheduleRecord {
  int64_t id = 0;             // row id; 0 before it is stored
  int64_t workload_id = 0;    // the workload it schedules
  std::string hash;           // identity: hash of the canonical JSON
  std::string json;           // canonical JSON of the schedule
  int64_t created_at_ms = 0;  // when first stored; 0 on input means now
};

// One tuning session: the provenance of the measurements it recorded.
struct RunRecord {
  int64_t id = 0;                      // row id; 0 before it is stored
  std::string uuid;                    // identity across merges; generated when empty
  int64_t started_at_ms = 0;           // 0 on input means now
  std::optional<int64_t> ended_at_ms;  // unset while running or after a kill
  std::string command = "[]";          // JSON array: the command line
  std::string host;                    // host name; may be empty
  std::string budget;                  // budget as typed, e.g. "8h" or "2000 trials"; may be empty
  RunStatus status = RunStatus::kRunning;  // state of the run
  std::string ktune_version;               // empty on input means the database's current one
  std::string halide_version;              // empty on input means the database's current one
  std::optional<int64_t> pid;              // the tuning process on `host`; unset for older runs
};

// One timing (or failure) of a schedule on a device.
struct MeasurementRecord {
  int64_t id = 0;                 // row id; 0 before it is stored
  std::string uuid;               // identity across merges; generated when empty
  int64_t schedule_id = 0;        // the schedule measured
  int64_t workload_id = 0;        // its workload; filled in by the database
  int64_t device_id = 0;          // the device it ran on
  std::optional<int64_t> run_id;  // the run that measured it; unset for ad hoc measurements
  MeasureStatus status = MeasureStatus::kOk;  // outcome
  std::optional<double> median_ns;            // median time per call, ns; set when status is ok
  std::optional<double> min_ns;               // fastest call, ns; unset if not timed
  std::optional<double> spread_ns;  // timing noise as the measurer reports it, ns; set when ok
  int64_t repeats = 0;              // timed calls behind the median; 0 if not timed
  int64_t threads = 0;              // worker threads the kernel used; 0 if unknown
  std::optional<double> build_ms;   // compile time, ms; unset if not built
  std::optional<double> predicted;  // cost-model score when it was picked; unset if none
  std::string error;                // failure detail; empty when ok
  int64_t created_at_ms = 0;        // when measured; 0 on input means now
  std::string halide_version;       // empty on input means the database's current one
  std::string ktune_version;        // empty on input means the database's current one
  std::optional<int64_t> stale_at_ms;  // when `ktune db revalidate` superseded it (ms since the
                                       // epoch); unset while it counts for the best
  std::string host;                 // the host that timed it; empty when unknown (before schema 5)
  std::optional<int64_t> rank;      // the MPI rank that timed it; unset for a run without MPI
};

// A trained cost model for one device.
struct ModelRecord {
  int64_t id = 0;              // row id; 0 before it is stored
  std::string uuid;            // identity across merges; generated when empty
  int64_t device_id = 0;       // the device whose measurements trained it
  std::string kind;            // model family, e.g. "xgboost-rank"
  int feature_version = 0;     // features::kFeatureVersion it was trained with
  std::vector<uint8_t> blob;   // serialized model
  int64_t samples = 0;         // training samples
  std::string metrics = "{}";  // JSON: accuracy figures
  int64_t created_at_ms = 0;   // 0 on input means now
};

// One method's result for one workload in one `ktune bench` invocation. Rows refer to the
// workload and device by key (not by row id), so a bench of a workload that was never tuned
// still stores its rows. Identity across merges: (bench_uuid, workload_key, method).
struct BenchResultRecord {
  std::string bench_uuid;    // identity of the `ktune bench` invocation (all its rows share it)
  std::string workload_key;  // the workload benchmarked
  std::string device_key;    // the device it ran on
  std::string method;        // "ktune", "ktune-heuristic", "Adams2019", "Mullapudi2016",
                             // "Li2018", "openblas", "onednn", "roofline"
  std::string status;        // "ok", "failed", "wrong_result", "crash", "timeout", "unsupported"
  double median_ns = 0;      // median time per call, ns; 0 unless ok (roofline: the roofline time)
  double min_ns = 0;         // fastest call, ns; 0 unless ok
  double iqr_ns = 0;         // interquartile range of the timed calls, ns; 0 unless ok
  int repeats = 0;           // timed calls behind the median; 0 if not timed
  int threads = 0;           // worker threads the method used; 0 if unknown
  std::string detail;        // error text, machine params, library routine, ...; may be empty
  std::string created_at;    // UTC "YYYY-MM-DDTHH:MM:SS.mmmZ"; filled by the database when empty
};

// The stored names of the bench result statuses.
const std::vector<std::string_view>& bench_status_names();

// The best schedule of a workload on a device, with the measurement that made it best.
struct BestEntry {
  std::string workload_key;       // workload identity
  std::string workload_name;      // its human name
  std::string device_key;         // device identity
  int64_t schedule_id = 0;        // local id of the winning schedule
  std::string schedule_hash;      // identity of the winning schedule
  std::string schedule_json;      // its canonical JSON
  MeasurementRecord measurement;  // the winner's fastest ok measurement
  int64_t candidates = 0;         // schedules with an ok measurement on this device
  bool stale = false;             // measured by another ktune or Halide version than now
};

}  // namespace ktune::tuning_db
