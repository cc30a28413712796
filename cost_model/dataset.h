// Dataset: the training data a device's measurements give: one row per schedule with an ok
// measurement (the fastest call of its best measurement as the runtime: on a shared machine
// it is the least disturbed timing), and one per schedule the run limit killed (twice its
// workload's slowest finished runtime), with features recomputed from the stored schedule
// JSON and the workload's analysis, and the analytical model's score as a baseline.
//
//   Dataset data = load_dataset(db, device_key, [&](const WorkloadRecord& w) { return extractor_of(w); });
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cost_model/cost_model.h"
#include "cost_model/extractor.h"
#include "scheduler/analysis.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cost_model {

struct Dataset {
  std::vector<TrainingSample> samples;      // features, runtime and workload key per schedule
  std::vector<std::string> schedule_hashes; // per sample: the schedule's identity
  std::vector<float> analytical_scores;     // per sample: AnalyticalModel's score (baseline)
  std::vector<std::string> skipped;         // why workloads or schedules were left out, one line each
  int timed_out = 0;                        // samples of schedules the run limit killed
  int workloads() const;                    // distinct workload keys among the samples
  std::map<std::string, int> samples_per_workload() const;  // samples by workload key
};

// The feature extractor of a stored workload (built on its analysis), or null to skip it.
// The pointer must stay valid until load_dataset returns; a caller that loads datasets
// repeatedly (the tuner retraining) passes long-lived extractors so their footprint caches
// carry over.
using ExtractorLookup = std::function<const FeatureExtractor*(const tuning_db::WorkloadRecord&)>;

// Every schedule with an ok measurement on `device_key`, and the killed schedules of the
// workloads that have one. Schedules whose JSON does not parse are skipped with a note.
// Throws ktune::UserError when the device is not in the database.
Dataset load_dataset(tuning_db::TuningDb& db, const std::string& device_key, const ExtractorLookup& lookup);

}  // namespace ktune::cost_model
