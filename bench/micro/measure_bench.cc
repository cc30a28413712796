// ktune_measure_bench: how fast the measurement layer gets through candidates, and how
// trustworthy its numbers are. It prints
//   1. candidates built and measured per minute on the suite (bench/suite/*.json), each
//      subgraph with four hand-written schedules (naive; compute_root + parallel outer
//      loop; the same + vectorize 8; + vectorize 16), built in parallel then run alone;
//   2. the spread of medians when one schedule is measured 10 times in one process;
//   3. the cost of isolation per run: fork + realize a tiny kernel + exit + waitpid, a
//      whole Runner::run of it, and an in-process realize of the same kernel; measured
//      in a fresh process and again after the suite, since fork() costs more the more
//      memory the parent maps (the suite's inputs and references).
// Usage: ktune_measure_bench [--suite DIR] [--only NAME...] [--build-threads N] [--threads N]
//                            [--min-repeats N] [--repeat-min-ms N] [--stability-runs N]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/child_process.h"
#include "common/error.h"
#include "measure/builder.h"
#include "measure/compare.h"
#include "measure/compiled_kernel.h"
#include "measure/runner.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/spec_subgraph.h"

namespace {

using namespace ktune;
using Clock = std::chrono::steady_clock;

struct BenchOptions {
  std::string suite = KTUNE_SOURCE_DIR "/bench/suite";  // folder of spec files
  std::vector<std::string> only;                         // subgraph names to keep; all when empty
  int build_threads = 0;                                 // concurrent compiles; 0 = every core
  int threads = 0;                                       // kernel threads; 0 = every core
  int min_repeats = 10;                                  // timing protocol
  double repeat_min_ms = 200;                            // timing protocol
  int stability_runs = 10;                               // measurements of the same schedule
  std::string stability_subgraph = "softmax";            // which subgraph (parallel_vec8)
};

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Parallel outer loop and/or vectorized inner loop on one stage whose pure variables,
// innermost first, are `vars`. A 1-D stage is split so that both can apply.
void schedule_stage(Halide::Stage stage, const std::vector<Halide::Var>& vars, bool parallel, int vector) {
  if (vars.empty()) return;
  const Halide::TailStrategy guard = Halide::TailStrategy::GuardWithIf;
  if (vars.size() == 1) {
    if (parallel) {
      Halide::Var xo("xo"), xi("xi");
      stage.split(vars[0], xo, xi, 4096, guard).parallel(xo);
      if (vector > 0) stage.vectorize(xi, vector, guard);
    } else if (vector > 0) {
      stage.vectorize(vars[0], vector, guard);
    }
    return;
  }
  if (parallel) stage.parallel(vars.back());
  if (vector > 0) stage.vectorize(vars.front(), vector, guard);
}

// compute_root for every Func, then the loop directives on every stage.
std::function<void(const subgraphs::BuiltPipeline&)> root_schedule(bool parallel, int vector) {
  return [parallel, vector](const subgraphs::BuiltPipeline& built) {
    for (Halide::Func f : subgraphs::pipeline_funcs(built)) {
      f.compute_root();
      const std::vector<Halide::Var> vars = f.args();
      schedule_stage(f, vars, parallel, vector);
      for (int u = 0; u < f.num_update_definitions(); ++u) schedule_stage(f.update(u), vars, parallel, vector);
    }
  };
}

struct NamedSchedule {
  std::string name;                                          // label and hash
  std::function<void(const subgraphs::BuiltPipeline&)> apply;  // the schedule
};

// Fastest first, so that the incumbent exists when the slow ones run.
std::vector<NamedSchedule> hand_schedules() {
  return {{"parallel_vec16", root_schedule(true, 16)},
          {"parallel_vec8", root_schedule(true, 8)},
          {"parallel", root_schedule(true, 0)},
          {"naive", subgraphs::apply_trivial_schedule}};
}

std::vector<std::unique_ptr<subgraphs::SpecSubgraph>> load_suite(const BenchOptions& opt) {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(opt.suite)) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::unique_ptr<subgraphs::SpecSubgraph>> out;
  for (const std::string& p : paths) {
    auto sg = subgraphs::load_spec_subgraph(p);
    if (opt.only.empty() || std::count(opt.only.begin(), opt.only.end(), sg->name())) out.push_back(std::move(sg));
  }
  if (out.empty()) throw UserError("no spec files selected in " + opt.suite);
  return out;
}

// The Runner's options of --threads, --min-repeats and --repeat-min-ms.
measure::RunOptions run_options(const BenchOptions& opt) {
  return measure::run_options_for(opt.threads, opt.min_repeats, opt.repeat_min_ms);
}

void bench_suite(const BenchOptions& opt) {
  const auto suite = load_suite(opt);
  measure::Runner runner(run_options(opt));
  std::printf("== suite: %zu subgraphs x 4 schedules, protocol: 1 check + %d warm-up + >= %d runs and >= %.0f ms\n",
              suite.size(), runner.options().timing.warmup_runs, opt.min_repeats, opt.repeat_min_ms);
  double reference_ms = 0;
  for (const auto& sg : suite) reference_ms += runner.prepare(*sg);
  std::printf("inputs and references (once per subgraph, in children): %.1f s\n", reference_ms / 1e3);

  std::vector<measure::Candidate> candidates;
  for (const NamedSchedule& s : hand_schedules()) {
    for (const auto& sg : suite) candidates.push_back({sg.get(), s.name, s.apply, s.name});
  }
  measure::BuildOptions build_options;
  build_options.threads = opt.build_threads;
  const measure::BuildBatch batch = measure::build_candidates(candidates, build_options);
  const measure::BuildStats& bs = batch.stats;

  const Clock::time_point run_start = Clock::now();
  const std::vector<measure::MeasureResult> results = runner.run_all(batch.candidates);
  const double run_ms = ms_since(run_start);

  std::printf("%-16s %-15s %-13s %12s %8s %9s %9s %9s\n", "subgraph", "schedule", "status", "median", "IQR%", "GFLOP/s",
              "build ms", "run ms");
  std::map<std::string, int> by_status;
  for (const auto& sg : suite) {
    for (size_t i = 0; i < results.size(); ++i) {
      if (candidates[i].subgraph != sg.get()) continue;
      const measure::MeasureResult& r = results[i];
      ++by_status[std::string(measure::to_string(r.status))];
      if (r.ok()) {
        std::printf("%-16s %-15s %-13s %9.3f ms %7.1f%% %9.2f %9.0f %9.0f\n", sg->name().c_str(),
                    candidates[i].label.c_str(), "ok", r.median_ns / 1e6, 100 * r.spread_ns / r.median_ns,
                    sg->flops() / r.median_ns, r.build_ms, r.run_wall_ms);
      } else {
        std::printf("%-16s %-15s %-13s %12s %8s %9s %9.0f %9.0f  %.60s\n", sg->name().c_str(),
                    candidates[i].label.c_str(), std::string(measure::to_string(r.status)).c_str(), "-", "-", "-",
                    r.build_ms, r.run_wall_ms, r.message.c_str());
      }
    }
  }
  std::string statuses;
  for (const auto& [name, n] : by_status) statuses += (statuses.empty() ? "" : ", ") + name + " " + std::to_string(n);
  const double n = static_cast<double>(candidates.size());
  std::printf("build:   %zu candidates in %.1f s wall with %d threads = %.0f candidates/min "
              "(sum of build times %.1f s, %.2fx from parallel builds)\n",
              candidates.size(), bs.wall_ms / 1e3, bs.threads, bs.per_minute(), bs.sum_build_ms / 1e3,
              bs.sum_build_ms / bs.wall_ms);
  std::printf("measure: %zu candidates in %.1f s, one at a time with %d kernel threads = %.0f candidates/min (%s)\n",
              candidates.size(), run_ms / 1e3, runner.threads(), n * 60000 / run_ms, statuses.c_str());
  std::printf("overall: %.0f candidates/min built and measured (references excluded)\n\n",
              n * 60000 / (bs.wall_ms + run_ms));
}

std::string write_tiny_spec() {
  const std::string path = (std::filesystem::temp_directory_path() / "ktune_measure_bench_tiny.json").string();
  std::ofstream(path) << R"({"name": "tiny", "inputs": [{"name": "a", "shape": [16]}],
    "ops": [{"op": "scale", "inputs": ["a"], "output": "y", "factor": 2}], "outputs": ["y"]})";
  return path;
}

// Resident memory of this process in MiB, from /proc/self/status; -1 if unknown.
double resident_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return -1;
}

void bench_isolation(const BenchOptions& opt, const char* when) {
  std::printf("== isolation overhead per run, %s (parent resident memory %.0f MiB; tiny kernel: 16 floats times 2)\n",
              when, resident_mib());
  const auto tiny = subgraphs::load_spec_subgraph(write_tiny_spec());
  const measure::BuildBatch batch = measure::build_candidates(
      {{tiny.get(), "naive", subgraphs::apply_trivial_schedule, "naive"}}, measure::BuildOptions{});
  const measure::BuiltCandidate& built = batch.candidates.at(0);
  if (!built.build.ok()) throw std::runtime_error("tiny kernel failed to build: " + built.build.message);
  const measure::CompiledKernel& kernel = *built.kernel;
  subgraphs::BuiltPipeline pipeline = kernel.built;
  Halide::Buffer<float> in(16), out(16);
  in.fill(1.f);
  pipeline.inputs[0].set_buffer(in);
  Halide::Pipeline p = pipeline.pipeline;

  const int forks = 200;
  Clock::time_point start = Clock::now();
  int failures = 0;
  for (int i = 0; i < forks; ++i) {
    const auto c = run_in_child([&](int) { p.realize(out, kernel.target); }, 10000);
    failures += c.exit_code != 0;
  }
  const double fork_ms = ms_since(start) / forks;

  measure::RunOptions ro = run_options(opt);
  ro.timing = measure::TimingProtocol{0, 1, 0, 1};
  measure::Runner runner(ro);
  runner.prepare(*tiny);
  const int runs = 100;
  start = Clock::now();
  for (int i = 0; i < runs; ++i) failures += !runner.run(built).ok();
  const double runner_ms = ms_since(start) / runs;

  // This executes the pipeline in this process; it is serial, so Halide's thread pool
  // does not start (and the Runner shuts the pool down before forking anyway).
  const int inproc = 20000;
  out.fill(0.f);
  p.realize(out, kernel.target);
  if (out(0) != 2.f) failures += 1;
  start = Clock::now();
  for (int i = 0; i < inproc; ++i) p.realize(out, kernel.target);
  const double inproc_us = ms_since(start) * 1e3 / inproc;
  std::printf("fork + realize + _exit + waitpid:            %.2f ms per run (%d runs)\n", fork_ms, forks);
  std::printf("Runner::run (check + 1 timed run, pipe, reap): %.2f ms per run (%d runs)\n", runner_ms, runs);
  std::printf("in-process realize:                          %.2f us per run (%d runs)\n", inproc_us, inproc);
  std::printf("isolation overhead: %.2f ms per candidate run%s\n\n", runner_ms - inproc_us / 1e3,
              failures ? " (SOME RUNS FAILED)" : "");
}

void bench_stability(const BenchOptions& opt) {
  BenchOptions one = opt;
  one.only = {opt.stability_subgraph};
  const auto suite = load_suite(one);
  const subgraphs::Subgraph& sg = *suite.at(0);
  const measure::BuildBatch batch = measure::build_candidates(
      {{&sg, "parallel_vec8", root_schedule(true, 8), "parallel_vec8"}}, measure::BuildOptions{});
  measure::Runner runner(run_options(opt));
  runner.prepare(sg);
  std::printf("== stability: %s / parallel_vec8 measured %d times in one process\n", sg.name().c_str(),
              opt.stability_runs);
  std::vector<double> medians;
  for (int i = 0; i < opt.stability_runs; ++i) {
    const measure::MeasureResult r = runner.run(batch.candidates.at(0));
    std::printf("  run %2d: %s\n", i + 1, measure::describe(r).c_str());
    if (r.ok()) medians.push_back(r.median_ns);
  }
  if (medians.size() < 2) return;
  std::printf("\n");
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  std::vector<double> sorted = medians;
  std::sort(sorted.begin(), sorted.end());
  const double med = measure::quantile(sorted, 0.5);
  double mean = 0, var = 0;
  for (double m : medians) mean += m / medians.size();
  for (double m : medians) var += (m - mean) * (m - mean) / (medians.size() - 1);
  std::printf("medians: min %.4f ms, median %.4f ms, max %.4f ms; (max - min) / median = %.1f%%, "
              "stddev / mean = %.1f%%\n",
              *lo / 1e6, med / 1e6, *hi / 1e6, 100 * (*hi - *lo) / med, 100 * std::sqrt(var) / mean);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ktune_measure_bench: throughput, isolation cost and stability of ktune's measurements"};
  BenchOptions opt;
  bool skip_suite = false;
  app.add_option("--suite", opt.suite, "folder of spec files")->capture_default_str();
  app.add_option("--only", opt.only, "measure only these subgraphs of the suite");
  app.add_option("--build-threads", opt.build_threads, "concurrent compiles (0 = every core)")->capture_default_str();
  app.add_option("--threads", opt.threads, "kernel threads (0 = every core)")->capture_default_str();
  app.add_option("--min-repeats", opt.min_repeats, "timing protocol: minimum timed runs")->capture_default_str();
  app.add_option("--repeat-min-ms", opt.repeat_min_ms, "timing protocol: minimum timed total")->capture_default_str();
  app.add_option("--stability-runs", opt.stability_runs, "measurements of one schedule")->capture_default_str();
  app.add_option("--stability-subgraph", opt.stability_subgraph, "suite subgraph for part 3")->capture_default_str();
  app.add_flag("--skip-suite", skip_suite, "only parts 2 and 3");
  CLI11_PARSE(app, argc, argv);
  try {
    bench_isolation(opt, "fresh process");
    if (!skip_suite) bench_suite(opt);
    bench_stability(opt);
    bench_isolation(opt, "after the suite");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune_measure_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
