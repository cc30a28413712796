// Entry point: run_bench. Per subgraph: collect the Halide candidates (ktune's best, its
// heuristic, each autoscheduler that survived its probe in a child), build them together,
// prepare the library baselines, then measure every contender once per round, in turn.
#include "bench/bench_run.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

#include "bench/library_kernel.h"
#include "bench/library_runner.h"
#include "common/error.h"
#include "measure/builder.h"
#include "measure/retime.h"
#include "measure/runner.h"
#include "measure/usable_cores.h"
#include "measure/workload_data.h"
#include "schedule_store/stored_schedule.h"
#include "scheduler/apply.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/built_pipeline.h"
#include "subgraphs/generator_loader.h"
#include "subgraphs/spec_subgraph.h"
#include "tuning_db/tuning_db.h"

namespace ktune::bench {
namespace {

std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f s", ms / 1000);
  return buf;
}

// One method to measure in the rounds: a built Halide candidate or a library baseline.
struct Contender {
  size_t row = 0;                         // index into SubgraphBench::rows
  const measure::BuiltCandidate* built = nullptr;
  const LibraryMethod* library = nullptr;
  std::vector<measure::MeasureResult> runs;
  bool failed = false;                    // a round failed: no further rounds
};

bool wanted(const BenchOptions& options, const std::string& method) {
  return options.methods.empty() ||
         std::find(options.methods.begin(), options.methods.end(), method) != options.methods.end();
}

}  // namespace

const std::vector<std::string>& bench_method_names() {
  static const std::vector<std::string> names = {"ktune",  "ktune-heuristic", "hand",   "Adams2019",
                                                 "Mullapudi2016", "Li2018", "openblas", "onednn"};
  return names;
}

std::string bench_status(const measure::MeasureResult& r) {
  switch (r.status) {
    case measure::MeasureStatus::kOk: return "ok";
    case measure::MeasureStatus::kWrongResult: return "wrong_result";
    case measure::MeasureStatus::kCrash: return "crash";
    case measure::MeasureStatus::kRunTimeout:
    case measure::MeasureStatus::kBuildTimeout: return "timeout";
    default: return "failed";
  }
}

const MethodRow* SubgraphBench::row(const std::string& method) const {
  for (const MethodRow& r : rows) {
    if (r.method == method) return &r;
  }
  return nullptr;
}

BenchReport run_bench(const std::vector<const subgraphs::Subgraph*>& subgraphs, tuning_db::TuningDb* db,
                      const targets::Device& device, const BenchOptions& options,
                      const std::function<void(const std::string&)>& progress,
                      const std::function<void(const BenchReport&, const SubgraphBench&)>& on_subgraph) {
  for (const std::string& m : options.methods) {
    const auto& names = bench_method_names();
    if (std::find(names.begin(), names.end(), m) == names.end()) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      throw UserError("bench: --methods: unknown method \"" + m + "\" (expected some of " + list + ")");
    }
  }
  BenchReport report;
  report.device_key = targets::device_key(device);
  report.device_description = targets::describe(device);
  report.threads = options.threads > 0 ? options.threads : measure::usable_cores();
  report.machine_params = machine_params_for(device, report.threads);
  report.timing = options.timing;
  report.rounds = std::max(1, options.rounds);
  if (const char* policy = std::getenv("OMP_WAIT_POLICY")) report.openmp_wait_policy = policy;

  progress("measuring the roofline (peak FLOP/s, triad bandwidth) with " + std::to_string(report.threads) + " threads");
  RooflineOptions roofline = options.roofline;
  roofline.threads = report.threads;
  if (roofline.llc_bytes <= 0) roofline.llc_bytes = device.llc_bytes;
  report.roofline = measure_roofline(roofline);
  progress(report.roofline.describe());

  measure::RunOptions run_options;
  run_options.threads = report.threads;
  run_options.timing = options.timing;
  run_options.timeout_slowdown = 1e9;  // every method gets the same absolute limit
  run_options.timeout_cap_ms = options.run_timeout_ms;
  run_options.input_seed = options.input_seed;
  measure::Runner runner(run_options);
  const scheduler::TargetInfo target_info = scheduler::target_info_from_device(device);

  for (const subgraphs::Subgraph* sg : subgraphs) {
    SubgraphBench bench;
    bench.name = sg->name();
    bench.workload_key = sg->key().key;
    bench.flops = sg->flops();
    bench.bytes = sg->compulsory_bytes();
    bench.roofline_ns = report.roofline.time_ns(bench.flops, bench.bytes);
    const std::string prefix = sg->name() + ": ";

    // Halide candidates: ktune's best, its heuristic, the autoschedulers.
    std::vector<measure::Candidate> candidates;
    std::vector<size_t> candidate_rows;
    auto add_row = [&](const std::string& method, const std::string& status, const std::string& detail) {
      MethodRow row;
      row.method = method;
      row.status = status;
      row.detail = detail;
      if (status != "ok") {
        row.result.status = status == "timeout" ? measure::MeasureStatus::kBuildTimeout
                            : status == "crash" ? measure::MeasureStatus::kCrash
                                                : measure::MeasureStatus::kBuildError;
        row.result.message = detail;
      }
      bench.rows.push_back(row);
      return bench.rows.size() - 1;
    };
    std::optional<scheduler::Space> space;
    std::string space_error;
    if (wanted(options, "ktune") || wanted(options, "ktune-heuristic")) {
      try {
        space.emplace(scheduler::analyze(*sg, target_info));
      } catch (const std::exception& e) {
        space_error = std::string("analysis failed: ") + e.what();
      }
    }
    if (wanted(options, "ktune")) {
      std::optional<tuning_db::BestEntry> best;
      if (db) best = db->best(sg->key().key, report.device_key);
      if (!best) {
        add_row("ktune", "unsupported", "not tuned: the database has no ok measurement of this workload on this device");
      } else if (!space) {
        add_row("ktune", "failed", space_error);
      } else {
        try {
          const scheduler::Schedule schedule =
              schedule_store::parse_stored_schedule(best->schedule_json, "schedule " + best->schedule_hash);
          candidates.push_back({sg, best->schedule_hash, scheduler::make_applier(schedule, space->analysis()), "ktune"});
          candidate_rows.push_back(add_row("ktune", "ok",
                                           "schedule " + best->schedule_hash.substr(0, 12) + ", best of " +
                                               std::to_string(best->candidates) + " measured"));
        } catch (const std::exception& e) {
          add_row("ktune", "failed", std::string("stored schedule unusable: ") + e.what());
        }
      }
    }
    if (wanted(options, "ktune-heuristic")) {
      if (!space) {
        add_row("ktune-heuristic", "failed", space_error);
      } else {
        const scheduler::Schedule h = space->heuristic();
        candidates.push_back({sg, h.hash(), scheduler::make_applier(h, space->analysis()), "ktune-heuristic"});
        candidate_rows.push_back(add_row("ktune-heuristic", "ok", "schedule " + h.hash().substr(0, 12)));
      }
    }
    if (wanted(options, "hand")) {
      // A Generator's own schedule, as its author wrote it.
      if (const auto* gen = dynamic_cast<const subgraphs::GeneratorSubgraph*>(sg)) {
        measure::Candidate hand{sg, "hand", nullptr, "hand"};
        hand.build = [gen] { return gen->build_with_own_schedule(); };
        candidates.push_back(hand);
        candidate_rows.push_back(add_row("hand", "ok", "the Generator's own schedule (auto_schedule=false)"));
      } else {
        add_row("hand", "unsupported", "not a Generator: a spec has no schedule of its own");
      }
    }
    bool any_autoscheduler = false;
    for (const std::string& name : autoscheduler_names()) {
      if (!wanted(options, name)) continue;
      const std::string params = "machine params " + report.machine_params.to_string();
      const std::string load_error = load_autoscheduler(name, options.plugin_dir);
      if (!load_error.empty()) {
        add_row(name, "failed", load_error);
        continue;
      }
      progress(prefix + name + " scheduling and compiling in a child process");
      const ProbeResult probe =
          probe_autoscheduler(*sg, name, report.machine_params, "", options.autoscheduler_timeout_ms);
      if (probe.status != "ok") {
        progress(prefix + probe.message);
        add_row(name, probe.status, probe.message + "; " + params);
        continue;
      }
      candidates.push_back(autoscheduler_candidate(*sg, name, report.machine_params, ""));
      candidate_rows.push_back(add_row(name, "ok", params + "; scheduled and compiled in " + format_ms(probe.wall_ms)));
      any_autoscheduler = true;
    }

    // Build the Halide candidates together.
    measure::BuildBatch batch;
    if (!candidates.empty()) {
      progress(prefix + "building " + std::to_string(candidates.size()) + " Halide kernels");
      measure::BuildOptions build_options;
      build_options.timeout_ms = options.autoscheduler_timeout_ms;
      std::optional<QuietStderr> quiet;
      if (any_autoscheduler) quiet.emplace();
      batch = measure::build_candidates(candidates, build_options);
    }

    // Library baselines.
    std::vector<LibraryMethod> libraries;
    std::shared_ptr<const measure::WorkloadData> data;
    BenchInputs inputs;
    const auto* spec_sg = dynamic_cast<const subgraphs::SpecSubgraph*>(sg);
    const PlanMatch match =
        spec_sg ? match_library_plan(spec_sg->spec()) : PlanMatch{std::nullopt, "a Generator, not a spec"};
    if (wanted(options, "openblas")) libraries.push_back(openblas_method(match));
    if (wanted(options, "onednn")) libraries.push_back(onednn_method(match));
    std::vector<size_t> library_rows;
    for (const LibraryMethod& lib : libraries) {
      library_rows.push_back(add_row(lib.method, lib.unsupported.empty() ? "ok" : "unsupported",
                                     lib.unsupported.empty() ? lib.routine : lib.unsupported));
    }
    const bool any_library =
        std::any_of(libraries.begin(), libraries.end(), [](const LibraryMethod& l) { return l.unsupported.empty(); });
    if (any_library) {
      progress(prefix + "preparing inputs and the reference for the libraries");
      data = runner.workload_data(*sg);  // the same inputs and reference the Runner uses
      for (const auto& b : data->inputs) inputs.inputs.push_back(static_cast<const float*>(b.data()));
      inputs.output = sg->outputs().front();
      if (!data->reference.empty()) inputs.reference = &data->reference.front();
    }

    // The contenders, measured in interleaved rounds.
    std::vector<Contender> contenders;
    for (size_t i = 0; i < batch.candidates.size(); ++i) {
      Contender c;
      c.row = candidate_rows[i];
      c.built = &batch.candidates[i];
      if (!c.built->build.ok()) {
        bench.rows[c.row].status = bench_status(c.built->build);
        bench.rows[c.row].result = c.built->build;
        bench.rows[c.row].detail = "build: " + c.built->build.message + "; " + bench.rows[c.row].detail;
        continue;
      }
      contenders.push_back(c);
    }
    for (size_t i = 0; i < libraries.size(); ++i) {
      if (!libraries[i].unsupported.empty()) continue;
      if (!inputs.reference) {
        bench.rows[library_rows[i]].status = "failed";
        bench.rows[library_rows[i]].detail = data ? data->reference_error : "no reference";
        continue;
      }
      Contender c;
      c.row = library_rows[i];
      c.library = &libraries[i];
      contenders.push_back(c);
    }
    for (int round = 0; round < report.rounds; ++round) {
      for (Contender& c : contenders) {
        if (c.failed) continue;
        progress(prefix + "round " + std::to_string(round + 1) + "/" + std::to_string(report.rounds) + ": " +
                 bench.rows[c.row].method);
        measure::MeasureResult r =
            c.built ? runner.run(*c.built)
                    : run_library_method(*c.library, inputs, report.threads, options.timing, options.run_timeout_ms);
        if (!r.ok()) c.failed = true;
        c.runs.push_back(r);
      }
    }
    for (Contender& c : contenders) {
      MethodRow& row = bench.rows[c.row];
      row.result = measure::combine_rounds(c.runs);
      row.status = bench_status(row.result);
      if (!row.result.ok()) row.detail = row.result.message + "; " + row.detail;
    }
    for (const MethodRow& row : bench.rows) {
      progress(prefix + row.method + ": " + (row.status == "ok" ? measure::describe(row.result) : row.status + ": " + row.detail));
    }
    report.subgraphs.push_back(bench);
    if (on_subgraph) on_subgraph(report, report.subgraphs.back());
  }
  return report;
}

}  // namespace ktune::bench
