// `ktune db stats|best|merge|prune|vacuum|export-json|import-json|revalidate --db F`: inspects
// and maintains a tuning database (revalidate lives in cmd_db_revalidate.cc). Read commands
// (stats, best, export-json) open the file read-only and never create it; they run safely
// beside a tuning session. Results go to stdout (--format text|json), progress to stderr.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/duration_text.h"
#include "common/error.h"
#include "schedule_store/stored_database.h"
#include "tools/ktune/commands.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {
namespace {

using tuning_db::BestEntry;
using tuning_db::CopyReport;
using tuning_db::RowCounts;
using tuning_db::TuningDb;

struct DbOptions {
  std::string db;                   // --db: the tuning database file
  std::string format = "text";      // --format: text or json
  std::vector<std::string> others;  // merge: databases to merge in
  int keep = 10;                    // prune --keep: schedules kept per workload and device
  bool vacuum = false;              // prune --vacuum: vacuum afterwards
  std::string out;                  // export-json --out: file; empty means stdout
  std::string input;                // import-json: the JSON file
  std::string workload;             // best --workload: name or key; empty means all
  std::string device;               // best --device: key; empty means all
  int top = 1;                      // best --top: schedules listed per pair
};

TuningDb open_db(const DbOptions& o, sqlite::OpenMode mode) {
  return schedule_store::open_tuning_db(o.db, mode);
}

void print(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }


std::string human_bytes(int64_t bytes) {
  char buf[32];
  const double b = static_cast<double>(bytes);
  if (bytes < 1024)
    std::snprintf(buf, sizeof(buf), "%lld B", static_cast<long long>(bytes));
  else if (b < 1024.0 * 1024)
    std::snprintf(buf, sizeof(buf), "%.1f KiB", b / 1024);
  else if (b < 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof(buf), "%.1f MiB", b / (1024.0 * 1024));
  else
    std::snprintf(buf, sizeof(buf), "%.2f GiB", b / (1024.0 * 1024 * 1024));
  return buf;
}

nlohmann::json counts_json(const RowCounts& c) {
  return {{"devices", c.devices}, {"workloads", c.workloads},       {"schedules", c.schedules},
          {"runs", c.runs},       {"measurements", c.measurements}, {"models", c.models},
          {"bench_results", c.bench_results}};
}

std::string counts_text(const RowCounts& c) {
  return std::to_string(c.devices) + " devices, " + std::to_string(c.workloads) + " workloads, " +
         std::to_string(c.schedules) + " schedules, " + std::to_string(c.runs) + " runs, " +
         std::to_string(c.measurements) + " measurements, " + std::to_string(c.models) + " models, " +
         std::to_string(c.bench_results) + " bench results";
}

nlohmann::json best_json(const BestEntry& b) {
  const auto& m = b.measurement;
  return {{"workload", b.workload_name},
          {"workload_key", b.workload_key},
          {"device", b.device_key},
          {"schedule_hash", b.schedule_hash},
          {"median_ns", m.median_ns.value_or(-1)},
          {"spread_ns", m.spread_ns.value_or(-1)},
          {"candidates", b.candidates},
          {"measured_at_ms", m.created_at_ms},
          {"ktune_version", m.ktune_version},
          {"halide_version", m.halide_version},
          {"stale", b.stale}};
}

void print_best_table(const std::vector<BestEntry>& entries) {
  std::printf("%-28s %-14s %-24s %10s %8s %-16s %s\n", "workload", "key", "device", "median",
              "spread", "schedule", "candidates");
  for (const BestEntry& b : entries) {
    const double median = b.measurement.median_ns.value_or(0);
    const double spread = b.measurement.spread_ns.value_or(0);
    const std::string stale = b.stale ? "  stale (ktune " + b.measurement.ktune_version +
                                            ", Halide " + b.measurement.halide_version + ")"
                                      : "";
    std::printf("%-28s %-14s %-24s %10s %7.1f%% %-16s %lld%s\n", b.workload_name.c_str(),
                b.workload_key.substr(0, 12).c_str(), b.device_key.substr(0, 24).c_str(),
                ktune::format_ns(median).c_str(), median > 0 ? 100 * spread / median : 0.0,
                b.schedule_hash.substr(0, 16).c_str(), static_cast<long long>(b.candidates),
                stale.c_str());
  }
}

// How the tuning of one workload on one device went: what a run measured and how fast.
struct MeasuredSummary {
  std::string workload, device;
  int64_t measured = 0, ok = 0;
  int64_t first_two_minutes = 0;  // measured within 120 s of the first measurement
  double median_build_ms = -1;    // over the measurements that were built; -1 when none
};

std::vector<MeasuredSummary> measured_summaries(TuningDb& db) {
  std::vector<MeasuredSummary> out;
  for (const tuning_db::MeasuredPair& pair : db.measured_pairs()) {
    MeasuredSummary m{pair.workload.name, pair.device.key};
    std::vector<double> builds;
    const auto history = db.measurement_history(pair.workload.key, pair.device.key);
    for (const tuning_db::MeasurementRecord& r : history) {
      ++m.measured;
      m.ok += r.status == tuning_db::MeasureStatus::kOk;
      m.first_two_minutes += r.created_at_ms - history.front().created_at_ms <= 120000;
      if (r.build_ms) builds.push_back(*r.build_ms);
    }
    if (!builds.empty()) {
      std::nth_element(builds.begin(), builds.begin() + static_cast<std::ptrdiff_t>(builds.size() / 2), builds.end());
      m.median_build_ms = builds[builds.size() / 2];
    }
    out.push_back(m);
  }
  return out;
}

void print_measured_table(const std::vector<MeasuredSummary>& rows) {
  std::printf("%-28s %-14s %9s %7s %14s %16s\n", "workload", "device", "measured", "ok", "median build", "in first 2 min");
  for (const MeasuredSummary& m : rows) {
    const double ok = m.measured ? 100.0 * static_cast<double>(m.ok) / static_cast<double>(m.measured) : 0;
    std::printf("%-28s %-14s %9lld %6.0f%% %11.0f ms %16lld\n", m.workload.c_str(), m.device.substr(0, 12).c_str(),
                static_cast<long long>(m.measured), ok, m.median_build_ms, static_cast<long long>(m.first_two_minutes));
  }
}

int run_stats(const DbOptions& o) {
  TuningDb db = open_db(o, sqlite::OpenMode::kReadOnly);
  const tuning_db::DbStats s = db.stats();
  const std::vector<BestEntry> best = db.best_all();
  const std::vector<MeasuredSummary> measured = measured_summaries(db);
  if (o.format == "json") {
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : s.devices) {
      devices.push_back({{"device", d.device_key},
                         {"target", d.target},
                         {"workloads", d.workloads},
                         {"measurements", d.measurements},
                         {"ok", d.ok}});
    }
    nlohmann::json statuses = nlohmann::json::object();
    for (const auto& [status, n] : s.statuses) statuses[status] = n;
    nlohmann::json measurers = nlohmann::json::array();
    for (const auto& m : s.measurers) {
      measurers.push_back({{"host", m.host},
                           {"rank", m.rank ? nlohmann::json(*m.rank) : nlohmann::json(nullptr)},
                           {"measurements", m.measurements},
                           {"ok", m.ok}});
    }
    nlohmann::json bests = nlohmann::json::array();
    for (const BestEntry& b : best) bests.push_back(best_json(b));
    nlohmann::json tuned = nlohmann::json::array();
    for (const MeasuredSummary& m : measured) {
      tuned.push_back({{"workload", m.workload}, {"device", m.device}, {"measured", m.measured}, {"ok", m.ok},
                       {"median_build_ms", m.median_build_ms}, {"measured_in_first_2_min", m.first_two_minutes}});
    }
    print({{"db", o.db},
           {"schema_version", s.schema_version},
           {"file_bytes", s.file_bytes},
           {"wal_bytes", s.wal_bytes},
           {"free_bytes", s.free_bytes},
           {"rows", counts_json(s.rows)},
           {"statuses", statuses},
           {"devices", devices},
           {"measured_by", measurers},
           {"measured", tuned},
           {"best", bests}});
    return kExitOk;
  }
  std::printf("database  %s (schema %d): %s, WAL %s, free %s\n", o.db.c_str(), s.schema_version,
              human_bytes(s.file_bytes).c_str(), human_bytes(s.wal_bytes).c_str(),
              human_bytes(s.free_bytes).c_str());
  std::printf("rows      %s\n", counts_text(s.rows).c_str());
  std::string statuses;
  for (const auto& [status, n] : s.statuses) {
    statuses += (statuses.empty() ? "" : ", ") + status + " " + std::to_string(n);
  }
  std::printf("status    %s\n", statuses.empty() ? "(no measurements)" : statuses.c_str());
  for (const auto& d : s.devices) {
    std::printf("device    %s (%s): %lld workloads, %lld measurements, %lld ok\n",
                d.device_key.c_str(), d.target.c_str(), static_cast<long long>(d.workloads),
                static_cast<long long>(d.measurements), static_cast<long long>(d.ok));
  }
  for (const auto& m : s.measurers) {
    const std::string who = (m.host.empty() ? std::string("(host not recorded)") : m.host) +
                            (m.rank ? " rank " + std::to_string(*m.rank) : std::string());
    std::printf("measured  by %s: %lld measurements, %lld ok\n", who.c_str(), static_cast<long long>(m.measurements),
                static_cast<long long>(m.ok));
  }
  std::printf("measured per workload and device:\n");
  print_measured_table(measured);
  std::printf("best per workload and device:\n");
  print_best_table(best);
  return kExitOk;
}

int run_best(const DbOptions& o) {
  if (o.top < 1)
    throw UserError(
        format_user_error("--top", "", "expected at least 1, found " + std::to_string(o.top)));
  TuningDb db =
      schedule_store::open_tuning_db(o.db, sqlite::OpenMode::kReadOnly, schedule_store::PageCheck::kIfSmall);
  std::vector<tuning_db::WorkloadRecord> workloads;
  if (!o.workload.empty()) {
    workloads = db.find_workloads(o.workload);
    if (workloads.empty()) {
      throw UserError(
          format_user_error(o.db, "", "no workload named or keyed \"" + o.workload + "\""));
    }
  }
  if (!o.device.empty() && !db.find_device(o.device)) {
    throw UserError(format_user_error(o.db, "", "no device with key \"" + o.device + "\""));
  }
  std::vector<BestEntry> entries;
  for (BestEntry& b : db.best_all()) {
    bool wanted = o.device.empty() || b.device_key == o.device;
    if (!workloads.empty()) {
      bool listed = false;
      for (const auto& w : workloads) listed = listed || w.key == b.workload_key;
      wanted = wanted && listed;
    }
    if (!wanted) continue;
    if (o.top == 1) {
      entries.push_back(std::move(b));
    } else {
      for (BestEntry& e : db.top_k(b.workload_key, b.device_key, o.top))
        entries.push_back(std::move(e));
    }
  }
  if (o.format == "json") {
    nlohmann::json list = nlohmann::json::array();
    for (const BestEntry& b : entries) list.push_back(best_json(b));
    print({{"best", list}});
  } else {
    print_best_table(entries);
  }
  return kExitOk;
}

int run_merge(const DbOptions& o) {
  TuningDb db = open_db(o, sqlite::OpenMode::kCreate);
  nlohmann::json reports = nlohmann::json::array();
  for (const std::string& other : o.others) {
    std::fprintf(stderr, "ktune: merging %s into %s\n", other.c_str(), o.db.c_str());
    const CopyReport r = db.merge(other);
    reports.push_back(
        {{"from", other}, {"added", counts_json(r.added)}, {"present", counts_json(r.present)}});
    if (o.format == "text") {
      std::printf("merged %s: added %s; already present: %lld measurements\n", other.c_str(),
                  counts_text(r.added).c_str(), static_cast<long long>(r.present.measurements));
    }
  }
  if (o.format == "json") print({{"merged", reports}});
  return kExitOk;
}

int run_prune(const DbOptions& o) {
  TuningDb db = open_db(o, sqlite::OpenMode::kReadWrite);
  const tuning_db::PruneReport r = db.prune(o.keep);
  const int64_t saved = o.vacuum ? db.vacuum() : 0;
  if (o.format == "json") {
    print({{"deleted", counts_json(r.deleted)},
           {"freed_bytes", r.freed_bytes},
           {"vacuumed", o.vacuum},
           {"saved_bytes", saved}});
    return kExitOk;
  }
  std::printf("pruned %s (keeping %d per workload and device): deleted %s; freed %s\n",
              o.db.c_str(), o.keep, counts_text(r.deleted).c_str(),
              human_bytes(r.freed_bytes).c_str());
  if (o.vacuum) {
    std::printf("vacuumed: the file shrank by %s to %s\n", human_bytes(saved).c_str(),
                human_bytes(db.stats().file_bytes).c_str());
  } else if (r.freed_bytes > 0) {
    std::printf("run `ktune db vacuum --db %s` to return the freed space to the disk\n",
                o.db.c_str());
  }
  return kExitOk;
}

int run_vacuum(const DbOptions& o) {
  TuningDb db = open_db(o, sqlite::OpenMode::kReadWrite);
  const int64_t saved = db.vacuum();
  if (o.format == "json") {
    print({{"saved_bytes", saved}});
  } else {
    std::printf("vacuumed %s: saved %s, the file is now %s\n", o.db.c_str(),
                human_bytes(saved).c_str(), human_bytes(db.stats().file_bytes).c_str());
  }
  return kExitOk;
}

int run_export(const DbOptions& o) {
  TuningDb db = open_db(o, sqlite::OpenMode::kReadOnly);
  if (o.out.empty()) {
    db.export_json(std::cout);
    std::cout.flush();
    if (!std::cout) throw_write_error("standard output", "", "the export", errno);
    return kExitOk;
  }
  // Written beside the target and renamed, so a failed export never leaves half a file.
  const std::string partial = o.out + ".partial";
  {
    std::ofstream file(partial, std::ios::binary);
    if (!file) throw_write_error(o.out, "--out", "the export file", errno);
    db.export_json(file);
    file.close();
    if (!file) {
      const int err = errno;
      std::remove(partial.c_str());
      throw_write_error(o.out, "--out", "the export file", err);
    }
  }
  std::filesystem::rename(partial, o.out);
  std::fprintf(stderr, "ktune: exported %s to %s\n", o.db.c_str(), o.out.c_str());
  return kExitOk;
}

int run_import(const DbOptions& o) {
  std::ifstream file(o.input, std::ios::binary);
  if (!file) throw UserError(format_user_error(o.input, "", "cannot read the file"));
  std::stringstream text;
  text << file.rdbuf();
  TuningDb db = open_db(o, sqlite::OpenMode::kCreate);
  const CopyReport r = db.import_json(text.str(), o.input);
  if (o.format == "json") {
    print(
        {{"from", o.input}, {"added", counts_json(r.added)}, {"present", counts_json(r.present)}});
  } else {
    std::printf("imported %s: added %s; already present: %lld measurements\n", o.input.c_str(),
                counts_text(r.added).c_str(), static_cast<long long>(r.present.measurements));
  }
  return kExitOk;
}

// Adds the flags every db subcommand shares.
CLI::App* add_db_subcommand(CLI::App& db, const char* name, const char* summary,
                            const std::shared_ptr<DbOptions>& o, bool with_format = true) {
  CLI::App* sub = db.add_subcommand(name, summary);
  sub->add_option("--db", o->db, "Tuning database file")->required();
  if (with_format) {
    sub->add_option("--format", o->format, "Output format: text or json")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
  }
  return sub;
}

}  // namespace

// `ktune db revalidate` (cmd_db_revalidate.cc): adds the subcommand and sets `runner`.
CLI::App* add_db_revalidate(CLI::App& db, CommandRunner& runner);

CommandRunner register_db(CLI::App& subcommand) {
  auto o = std::make_shared<DbOptions>();
  subcommand.require_subcommand(1);
  std::vector<std::pair<CLI::App*, int (*)(const DbOptions&)>> runners;

  runners.emplace_back(
      add_db_subcommand(subcommand, "stats",
                        "Rows per table, file size, per-device counts, best per workload", o),
      run_stats);
  CLI::App* best =
      add_db_subcommand(subcommand, "best", "The best schedule per workload and device", o);
  best->add_option("--workload", o->workload, "Only this workload (name, key or key prefix)");
  best->add_option("--device", o->device, "Only this device (key)");
  best->add_option("--top", o->top, "Schedules listed per workload and device")
      ->capture_default_str();
  runners.emplace_back(best, run_best);

  CLI::App* merge = add_db_subcommand(
      subcommand, "merge", "Merge other tuning databases into --db (created if missing)", o);
  merge->add_option("OTHER", o->others, "Databases to merge in")->required();
  runners.emplace_back(merge, run_merge);

  CLI::App* prune = add_db_subcommand(subcommand, "prune",
                                      "Keep the best N schedules per workload and device", o);
  prune->add_option("--keep", o->keep, "Schedules kept per workload and device")
      ->capture_default_str();
  prune->add_flag("--vacuum", o->vacuum, "Vacuum afterwards to shrink the file");
  runners.emplace_back(prune, run_prune);

  runners.emplace_back(
      add_db_subcommand(subcommand, "vacuum", "Rewrite the file without free pages", o),
      run_vacuum);
  CLI::App* exp = add_db_subcommand(subcommand, "export-json",
                                    "Write every row except cost models as stable JSON", o, false);
  exp->add_option("--out", o->out, "Output file (default: stdout)");
  runners.emplace_back(exp, run_export);
  CLI::App* imp = add_db_subcommand(subcommand, "import-json",
                                    "Add the rows of an export-json file (created if missing)", o);
  imp->add_option("FILE", o->input, "The JSON file")->required();
  runners.emplace_back(imp, run_import);
  CommandRunner revalidate;
  CLI::App* revalidate_sub = add_db_revalidate(subcommand, revalidate);

  return [o, runners, revalidate_sub, revalidate] {
    for (const auto& [sub, run] : runners) {
      if (sub->parsed()) return run(*o);
    }
    if (revalidate_sub->parsed()) return revalidate();
    return kExitUsage;
  };
}

}  // namespace ktune::cli
