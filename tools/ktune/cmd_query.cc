// `ktune query --db F [--device host|KEY] --workload NAME|KEY|SPEC [--format json|halide|cmake]`:
// the best stored schedule of a workload on a device, for build systems: as JSON, as Halide
// source ready to paste into a Generator's schedule(), or as CMake variables. A workload or
// device the database does not hold is bad input (exit 2); a workload it holds with no tuned
// schedule on the device exits 1. Both say what the database does have (the same algorithm
// at other shapes, other devices).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "common/error.h"
#include "schedule_store/db_records.h"
#include "schedule_store/stored_database.h"
#include "schedule_store/stored_schedule.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device.h"
#include "tools/ktune/commands.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {
namespace {

struct QueryOptions {
  std::string db;
  std::string device = "host";
  std::string workload;        // name, key (or key prefix) or a spec file
  std::string format = "json";
};

std::string upper_identifier(const std::string& name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';
  return s;
}

std::string cmake_quote(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\' || c == '$' || c == ';') out += '\\';
    out += c;
  }
  return "\"" + out + "\"";
}

// The workload --workload names, and the spec file it came from (empty for a name or key).
struct FoundWorkload {
  tuning_db::WorkloadRecord record;
  std::string spec_path;
};

// Looks --workload up: a spec file by its key, else a name or key (prefix). Exactly one
// workload must match; otherwise UserError saying what the database has.
FoundWorkload find_workload(tuning_db::TuningDb& db, const QueryOptions& opt) {
  std::string spec_path;
  std::vector<tuning_db::WorkloadRecord> found;
  if (opt.workload.size() > 5 && opt.workload.substr(opt.workload.size() - 5) == ".json") {
    spec_path = opt.workload;
    const auto sg = subgraphs::load_spec_subgraph(spec_path);
    found = db.find_workloads(sg->key().key);
    if (found.empty()) {
      std::string msg = "no workload with the key of " + spec_path + " (" + sg->key().key + ")";
      const auto family = db.workloads_in_family(sg->key().family_key);
      if (!family.empty()) {
        msg += "; the same algorithm is stored at other shapes:";
        for (const auto& w : family) msg += "\n  " + w.name + " " + w.key + " " + w.shapes;
      }
      throw UserError(format_user_error(opt.db, "--workload", msg));
    }
  } else {
    found = db.find_workloads(opt.workload);
  }
  if (found.empty()) {
    throw UserError(format_user_error(opt.db, "--workload", "no workload named or keyed \"" + opt.workload + "\""));
  }
  if (found.size() > 1) {
    std::string msg = "\"" + opt.workload + "\" matches " + std::to_string(found.size()) + " workloads; give a key:";
    for (const auto& w : found) msg += "\n  " + w.key + " " + w.name + " " + w.shapes;
    throw UserError("query: " + msg);
  }
  return {found[0], spec_path};
}

// No tuned schedule of `w` on the device: says what the database has instead (other
// devices, other shapes); exit 1, or UserError when the device is not in the database.
int report_untuned(tuning_db::TuningDb& db, const QueryOptions& opt, const tuning_db::WorkloadRecord& w,
                   const std::string& device_key, bool device_stored) {
  std::string msg = "no tuned schedule for " + w.name + " (" + w.key + ") on device " + device_key;
  if (!device_stored) msg += " (the device is not in the database)";
  for (const auto& d : db.devices()) {
    if (d.key != device_key && db.best(w.key, d.key)) msg += "\n  tuned on another device: " + d.key + " " + d.target;
  }
  for (const auto& other : db.workloads_in_family(w.family_key)) {
    if (other.key != w.key && db.best(other.key, device_key)) msg += "\n  same algorithm tuned at other shapes: " + other.key + " " + other.shapes;
  }
  if (!device_stored) throw UserError(format_user_error(opt.db, "--device", msg));
  std::fprintf(stderr, "ktune: %s\n", msg.c_str());
  return kExitFailure;
}

void print_json(const tuning_db::WorkloadRecord& w, const std::string& device_key, const tuning_db::BestEntry& best) {
  nlohmann::json j = {{"workload", w.name},
                      {"workload_key", w.key},
                      {"device_key", device_key},
                      {"schedule_hash", best.schedule_hash},
                      {"median_ns", best.measurement.median_ns.value_or(-1)},
                      {"spread_ns", best.measurement.spread_ns.value_or(-1)},
                      {"candidates", best.candidates},
                      {"stale", best.stale},
                      {"schedule", nlohmann::json::parse(best.schedule_json)}};
  std::printf("%s\n", j.dump(2).c_str());
}

void print_cmake(const tuning_db::WorkloadRecord& w, const std::string& device_key, const tuning_db::BestEntry& best) {
  const double median = best.measurement.median_ns.value_or(-1);
  const std::string p = "KTUNE_" + upper_identifier(w.name);
  std::printf("set(%s_WORKLOAD_KEY %s)\n", p.c_str(), cmake_quote(w.key).c_str());
  std::printf("set(%s_DEVICE_KEY %s)\n", p.c_str(), cmake_quote(device_key).c_str());
  std::printf("set(%s_SCHEDULE_HASH %s)\n", p.c_str(), cmake_quote(best.schedule_hash).c_str());
  std::printf("set(%s_MEDIAN_NS %s)\n", p.c_str(), cmake_quote(std::to_string(static_cast<int64_t>(median))).c_str());
  std::printf("set(%s_STALE %s)\n", p.c_str(), best.stale ? "ON" : "OFF");
  std::printf("set(%s_SCHEDULE_JSON %s)\n", p.c_str(), cmake_quote(best.schedule_json).c_str());
}

// Halide source: the schedule applied to the algorithm, printed in the same pass.
void print_halide(tuning_db::TuningDb& db, const QueryOptions& opt, const FoundWorkload& found,
                  const std::string& device_key, const tuning_db::BestEntry& best) {
  const tuning_db::WorkloadRecord& w = found.record;
  std::unique_ptr<subgraphs::Subgraph> sg =
      found.spec_path.empty() ? schedule_store::subgraph_from_record(w) : subgraphs::load_spec_subgraph(found.spec_path);
  if (!sg) throw UserError("query: cannot rebuild workload " + w.name + " from the database; pass its spec file");
  // The device has a best schedule, so it is in the database.
  const scheduler::Space space(scheduler::analyze(*sg, schedule_store::target_of(db, device_key)));
  const schedule_store::StoredSchedule stored = schedule_store::stored_schedule_of(best, opt.db);
  const scheduler::ApplyResult applied = scheduler::apply(stored.schedule, *sg, space.analysis());
  if (!applied.ok) throw std::runtime_error("the stored schedule no longer applies: " + applied.error);
  std::printf("// %s: measured median %.0f ns on device %s (%lld schedules measured)\n%s", w.name.c_str(),
              best.measurement.median_ns.value_or(-1), device_key.c_str(), static_cast<long long>(best.candidates),
              applied.source.c_str());
}

int run_query(const QueryOptions& opt) {
  if (opt.db.empty()) throw UserError("query: --db FILE is required");
  if (opt.workload.empty()) throw UserError("query: --workload NAME|KEY|SPEC is required");
  // No answer from a damaged file.
  tuning_db::TuningDb db =
      schedule_store::open_tuning_db(opt.db, sqlite::OpenMode::kReadOnly, schedule_store::PageCheck::kIfSmall);
  // The device: "host" or a stored key.
  const std::string device_key = targets::resolve_device_key(opt.device);
  const bool device_stored = db.find_device(device_key).has_value();
  const FoundWorkload found = find_workload(db, opt);
  const tuning_db::WorkloadRecord& w = found.record;
  const auto best = db.best(w.key, device_key);
  if (!best) return report_untuned(db, opt, w, device_key, device_stored);
  if (best->stale) {
    std::fprintf(stderr, "ktune: warning: the best schedule of %s was measured by another ktune or Halide version (%s, Halide %s); "
                 "`ktune db revalidate --db %s` measures it again\n",
                 w.name.c_str(), best->measurement.ktune_version.c_str(), best->measurement.halide_version.c_str(), opt.db.c_str());
  }
  if (opt.format == "json") {
    print_json(w, device_key, *best);
  } else if (opt.format == "cmake") {
    print_cmake(w, device_key, *best);
  } else {
    print_halide(db, opt, found, device_key, *best);
  }
  return kExitOk;
}

}  // namespace

CommandRunner register_query(CLI::App& sub) {
  auto opt = std::make_shared<QueryOptions>();
  sub.add_option("--db", opt->db, "tuning database")->required();
  sub.add_option("--device", opt->device, "host, or a device key")->capture_default_str();
  sub.add_option("--workload", opt->workload, "workload name, key (or key prefix), or a spec file")->required();
  sub.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"json", "halide", "cmake"}))->capture_default_str();
  return [opt] { return run_query(*opt); };
}

}  // namespace ktune::cli
