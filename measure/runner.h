// The Runner measures built candidates one at a time, each in a forked child so that a
// crash or a hang is recorded instead of taking the process down. The child checks the
// output against the subgraph's reference (a mismatch is never timed), then times the
// kernel with the TimingProtocol using an explicit thread count (default: every core).
//
// Isolation and threads: the parent never executes a pipeline;
// references are computed in a child too. Because the caller might have run one anyway,
// the parent also shuts the JIT thread pool down before every fork, so each child starts
// a pool with all of its workers.
//
// Timeouts follow the incumbent, the best median measured so far for the same workload
// (workload key): a run is killed once it takes `timeout_slowdown` times what the
// incumbent's whole protocol would take, plus a floor, never more than the cap. With a
// hopeless slowdown, a run that many times slower than the incumbent is timed once.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "measure/builder.h"
#include "measure/measure_result.h"
#include "measure/timing_protocol.h"

namespace ktune::subgraphs {
class Subgraph;
}

namespace ktune::measure {
struct WorkloadData;  // measure/workload_data.h

struct RunOptions {
  // Threads a kernel may use (HL_NUM_THREADS in the child); 0 means every core this
  // process may use.
  int threads = 0;
  // Warm-up, minimum repeats, minimum total time and maximum repeats.
  TimingProtocol timing;
  // A run may take this many times the incumbent's expected protocol time; > 1.
  double timeout_slowdown = 20;
  // A run this many times slower than the incumbent is the last one: the correctness run
  // when it already is (TimingProtocol's checked_run_ns), else the first timed run (0: never;
  // the tuner's candidates use it, benchmarks and `ktune measure` time every run in full).
  double hopeless_slowdown = 0;
  // Added to every relative limit (fork, page faults, the correctness check), milliseconds.
  double timeout_floor_ms = 2000;
  // Absolute limit of one run, and the limit when the workload has no incumbent, ms.
  double timeout_cap_ms = 120000;
  // Limit for computing a subgraph's reference in its child, milliseconds.
  double reference_timeout_ms = 600000;
  // Seed of Subgraph::make_inputs: every candidate of a subgraph sees the same inputs.
  uint64_t input_seed = 1;
  // Serve the kernel's allocations as a user's AOT build meets them (large buffers mapped
  // and faulted in per call where glibc would; measure/internal/aot_allocator.h) rather
  // than from the measuring process's warm heap.
  bool aot_allocation = true;
};

// A Runner's options from the flags every measuring command has: `threads` kernel threads
// (--threads; 0: every core), at least `min_repeats` timed runs (--min-repeats) and
// `min_total_ms` timed milliseconds (--repeat-min-ms); the other fields keep their defaults.
RunOptions run_options_for(int threads, int min_repeats, double min_total_ms);

// The run limit in milliseconds for a workload whose incumbent median is
// `incumbent_median_ns` (nullopt: no incumbent, the cap):
//   min(cap, floor + min_total_ms + slowdown * incumbent * (2 + warmup_runs + min_repeats)),
// and with a hopeless slowdown h, which stops a slower run after its correctness run:
//   min(cap, floor + min_total_ms + incumbent * max(h * (2 + warmup_runs + min_repeats),
//                                                   slowdown * 2)).
// A candidate up to `slowdown` times slower than the incumbent always finishes.
double run_timeout_ms(const RunOptions& options, std::optional<double> incumbent_median_ns);

// The timing protocol of a run whose workload's incumbent median is `incumbent_median_ns`:
// options.timing, with hopeless_ns set from options.hopeless_slowdown.
TimingProtocol timing_for(const RunOptions& options, std::optional<double> incumbent_median_ns);

// Use one Runner from one thread: it measures one candidate at a time by design.
class Runner {
 public:
  explicit Runner(RunOptions options = {});
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Measures one candidate. A candidate that did not build is returned as built (status
  // and build_ms). Never throws for anything the candidate does. Waits first for compiles
  // the Builder abandoned (up to the timeout cap), since they would disturb the timing.
  MeasureResult run(const BuiltCandidate& candidate);

  // Makes `subgraph`'s seeded inputs and computes its reference in a child, unless done
  // already; run() does it on first use. Returns the wall time it took in milliseconds (0
  // when already prepared). Like run(), call it only while no compile is running.
  double prepare(const subgraphs::Subgraph& subgraph);

  // Why `subgraph`'s reference could not be computed (preparing it first); empty when it
  // was. Every candidate of such a subgraph fails with this message.
  std::string reference_error(const subgraphs::Subgraph& subgraph);

  // The inputs and reference that prepare() made for `subgraph` (preparing them first), for
  // baselines timed outside the Runner on the same data (ktune bench's libraries).
  std::shared_ptr<const WorkloadData> workload_data(const subgraphs::Subgraph& subgraph);

  // run() for each candidate, in order.
  std::vector<MeasureResult> run_all(const std::vector<BuiltCandidate>& candidates);

  // Records a median measured elsewhere (a database, an earlier process) as a possible
  // incumbent of `workload_key`; the smaller of it and the current one is kept.
  void note_incumbent(const std::string& workload_key, double median_ns);

  // The best median measured or noted for `workload_key`, nullopt if none.
  std::optional<double> incumbent(const std::string& workload_key) const;

  // The run limit now in force for `workload_key`, in milliseconds.
  double timeout_ms(const std::string& workload_key) const;

  // The thread count kernels run with (options.threads resolved).
  int threads() const { return threads_; }
  const RunOptions& options() const { return options_; }

 private:
  struct Workloads;  // per-subgraph inputs and references, defined in runner.cc

  RunOptions options_;
  int threads_ = 1;                         // resolved kernel thread count
  std::map<std::string, double> incumbents_;  // workload key -> best median, ns
  std::unique_ptr<Workloads> workloads_;
};

}  // namespace ktune::measure
