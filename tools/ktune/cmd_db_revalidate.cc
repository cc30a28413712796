// `ktune db revalidate --db F [--device host] [--workload NAME|KEY ...] [--top N] [--all]
//  [--threads N] [--format text|json]`: after a ktune or Halide upgrade, measures the stored
// best schedules of this machine again (search/revalidate.h), marks the timings of other
// versions superseded and prints, per workload, the best before and after. Exit 0 when every
// rechecked workload still has a best, 1 when one has none left (re-tune it), 2 for bad input.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/duration_text.h"
#include "common/error.h"
#include "common/version.h"
#include "schedule_store/stored_database.h"
#include "search/revalidate.h"
#include "targets/host_detect.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {
namespace {

struct RevalidateCliOptions {
  std::string db;                      // --db: the tuning database (written)
  std::string device = "host";         // only this machine can measure
  std::vector<std::string> workloads;  // names, keys or key prefixes; empty: all
  int top = 2;                         // schedules measured again per workload
  bool all = false;                    // also workloads whose best is current
  int threads = 0;                     // kernel threads; 0 = every core
  std::string format = "text";         // text or json
};

std::string ms_or_dash(double ns) { return ns < 0 ? "-" : ktune::format_ns(ns); }

// The workload keys that --workload names.
std::vector<std::string> workload_keys(tuning_db::TuningDb& db, const RevalidateCliOptions& o) {
  std::vector<std::string> keys;
  for (const std::string& name : o.workloads) {
    const auto found = db.find_workloads(name);
    if (found.empty()) throw UserError(format_user_error(o.db, "--workload", "no workload named or keyed \"" + name + "\""));
    for (const auto& w : found) keys.push_back(w.key);
  }
  return keys;
}

nlohmann::json to_json(const search::WorkloadRecheck& w) {
  nlohmann::json schedules = nlohmann::json::array();
  for (const search::ScheduleRecheck& s : w.schedules) {
    schedules.push_back({{"hash", s.hash}, {"old_ns", s.old_ns}, {"old_versions", s.old_versions},
                         {"status", s.status}, {"new_ns", s.new_ns}, {"message", s.message}});
  }
  return {{"workload", w.name},
          {"workload_key", w.key},
          {"skipped", w.skipped},
          {"old_best", {{"hash", w.old_best_hash}, {"median_ns", w.old_best_ns}}},
          {"schedules", schedules},
          {"superseded_rows", w.superseded},
          {"new_best", w.new_best_hash ? nlohmann::json{{"hash", *w.new_best_hash}, {"median_ns", w.new_best_ns}}
                                       : nlohmann::json(nullptr)}};
}

void print_text(const search::WorkloadRecheck& w) {
  if (!w.skipped.empty()) {
    std::printf("%s: not re-measured: %s\n", w.name.c_str(), w.skipped.c_str());
    return;
  }
  std::printf("%s: best was %s (%s)\n", w.name.c_str(), w.old_best_hash.substr(0, 12).c_str(),
              ms_or_dash(w.old_best_ns).c_str());
  for (const search::ScheduleRecheck& s : w.schedules) {
    std::printf("  %s  %s (%s) -> %s%s%s\n", s.hash.substr(0, 12).c_str(), ms_or_dash(s.old_ns).c_str(),
                s.old_versions.c_str(), s.status == "ok" ? ms_or_dash(s.new_ns).c_str() : s.status.c_str(),
                s.message.empty() ? "" : ": ", s.message.substr(0, 200).c_str());
  }
  if (w.new_best_hash) {
    std::printf("  best now %s (%s); %d older row(s) superseded\n", w.new_best_hash->substr(0, 12).c_str(),
                ms_or_dash(w.new_best_ns).c_str(), w.superseded);
  } else {
    std::printf("  no schedule runs correctly any more: tune it again (%d older row(s) superseded)\n", w.superseded);
  }
}

int run_revalidate(const RevalidateCliOptions& o) {
  if (o.device != "host" && o.device != targets::resolve_device_key("host")) {
    throw UserError("db revalidate: --device: only this machine's measurements can be taken again (host, " +
                    targets::resolve_device_key("host") + "); found \"" + o.device + "\"");
  }
  tuning_db::TuningDb db = schedule_store::open_tuning_db(o.db, sqlite::OpenMode::kReadWrite);
  search::RevalidateOptions options;
  options.schedules_per_workload = o.top;
  options.all = o.all;
  options.workloads = workload_keys(db, o);
  options.run.threads = o.threads;
  const auto progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  const auto rechecked = search::revalidate(db, targets::detect_host_device(), options, progress);

  bool every_best_left = true;
  nlohmann::json all = nlohmann::json::array();
  for (const search::WorkloadRecheck& w : rechecked) {
    if (w.skipped.empty() && !w.new_best_hash) every_best_left = false;
    if (o.format == "json") {
      all.push_back(to_json(w));
    } else {
      print_text(w);
    }
  }
  if (o.format == "json") {
    std::cout << all.dump(2) << "\n";
  } else if (rechecked.empty()) {
    std::printf("nothing to revalidate: every best on this machine was measured by ktune %s with Halide %s%s\n",
                ktune_version(), kHalideVersion, o.all ? "" : " (--all measures them again anyway)");
  }
  return every_best_left ? kExitOk : kExitFailure;
}

}  // namespace

CLI::App* add_db_revalidate(CLI::App& db, CommandRunner& runner) {
  auto o = std::make_shared<RevalidateCliOptions>();
  CLI::App* sub = db.add_subcommand(
      "revalidate", "Measure the stored best schedules again after an upgrade; supersede older timings");
  sub->add_option("--db", o->db, "Tuning database file")->required();
  sub->add_option("--device", o->device, "host (only this machine can measure)")->capture_default_str();
  sub->add_option("--workload", o->workloads, "Only these workloads (name, key or key prefix; repeatable)");
  sub->add_option("--top", o->top, "Schedules measured again per workload (the best first)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_flag("--all", o->all, "Also workloads whose best was measured by the running versions");
  sub->add_option("--threads", o->threads, "Kernel threads (0 = every core)")->check(thread_count())->capture_default_str();
  sub->add_option("--format", o->format, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  runner = [o] { return run_revalidate(*o); };
  return sub;
}

}  // namespace ktune::cli
