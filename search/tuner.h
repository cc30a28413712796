// Tuner: the overnight tuning run. For each round, the TaskScheduler picks a subgraph, the
// EvolutionarySearch proposes candidates, the Measurer (search/measurer.h: this machine,
// or measuring MPI ranks) builds and times them, every result is committed to the
// database as it arrives, and the cost model is retrained from the database. Running again
// (or with --resume) continues where a run stopped: trial counts, measured schedules and
// the model come from the database, and no schedule is measured twice on the same device.
// A CUDA device must be a GPU of this machine: kernels are JIT-compiled for the host plus
// the GPU, and each timed run waits for the device.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/halide_version.h"
#include "common/version.h"
#include "search/budget.h"
#include "search/evolutionary_search.h"
#include "search/local_measurer.h"
#include "search/measurer.h"
#include "search/task_scheduler.h"
#include "targets/device.h"

namespace ktune::subgraphs {
class Subgraph;
}

namespace ktune::scheduler {
struct TargetInfo;
}

namespace ktune::search {

class Progress;
namespace internal {
struct Task;
}

struct TuneOptions {
  std::string db_path;                 // SQLite file (created if missing)
  targets::Device device;              // what the schedules are tuned for
  Budget budget;                       // time and/or trials of this run
  SearchParams search;                 // population, generations, batch, epsilon
  int threads = 0;                     // threads each kernel runs with; 0 = every core
  uint64_t seed = 1;                   // search and sampling seed
  double repeat_min_ms = 100;          // timing protocol: minimum total timed time per candidate
  // A subgraph none of whose candidates ever ran is given up after this many failures in
  // a row (at least two rounds' worth), and its budget goes to the others.
  int give_up_after = 16;
  int min_repeats = 5;                 // timing protocol: minimum timed runs per candidate
  int trials_per_task = 0;             // a subgraph leaves the run after this many trials of it; 0: no cap
  bool train_model = true;             // retrain the cost model as measurements arrive (sampling runs do not)
  int build_threads = 0;               // concurrent compiles; 0 = every core
  TaskSchedulerParams task_scheduler;  // how rounds are split across the subgraphs
  // A subgraph's roofline times on this device (the task scheduler's gap rule); unset, or 0
  // for a subgraph, when unknown.
  std::function<RooflineTimes(const subgraphs::Subgraph&)> roofline;
  std::vector<std::string> command;    // the command line, for the runs table
  std::string ktune_version = ::ktune::ktune_version();  // stamped on every row (tests stamp others)
  std::string halide_version = kHalideVersion;           // stamped on every row
};

// One subgraph at the end of a run.
struct TaskSummary {
  std::string name;
  std::string workload_key;
  int trials = 0;             // schedules measured on this device, all runs
  int trials_this_run = 0;    // of which in this run
  int ok_this_run = 0;        // of those, measured ok
  double best_ns = -1;        // best median; -1 when nothing measured ok
  double first_ns = -1;       // first median this run measured; -1 when none
  double heuristic_ns = -1;   // the heuristic schedule's median; -1 when not measured
  double flops = 0;           // per call
  double bytes = 0;           // compulsory bytes per call
  double roofline_ns = 0;     // its roofline time on this device; 0 when unknown
  std::vector<double> best_history;  // best ok median after each trial of this run (-1 until one is ok)
  // Why the run stopped tuning this subgraph before the budget ended (its reference could
  // not be computed, or a streak of candidates failed without any ever running); empty
  // when it was tuned until the end.
  std::string stopped;
};

struct TuneSummary {
  std::vector<TaskSummary> tasks;
  bool interrupted = false;   // stopped by a signal before the budget ended
  double elapsed_s = 0;
  int trials = 0;             // measured in this run
  std::string db_path;
  // How much faster than its measured peak the machine computed: the fastest compute-bound
  // subgraph's roofline share (TaskScheduler::peak_correction); 1 when none beat it.
  double peak_correction = 1;
};

// How this machine measures a run with `options`: its timing protocol, kernel threads,
// concurrent compiles, JIT target and host name (a measuring MPI rank measures so too).
LocalMeasurerOptions local_measurer_options(const TuneOptions& options);

class Tuner {
 public:
  // `measurer` builds and times the candidates; null means this machine (LocalMeasurer).
  Tuner(TuneOptions options, std::vector<std::unique_ptr<subgraphs::Subgraph>> subgraphs, Progress& progress,
        std::unique_ptr<Measurer> measurer = nullptr);
  ~Tuner();

  // Runs until the budget ends or `stop` becomes non-zero (between candidates, and within a
  // round's search and compiles). The time budget counts from the construction: analysis,
  // references and model training spend it too.
  TuneSummary run(const std::atomic<int>& stop);

 private:
  // Analyzes `subgraph` into `t` (space and features), first in a child bounded by the time
  // budget; returns why it cannot be tuned, or empty. Refuses once a stop is requested
  // (common/stop_request.h).
  std::string analyze_task(const subgraphs::Subgraph& subgraph, const scheduler::TargetInfo& target,
                           internal::Task& t) const;

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ktune::search
