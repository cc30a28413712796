#include "cost_model/dataset.h"

#include <algorithm>
#include <climits>

#include "common/error.h"
#include "cost_model/analytical_model.h"
#include "cost_model/extractor.h"
#include "schedule_store/stored_schedule.h"

namespace ktune::cost_model {

namespace {

// A schedule the run limit killed ran longer than any that finished: it trains as this many
// times the workload's slowest finished runtime, so a ranking model learns to avoid its kind.
constexpr double kTimedOutSlowdown = 2;

// One stored schedule of a workload and the runtime it trains as.
struct StoredRow {
  std::string hash;
  std::string json;
  double runtime_ns = 0;
};

// The schedules of a workload with an ok measurement on the device, each with its fastest
// call (the timing least disturbed by other processes; the median when it was not recorded).
std::vector<StoredRow> ok_rows(tuning_db::TuningDb& db, const std::string& workload_key, const std::string& device_key) {
  std::vector<StoredRow> rows;
  for (const tuning_db::BestEntry& e : db.top_k(workload_key, device_key, INT_MAX)) {
    const tuning_db::MeasurementRecord& m = e.measurement;
    if (!m.median_ns || !(*m.median_ns > 0)) continue;
    rows.push_back({e.schedule_hash, e.schedule_json, m.min_ns && *m.min_ns > 0 ? *m.min_ns : *m.median_ns});
  }
  return rows;
}

// The schedules of a workload killed by the run limit, as slower than its slowest finished one.
std::vector<StoredRow> timed_out_rows(tuning_db::TuningDb& db, const std::string& workload_key,
                                      const std::string& device_key, double slowest_ok_ns) {
  std::vector<StoredRow> rows;
  for (const tuning_db::ScheduleRecord& s : db.timed_out_schedules(workload_key, device_key)) {
    rows.push_back({s.hash, s.json, kTimedOutSlowdown * slowest_ok_ns});
  }
  return rows;
}

// Adds the rows that parse as schedules to `data`, with their features and analytical
// scores; notes the others as skipped. Returns how many it added.
int append_rows(Dataset& data, const FeatureExtractor& extractor, const tuning_db::BestEntry& workload,
                const std::vector<StoredRow>& rows) {
  std::vector<scheduler::Schedule> schedules;
  std::vector<const StoredRow*> kept;
  for (const StoredRow& row : rows) {
    try {
      schedules.push_back(schedule_store::parse_stored_schedule(row.json, "schedule " + row.hash));
      kept.push_back(&row);
    } catch (const std::exception& ex) {
      data.skipped.push_back(workload.workload_name + ": schedule " + row.hash + ": " + ex.what());
    }
  }
  const std::vector<std::vector<float>> features = extractor.extract(schedules);
  const std::vector<float> analytical = AnalyticalModel(extractor.analysis().target).predict(features);
  for (size_t i = 0; i < features.size(); ++i) {
    data.samples.push_back({features[i], kept[i]->runtime_ns, workload.workload_key});
    data.schedule_hashes.push_back(kept[i]->hash);
    data.analytical_scores.push_back(analytical[i]);
  }
  return static_cast<int>(kept.size());
}

}  // namespace

int Dataset::workloads() const {
  return static_cast<int>(samples_per_workload().size());
}

std::map<std::string, int> Dataset::samples_per_workload() const {
  std::map<std::string, int> counts;
  for (const TrainingSample& s : samples) ++counts[s.group];
  return counts;
}

Dataset load_dataset(tuning_db::TuningDb& db, const std::string& device_key, const ExtractorLookup& lookup) {
  if (!db.find_device(device_key)) {
    throw UserError(format_user_error(db.path(), "", "no device with key " + device_key +
                                                         "; `ktune db stats` lists the devices it holds"));
  }
  Dataset data;
  for (const tuning_db::BestEntry& best : db.best_all()) {
    if (best.device_key != device_key) continue;
    const std::vector<tuning_db::WorkloadRecord> found = db.find_workloads(best.workload_key);
    const FeatureExtractor* extractor = found.empty() ? nullptr : lookup(found.front());
    if (!extractor) {
      data.skipped.push_back(best.workload_name + ": no analysis (the workload could not be rebuilt)");
      continue;
    }
    const std::vector<StoredRow> ok = ok_rows(db, best.workload_key, device_key);
    if (ok.empty()) continue;
    double slowest_ok_ns = 0;
    for (const StoredRow& row : ok) slowest_ok_ns = std::max(slowest_ok_ns, row.runtime_ns);
    append_rows(data, *extractor, best, ok);
    data.timed_out += append_rows(data, *extractor, best, timed_out_rows(db, best.workload_key, device_key, slowest_ok_ns));
  }
  return data;
}

}  // namespace ktune::cost_model
