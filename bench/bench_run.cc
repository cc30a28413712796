// Entry point: run_bench. Per subgraph (SubgraphRun): collect the Halide candidates (ktune's
// best, its heuristic, an expert's schedule, a Generator's own, each autoscheduler that
// survived its probe in a child), build them together, prepare the library baselines, then
// measure every contender once per round, in turn.
#include "bench/bench_run.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "bench/library_kernel.h"
#include "bench/library_runner.h"
#include "bench/own_schedule_workload.h"
#include "common/error.h"
#include "common/user_json.h"
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
#include "subgraphs/own_schedule_check.h"
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

namespace {

void check_methods(const BenchOptions& options) {
  const std::string error = unknown_method_error(options.methods);
  if (!error.empty()) throw UserError("bench: --methods: " + error);
}

// One subgraph's bench: its rows, the Halide candidates to build, the library baselines,
// and the contenders measured in rounds.
class SubgraphRun {
 public:
  SubgraphRun(const subgraphs::Subgraph& sg, const BenchReport& report, const BenchOptions& options,
              measure::Runner& runner, const std::function<void(const std::string&)>& progress)
      : sg_(sg), report_(report), options_(options), runner_(runner), progress_(progress), prefix_(sg.name() + ": ") {
    bench_.name = sg.name();
    bench_.workload_key = sg.key().key;
    bench_.flops = sg.flops();
    bench_.bytes = sg.compulsory_bytes();
    bench_.roofline_ns = subgraph_roofline_ns(report.roofline, sg);
  }

  // Collects, builds and measures every wanted method; returns the rows.
  SubgraphBench run(tuning_db::TuningDb* db, const scheduler::TargetInfo& target) {
    analyze_if_needed(target);
    for (const BenchMethod& method : bench_methods()) {
      if (wanted(options_, method.name)) add_halide_method(method, db);
    }
    build_halide_candidates();
    add_libraries();
    collect_contenders();
    measure_in_rounds();
    finish_rows();
    return bench_;
  }

 private:
  size_t add_row(const std::string& method, const std::string& status, const std::string& detail) {
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
    bench_.rows.push_back(row);
    return bench_.rows.size() - 1;
  }

  // Whether a wanted method is a schedule of ktune's space (an expert's only with --expert-dir).
  bool space_wanted() const {
    for (const BenchMethod& m : bench_methods()) {
      const bool schedule = m.source == MethodSource::kStoredBest || m.source == MethodSource::kHeuristic ||
                            (m.source == MethodSource::kExpertFile && !options_.expert_dir.empty());
      if (schedule && wanted(options_, m.name)) return true;
    }
    return false;
  }

  // The schedule space, for the methods that are ktune schedules.
  void analyze_if_needed(const scheduler::TargetInfo& target) {
    if (!space_wanted()) return;
    try {
      space_.emplace(scheduler::analyze(sg_, target));
    } catch (const std::exception& e) {
      space_error_ = std::string("analysis failed: ") + e.what();
    }
  }

  // The Halide candidate of a wanted `method`, or its row saying why it has none. Library
  // methods are added after the Halide candidates are built (add_libraries).
  void add_halide_method(const BenchMethod& method, tuning_db::TuningDb* db) {
    if (method.needs_generator && !dynamic_cast<const subgraphs::GeneratorSubgraph*>(&sg_)) {
      add_row(method.name, "unsupported", "not a Generator: a spec has no schedule of its own");
      return;
    }
    switch (method.source) {
      case MethodSource::kStoredBest: add_ktune_best(method.name, db); break;
      case MethodSource::kHeuristic: add_schedule_method(method.name, [&] { return space_->heuristic(); }, ""); break;
      case MethodSource::kExpertFile: add_expert(method.name); break;
      case MethodSource::kOwnSchedule: add_own_schedule(method.name); break;
      case MethodSource::kAutoscheduler: add_autoscheduler(method.name); break;
      case MethodSource::kLibrary: break;
    }
  }

  // A Halide candidate with `schedule` as `method`, or a failed row saying why not.
  void add_schedule_method(const std::string& method, const std::function<scheduler::Schedule()>& schedule,
                           const std::string& detail) {
    if (!wanted(options_, method)) return;
    if (!space_) {
      add_row(method, "failed", space_error_);
      return;
    }
    try {
      const scheduler::Schedule s = schedule();
      if (auto invalid = space_->validate(s)) {
        add_row(method, "failed", "not a valid schedule here: " + *invalid);
        return;
      }
      candidates_.push_back({&sg_, s.hash(), scheduler::make_applier(s, space_->analysis()), method});
      candidate_rows_.push_back(add_row(method, "ok", "schedule " + s.hash().substr(0, 12) + detail));
    } catch (const std::exception& e) {
      add_row(method, "failed", e.what());
    }
  }

  // ktune's best schedule of the workload on this device, from the database.
  void add_ktune_best(const std::string& method, tuning_db::TuningDb* db) {
    std::optional<tuning_db::BestEntry> best;
    if (db) best = db->best(sg_.key().key, report_.device_key);
    if (!best) {
      add_row(method, "unsupported", "not tuned: the database has no ok measurement of this workload on this device");
      return;
    }
    add_schedule_method(
        method,
        [&] {
          try {
            return schedule_store::parse_stored_schedule(best->schedule_json, "schedule " + best->schedule_hash);
          } catch (const std::exception& e) {
            throw std::runtime_error(std::string("stored schedule unusable: ") + e.what());
          }
        },
        ", best of " + std::to_string(best->candidates) + " measured");
  }

  // The schedule a performance engineer wrote for this subgraph: <expert_dir>/<name>.json.
  void add_expert(const std::string& method) {
    if (options_.expert_dir.empty()) return;
    const std::string path = options_.expert_dir + "/" + sg_.name() + ".json";
    if (!std::filesystem::exists(path)) {
      add_row(method, "unsupported", "no expert schedule " + path);
      return;
    }
    add_schedule_method(
        method, [&] { return scheduler::Schedule::from_json(read_user_json(path, "expert schedule"), path); },
        " from " + path);
  }

  // A Generator's own schedule, as its author wrote it.
  void add_own_schedule(const std::string& method) {
    const auto* gen = dynamic_cast<const subgraphs::GeneratorSubgraph*>(&sg_);
    std::string detail = "the Generator's own schedule (auto_schedule=false)";
    try {
      // Where its own bound() calls put the outputs, as the Generator's own program runs it.
      OwnScheduleWorkload own = own_schedule_workload(*gen);
      hand_workload_ = std::move(own.subgraph);
      if (hand_workload_) detail += ", at the output region its bounds require: " + own.moved;
    } catch (const std::exception& e) {
      add_row(method, "failed", e.what());
      return;
    }
    measure::Candidate own{hand_workload_ ? hand_workload_.get() : &sg_, method, nullptr, method};
    own.build = [gen] { return gen->build_with_own_schedule(); };
    candidates_.push_back(own);
    candidate_rows_.push_back(add_row(method, "ok", detail));
  }

  // Autoscheduler `name`, if it schedules and compiles the subgraph in a child in time.
  void add_autoscheduler(const std::string& name) {
    const std::string params = "machine params " + report_.machine_params.to_string();
    const std::string load_error = load_autoscheduler(name, options_.plugin_dir);
    if (!load_error.empty()) {
      add_row(name, "failed", load_error);
      return;
    }
    progress_(prefix_ + name + " scheduling and compiling in a child process");
    const ProbeResult probe =
        probe_autoscheduler(sg_, name, report_.machine_params, "", options_.autoscheduler_timeout_ms);
    if (probe.status != "ok") {
      progress_(prefix_ + probe.message);
      add_row(name, probe.status, probe.message + "; " + params);
      return;
    }
    candidates_.push_back(autoscheduler_candidate(sg_, name, report_.machine_params, ""));
    candidate_rows_.push_back(add_row(name, "ok", params + "; scheduled and compiled in " + format_ms(probe.wall_ms)));
    any_autoscheduler_ = true;
  }

  // Builds the Halide candidates together (autoschedulers' chatter on stderr silenced).
  void build_halide_candidates() {
    if (candidates_.empty()) return;
    progress_(prefix_ + "building " + std::to_string(candidates_.size()) + " Halide kernels");
    measure::BuildOptions build_options;
    build_options.timeout_ms = options_.autoscheduler_timeout_ms;
    std::optional<QuietStderr> quiet;
    if (any_autoscheduler_) quiet.emplace();
    batch_ = measure::build_candidates(candidates_, build_options);
  }

  // The library baselines the spec matches, with the inputs and reference the Runner uses.
  void add_libraries() {
    const auto* spec_sg = dynamic_cast<const subgraphs::SpecSubgraph*>(&sg_);
    const PlanMatch match =
        spec_sg ? match_library_plan(spec_sg->spec(), spec_sg->outputs().front().dtype) : PlanMatch{std::nullopt, "a Generator, not a spec"};
    for (const BenchMethod& method : bench_methods()) {
      if (method.source != MethodSource::kLibrary || !wanted(options_, method.name)) continue;
      libraries_.push_back(method.library(match));
      libraries_.back().method = method.name;
    }
    for (const LibraryMethod& lib : libraries_) {
      library_rows_.push_back(add_row(lib.method, lib.unsupported.empty() ? "ok" : "unsupported",
                                      lib.unsupported.empty() ? lib.routine : lib.unsupported));
    }
    const bool any_library =
        std::any_of(libraries_.begin(), libraries_.end(), [](const LibraryMethod& l) { return l.unsupported.empty(); });
    if (!any_library) return;
    progress_(prefix_ + "preparing inputs and the reference for the libraries");
    data_ = runner_.workload_data(sg_);
    for (const auto& b : data_->inputs) inputs_.inputs.push_back(b.data());
    inputs_.output = sg_.outputs().front();
    if (!data_->reference.empty()) inputs_.reference = &data_->reference.front();
  }

  // Every method that built (or is a supported library with a reference) takes part in the rounds.
  void collect_contenders() {
    for (size_t i = 0; i < batch_.candidates.size(); ++i) {
      Contender c;
      c.row = candidate_rows_[i];
      c.built = &batch_.candidates[i];
      if (!c.built->build.ok()) {
        MethodRow& row = bench_.rows[c.row];
        row.status = bench_status(c.built->build);
        row.result = c.built->build;
        row.detail = "build: " + c.built->build.message + "; " + row.detail;
        continue;
      }
      contenders_.push_back(c);
    }
    for (size_t i = 0; i < libraries_.size(); ++i) {
      if (!libraries_[i].unsupported.empty()) continue;
      if (!inputs_.reference) {
        bench_.rows[library_rows_[i]].status = "failed";
        bench_.rows[library_rows_[i]].detail = data_ ? data_->reference_error : "no reference";
        continue;
      }
      Contender c;
      c.row = library_rows_[i];
      c.library = &libraries_[i];
      contenders_.push_back(c);
    }
  }

  // Each contender once per round, in turn, so drifts of the machine hit all of them alike.
  void measure_in_rounds() {
    for (int round = 0; round < report_.rounds; ++round) {
      for (Contender& c : contenders_) {
        if (c.failed) continue;
        progress_(prefix_ + "round " + std::to_string(round + 1) + "/" + std::to_string(report_.rounds) + ": " +
                  bench_.rows[c.row].method);
        measure::MeasureResult r = c.built ? runner_.run(*c.built)
                                           : run_library_method(*c.library, inputs_, report_.threads, options_.timing,
                                                                options_.run_timeout_ms);
        if (!r.ok()) c.failed = true;
        c.runs.push_back(r);
      }
    }
  }

  // The rounds of each contender combined into its row; every row reported.
  void finish_rows() {
    for (Contender& c : contenders_) {
      MethodRow& row = bench_.rows[c.row];
      row.result = measure::combine_rounds(c.runs);
      row.status = bench_status(row.result);
      if (!row.result.ok()) row.detail = row.result.message + "; " + row.detail;
      if (find_method(row.method)->source == MethodSource::kOwnSchedule && row.status == "wrong_result") {
        row.detail = subgraphs::own_schedule_gate_warning(sg_, row.result.message) + " " + row.detail;
      }
    }
    for (const MethodRow& row : bench_.rows) {
      progress_(prefix_ + row.method + ": " +
                (row.status == "ok" ? measure::describe(row.result) : row.status + ": " + row.detail));
    }
  }

  const subgraphs::Subgraph& sg_;
  const BenchReport& report_;
  const BenchOptions& options_;
  measure::Runner& runner_;
  const std::function<void(const std::string&)>& progress_;
  const std::string prefix_;
  SubgraphBench bench_;
  std::optional<scheduler::Space> space_;
  std::string space_error_;
  std::unique_ptr<subgraphs::Subgraph> hand_workload_;  // the hand method's, where its bounds move the outputs
  std::vector<measure::Candidate> candidates_;  // Halide candidates, in row order
  std::vector<size_t> candidate_rows_;          // their rows
  bool any_autoscheduler_ = false;
  measure::BuildBatch batch_;
  std::vector<LibraryMethod> libraries_;
  std::vector<size_t> library_rows_;
  std::shared_ptr<const measure::WorkloadData> data_;
  BenchInputs inputs_;
  std::vector<Contender> contenders_;
};

// The report's header: the device, the threads, the timing protocol, and the roofline.
BenchReport begin_report(const targets::Device& device, const BenchOptions& options,
                         const std::function<void(const std::string&)>& progress) {
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
  return report;
}

// The Runner every Halide method is measured with: the same threads, timing and inputs.
measure::RunOptions bench_run_options(const BenchReport& report, const BenchOptions& options) {
  measure::RunOptions run_options;
  run_options.threads = report.threads;
  run_options.timing = options.timing;
  run_options.timeout_slowdown = 1e9;  // every method gets the same absolute limit
  run_options.timeout_cap_ms = options.run_timeout_ms;
  run_options.input_seed = options.input_seed;
  run_options.aot_allocation = options.aot_allocation;
  return run_options;
}

}  // namespace

BenchReport run_bench(const std::vector<const subgraphs::Subgraph*>& subgraphs, tuning_db::TuningDb* db,
                      const targets::Device& device, const BenchOptions& options,
                      const std::function<void(const std::string&)>& progress,
                      const std::function<void(const BenchReport&, const SubgraphBench&)>& on_subgraph) {
  check_methods(options);
  BenchReport report = begin_report(device, options, progress);
  measure::Runner runner(bench_run_options(report, options));
  const scheduler::TargetInfo target = scheduler::target_info_from_device(device);
  for (const subgraphs::Subgraph* sg : subgraphs) {
    report.subgraphs.push_back(SubgraphRun(*sg, report, options, runner, progress).run(db, target));
    if (on_subgraph) on_subgraph(report, report.subgraphs.back());
  }
  return report;
}

}  // namespace ktune::bench
