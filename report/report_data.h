// ReportData: everything `ktune report` draws, as plain numbers read from a tuning database,
// one PairReport per (workload, device) with measurements. The HTML page only draws these
// series; every figure on it is computed here, where the tests can check it.
//
//   TuningDb db = TuningDb::open(path, read_only);
//   ReportData data = collect_report(db, ReportFilter{"softmax", ""});
//   std::string html = render_report_html(data, "0.1.0");   // report_html.h
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tuning_db/tuning_db.h"

namespace ktune::report {

// One trial of a tuning curve, from the first ok measurement on.
struct CurvePoint {
  int64_t trial = 0;     // 1-based index of the measurement among all of the pair's, any status
  double elapsed_s = 0;  // tuning time up to this trial, s: time between trials of one run,
                         // summed over runs (the gaps between runs are left out)
  double best_ns = 0;    // fastest ok median up to and including this trial, ns
};

// One bin of the distribution of ok medians; bins are equal in log10(ns).
struct HistogramBin {
  double lo_ns = 0;   // lower edge, ns (inclusive)
  double hi_ns = 0;   // upper edge, ns (exclusive, except the last bin)
  int64_t count = 0;  // ok measurements whose median falls in it
};

// Measurements of one status.
struct StatusCount {
  std::string status;  // stored status name ("ok", "crash", ...)
  int64_t count = 0;   // measurements with it; never 0 in a report
};

// Measurements timed by one host and MPI rank (provenance, schema 5).
struct MeasurerCount {
  std::string host;             // empty for measurements stored before hosts were recorded
  std::optional<int64_t> rank;  // unset for runs without MPI
  int64_t count = 0;            // measurements it timed; never 0 in a report
};

// One measurement that the cost model scored before it was measured.
struct RankPoint {
  int64_t run_id = 0;         // the run that picked it; 0 for ad hoc measurements
  double predicted_rank = 0;  // 1 = highest score in its run (predicted fastest); ties share the mean
  double measured_rank = 0;   // 1 = fastest median in its run; ties share the mean
};

// How the cost model's scores ranked schedules against their measured times, per run.
struct RankAgreement {
  std::vector<RankPoint> points;  // every ok measurement with a score, in runs of two or more
  int64_t runs = 0;               // runs that have any figures (two distinct times or more)
  double pairwise_accuracy = 0;   // in [0, 1], mean over those runs; 0.5 is chance
  double spearman = 0;            // in [-1, 1], mean over those runs
};

// One method of the latest `ktune bench` comparison.
struct BenchBar {
  std::string method;            // "ktune", "Adams2019", "openblas", "roofline", ...
  std::string status;            // "ok", "failed", "unsupported", ...
  double median_ns = 0;          // 0 unless ok
  std::optional<double> vs_ktune;  // this method's median / ktune's; unset unless both ok
  std::string detail;            // error text or routine, as bench stored it
};

// Everything about one workload on one device.
struct PairReport {
  std::string workload_name;         // human name
  std::string workload_key;          // identity
  std::string device_key;            // identity
  std::string device_target;         // Halide target string
  std::string device_name;           // targets::short_name, or the target when undescribed
  int64_t trials = 0;                // measurements, any status
  int64_t ok = 0;                    // of which ok
  std::optional<double> best_ns;     // median of the best schedule (TuningDb::best's rule)
  std::optional<double> first_ns;    // median of the first ok measurement (the starting point)
  std::vector<CurvePoint> curve;     // best so far, one point per trial after the first ok
  std::vector<HistogramBin> histogram;  // ok medians; empty when there are none
  std::vector<StatusCount> statuses;    // nonzero counts, in MeasureStatus order
  std::vector<MeasurerCount> measured_by;  // by host, then rank (no rank first)
  RankAgreement ranks;               // predicted vs measured ranks
  std::string bench_uuid;            // the latest bench invocation; empty when never benched
  std::string bench_created_at;      // when it ran, as stored
  std::vector<BenchBar> bench;       // its rows, one per method, failures included
};

// The whole report.
struct ReportData {
  std::string database;            // path of the database, as given
  int64_t generated_at_ms = 0;     // when the report was made, ms since the Unix epoch
  std::vector<PairReport> pairs;   // by workload name, workload key, device key
};

// Which pairs to report; empty fields match everything.
struct ReportFilter {
  std::string workload;  // a workload name, key or key prefix (TuningDb::find_workloads)
  std::string device;    // a device key or key prefix
};

// Reads the report out of `db`. A filter that matches no measured pair is a UserError naming
// the flag and what the database holds.
ReportData collect_report(tuning_db::TuningDb& db, const ReportFilter& filter);

}  // namespace ktune::report
