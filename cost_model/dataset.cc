#include "cost_model/dataset.h"

#include <climits>
#include <set>

#include "common/error.h"
#include "cost_model/analytical_model.h"
#include "cost_model/extractor.h"
#include "schedule_store/stored_schedule.h"

namespace ktune::cost_model {

int Dataset::workloads() const {
  std::set<std::string> keys;
  for (const TrainingSample& s : samples) keys.insert(s.group);
  return static_cast<int>(keys.size());
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
    const std::vector<tuning_db::BestEntry> entries = db.top_k(best.workload_key, device_key, INT_MAX);
    std::vector<scheduler::Schedule> schedules;
    std::vector<const tuning_db::BestEntry*> kept;
    for (const tuning_db::BestEntry& e : entries) {
      if (!e.measurement.median_ns || !(*e.measurement.median_ns > 0)) continue;
      try {
        schedules.push_back(schedule_store::parse_stored_schedule(e.schedule_json, "schedule " + e.schedule_hash));
        kept.push_back(&e);
      } catch (const std::exception& ex) {
        data.skipped.push_back(best.workload_name + ": schedule " + e.schedule_hash + ": " + ex.what());
      }
    }
    const std::vector<std::vector<float>> rows = extractor->extract(schedules);
    const std::vector<float> analytical = AnalyticalModel(extractor->analysis().target).predict(rows);
    for (size_t i = 0; i < rows.size(); ++i) {
      const tuning_db::MeasurementRecord& m = kept[i]->measurement;
      // The fastest call is the timing least disturbed by other processes; the median when
      // it was not recorded.
      const double runtime = m.min_ns && *m.min_ns > 0 ? *m.min_ns : *m.median_ns;
      data.samples.push_back({rows[i], runtime, best.workload_key});
      data.schedule_hashes.push_back(kept[i]->schedule_hash);
      data.analytical_scores.push_back(analytical[i]);
    }
  }
  return data;
}

}  // namespace ktune::cost_model
