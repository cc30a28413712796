// Tests the Tuner with a measurer that takes two rounds at once (as the MPI coordinator
// does): the next round is submitted before the last is collected, no schedule is proposed
// again while it is being measured, the trial budget counts the rounds in flight, and the
// warm-up still gives every subgraph a round. The measuring itself is this machine's. The
// summary carries the task scheduler's correction of a compute peak measured too low.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "search/progress.h"
#include "search/tuner.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "tuning_db/tuning_db.h"

namespace ktune::search {
namespace {

const char* kRelu = R"({"name": "pipelined_relu", "inputs": [{"name": "x", "shape": [64, 64]}],
  "ops": [{"op": "relu", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})";
const char* kSoftmax = R"({"name": "pipelined_softmax", "inputs": [{"name": "x", "shape": [32, 64]}],
  "ops": [{"op": "softmax", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})";

// What the measurer saw, kept by the test (the Tuner owns the measurer).
struct Seen {
  int waiting = 0;       // submitted and not collected
  int most_waiting = 0;
  std::vector<std::string> workloads;  // of each submitted round, in order
};

// This machine's measurer at depth 2: the default submit/collect keep a round until it is collected.
class TwoDeep : public LocalMeasurer {
 public:
  TwoDeep(LocalMeasurerOptions options, Seen& seen) : LocalMeasurer(std::move(options)), seen_(seen) {}
  int depth() const override { return 2; }
  void submit(MeasureRound round) override {
    seen_.most_waiting = std::max(seen_.most_waiting, ++seen_.waiting);
    seen_.workloads.push_back(round.workload_key);
    Measurer::submit(std::move(round));
  }
  void collect(const std::atomic<int>& stop, const ResultFn& on_result) override {
    --seen_.waiting;
    Measurer::collect(stop, on_result);
  }

 private:
  Seen& seen_;
};

TEST(TunerPipelining, TwoRoundsInFlightMeasureEachScheduleOnceWithinTheTrialBudget) {
  const std::string db = (std::filesystem::temp_directory_path() / ("ktune_pipelining_" + std::to_string(getpid()) + ".db")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  TuneOptions options;
  options.db_path = db;
  options.device = targets::detect_host_device();
  options.budget.trials = 18;
  options.search.batch = 4;
  options.search.population = 32;
  options.threads = 1;
  options.repeat_min_ms = 0;
  options.min_repeats = 3;
  options.train_model = false;
  // The relu "compute-bound" at a second: any time beats it, so the correction is the cap.
  options.roofline = [](const subgraphs::Subgraph& sg) {
    return sg.name() == "pipelined_relu" ? RooflineTimes{1e9, 1} : RooflineTimes{0, 1};
  };
  std::vector<std::unique_ptr<subgraphs::Subgraph>> subgraphs;
  for (const char* spec : {kRelu, kSoftmax}) {
    subgraphs.push_back(std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(spec, "spec.json")));
  }
  const std::string first_key = subgraphs[0]->key().key, second_key = subgraphs[1]->key().key;
  Seen seen;
  Progress progress(false, "", std::nullopt, 18);
  auto measurer = std::make_unique<TwoDeep>(local_measurer_options(options), seen);
  Tuner tuner(options, std::move(subgraphs), progress, std::move(measurer));
  const std::atomic<int> no_stop{0};
  const TuneSummary summary = tuner.run(no_stop);

  EXPECT_EQ(summary.trials, 18) << "the rounds in flight count against the trial budget";
  EXPECT_EQ(seen.most_waiting, 2) << "a round was submitted before the one before it was collected";
  EXPECT_EQ(seen.waiting, 0) << "every round was collected before the run ended";
  ASSERT_GE(seen.workloads.size(), 2u);
  EXPECT_EQ(seen.workloads[0], first_key);
  EXPECT_EQ(seen.workloads[1], second_key) << "the warm-up gives the second subgraph a round while the first's is measured";
  tuning_db::OpenOptions open;
  open.mode = sqlite::OpenMode::kReadOnly;
  const tuning_db::DbStats stats = tuning_db::TuningDb::open(db, open).stats();
  EXPECT_EQ(stats.rows.schedules, 18) << "no schedule was proposed twice";
  // Beyond the 18 trials, only the stored best timed again beside a challenger that beat it:
  // at most once per challenger (two in one round can each beat the best of the moment).
  EXPECT_GE(stats.rows.measurements, 18);
  EXPECT_LE(stats.rows.measurements, 2 * 18);
  for (const TaskSummary& t : summary.tasks) EXPECT_GT(t.ok_this_run, 0) << t.name;
  EXPECT_DOUBLE_EQ(summary.tasks[0].roofline_ns, 1e9);
  EXPECT_DOUBLE_EQ(summary.peak_correction, TaskSchedulerParams{}.max_peak_correction);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
}

}  // namespace
}  // namespace ktune::search
