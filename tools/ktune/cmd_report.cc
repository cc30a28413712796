// `ktune report --db F [--out report.html] [--workload NAME|KEY] [--device host|KEY]`: one
// self-contained HTML page with, per workload and device, the tuning curve (best time vs
// trials and vs wall-clock time), the distribution of measured times and statuses, the cost
// model's predicted rank against the measured rank, and the latest `ktune bench` comparison,
// under a summary table. The page needs no network. It is written next to --out and renamed
// into place, so a reader never sees half a report.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "common/error.h"
#include "common/version.h"
#include "report/report_data.h"
#include "report/report_html.h"
#include "schedule_store/stored_database.h"
#include "targets/device.h"
#include "targets/host_detect.h"
#include "tools/ktune/commands.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {
namespace {

struct ReportOptions {
  std::string db;
  std::string out = "report.html";
  std::string workload;  // name, key or key prefix; empty: all
  std::string device;    // "host", a key or a key prefix; empty: all
};

// Writes `text` to `path` through a temporary file in the same folder and a rename.
void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw_write_error(path, "--out", "the report", errno);
    out << text;
    out.close();
    if (!out) {
      const int err = errno;
      std::remove(tmp.c_str());
      throw_write_error(path, "--out", "the report", err);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw UserError(format_user_error(path, "--out", "cannot replace it: " + ec.message()));
  }
}

int run_report(const ReportOptions& opt) {
  if (opt.db.empty()) throw UserError("report: --db FILE is required");
  if (opt.out.empty()) throw UserError("report: --out FILE must not be empty");
  // No report drawn from a damaged file.
  tuning_db::TuningDb db =
      schedule_store::open_tuning_db(opt.db, sqlite::OpenMode::kReadOnly, schedule_store::PageCheck::kIfSmall);

  report::ReportFilter filter;
  filter.workload = opt.workload;
  filter.device = opt.device == "host" ? targets::device_key(targets::detect_host_device()) : opt.device;
  const report::ReportData data = report::collect_report(db, filter);
  const std::string html = report::render_report_html(data, ktune_version());
  write_atomically(opt.out, html);

  std::set<std::string> workloads;
  std::set<std::string> devices;
  int64_t measurements = 0;
  int64_t benched = 0;
  for (const auto& p : data.pairs) {
    workloads.insert(p.workload_key);
    devices.insert(p.device_key);
    measurements += p.trials;
    if (!p.bench.empty()) ++benched;
  }
  std::printf("wrote %s (%zu KiB): %zu workload(s) on %zu device(s), %lld measurements, %lld with a bench comparison\n",
              opt.out.c_str(), html.size() / 1024, workloads.size(), devices.size(),
              static_cast<long long>(measurements), static_cast<long long>(benched));
  for (const auto& p : data.pairs) {
    std::printf("  %-28s %-18s %5lld trials  %s\n", p.workload_name.c_str(), p.device_key.substr(0, 16).c_str(),
                static_cast<long long>(p.trials), p.bench.empty() ? "" : "benched");
  }
  if (data.pairs.empty()) std::fprintf(stderr, "ktune: %s holds no measurements; the report says so\n", opt.db.c_str());
  return kExitOk;
}

}  // namespace

CommandRunner register_report(CLI::App& sub) {
  auto opt = std::make_shared<ReportOptions>();
  sub.add_option("--db", opt->db, "tuning database")->required();
  sub.add_option("--out", opt->out, "HTML file to write (replaced atomically)")->capture_default_str();
  sub.add_option("--workload", opt->workload, "only this workload: name, key or key prefix");
  sub.add_option("--device", opt->device, "only this device: host, a key or a key prefix");
  return [opt] { return run_report(*opt); };
}

}  // namespace ktune::cli
