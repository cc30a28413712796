// `ktune measure SPEC | --generator LIB:NAME [--param k=v] (--schedule FILE | --named naive|heuristic)
//  [--repeat-min-ms N] [--min-repeats N] [--runs N] [--threads N] [--seed N] [--assembly FILE]
//  [--format text|json]`
// Builds one schedule of one subgraph, runs it isolated on the seeded inputs, checks it
// against the reference and times it; prints the status, median, spread, GFLOP/s and GB/s.
// --runs N repeats the isolated run N times and also prints how far the runs' timings spread
// (measure/run_spread.h): the machine's noise between measurements.
// --assembly also writes the kernel's assembly for this machine's target, to read the code
// behind a figure.
// Exit code 0 when the measurement is ok, 1 for any other status, 2 for bad input.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/duration_text.h"
#include "common/error.h"
#include "measure/builder.h"
#include "measure/retime.h"
#include "measure/run_spread.h"
#include "measure/runner.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/c_identifier.h"
#include "targets/device.h"
#include "targets/host_detect.h"
#include "targets/host_target.h"
#include "tools/ktune/cli_util.h"
#include "tools/ktune/commands.h"

namespace ktune::cli {
namespace {

struct MeasureOptions {
  SubgraphOptions subgraph;             // one spec file or one Halide Generator
  std::string schedule_file;            // --schedule FILE: a schedule as JSON
  std::string named;                    // --named naive|heuristic
  double repeat_min_ms = 200;           // minimum total timed time
  int min_repeats = 10;                 // minimum timed runs
  int runs = 1;                         // isolated runs, one after another
  int threads = 0;                      // kernel threads; 0 = every core
  uint64_t seed = 1;                    // seed of the generated inputs
  double timeout_ms = 120000;           // limit of the isolated run
  std::string format = "text";          // text or json
  std::string assembly_file;            // --assembly FILE: where to write the kernel's assembly
  std::string allocation = "aot";       // aot: allocations as in a user's AOT build; process: the warm heap
};

// The schedule named on the command line as a Candidate apply function, and its name.
std::pair<std::function<void(const subgraphs::BuiltPipeline&)>, std::string> schedule_from(
    const MeasureOptions& opt, const scheduler::Space& space) {
  if (!opt.schedule_file.empty() && !opt.named.empty()) {
    throw UserError("measure: give either --schedule FILE or --named NAME, not both");
  }
  scheduler::Schedule schedule;
  if (!opt.schedule_file.empty()) {
    schedule = read_schedule_file(opt.schedule_file);
    if (auto reason = space.validate(schedule)) {
      throw UserError(format_user_error(opt.schedule_file, "", "the schedule is not valid for this subgraph: " + *reason));
    }
  } else if (opt.named == "naive") {
    schedule = space.naive();
  } else if (opt.named == "heuristic") {
    schedule = space.heuristic();
  } else {
    throw UserError("measure: give a schedule with --schedule FILE or --named naive|heuristic");
  }
  return {scheduler::make_applier(schedule, space.analysis()), schedule.hash()};
}

// Compiles the scheduled subgraph ahead of time for this machine's target (without Halide's
// runtime) and writes its assembly to `path`, the kernel named as `ktune export` names it.
// Returns false, having said why, when Halide cannot compile it (the measurement that
// follows reports the same failure as its status).
bool write_assembly(const subgraphs::Subgraph& sg, const std::function<void(const subgraphs::BuiltPipeline&)>& apply,
                    const std::string& path) {
  if (!std::ofstream(path)) throw UserError(format_user_error(path, "", "--assembly: cannot write this file"));
  try {
    const subgraphs::BuiltPipeline built = sg.build();
    apply(built);
    Halide::Pipeline pipeline = built.pipeline;
    const Halide::Target target = Halide::Target(targets::jit_halide_target()).with_feature(Halide::Target::NoRuntime);
    pipeline.compile_to_assembly(path, pipeline.infer_arguments(), targets::c_identifier(sg.name(), "ktune_"), target);
    return true;
  } catch (const Halide::Error& e) {
    std::fprintf(stderr, "ktune: --assembly: compiling %s failed: %s\n", sg.name().c_str(), e.what());
    return false;
  }
}

// `opt.runs` isolated runs of `candidate`, one after another; with --format text each run's
// timing goes to stderr as it ends.
std::vector<measure::MeasureResult> isolated_runs(measure::Runner& runner, const measure::BuiltCandidate& candidate,
                                                  const MeasureOptions& opt) {
  std::vector<measure::MeasureResult> runs;
  for (int i = 0; i < opt.runs; ++i) {
    runs.push_back(runner.run(candidate));
    const measure::MeasureResult& r = runs.back();
    if (opt.runs > 1 && opt.format == "text") {
      std::fprintf(stderr, "run %d/%d: %s\n", i + 1, opt.runs,
                   r.ok() ? ("median " + ktune::format_ns(r.median_ns) + ", min " + ktune::format_ns(r.min_ns)).c_str()
                          : std::string(measure::to_string(r.status)).c_str());
    }
  }
  return runs;
}

// Every run's result and their spread, for --format json.
nlohmann::json between_runs_json(const std::vector<measure::MeasureResult>& runs, const measure::RunSpread& between) {
  nlohmann::json each = nlohmann::json::array();
  for (const measure::MeasureResult& r : runs) each.push_back(measure::to_json(r));
  return {{"runs", each},
          {"ok_runs", between.runs},
          {"sd_log_median", between.sd_log_median},
          {"sd_log_min", between.sd_log_min},
          {"fastest_median_ns", between.fastest_median_ns},
          {"slowest_median_ns", between.slowest_median_ns}};
}

// One line of the spread between the runs, for --format text.
void print_between_runs(const measure::RunSpread& between) {
  if (between.runs < 2) {
    std::printf("runs      %d ok: no spread between runs\n", between.runs);
    return;
  }
  std::printf("runs      %d ok isolated runs: medians from %s to %s; between runs they spread %.1f%% (median), "
              "%.1f%% (min) (sd of log)\n",
              between.runs, ktune::format_ns(between.fastest_median_ns).c_str(),
              ktune::format_ns(between.slowest_median_ns).c_str(), 100.0 * between.sd_log_median,
              100.0 * between.sd_log_min);
}

int run_measure(const MeasureOptions& opt) {
  const SubgraphOptions& named = opt.subgraph;
  if (named.specs.empty() == named.generators.empty()) {
    throw UserError("measure: give exactly one SPEC file or --generator LIB:NAME");
  }
  if (!named.params.empty() && named.generators.empty()) {
    throw UserError("measure: --param sets generator parameters and needs --generator");
  }
  if ((!named.inputs.empty() || !named.input_ranges.empty()) && named.generators.empty()) {
    throw UserError("measure: --input and --input-range set generator inputs and need --generator");
  }
  if (opt.runs < 1) throw UserError("measure: --runs: expected >= 1, found " + std::to_string(opt.runs));
  if (opt.min_repeats < 1) throw UserError("measure: --min-repeats: expected >= 1, found " + std::to_string(opt.min_repeats));
  if (opt.repeat_min_ms < 0) throw UserError("measure: --repeat-min-ms: expected >= 0");
  if (opt.threads < 0) throw UserError("measure: --threads: expected >= 0 (0 = every core)");
  const std::unique_ptr<subgraphs::Subgraph> sg = std::move(named.load().front());
  const targets::Device host = targets::detect_host_device();
  const scheduler::Space space(scheduler::analyze(*sg, scheduler::target_info_from_device(host)));
  const auto [apply, schedule_hash] = schedule_from(opt, space);
  const std::string schedule_name = opt.named.empty() ? opt.schedule_file : opt.named;
  if (!opt.assembly_file.empty() && write_assembly(*sg, apply, opt.assembly_file) && opt.format == "text") {
    std::fprintf(stderr, "wrote the assembly to %s\n", opt.assembly_file.c_str());
  }

  if (opt.format == "text") std::fprintf(stderr, "building %s (%s) ...\n", sg->name().c_str(), schedule_name.c_str());
  measure::BuildOptions build_options;
  build_options.threads = 1;
  const measure::BuildBatch batch =
      measure::build_candidates({measure::Candidate{sg.get(), schedule_hash, apply, schedule_name}}, build_options);
  measure::RunOptions run_options = measure::run_options_for(opt.threads, opt.min_repeats, opt.repeat_min_ms);
  run_options.timeout_cap_ms = opt.timeout_ms;
  run_options.input_seed = opt.seed;
  run_options.aot_allocation = opt.allocation == "aot";
  measure::Runner runner(run_options);
  if (opt.format == "text") std::fprintf(stderr, "measuring with %d threads ...\n", runner.threads());
  const std::vector<measure::MeasureResult> runs = isolated_runs(runner, batch.candidates[0], opt);
  const measure::MeasureResult r = runs.size() == 1 ? runs[0] : measure::combine_rounds(runs);
  const measure::RunSpread between = measure::spread_between_runs(runs);

  const double gflops = r.ok() && r.median_ns > 0 ? sg->flops() / r.median_ns : -1;
  const double gbytes = r.ok() && r.median_ns > 0 ? sg->compulsory_bytes() / r.median_ns : -1;
  if (opt.format == "json") {
    nlohmann::json j = measure::to_json(r);
    j.update({{"workload", sg->name()},
              {"workload_key", sg->key().key},
              {"device_key", targets::device_key(host)},
              {"schedule", schedule_name},
              {"schedule_hash", schedule_hash},
              {"gflops_per_s", gflops},
              {"gbytes_per_s", gbytes}});
    if (opt.runs > 1) j["between_runs"] = between_runs_json(runs, between);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("workload  %s (key %s)\n", sg->name().c_str(), sg->key().key.c_str());
    std::printf("schedule  %s (%s)\n", schedule_name.c_str(), schedule_hash.c_str());
    std::printf("status    %s%s%s\n", std::string(measure::to_string(r.status)).c_str(), r.message.empty() ? "" : ": ",
                r.message.c_str());
    if (r.ok()) {
      std::printf("median    %s   min %s   spread (IQR) %s = %.1f%%   %d runs, %d threads\n",
                  ktune::format_ns(r.median_ns).c_str(), ktune::format_ns(r.min_ns).c_str(), ktune::format_ns(r.spread_ns).c_str(),
                  100.0 * r.spread_ns / r.median_ns, r.repeats, r.threads);
      std::printf("rate      %.3g GFLOP/s   %.3g GB/s (compulsory bytes)\n", gflops, gbytes);
      std::printf("check     passed: max error %.2e (floats: of the output's largest value; integers: in units)\n",
                  r.max_error);
    }
    if (opt.runs > 1) print_between_runs(between);
    std::printf("cost      build %.0f ms   isolated run %.0f ms\n", r.build_ms, r.run_wall_ms);
  }
  return r.ok() ? kExitOk : kExitFailure;
}

}  // namespace

CommandRunner register_measure(CLI::App& sub) {
  auto opt = std::make_shared<MeasureOptions>();
  add_subgraph_options(sub, opt->subgraph,
                       {"JSON spec file of the subgraph", "a Halide Generator as LIB:NAME instead of a spec", true});
  sub.add_option("--schedule", opt->schedule_file, "a schedule as JSON (see `ktune space`)");
  sub.add_option("--named", opt->named, "a named schedule: naive (everything at root, serial) or heuristic")
      ->check(CLI::IsMember({"naive", "heuristic"}));
  check_timing_flags(sub.add_option("--repeat-min-ms", opt->repeat_min_ms, "time the kernel for at least this many ms in total")
                         ->capture_default_str(),
                     sub.add_option("--min-repeats", opt->min_repeats, "time the kernel at least this many times")
                         ->capture_default_str());
  sub.add_option("--runs", opt->runs,
                 "isolated runs, one after another: their timings are combined and their spread printed "
                 "(the machine's noise)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  sub.add_option("--threads", opt->threads, "kernel threads (0 = every core)")->check(thread_count())->capture_default_str();
  add_allocation_option(sub, opt->allocation);
  sub.add_option("--seed", opt->seed, "seed of the generated inputs")->capture_default_str();
  sub.add_option("--timeout-ms", opt->timeout_ms, "kill the isolated run after this many ms")
      ->check(finite_range(1, 86400000))
      ->capture_default_str();
  sub.add_option("--assembly", opt->assembly_file, "also write the kernel's assembly for this machine's target to FILE");
  sub.add_option("--format", opt->format, "output format")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  return [opt] { return run_measure(*opt); };
}

}  // namespace ktune::cli
