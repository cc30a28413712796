// `ktune ingest RESULTS.json --bundle DIR --db F`: records what a bundle's runner measured on
// the device's machine (`DIR/run --json > RESULTS.json`, see cmd_bundle.cc) as measurements
// of the candidates' schedules on the bundle's device, a GPU or a CPU: the device from the
// manifest's description, the workload from the bundled spec, the schedule from its JSON.
// ok results keep their timings (and a CPU runner's thread count), failed ones
// (wrong_result, runtime_error) their message, so `ktune query --device KEY` and export see
// them. One transaction; results from another device's bundle, a result naming a candidate
// the manifest lacks, or any malformed field, is a UserError naming file and field.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "common/error.h"
#include "common/user_json.h"
#include "measure/measure_result.h"
#include "search/db_records.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device.h"
#include "tools/ktune/commands.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {
namespace {

namespace fs = std::filesystem;

struct IngestOptions {
  std::string results;
  std::string bundle;
  std::string db;
};

nlohmann::json read_json(const std::string& path) { return read_user_json(path, "JSON file"); }

// The number at `field` of `j`; -1 when absent or null.
double number_or(const nlohmann::json& j, const char* field) {
  return j.contains(field) && j[field].is_number() ? j[field].get<double>() : -1;
}

int run_ingest(const IngestOptions& opt) {
  const std::string manifest_path = (fs::path(opt.bundle) / "manifest.json").string();
  const nlohmann::json manifest = read_json(manifest_path);
  const nlohmann::json results = read_json(opt.results);
  if (results.contains("error")) {
    throw UserError(format_user_error(opt.results, "error", "the runner measured nothing: " +
                                                                results["error"].dump()));
  }
  if (!results.contains("candidates") || !results["candidates"].is_array()) {
    throw UserError(format_user_error(opt.results, "candidates", "missing or not an array"));
  }
  // A CPU runner says how many threads its kernels had; a CUDA runner does not (0: unknown).
  int threads = 0;
  if (results.contains("threads")) {
    if (!results["threads"].is_number_integer() || results["threads"].get<int64_t>() < 1) {
      throw UserError(format_user_error(opt.results, "threads", "not a positive integer: " + results["threads"].dump()));
    }
    threads = results["threads"].get<int>();
  }
  std::map<int64_t, nlohmann::json> candidates;
  try {
    for (const auto& c : manifest.at("candidates")) candidates[c.at("id").get<int64_t>()] = c;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(format_user_error(manifest_path, "candidates", e.what()));
  }

  // Check every result before writing anything.
  struct Row {
    const nlohmann::json* candidate;
    measure::MeasureResult result;
  };
  std::vector<Row> rows;
  const nlohmann::json& list = results["candidates"];
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = "candidates[" + std::to_string(i) + "]";
    const nlohmann::json& r = list[i];
    if (!r.is_object() || !r.contains("id") || !r["id"].is_number_integer()) {
      throw UserError(format_user_error(opt.results, at + ".id", "missing or not an integer"));
    }
    const auto found = candidates.find(r["id"].get<int64_t>());
    if (found == candidates.end()) {
      throw UserError(format_user_error(opt.results, at + ".id",
                                        "names no candidate of the bundle " + opt.bundle + " (" + r["id"].dump() + ")"));
    }
    if (r.contains("function") && r["function"] != found->second["function"]) {
      throw UserError(format_user_error(opt.results, at + ".function", "does not match the manifest's " +
                                                                           found->second["function"].dump()));
    }
    const std::string status = r.value("status", "");
    const std::optional<measure::MeasureStatus> s = measure::measure_status_from_string(status);
    if (!s) throw UserError(format_user_error(opt.results, at + ".status", "unknown status \"" + status + "\""));
    measure::MeasureResult m;
    m.status = *s;
    m.message = r.value("message", "");
    m.max_error = number_or(r, "max_error");
    m.threads = threads;
    if (m.ok()) {
      m.median_ns = number_or(r, "median_ns");
      m.min_ns = number_or(r, "min_ns");
      m.spread_ns = number_or(r, "iqr_ns");
      m.repeats = static_cast<int>(number_or(r, "repeats"));
      if (m.median_ns <= 0 || m.repeats <= 0) {
        throw UserError(format_user_error(opt.results, at + ".median_ns", "an ok result needs median_ns and repeats"));
      }
    }
    rows.push_back({&found->second, m});
  }

  targets::Device device;
  std::string device_key;
  try {
    device = targets::device_from_json(manifest.at("device").at("description"), manifest_path);
    device_key = manifest.at("device").at("key").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw UserError(format_user_error(manifest_path, "device", e.what()));
  }
  if (targets::device_key(device) != device_key) {
    throw UserError(format_user_error(manifest_path, "device.key", "does not match the device description"));
  }
  if (results.contains("device_key") && results["device_key"] != device_key) {
    throw UserError(format_user_error(opt.results, "device_key", "is " + results["device_key"].dump() +
                                                                     ", but the bundle " + opt.bundle +
                                                                     " was built for " + device_key +
                                                                     " (results of another bundle?)"));
  }

  tuning_db::OpenOptions db_options;
  db_options.versions = {KTUNE_VERSION, kHalideVersion};
  tuning_db::TuningDb db = tuning_db::TuningDb::open(opt.db, db_options);
  int ok = 0;
  db.batch([&] {
    const int64_t device_id = db.upsert_device(search::device_record(device));
    std::map<std::string, int64_t> workload_ids;
    for (const Row& row : rows) {
      const nlohmann::json& c = *row.candidate;
      const std::string spec = (fs::path(opt.bundle) / c.at("spec").get<std::string>()).string();
      if (!workload_ids.count(spec)) {
        const auto sg = subgraphs::load_spec_subgraph(spec);
        if (sg->key().key != c.at("workload_key").get<std::string>()) {
          throw UserError(format_user_error(spec, "", "its workload key differs from the manifest's"));
        }
        workload_ids[spec] = db.upsert_workload(search::workload_record(*sg));
      }
      const int64_t schedule_id = db.upsert_schedule(workload_ids[spec], c.at("schedule_hash").get<std::string>(),
                                                     c.at("schedule").dump());
      db.record_measurement(search::measurement_record(row.result, schedule_id, device_id, -1));
      ok += row.result.ok() ? 1 : 0;
    }
  });
  std::printf("ingested %zu measurements (%d ok, %zu failed) on device %s into %s\n", rows.size(), ok,
              rows.size() - ok, device_key.c_str(), opt.db.c_str());
  return kExitOk;
}

}  // namespace

CommandRunner register_ingest(CLI::App& sub) {
  auto opt = std::make_shared<IngestOptions>();
  sub.add_option("results", opt->results, "the runner's JSON output (DIR/run --json)")->required();
  sub.add_option("--bundle", opt->bundle, "the bundle directory it came from")->required();
  sub.add_option("--db", opt->db, "tuning database (created if missing)")->required();
  return [opt] { return run_ingest(*opt); };
}

}  // namespace ktune::cli
