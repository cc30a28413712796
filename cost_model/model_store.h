// Learned cost models in the tuning database: train one from a device's measurements
// (with held-out figures computed first), store it as a blob with its feature version,
// sample count and metrics (held-out figures, samples per workload), and load the newest
// one that matches the running features.
// A stored model of another feature version is never loaded: the caller retrains.
//
//   Dataset data = load_dataset(db, device_key, lookup);          // dataset.h
//   TrainResult r = train_and_store(db, device_key, data);
//   std::optional<StoredModel> m = load_latest_model(db, device_key);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cost_model/cost_model.h"
#include "cost_model/dataset.h"
#include "cost_model/evaluation.h"
#include "cost_model/xgboost_model.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cost_model {

// What train_and_store did.
struct TrainResult {
  tuning_db::ModelRecord record;  // the stored row (id, samples, metrics JSON, blob)
  SplitEvaluation held_out;       // random split within workloads, before the final training
};

// A model read back from the database.
struct StoredModel {
  std::unique_ptr<CostModel> model;  // ready to predict
  tuning_db::ModelRecord record;     // its row
};

// Evaluates on a seeded 80/20 split within workloads, trains on every sample, and stores
// the model with the figures. Throws ktune::UserError when the data cannot train a model
// or the device is unknown.
TrainResult train_and_store(tuning_db::TuningDb& db, const std::string& device_key, const Dataset& data,
                            const XgboostParams& params = {}, uint64_t seed = 1);

// The training samples of each workload (by key) that a stored model learned from, as
// train_and_store records them in its metrics; empty for a model stored before they were
// recorded, or whose metrics do not read. A ranking model has learned nothing of a workload
// it never saw.
std::map<std::string, int> workload_samples(const tuning_db::ModelRecord& record);

// The newest "xgboost-rank" model of the device trained with kFeatureVersion; nullopt when
// there is none. Throws ktune::UserError for a stored blob that is corrupt.
std::optional<StoredModel> load_latest_model(tuning_db::TuningDb& db, const std::string& device_key);

}  // namespace ktune::cost_model
