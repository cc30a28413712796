// collect_report(): picks the measured (workload, device) pairs that the filter selects and
// fills one PairReport each from the history queries, TuningDb::best and the latest bench.
#include "report/report_data.h"

#include <chrono>
#include <set>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "report/report_series.h"
#include "targets/device.h"

namespace ktune::report {
namespace {

constexpr int kHistogramBins = 24;

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The device as a table shows it; a description that does not parse falls back to the target.
std::string device_name(const tuning_db::DeviceRecord& device) {
  try {
    return targets::short_name(targets::device_from_json(nlohmann::json::parse(device.description)));
  } catch (const std::exception&) {
    return device.target;
  }
}

// The rows of the latest bench invocation, with each ok method's time over ktune's.
void fill_bench(tuning_db::TuningDb& db, PairReport& pair) {
  const std::vector<tuning_db::BenchResultRecord> rows = db.latest_bench(pair.workload_key, pair.device_key);
  if (rows.empty()) return;
  pair.bench_uuid = rows.front().bench_uuid;
  pair.bench_created_at = rows.front().created_at;
  std::optional<double> ktune_ns;
  for (const auto& row : rows) {
    if (row.method == "ktune" && row.status == "ok" && row.median_ns > 0) ktune_ns = row.median_ns;
  }
  for (const auto& row : rows) {
    BenchBar bar;
    bar.method = row.method;
    bar.status = row.status;
    bar.median_ns = row.status == "ok" ? row.median_ns : 0;
    if (ktune_ns && bar.median_ns > 0) bar.vs_ktune = bar.median_ns / *ktune_ns;
    bar.detail = row.detail;
    pair.bench.push_back(std::move(bar));
  }
}

PairReport make_pair_report(tuning_db::TuningDb& db, const tuning_db::MeasuredPair& measured) {
  PairReport pair;
  pair.workload_name = measured.workload.name;
  pair.workload_key = measured.workload.key;
  pair.device_key = measured.device.key;
  pair.device_target = measured.device.target;
  pair.device_name = device_name(measured.device);
  const auto history = db.measurement_history(pair.workload_key, pair.device_key);
  pair.trials = static_cast<int64_t>(history.size());
  for (const auto& m : history) {
    if (m.status != tuning_db::MeasureStatus::kOk || !m.median_ns) continue;
    ++pair.ok;
    if (!pair.first_ns) pair.first_ns = *m.median_ns;
  }
  if (const auto best = db.best(pair.workload_key, pair.device_key)) {
    pair.best_ns = best->measurement.median_ns;
  }
  pair.curve = tuning_curve(history);
  pair.histogram = log_histogram(history, kHistogramBins);
  pair.statuses = count_statuses(history);
  pair.measured_by = count_measurers(history);
  pair.ranks = rank_agreement(history);
  fill_bench(db, pair);
  return pair;
}

}  // namespace

ReportData collect_report(tuning_db::TuningDb& db, const ReportFilter& filter) {
  ReportData data;
  data.database = db.path();
  data.generated_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  std::set<std::string> workload_keys;
  if (!filter.workload.empty()) {
    for (const auto& w : db.find_workloads(filter.workload)) workload_keys.insert(w.key);
    if (workload_keys.empty()) {
      throw UserError(format_user_error(db.path(), "--workload",
                                        "no workload named or keyed '" + filter.workload +
                                            "'; `ktune db stats` and `ktune db best` list them"));
    }
  }
  const std::vector<tuning_db::MeasuredPair> measured = db.measured_pairs();
  for (const auto& m : measured) {
    if (!filter.workload.empty() && workload_keys.count(m.workload.key) == 0) continue;
    if (!filter.device.empty() && !starts_with(m.device.key, filter.device)) continue;
    data.pairs.push_back(make_pair_report(db, m));
  }
  if (data.pairs.empty() && !measured.empty() && (!filter.workload.empty() || !filter.device.empty())) {
    std::string devices;
    for (const auto& d : db.devices()) devices += (devices.empty() ? "" : ", ") + d.key;
    throw UserError(format_user_error(
        db.path(), filter.device.empty() ? "--workload" : "--device",
        "no measurements match the filter; devices in the database: " + devices));
  }
  return data;
}

}  // namespace ktune::report
