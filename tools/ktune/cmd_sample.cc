// `ktune sample SPEC... --db F [--count N] [--seed S] [--batch B] [--mutate-fraction P]
//  [--min-repeats N] [--repeat-min-ms MS] [--threads N] [--build-threads N]`
// Builds training data for the cost model: per subgraph, measures N new schedules (the
// naive and heuristic ones, random samples, and mutations of the fastest schedules measured)
// and records every result (ok or not) in the tuning database. It is the tuning run
// (search/tuner.h) in its random-search mode with a trial cap per subgraph and no model
// training, so it resumes, commits and reports as `ktune tune` does: schedules the database
// already holds for this device are not measured again. A summary per subgraph to stdout.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/duration_text.h"
#include "common/error.h"
#include "search/progress.h"
#include "search/tuner.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

struct SampleOptions {
  std::vector<std::string> specs;  // JSON spec files
  std::string db;                  // tuning database file
  int count = 100;                 // new schedules measured per subgraph
  uint64_t seed = 1;               // sampling seed
  int batch = 8;                   // candidates built together
  double mutate_fraction = 0.5;    // share of candidates that mutate a measured schedule
  int min_repeats = 3;             // timed runs at least
  double repeat_min_ms = 30;       // timed milliseconds at least
  int threads = 0;                 // kernel threads; 0 = every core
  int build_threads = 0;           // concurrent compiles; 0 = every core
  std::vector<std::string> argv;   // the command line, for the runs table
};

void check_sample_options(const SampleOptions& opt) {
  if (opt.specs.empty()) throw UserError("sample: give at least one SPEC file");
  if (opt.db.empty()) throw UserError("sample: --db FILE is required");
  if (opt.count < 1) throw UserError(format_user_error("--count", "", "expected >= 1, found " + std::to_string(opt.count)));
  if (opt.batch < 1) throw UserError(format_user_error("--batch", "", "expected >= 1, found " + std::to_string(opt.batch)));
  if (opt.mutate_fraction < 0 || opt.mutate_fraction > 1) {
    throw UserError(format_user_error("--mutate-fraction", "", "expected a value in [0, 1]"));
  }
}

// The tuning run's options for sampling: random search with mutations, `count` trials per
// subgraph on this CPU, no cost model trained.
search::TuneOptions sampling_run(const SampleOptions& opt) {
  search::TuneOptions o;
  o.db_path = opt.db;
  o.device = targets::detect_host_device();
  o.budget.trials = opt.count * static_cast<int>(opt.specs.size());
  o.budget.text = std::to_string(opt.count) + " schedules per subgraph";
  o.trials_per_task = opt.count;
  o.train_model = false;
  o.search.random_search = true;
  o.search.mutate_fraction = opt.mutate_fraction;
  o.search.naive_first = true;
  o.search.batch = opt.batch;
  o.threads = opt.threads;
  o.build_threads = opt.build_threads;
  o.seed = opt.seed;
  o.repeat_min_ms = opt.repeat_min_ms;
  o.min_repeats = opt.min_repeats;
  o.command = opt.argv;
  return o;
}

int run_sample(const SampleOptions& opt) {
  check_sample_options(opt);
  std::vector<std::unique_ptr<subgraphs::Subgraph>> subgraphs;
  for (const std::string& path : opt.specs) subgraphs.push_back(subgraphs::load_spec_subgraph(path));
  search::TuneOptions options = sampling_run(opt);
  search::Progress progress(isatty(STDERR_FILENO) != 0, "", std::nullopt, options.budget.trials);
  search::Tuner tuner(std::move(options), std::move(subgraphs), progress);
  const std::atomic<int> never_stop{0};
  const search::TuneSummary summary = tuner.run(never_stop);
  for (const search::TaskSummary& t : summary.tasks) {
    std::printf("%-20s measured %4d  ok %4d  best %s\n", t.name.c_str(), t.trials_this_run, t.ok_this_run,
                ktune::format_ns(t.best_ns).c_str());
    if (!t.stopped.empty()) std::printf("%s: %s\n", t.name.c_str(), t.stopped.c_str());
  }
  return kExitOk;
}

}  // namespace

CommandRunner register_sample(CLI::App& sub) {
  auto opt = std::make_shared<SampleOptions>();
  sub.add_option("specs", opt->specs, "JSON spec files of the subgraphs")->required();
  sub.add_option("--db", opt->db, "tuning database file (created if missing)")->required();
  sub.add_option("--count", opt->count, "new schedules measured per subgraph")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  sub.add_option("--seed", opt->seed, "sampling seed")->capture_default_str();
  sub.add_option("--batch", opt->batch, "candidates built together")->check(CLI::Range(1, 4096))->capture_default_str();
  sub.add_option("--mutate-fraction", opt->mutate_fraction, "share of candidates mutated from measured schedules")
      ->check(finite_range(0, 1))
      ->capture_default_str();
  check_timing_flags(
      sub.add_option("--repeat-min-ms", opt->repeat_min_ms, "time each kernel for at least this many ms")->capture_default_str(),
      sub.add_option("--min-repeats", opt->min_repeats, "time each kernel at least this many times")->capture_default_str());
  sub.add_option("--threads", opt->threads, "kernel threads (0 = every core)")->check(thread_count())->capture_default_str();
  sub.add_option("--build-threads", opt->build_threads, "concurrent compiles (0 = every core)")
      ->check(thread_count())
      ->capture_default_str();
  return [opt] {
    opt->argv = {"ktune", "sample", "--db", opt->db, "--count", std::to_string(opt->count), "--seed",
                 std::to_string(opt->seed)};
    for (const std::string& spec : opt->specs) opt->argv.push_back(spec);
    return run_sample(*opt);
  };
}

}  // namespace ktune::cli
