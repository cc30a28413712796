// Entry points: Runner::run (one isolated measurement), run_timeout_ms (the limit rule).
// The child's side is internal/child_measure.cc; fork, pipe and poll are in
// common/child_process.cc.
#include "measure/runner.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "common/child_process.h"
#include "measure/internal/child_measure.h"
#include "measure/internal/jit_runtime.h"
#include "measure/report_wire.h"
#include "measure/usable_cores.h"
#include "measure/workload_data.h"

namespace ktune::measure {

// Inputs and references, prepared on first use of each subgraph (keyed by its address:
// two Subgraph objects may share a workload key yet differ in their inputs' seeds).
struct Runner::Workloads {
  std::map<const subgraphs::Subgraph*, std::shared_ptr<WorkloadData>> by_subgraph;
};

namespace {

std::string format_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f ms", ms);
  return buf;
}

// Turns what the child did into a result, given that it did not report normally.
MeasureResult from_abnormal_end(const ChildOutcome& c, double limit_ms,
                                std::optional<double> incumbent_ns) {
  MeasureResult r;
  if (!c.error.empty()) {
    r.status = MeasureStatus::kRuntimeError;
    r.message = "could not start the isolated run: " + c.error;
  } else if (c.timed_out) {
    r.status = MeasureStatus::kRunTimeout;
    char incumbent[64] = ", no incumbent yet";
    if (incumbent_ns) std::snprintf(incumbent, sizeof(incumbent), ", incumbent median %.3g ms", *incumbent_ns / 1e6);
    r.message = "killed after " + format_ms(c.wall_ms) + " (limit " + format_ms(limit_ms) + incumbent + ")";
  } else if (c.signal != 0) {
    r.status = MeasureStatus::kCrash;
    r.signal = c.signal;
    r.message = strsignal(c.signal);
  } else {
    r.status = MeasureStatus::kRuntimeError;
    r.message = "the isolated run exited with code " + std::to_string(c.exit_code) + " without a report";
  }
  return r;
}

}  // namespace

RunOptions run_options_for(int threads, int min_repeats, double min_total_ms) {
  RunOptions o;
  o.threads = threads;
  o.timing.min_repeats = min_repeats;
  o.timing.min_total_ms = min_total_ms;
  return o;
}

double run_timeout_ms(const RunOptions& o, std::optional<double> incumbent_median_ns) {
  if (!incumbent_median_ns) return o.timeout_cap_ms;
  const double full_runs = 2.0 + o.timing.warmup_runs + o.timing.min_repeats;
  double incumbents = o.timeout_slowdown * full_runs;
  if (o.hopeless_slowdown > 0 && o.hopeless_slowdown < o.timeout_slowdown) {
    // Up to the hopeless slowdown a run is timed in full; beyond it, its correctness run is
    // its only sample (one run, and one more of slack).
    const double hopeless_runs = 2.0;
    incumbents = std::max(o.hopeless_slowdown * full_runs, o.timeout_slowdown * hopeless_runs);
  }
  const double relative = o.timeout_floor_ms + o.timing.min_total_ms + (*incumbent_median_ns / 1e6) * incumbents;
  return std::min(o.timeout_cap_ms, relative);
}

TimingProtocol timing_for(const RunOptions& o, std::optional<double> incumbent_median_ns) {
  TimingProtocol timing = o.timing;
  if (o.hopeless_slowdown > 0 && incumbent_median_ns) timing.hopeless_ns = o.hopeless_slowdown * *incumbent_median_ns;
  return timing;
}

Runner::Runner(RunOptions options)
    : options_(options),
      threads_(options.threads > 0 ? options.threads : usable_cores()),
      workloads_(std::make_unique<Workloads>()) {}

Runner::~Runner() = default;

void Runner::note_incumbent(const std::string& workload_key, double median_ns) {
  auto [it, inserted] = incumbents_.emplace(workload_key, median_ns);
  if (!inserted) it->second = std::min(it->second, median_ns);
}

std::optional<double> Runner::incumbent(const std::string& workload_key) const {
  const auto it = incumbents_.find(workload_key);
  if (it == incumbents_.end()) return std::nullopt;
  return it->second;
}

double Runner::timeout_ms(const std::string& workload_key) const {
  return run_timeout_ms(options_, incumbent(workload_key));
}

double Runner::prepare(const subgraphs::Subgraph& subgraph) {
  std::shared_ptr<WorkloadData>& workload = workloads_->by_subgraph[&subgraph];
  if (workload) return 0;
  if (late_builds_in_flight() > 0) wait_for_late_builds(options_.timeout_cap_ms);
  const auto start = std::chrono::steady_clock::now();
  workload = prepare_workload(subgraph, options_.input_seed, options_.reference_timeout_ms);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::shared_ptr<const WorkloadData> Runner::workload_data(const subgraphs::Subgraph& subgraph) {
  prepare(subgraph);
  return workloads_->by_subgraph.at(&subgraph);
}

std::string Runner::reference_error(const subgraphs::Subgraph& subgraph) {
  return workload_data(subgraph)->reference_error;
}

MeasureResult Runner::run(const BuiltCandidate& candidate) {
  if (!candidate.build.ok() || !candidate.kernel) return candidate.build;
  const subgraphs::Subgraph& subgraph = *candidate.candidate.subgraph;
  prepare(subgraph);
  if (late_builds_in_flight() > 0) wait_for_late_builds(options_.timeout_cap_ms);
  const std::shared_ptr<WorkloadData>& workload = workloads_->by_subgraph.at(&subgraph);

  MeasureResult result;
  if (!workload->reference_error.empty()) {
    result.status = MeasureStatus::kRuntimeError;
    result.message = workload->reference_error;
  } else {
    const CompiledKernel& kernel = *candidate.kernel;
    const std::string& key = subgraph.key().key;
    const std::optional<double> best = incumbent(key);
    const double limit_ms = run_timeout_ms(options_, best);
    internal::shutdown_jit_thread_pool(kernel.target);
    const internal::SetNumThreadsFn set_threads = internal::find_set_num_threads(kernel.target);
    const ChildOutcome child = run_in_child(
        [&](int fd) {
          const MeasureResult r =
              internal::measure_in_child(kernel, *workload, subgraph, timing_for(options_, best), threads_, set_threads,
                                       options_.aot_allocation);
          const std::string bytes = encode_report(r);
          write_all(fd, bytes.data(), bytes.size());
        },
        limit_ms);
    std::optional<MeasureResult> reported;
    if (!child.timed_out && child.signal == 0 && child.exit_code == 0) {
      reported = decode_report(child.output);
    }
    result = reported ? *reported : from_abnormal_end(child, limit_ms, best);
    result.run_wall_ms = child.wall_ms;
    result.threads = threads_;
    if (result.ok()) note_incumbent(key, result.median_ns);
  }
  result.build_ms = candidate.build.build_ms;
  return result;
}

std::vector<MeasureResult> Runner::run_all(const std::vector<BuiltCandidate>& candidates) {
  std::vector<MeasureResult> results;
  results.reserve(candidates.size());
  for (const BuiltCandidate& c : candidates) results.push_back(run(c));
  return results;
}

}  // namespace ktune::measure
