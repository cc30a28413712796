// `ktune tune SPEC... [--generator LIB:NAME ...] --db F [--device host|cuda|h100 ...] [--target host|cuda]
//  (--budget 8h | --trials N) [--threads N] [--seed S] [--resume] [--log FILE] [--allow-mixed-devices]
//  [--task-rule gap|time]`: the
// tuning run, on the host CPU or on a GPU of this machine (targets/tuning_device.h); started by
// mpirun or srun, rank 0 tunes and the other ranks measure (cluster/). Every measurement is
// committed as it happens; running again continues where a run stopped. Ctrl-C or SIGTERM
// stops within seconds from any phase (a child is killed, compiles abandoned), commits what
// was measured and prints the summary (exit 0); a second one exits at once (the database
// stays consistent). No child process outlives the run.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "bench/roofline.h"
#include "cluster/coordinator_measurer.h"
#include "cluster/mpi_session.h"
#include "cluster/worker.h"
#include "common/duration_text.h"
#include "common/error.h"
#include "common/stop_request.h"
#include "measure/builder.h"
#include "search/budget.h"
#include "search/progress.h"
#include "search/tuner.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/own_schedule_check.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device_lookup.h"
#include "targets/tuning_device.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

// A kernel this much faster than the measured compute peak allows is reported: beyond the
// timing noise, the peak was measured under another load.
constexpr double kReportedPeakCorrection = 1.05;

extern "C" void on_stop_signal(int) {
  // The first request stops the run (a child being measured is killed, compiles are
  // abandoned); the second ends the process at once (SQLite's journal keeps the file
  // consistent; the children die with it). write() is async-signal-safe.
  if (ktune::request_stop() == 0) {
    static const char kFirst[] = "\nktune: stopping; committing what was measured (interrupt again to stop at once)\n";
    const ssize_t written = write(STDERR_FILENO, kFirst, sizeof kFirst - 1);
    (void)written;
    return;
  }
  static const char kSecond[] = "\nktune: stopped at once (second interrupt); every committed measurement is kept\n";
  const ssize_t written = write(STDERR_FILENO, kSecond, sizeof kSecond - 1);
  (void)written;
  _exit(130);
}

// SIGINT and SIGTERM ask the run to stop while it lives (from before the subgraphs load).
class StopSignals {
 public:
  StopSignals() {
    ktune::clear_stop_requests();
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// Ends the process with `code` without running static destructors when a compile the run
// abandoned still runs in the background (LLVM's statics must not go away under it); the
// database is closed and the output flushed first.
int exit_leaving_abandoned_compiles(int code) {
  if (measure::late_builds_in_flight() == 0) return code;
  std::fflush(nullptr);
  _exit(code);
}

struct TuneCliOptions {
  SubgraphOptions subgraphs;  // spec files and Halide Generators
  std::string db;
  std::string device;  // empty: host, or this machine's GPU with --target cuda
  std::string target;
  std::string budget;
  int trials = 0;
  int threads = 0;
  uint64_t seed = 1;
  bool resume = false;  // accepted for clarity: every run resumes from the database
  bool allow_mixed_devices = false;  // under MPI: keep ranks on other devices, each under its own key
  std::string task_rule = "gap";
  std::string log;
  search::SearchParams search;
  double repeat_min_ms = 100;
  int min_repeats = 5;
  std::vector<std::string> argv;
};

std::string rate(const search::TaskSummary& t) {
  char buf[64];
  if (t.best_ns <= 0) return "-";
  // Report the figure that bounds the kernel: FLOP/s for compute-heavy ones, else bytes.
  if (t.flops / std::max(1.0, t.bytes) >= 4) {
    std::snprintf(buf, sizeof(buf), "%.1f GFLOP/s", t.flops / t.best_ns);
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f GB/s", t.bytes / t.best_ns);
  }
  return buf;
}

std::string percent_of_roofline(const search::TaskSummary& t) {
  if (t.best_ns <= 0 || t.roofline_ns <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", 100 * t.roofline_ns / t.best_ns);
  return buf;
}

// Where the task scheduler splits rounds by the gap to the roofline (several CPU subgraphs),
// measures this machine's peak and bandwidth (under a second) and gives the tuner each
// subgraph's roofline time. A smaller triad than `ktune bench` measures with: the rule
// needs where each subgraph stands, not a figure to publish.
void set_roofline(search::TuneOptions& o, size_t subgraphs) {
  if (o.task_scheduler.rule != search::TaskRule::kRooflineGap || subgraphs < 2) return;
  if (o.device.kind != targets::DeviceKind::kCpu) return;
  bench::RooflineOptions ro;
  ro.threads = o.threads > 0 ? o.threads : o.device.cores;
  ro.trials = 2;
  ro.fma_iterations = 5000000;
  ro.triad_elements = int64_t{32} << 20;
  const bench::Roofline roofline = bench::measure_roofline(ro);
  std::fprintf(stderr, "ktune tune: task scheduler ranks by the gap to the roofline: %s\n", roofline.describe().c_str());
  o.roofline = [roofline](const subgraphs::Subgraph& sg) {
    return search::RooflineTimes{bench::subgraph_compute_ns(roofline, sg), bench::subgraph_memory_ns(roofline, sg)};
  };
}

std::string ratio(double a, double b) {
  if (a <= 0 || b <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2fx", a / b);
  return buf;
}

// For each Generator of which nothing ran correctly: its own schedule against the same gate
// and data (input seed 1, as the tuner's), and a loud warning when that fails too.
void warn_if_own_schedules_fail(const search::TuneSummary& summary,
                                const std::vector<const subgraphs::GeneratorSubgraph*>& generators) {
  constexpr double kCheckTimeoutMs = 600000;
  for (const search::TaskSummary& t : summary.tasks) {
    if (t.best_ns >= 0 || t.trials_this_run == 0) continue;
    for (const subgraphs::GeneratorSubgraph* gen : generators) {
      if (gen->name() != t.name) continue;
      std::fprintf(stderr, "ktune tune: nothing of %s ran correctly; checking the Generator's own schedule\n", t.name.c_str());
      const std::string warning =
          subgraphs::own_schedule_gate_warning(*gen, subgraphs::check_own_schedule_isolated(*gen, 1, kCheckTimeoutMs));
      if (!warning.empty()) std::printf("\n%s\n", warning.c_str());
    }
  }
}

// Values the parser lets through that the tuner cannot use; UserError naming the flag.
void check_tune_options(const TuneCliOptions& opt) {
  if (opt.db.empty()) throw UserError("tune: --db FILE is required");
  if (opt.subgraphs.empty()) throw UserError("tune: give at least one SPEC file or --generator LIB:NAME");
  if (opt.budget.empty() && opt.trials <= 0) throw UserError("tune: give a budget: --budget 8h|90m|30s or --trials N");
  if (opt.search.batch < 1 || opt.search.population < 1 || opt.search.generations < 0) {
    throw UserError("tune: --batch and --population must be >= 1 and --generations >= 0");
  }
}

search::TuneOptions tune_options(const TuneCliOptions& opt) {
  search::TuneOptions o;
  o.db_path = opt.db;
  o.device = targets::tuning_device(opt.device, opt.target);
  if (!opt.budget.empty()) o.budget.seconds = search::parse_duration_seconds(opt.budget, "--budget");
  if (opt.trials > 0) o.budget.trials = opt.trials;
  o.budget.text = !opt.budget.empty() ? opt.budget : std::to_string(opt.trials) + " trials";
  o.search = opt.search;
  o.threads = opt.threads;
  o.seed = opt.seed;
  o.repeat_min_ms = opt.repeat_min_ms;
  o.min_repeats = opt.min_repeats;
  o.task_scheduler.rule = search::parse_task_rule(opt.task_rule, "--task-rule");
  o.command = opt.argv;
  return o;
}

// The Generators among `subgraphs`.
std::vector<const subgraphs::GeneratorSubgraph*> generators_of(
    const std::vector<std::unique_ptr<subgraphs::Subgraph>>& subgraphs) {
  std::vector<const subgraphs::GeneratorSubgraph*> generators;
  for (const auto& sg : subgraphs) {
    if (const auto* gen = dynamic_cast<const subgraphs::GeneratorSubgraph*>(sg.get())) generators.push_back(gen);
  }
  return generators;
}

// Under an MPI launcher: rank 0 tunes and writes the database, the other ranks measure.
// On rank 0 of several, `measurer` becomes the coordinator of the measuring ranks; on any
// other rank this runs the worker and returns its exit code.
std::optional<int> join_mpi_ranks(const search::TuneOptions& o, bool allow_mixed_devices,
                                  std::unique_ptr<cluster::MpiSession>& session,
                                  std::unique_ptr<search::Measurer>& measurer) {
  if (!cluster::launched_by_mpi()) return std::nullopt;
  if (!cluster::mpi_built()) {
    throw UserError("tune: started by an MPI launcher, but this ktune was built without MPI (scripts/setup.sh "
                    "installs libopenmpi-dev; rebuild)");
  }
  session = std::make_unique<cluster::MpiSession>();
  cluster::Transport& transport = session->transport();
  if (transport.rank() != 0) return cluster::run_worker(transport, {search::local_measurer_options(o), o.device});
  if (transport.size() > 1) {
    auto coordinator = std::make_unique<cluster::CoordinatorMeasurer>(
        transport, cluster::CoordinatorOptions{o.device, allow_mixed_devices, search::local_measurer_options(o)});
    for (const std::string& refusal : coordinator->refusals()) std::fprintf(stderr, "ktune tune: refused %s\n", refusal.c_str());
    std::fprintf(stderr, "ktune tune: %d measuring rank%s\n", coordinator->width(), coordinator->width() == 1 ? "" : "s");
    measurer = std::move(coordinator);
  }
  return std::nullopt;
}

// The summary table, why tasks stopped, and the warnings; the exit code.
int print_summary(const search::TuneSummary& summary,
                  const std::vector<const subgraphs::GeneratorSubgraph*>& generators) {
  std::printf("\n%-18s %12s %16s %9s %14s %14s %14s\n", "subgraph", "best", "throughput", "roofline", "trials (run)",
              "vs heuristic", "vs first");
  for (const search::TaskSummary& t : summary.tasks) {
    const std::string trials = std::to_string(t.trials) + " (" + std::to_string(t.trials_this_run) + ")";
    std::printf("%-18s %12s %16s %9s %14s %14s %14s\n", t.name.c_str(), ktune::format_ns(t.best_ns).c_str(),
                rate(t).c_str(), percent_of_roofline(t).c_str(), trials.c_str(), ratio(t.heuristic_ns, t.best_ns).c_str(),
                ratio(t.first_ns, t.best_ns).c_str());
  }
  bool any_ok = false;
  for (const search::TaskSummary& t : summary.tasks) {
    any_ok |= t.best_ns > 0;
    if (!t.stopped.empty()) std::printf("%s: %s\n", t.name.c_str(), t.stopped.c_str());
  }
  if (!summary.interrupted) warn_if_own_schedules_fail(summary, generators);
  if (summary.peak_correction > kReportedPeakCorrection) {
    std::printf("The compute peak measured at the start was low: a kernel ran at %.0f%% of it; the task scheduler "
                "took that as the peak.\n", 100 * summary.peak_correction);
  }
  std::printf("\n%s after %s and %d trials; results in %s\n", summary.interrupted ? "Interrupted" : "Done",
              ktune::format_seconds(summary.elapsed_s).c_str(), summary.trials, summary.db_path.c_str());
  if (!any_ok && !summary.interrupted) {
    std::fprintf(stderr, "ktune tune: no subgraph has a schedule that ran correctly\n");
    return kExitFailure;
  }
  return kExitOk;
}

int run_tune(const TuneCliOptions& opt) {
  check_tune_options(opt);
  search::TuneOptions o = tune_options(opt);
  const StopSignals stop_signals;
  std::vector<std::unique_ptr<subgraphs::Subgraph>> subgraphs;
  try {
    subgraphs = opt.subgraphs.load();
  } catch (const std::exception&) {
    if (!ktune::stop_requested()) throw;
    std::printf("\nInterrupted while loading the subgraphs; nothing was tuned\n");
    return kExitOk;
  }
  const std::vector<const subgraphs::GeneratorSubgraph*> generators = generators_of(subgraphs);  // owned by the tuner
  std::unique_ptr<cluster::MpiSession> session;
  std::unique_ptr<search::Measurer> measurer;
  if (const auto worker_exit = join_mpi_ranks(o, opt.allow_mixed_devices, session, measurer)) return *worker_exit;

  set_roofline(o, subgraphs.size());
  search::Progress progress(isatty(STDERR_FILENO) != 0, opt.log, o.budget.seconds, o.budget.trials);
  std::fprintf(stderr, "ktune tune: %zu subgraph%s, device %s, database %s, budget %s\n", subgraphs.size(),
               subgraphs.size() == 1 ? "" : "s", targets::device_key(o.device).c_str(), opt.db.c_str(), o.budget.text.c_str());
  search::Tuner tuner(std::move(o), std::move(subgraphs), progress, std::move(measurer));
  const search::TuneSummary summary = tuner.run(ktune::stop_requests());
  return exit_leaving_abandoned_compiles(print_summary(summary, generators));
}

}  // namespace

CommandRunner register_tune(CLI::App& sub) {
  auto opt = std::make_shared<TuneCliOptions>();
  add_subgraph_options(sub, opt->subgraphs,
                       {"JSON spec files of the subgraphs to tune", "a Halide Generator as LIB:NAME (repeatable)"});
  sub.add_option("--db", opt->db, "tuning database (SQLite file; created if missing)")->required();
  sub.add_option("--device", opt->device,
                 "device to tune for: host (default), cuda (this machine's first GPU) or a known card here (h100, ...)");
  sub.add_option("--target", opt->target, "host or cuda; with cuda and no --device, this machine's first GPU")
      ->check(CLI::IsMember({"cuda", "host"}));
  sub.add_option("--budget", opt->budget, "wall-clock budget: 8h, 90m, 1h30m, 45s");
  sub.add_option("--trials", opt->trials, "number of candidates to measure")->check(CLI::Range(1, 1000000000));
  sub.add_option("--threads", opt->threads, "threads per kernel (0 = every core)")->check(thread_count())->capture_default_str();
  sub.add_option("--seed", opt->seed, "search seed")->capture_default_str();
  sub.add_flag("--resume", opt->resume, "continue earlier runs (the default: state comes from the database)");
  sub.add_flag("--allow-mixed-devices", opt->allow_mixed_devices,
               "under mpirun: keep measuring ranks whose device differs from rank 0's, each result under its own device");
  sub.add_option("--task-rule", opt->task_rule,
                 "how rounds are split across subgraphs: gap (to each one's roofline; every subgraph counts alike) "
                 "or time (nanoseconds to gain: the longest kernels first)")
      ->check(CLI::IsMember({"gap", "time"}))
      ->capture_default_str();
  sub.add_option("--log", opt->log, "append one JSON line per round to this file");
  sub.add_option("--batch", opt->search.batch, "candidates measured per round (per measuring rank under mpirun)")->check(CLI::Range(1, 4096))->capture_default_str();
  sub.add_option("--population", opt->search.population, "population of the evolutionary search")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  sub.add_option("--generations", opt->search.generations, "generations evolved per round")->check(CLI::Range(0, 1000))->capture_default_str();
  sub.add_option("--epsilon", opt->search.epsilon, "fraction of each batch picked at random")
      ->check(finite_range(0, 1))
      ->capture_default_str();
  check_timing_flags(
      sub.add_option("--repeat-min-ms", opt->repeat_min_ms, "minimum timed milliseconds per candidate")->capture_default_str(),
      sub.add_option("--min-repeats", opt->min_repeats, "minimum timed runs per candidate")->capture_default_str());
  return [opt] {
    opt->argv = {"ktune", "tune"};
    for (const std::string& s : opt->subgraphs.specs) opt->argv.push_back(s);
    return run_tune(*opt);
  };
}

}  // namespace ktune::cli
