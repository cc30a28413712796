// `ktune bench SPEC... --db F [--device host] [--threads N] [--format text|json|markdown]
//  [--methods LIST] [--expert-dir DIR] [--rounds N] [--min-repeats N] [--repeat-min-ms N] ...`
// Measures ktune's best stored schedule and its heuristic schedule (and, with --expert-dir,
// a schedule written by hand) against Halide's autoschedulers, OpenBLAS and oneDNN, with one
// protocol, and against the device's roofline (bench/bench_run.h). Every row is stored in the database as a bench result (all rows
// of one invocation share a uuid); the table goes to stdout, progress to stderr.
// Exit code 0 when the bench ran (a method's failure is a row, not an error), 2 for bad
// input.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_methods.h"
#include "bench/bench_run.h"
#include "bench/bench_table.h"
#include "common/error.h"
#include "schedule_store/db_records.h"
#include "schedule_store/stored_database.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device.h"
#include "targets/host_detect.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"
#include "tuning_db/tuning_db.h"

namespace ktune::cli {
namespace {

struct BenchCliOptions {
  SubgraphOptions subgraphs;       // spec files and Halide Generators
  std::string db;                  // tuning database (read for ktune's schedules, written with results)
  std::string device = "host";     // only the host can be benchmarked
  int threads = 0;                 // every method's threads; 0 = every core
  std::string format = "text";     // text, json or markdown
  std::string methods;             // comma-separated subset; empty = all
  std::string expert_dir;          // hand-written schedules, <subgraph name>.json; empty: none
  int rounds = 3;                  // interleaved rounds
  int min_repeats = 10;            // timed runs at least
  double repeat_min_ms = 200;      // timed for at least this long
  double autoscheduler_timeout_s = 300;  // per autoscheduler and subgraph
  double run_timeout_s = 120;      // per isolated timed run
  int roofline_trials = 5;         // trials of each microbenchmark
  int64_t triad_mib = 0;           // triad array size; 0 = from the LLC
  std::string allocation = "aot";  // aot: allocations as in a user's AOT build; process: the warm heap
};

// The arguments of this process, from /proc/self/cmdline.
std::vector<std::string> process_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::string word;
  for (char c : raw) {
    if (c == '\0') {
      args.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return args;
}

// oneDNN runs on OpenMP, whose idle threads spin by default; on a machine whose cores are
// shared (two cores, other processes running) a spinning thread starves the one its
// barrier waits for, and oneDNN's calls stall for whole scheduler ticks (4 ms steps). Halide's
// and ktune's thread pools sleep when idle, so the bench gives OpenMP the same policy.
// libgomp reads OMP_WAIT_POLICY when it is loaded, before main, so setting it means starting
// the process again; a policy the user set is kept.
void ensure_openmp_wait_policy() {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  std::vector<std::string> args = process_arguments();
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  execv("/proc/self/exe", argv.data());
  // If exec fails the bench still runs, with OpenMP's default policy (printed in the output).
}

// The command line as typed, from /proc/self/cmdline.
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out, word;
  auto flush = [&] {
    const bool plain = word.find_first_of(" \t\"'$*?") == std::string::npos && !word.empty();
    out += (out.empty() ? "" : " ") + (plain ? word : "'" + word + "'");
    word.clear();
  };
  for (char c : raw) {
    if (c == '\0') {
      flush();
    } else {
      word += c;
    }
  }
  if (!word.empty()) flush();
  return out;
}

// A random version-4 UUID naming this bench invocation.
std::string new_bench_uuid() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd() ^
                      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xf000ULL) | 0x4000ULL;
  lo = (lo & ~(0xcULL << 60)) | (0x8ULL << 60);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xffff), static_cast<unsigned long long>(hi & 0xffff),
                static_cast<unsigned long long>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

// --methods: names from the table of bench methods (bench/bench_methods.h), or a usage
// error that lists them.
CLI::Validator method_list() {
  return CLI::Validator(
      [](std::string& text) { return bench::unknown_method_error(bench::parse_method_list(text)); }, "");
}

// Values the parser lets through that the bench cannot use; UserError naming the flag.
void check_bench_options(const BenchCliOptions& opt) {
  if (opt.subgraphs.empty()) throw UserError("bench: give at least one SPEC file or --generator LIB:NAME");
  if (opt.db.empty()) throw UserError("bench: --db FILE is required (ktune's schedules come from it, results go to it)");
  if (opt.threads < 0) throw UserError("bench: --threads: expected >= 0 (0 = every core), found " + std::to_string(opt.threads));
  if (opt.rounds < 1) throw UserError("bench: --rounds: expected >= 1, found " + std::to_string(opt.rounds));
  if (opt.min_repeats < 1) throw UserError("bench: --min-repeats: expected >= 1, found " + std::to_string(opt.min_repeats));
  if (opt.repeat_min_ms < 0) throw UserError("bench: --repeat-min-ms: expected >= 0");
  if (opt.roofline_trials < 1) throw UserError("bench: --roofline-trials: expected >= 1");
  if (opt.triad_mib < 0) throw UserError("bench: --triad-mib: expected >= 0 (0 = four times the last-level cache)");
}

// This machine, which --device must name ("host" or its key).
targets::Device bench_device(const std::string& device) {
  targets::Device host = targets::detect_host_device();
  if (device != "host" && device != targets::device_key(host)) {
    throw UserError("bench: --device: only this machine can be benchmarked (\"host\" or " + targets::device_key(host) +
                    "), found \"" + device + "\"");
  }
  return host;
}

bench::BenchOptions bench_options(const BenchCliOptions& opt) {
  bench::BenchOptions options;
  options.threads = opt.threads;
  options.rounds = opt.rounds;
  options.aot_allocation = opt.allocation == "aot";
  options.methods = bench::parse_method_list(opt.methods);
  options.expert_dir = opt.expert_dir;
  options.timing.min_repeats = opt.min_repeats;
  options.timing.min_total_ms = opt.repeat_min_ms;
  options.timing.max_repeats = std::max(options.timing.max_repeats, opt.min_repeats);
  options.autoscheduler_timeout_ms = opt.autoscheduler_timeout_s * 1000;
  options.run_timeout_ms = opt.run_timeout_s * 1000;
  options.roofline.trials = opt.roofline_trials;
  options.roofline.triad_elements = opt.triad_mib * (1 << 20) / 4;
  return options;
}

// Prints "[bench  12.3 s] LINE" on stderr, timed from when it was made.
std::function<void(const std::string&)> progress_printer() {
  const auto start = std::chrono::steady_clock::now();
  return [start](const std::string& line) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "[bench %6.1f s] %s\n", s, line.c_str());
  };
}

// Stores the rows of subgraph `sg` as results of bench `uuid`, its roofline as the row of
// method "roofline".
void store_rows(tuning_db::TuningDb& db, const std::string& uuid, const subgraphs::Subgraph& sg,
                const bench::BenchReport& report, const bench::SubgraphBench& s) {
  db.upsert_workload(schedule_store::workload_record(sg));
  tuning_db::BenchResultRecord base;
  base.bench_uuid = uuid;
  base.workload_key = s.workload_key;
  base.device_key = report.device_key;
  for (const bench::MethodRow& row : s.rows) {
    tuning_db::BenchResultRecord r = base;
    r.method = row.method;
    r.status = row.status;
    if (row.status == "ok") {
      r.median_ns = row.result.median_ns;
      r.min_ns = row.result.min_ns;
      r.iqr_ns = row.result.spread_ns;
      r.repeats = row.result.repeats;
    }
    r.threads = report.threads;
    r.detail = row.detail;
    db.record_bench_result(r);
  }
  tuning_db::BenchResultRecord roof = base;
  roof.method = "roofline";
  roof.status = "ok";
  roof.median_ns = s.roofline_ns;
  roof.min_ns = s.roofline_ns;
  roof.threads = report.threads;
  roof.detail = report.roofline.describe();
  db.record_bench_result(roof);
}

void print_report(const std::string& format, const bench::BenchReport& report, const std::string& command,
                  const std::string& uuid) {
  if (format == "json") {
    std::printf("%s\n", bench::to_json(report, command, uuid).dump(2).c_str());
  } else if (format == "markdown") {
    std::printf("%s", bench::format_markdown(report, command).c_str());
  } else {
    std::printf("bench      %s\n%s", uuid.c_str(), bench::format_text(report).c_str());
  }
}

int run_bench_command(const BenchCliOptions& opt) {
  check_bench_options(opt);
  ensure_openmp_wait_policy();
  const targets::Device host = bench_device(opt.device);
  const std::vector<std::unique_ptr<subgraphs::Subgraph>> owned = opt.subgraphs.load();
  std::vector<const subgraphs::Subgraph*> subgraphs;
  for (const auto& sg : owned) subgraphs.push_back(sg.get());

  // ktune's schedules come from it: its pages are checked first.
  tuning_db::TuningDb db =
      schedule_store::open_tuning_db(opt.db, sqlite::OpenMode::kCreate, schedule_store::PageCheck::kIfSmall);
  const bench::BenchOptions options = bench_options(opt);
  const std::string uuid = new_bench_uuid();
  const std::string command = command_line();
  const auto progress = progress_printer();
  progress("bench " + uuid + " on " + targets::describe(host));
  progress(std::string("OMP_WAIT_POLICY=") + std::getenv("OMP_WAIT_POLICY") + " for oneDNN's OpenMP threads");
  db.upsert_device(schedule_store::device_record(host));
  auto store = [&](const bench::BenchReport& report, const bench::SubgraphBench& s) {
    store_rows(db, uuid, *subgraphs[&s - report.subgraphs.data()], report, s);
  };
  const bench::BenchReport report = bench::run_bench(subgraphs, &db, host, options, progress, store);
  progress("done; " + std::to_string(report.subgraphs.size()) + " subgraph(s) stored in " + opt.db + " as bench " + uuid);
  print_report(opt.format, report, command, uuid);
  return kExitOk;
}

}  // namespace

CommandRunner register_bench(CLI::App& sub) {
  auto opt = std::make_shared<BenchCliOptions>();
  add_subgraph_options(sub, opt->subgraphs,
                       {"JSON spec files of the subgraphs",
                        "a Halide Generator as LIB:NAME (repeatable); its own schedule is the \"hand\" method"});
  sub.add_option("--db", opt->db, "tuning database: ktune's schedules come from it, the results are stored in it")
      ->required();
  sub.add_option("--device", opt->device, "host (only this machine can be benchmarked)")->capture_default_str();
  sub.add_option("--threads", opt->threads, "threads of every method (0 = every core)")
      ->check(thread_count())
      ->capture_default_str();
  sub.add_option("--format", opt->format, "output format")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  sub.add_option("--methods", opt->methods, bench::methods_option_help())->check(method_list());
  sub.add_option("--expert-dir", opt->expert_dir,
                 "folder of schedules written by hand, <subgraph name>.json each: the \"expert\" method (bench/expert)");
  sub.add_option("--rounds", opt->rounds, "interleaved rounds per method")->check(CLI::Range(1, 1000))->capture_default_str();
  check_timing_flags(
      sub.add_option("--repeat-min-ms", opt->repeat_min_ms, "time each method for at least this many ms per round")
          ->capture_default_str(),
      sub.add_option("--min-repeats", opt->min_repeats, "timed runs at least, per round")->capture_default_str());
  sub.add_option("--autoscheduler-timeout", opt->autoscheduler_timeout_s,
                 "seconds an autoscheduler may take to schedule and compile one subgraph")
      ->check(finite_range(1, 86400))
      ->capture_default_str();
  sub.add_option("--run-timeout", opt->run_timeout_s, "seconds one isolated timed run may take")
      ->check(finite_range(0.001, 86400))
      ->capture_default_str();
  sub.add_option("--roofline-trials", opt->roofline_trials, "trials of each roofline microbenchmark")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub.add_option("--triad-mib", opt->triad_mib, "MiB per triad array (0 = four times the last-level cache)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  add_allocation_option(sub, opt->allocation);
  return [opt] { return run_bench_command(*opt); };
}

}  // namespace ktune::cli
