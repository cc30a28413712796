#include "kernels/bundle_ingest.h"

#include <filesystem>
#include <map>
#include <optional>

#include "common/error.h"
#include "schedule_store/db_records.h"
#include "subgraphs/spec_subgraph.h"

namespace ktune::kernels {
namespace {

namespace fs = std::filesystem;

// The number at `field` of `j`; -1 when absent or null.
double number_or(const nlohmann::json& j, const char* field) {
  return j.contains(field) && j[field].is_number() ? j[field].get<double>() : -1;
}

// A CPU runner says how many threads its kernels had; a CUDA runner does not (0: unknown).
int runner_threads(const nlohmann::json& json, const std::string& path) {
  if (!json.contains("threads")) return 0;
  if (!json["threads"].is_number_integer() || json["threads"].get<int64_t>() < 1) {
    throw UserError(format_user_error(path, "threads", "not a positive integer: " + json["threads"].dump()));
  }
  return json["threads"].get<int>();
}

void check_same_bundle(const nlohmann::json& json, const std::string& path, const BundleManifest& manifest,
                       const std::string& bundle_dir) {
  if (json.contains("error")) {
    throw UserError(format_user_error(path, "error", "the runner measured nothing: " + json["error"].dump()));
  }
  if (json.contains("emulated") && json["emulated"] == true) {
    throw UserError(format_user_error(path, "emulated",
                                      "the runner ran under an emulator: its results check correctness, but its "
                                      "times are the emulator's, not the device's; nothing was recorded (run " +
                                          bundle_dir + "/run on the device itself)"));
  }
  if (json.contains("device_key") && json["device_key"] != manifest.device_key) {
    throw UserError(format_user_error(path, "device_key", "is " + json["device_key"].dump() + ", but the bundle " +
                                                              bundle_dir + " was built for " + manifest.device_key +
                                                              " (results of another bundle?)"));
  }
  if (!json.contains("candidates") || !json["candidates"].is_array()) {
    throw UserError(format_user_error(path, "candidates", "missing or not an array"));
  }
}

measure::MeasureResult result_of(const nlohmann::json& r, const std::string& path, const std::string& at, int threads) {
  const std::string status = r.value("status", "");
  const std::optional<measure::MeasureStatus> s = measure::measure_status_from_string(status);
  if (!s) throw UserError(format_user_error(path, at + ".status", "unknown status \"" + status + "\""));
  measure::MeasureResult m;
  m.status = *s;
  m.message = r.value("message", "");
  m.max_error = number_or(r, "max_error");
  m.threads = threads;
  if (!m.ok()) return m;
  m.median_ns = number_or(r, "median_ns");
  m.min_ns = number_or(r, "min_ns");
  m.spread_ns = number_or(r, "iqr_ns");
  m.repeats = static_cast<int>(number_or(r, "repeats"));
  if (m.median_ns <= 0 || m.repeats <= 0) {
    throw UserError(format_user_error(path, at + ".median_ns", "an ok result needs median_ns and repeats"));
  }
  return m;
}

}  // namespace

RunnerResults parse_runner_results(const nlohmann::json& json, const std::string& path,
                                   const BundleManifest& manifest, const std::string& bundle_dir) {
  check_same_bundle(json, path, manifest, bundle_dir);
  std::map<int64_t, const BundleCandidate*> by_id;
  for (const BundleCandidate& c : manifest.candidates) by_id[c.id] = &c;
  RunnerResults out;
  out.threads = runner_threads(json, path);
  const nlohmann::json& list = json["candidates"];
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = "candidates[" + std::to_string(i) + "]";
    const nlohmann::json& r = list[i];
    if (!r.is_object() || !r.contains("id") || !r["id"].is_number_integer()) {
      throw UserError(format_user_error(path, at + ".id", "missing or not an integer"));
    }
    const auto found = by_id.find(r["id"].get<int64_t>());
    if (found == by_id.end()) {
      throw UserError(format_user_error(path, at + ".id",
                                        "names no candidate of the bundle " + bundle_dir + " (" + r["id"].dump() + ")"));
    }
    if (r.contains("function") && r["function"] != found->second->function) {
      throw UserError(format_user_error(path, at + ".function",
                                        "does not match the manifest's \"" + found->second->function + "\""));
    }
    out.results.push_back({found->second, result_of(r, path, at, out.threads)});
  }
  return out;
}

IngestSummary ingest_results(const BundleManifest& manifest, const std::string& bundle_dir,
                             const RunnerResults& results, tuning_db::TuningDb& db) {
  IngestSummary summary;
  db.batch([&] {
    const int64_t device_id = db.upsert_device(schedule_store::device_record(manifest.device));
    std::map<std::string, int64_t> workload_ids;
    for (const RunnerResult& row : results.results) {
      const BundleCandidate& c = *row.candidate;
      const std::string spec = (fs::path(bundle_dir) / c.spec).string();
      if (!workload_ids.count(spec)) {
        const auto sg = subgraphs::load_spec_subgraph(spec);
        if (sg->key().key != c.workload_key) {
          throw UserError(format_user_error(spec, "", "its workload key differs from the manifest's"));
        }
        workload_ids[spec] = db.upsert_workload(schedule_store::workload_record(*sg));
      }
      const int64_t schedule_id = db.upsert_schedule(workload_ids[spec], c.schedule_hash, c.schedule.to_json().dump());
      db.record_measurement(schedule_store::measurement_record(row.result, schedule_id, device_id, -1));
      ++summary.measurements;
      summary.ok += row.result.ok() ? 1 : 0;
    }
  });
  return summary;
}

}  // namespace ktune::kernels
