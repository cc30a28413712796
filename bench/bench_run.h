// `ktune bench` without the command line: for each subgraph, measures ktune's best stored
// schedule and its heuristic schedule, Halide's autoschedulers and the OpenBLAS and oneDNN
// baselines with one protocol (same seeded inputs, same reference check, same thread count,
// same repeat rules), in interleaved rounds (A B C A B C ...) so that drift of a noisy
// machine hits every method alike, and sets each against the device's roofline.
//
//   BenchReport report = run_bench(subgraphs, &db, detect_host_device(), options, progress);
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/bench_methods.h"
#include "bench/halide_autoschedulers.h"
#include "bench/roofline.h"
#include "measure/measure_result.h"
#include "measure/timing_protocol.h"
#include "subgraphs/subgraph.h"
#include "targets/device.h"

namespace ktune::tuning_db {
class TuningDb;
}

namespace ktune::bench {

struct BenchOptions {
  // Threads of every method (Halide kernels, OpenBLAS, oneDNN, the microbenchmarks); 0
  // means every core this process may use.
  int threads = 0;
  // Warm-up and repeat rules of every timed run.
  measure::TimingProtocol timing;
  // Interleaved rounds; a method's rounds are combined (measure::combine_rounds); >= 1.
  int rounds = 3;
  // Methods to run (names from bench_methods.h's table); empty means all.
  std::vector<std::string> methods;
  // Folder of schedules written by hand, one per subgraph (<name>.json, ktune schedule JSON):
  // the "expert" method. Empty: the method is not run.
  std::string expert_dir;
  // Limit of one autoscheduler scheduling and compiling one subgraph, milliseconds.
  double autoscheduler_timeout_ms = 300000;
  // Limit of one isolated timed run of any method, milliseconds.
  double run_timeout_ms = 120000;
  // Where the autoscheduler plugins are.
  std::string plugin_dir = default_plugin_dir();
  // Seed of the inputs every method sees.
  uint64_t input_seed = 1;
  // Halide methods allocate as in a user's AOT build (measure::RunOptions::aot_allocation);
  // false: from the measuring process's warm heap, as earlier versions measured.
  bool aot_allocation = true;
  // Microbenchmark settings (threads is overridden by `threads`).
  RooflineOptions roofline;
};

// One method's outcome on one subgraph.
struct MethodRow {
  std::string method;              // a name from bench_method_names()
  std::string status;              // bench result status: ok, failed, wrong_result, crash, timeout, unsupported
  measure::MeasureResult result;   // the combined measurement (timings valid when status is ok)
  std::string detail;              // failure reason, routine, schedule hash, machine params...
};

struct SubgraphBench {
  std::string name;          // subgraph name
  std::string workload_key;  // its workload key
  double flops = 0;          // FLOPs per call
  double bytes = 0;          // compulsory bytes per call
  double roofline_ns = 0;    // max(flops / peak, bytes / bandwidth)
  std::vector<MethodRow> rows;  // in bench_method_names() order, only the methods run
  // The row of `method`, or null.
  const MethodRow* row(const std::string& method) const;
};

struct BenchReport {
  std::string device_key;          // the device measured
  std::string device_description;  // one line (targets::describe)
  int threads = 0;                 // threads of every method
  AutoschedulerParams machine_params;  // what the autoschedulers were given
  Roofline roofline;               // the measured limits
  measure::TimingProtocol timing;  // the protocol used
  int rounds = 0;                  // interleaved rounds
  std::string openmp_wait_policy;  // OMP_WAIT_POLICY oneDNN's threads ran with; empty: the default
  std::vector<SubgraphBench> subgraphs;
};

// Runs the bench. `db` (may be null) supplies ktune's best schedules for `device`; the
// ktune row is "not tuned" when it has none. `progress` gets one line per step (for
// stderr); `on_subgraph` is called as each subgraph completes (to store its rows).
// Never throws for a method's failure; throws UserError for an unknown method name.
BenchReport run_bench(const std::vector<const subgraphs::Subgraph*>& subgraphs, tuning_db::TuningDb* db,
                      const targets::Device& device, const BenchOptions& options,
                      const std::function<void(const std::string&)>& progress,
                      const std::function<void(const BenchReport&, const SubgraphBench&)>& on_subgraph = {});

// Bench status of a measurement: ok, wrong_result, crash, timeout or failed.
std::string bench_status(const measure::MeasureResult& result);

}  // namespace ktune::bench
