#include "cost_model/model_store.h"

#include "common/error.h"
#include "cost_model/features.h"

namespace ktune::cost_model {

TrainResult train_and_store(tuning_db::TuningDb& db, const std::string& device_key, const Dataset& data,
                            const XgboostParams& params, uint64_t seed) {
  const std::optional<tuning_db::DeviceRecord> device = db.find_device(device_key);
  if (!device) throw UserError(format_user_error(db.path(), "", "no device with key " + device_key));
  TrainResult result;
  result.held_out = evaluate_within_workloads(data, params, 0.2, seed);
  XgboostModel model(params);
  model.train(data.samples);
  tuning_db::ModelRecord& rec = result.record;
  rec.device_id = device->id;
  rec.kind = model.kind();
  rec.feature_version = kFeatureVersion;
  rec.blob = model.save();
  rec.samples = static_cast<int64_t>(data.samples.size());
  nlohmann::json metrics = to_json(result.held_out);
  metrics["workloads"] = data.workloads();
  metrics["workload_samples"] = data.samples_per_workload();
  metrics["timed_out_samples"] = data.timed_out;
  metrics["feature_count"] = feature_count();
  metrics["params"] = {{"objective", params.objective}, {"rounds", params.rounds}, {"max_depth", params.max_depth},
                       {"eta", params.eta}, {"nthread", params.nthread}, {"seed", params.seed}};
  rec.metrics = metrics.dump();
  rec.id = db.save_model(rec);
  return result;
}

std::map<std::string, int> workload_samples(const tuning_db::ModelRecord& record) {
  std::map<std::string, int> counts;
  const nlohmann::json metrics = nlohmann::json::parse(record.metrics, nullptr, /*allow_exceptions=*/false);
  if (!metrics.is_object() || !metrics.contains("workload_samples")) return counts;
  const nlohmann::json& per_workload = metrics.at("workload_samples");
  if (!per_workload.is_object()) return counts;
  for (const auto& [key, n] : per_workload.items()) {
    if (n.is_number_integer()) counts[key] = n.get<int>();
  }
  return counts;
}

std::optional<StoredModel> load_latest_model(tuning_db::TuningDb& db, const std::string& device_key) {
  std::optional<tuning_db::ModelRecord> rec = db.load_latest_model(device_key, "xgboost-rank", kFeatureVersion);
  if (!rec) return std::nullopt;
  auto model = std::make_unique<XgboostModel>();
  model->load(rec->blob);
  return StoredModel{std::move(model), std::move(*rec)};
}

}  // namespace ktune::cost_model
