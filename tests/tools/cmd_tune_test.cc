// `ktune tune` as a user runs it: a short run finds a schedule at least as fast as the
// heuristic and stores it as best; a run killed with SIGKILL resumes without measuring a
// schedule twice; SIGINT stops cleanly with exit 0; a heavier subgraph gets more trials.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "scheduler/space.h"
#include "common/duration_text.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/cuda_devices.h"
#include "targets/device.h"
#include "targets/host_detect.h"
#include "tests/tools/cli_runner.h"
#include "tuning_db/sqlite.h"
#include "tuning_db/tuning_db.h"

namespace ktune {
namespace {

using ::testing::HasSubstr;
using testing::run_ktune;
using testing::start_ktune;

std::string data(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/tests/data/" + name; }

// Small, fast settings so that a round takes a few seconds on 2 cores.
const char* kQuick = " --batch 4 --population 32 --generations 1 --repeat-min-ms 10 --min-repeats 3";

std::string fresh_db(const std::string& name) {
  const std::string path = testing::scratch_path(name);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return path;
}

tuning_db::TuningDb open_read(const std::string& path) {
  tuning_db::OpenOptions o;
  o.mode = sqlite::OpenMode::kReadOnly;
  return tuning_db::TuningDb::open(path, o);
}

std::string device_key() { return targets::device_key(targets::detect_host_device()); }

std::string key_of(const std::string& spec) { return subgraphs::load_spec_subgraph(spec)->key().key; }

int64_t measurements_in(const std::string& db_path) {
  if (access(db_path.c_str(), F_OK) != 0) return 0;
  try {
    return open_read(db_path).stats().rows.measurements;
  } catch (const std::exception&) {
    return 0;  // not created yet
  }
}

bool wait_for_measurements(const std::string& db_path, int64_t n, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (measurements_in(db_path) >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

std::vector<std::string> tune_args(const std::vector<std::string>& specs, const std::string& db, int trials) {
  std::vector<std::string> args = {"tune"};
  args.insert(args.end(), specs.begin(), specs.end());
  std::istringstream quick(kQuick);
  for (std::string w; quick >> w;) args.push_back(w);
  args.insert(args.end(), {"--db", db, "--trials", std::to_string(trials)});
  return args;
}

TEST(CmdTune, ShortRunFindsAtLeastTheHeuristicAndStoresIt) {
  const std::string db = fresh_db("short.db");
  const std::string spec = data("tiny_matmul.json");
  const auto r = run_ktune("tune " + spec + kQuick + " --db " + db + " --trials 12 --log " + db + ".log 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("tiny_matmul"));
  EXPECT_THAT(r.out, HasSubstr("Done after"));

  auto store = open_read(db);
  const auto best = store.best(key_of(spec), device_key());
  ASSERT_TRUE(best.has_value());
  // The heuristic was measured, and the stored best is at least as fast.
  const auto sg = subgraphs::load_spec_subgraph(spec);
  const scheduler::Space space(scheduler::analyze(*sg, scheduler::target_info_from_device(targets::detect_host_device())));
  const std::string heuristic = space.heuristic().hash();
  double heuristic_ns = -1;
  for (const auto& e : store.top_k(key_of(spec), device_key(), 1000)) {
    if (e.schedule_hash == heuristic) heuristic_ns = *e.measurement.median_ns;
  }
  ASSERT_GT(heuristic_ns, 0) << "the heuristic is measured first";
  EXPECT_LE(*best->measurement.median_ns, heuristic_ns);
  // One JSON line per round.
  std::ifstream log(db + ".log");
  std::string line;
  int rounds = 0;
  while (std::getline(log, line)) {
    EXPECT_THAT(line, HasSubstr("\"task\":\"tiny_matmul\""));
    ++rounds;
  }
  EXPECT_GE(rounds, 3);
}

TEST(CmdTune, KilledRunResumesWithoutRepeatingASchedule) {
  const std::string db = fresh_db("killed.db");
  const std::string spec = data("tiny_softmax.json");
  const pid_t pid = start_ktune(tune_args({spec}, db, 200), db + ".out");
  ASSERT_TRUE(wait_for_measurements(db, 5, 180)) << "the first run measured too little";
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  const int64_t before = measurements_in(db);
  ASSERT_GE(before, 5);

  const auto r = run_ktune("tune " + spec + kQuick + " --db " + db + " --trials 6 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto store = open_read(db);
  // The resumed run's rows: its 6 trials (each built), and a re-timing of the incumbent (not
  // built again) wherever a challenger's first timing beat it; the killed run's rows stay.
  int64_t trials = 0, retimes = 0;
  for (const tuning_db::MeasurementRecord& m : store.measurement_history(key_of(spec), device_key())) {
    if (m.run_id == 2) ++(m.build_ms ? trials : retimes);
  }
  EXPECT_EQ(trials, 6);
  EXPECT_EQ(store.stats().rows.measurements, before + trials + retimes);
  // Trial counts continue: the summary counts both runs.
  EXPECT_THAT(r.out, HasSubstr(std::to_string(before + 6) + " (6)"));
  // No schedule was measured twice.
  EXPECT_EQ(static_cast<int64_t>(store.measured_schedule_hashes(key_of(spec), device_key()).size()), before + 6);
  EXPECT_EQ(store.stats().rows.runs, 2);
  // The killed run no longer says it is running; the resumed one completed.
  EXPECT_EQ(store.find_run(1)->status, tuning_db::RunStatus::kKilled);
  EXPECT_EQ(store.find_run(2)->status, tuning_db::RunStatus::kCompleted);
  EXPECT_THAT(r.out, HasSubstr("marked as killed"));
}

TEST(CmdTune, SigintStopsCleanlyWithEverythingCommitted) {
  const std::string db = fresh_db("sigint.db");
  const pid_t pid = start_ktune(tune_args({data("tiny_softmax.json")}, db, 500), db + ".out");
  ASSERT_TRUE(wait_for_measurements(db, 2, 180));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream out(db + ".out");
  std::stringstream text;
  text << out.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("Interrupted after"));
  auto store = open_read(db);
  const auto run = store.find_run(1);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, tuning_db::RunStatus::kInterrupted);
  EXPECT_GE(store.stats().rows.measurements, 2);
}

TEST(CmdTune, ASecondSigintEndsAtOnceWithOneLineAnd130) {
  const std::string db = fresh_db("sigint2.db");
  const pid_t pid = start_ktune(tune_args({data("tiny_softmax.json")}, db, 500), db + ".out");
  ASSERT_TRUE(wait_for_measurements(db, 1, 180));
  // Another writer holds the database, so the run cannot finish after the first interrupt
  // (it waits for the lock to commit): the second interrupt is what ends it.
  auto holder = sqlite::Connection::open(db, sqlite::OpenMode::kReadWrite);
  holder.exec("BEGIN EXCLUSIVE");
  kill(pid, SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  holder.exec("ROLLBACK");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  std::ifstream out(db + ".out");
  std::stringstream text;
  text << out.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("ktune: stopping; committing what was measured"));
  EXPECT_THAT(text.str(), HasSubstr("ktune: stopped at once (second interrupt)"));
  EXPECT_GE(measurements_in(db), 1);  // what was committed is there
}

// A wall-clock budget is a limit shared by every task: each gets a first round, and the run
// ends within about one candidate's time of the budget.
TEST(CmdTune, TheBudgetIsALimitAndEveryTaskGetsAFirstRound) {
  const std::string db = fresh_db("budget.db");
  const std::vector<std::string> specs = {data("tiny_matmul.json"), data("tiny_softmax.json"),
                                          data("tiny_matmul_heavy.json")};
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_ktune("tune " + specs[0] + " " + specs[1] + " " + specs[2] + kQuick + " --db " + db +
                           " --budget 20s 2>&1");
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // Startup (analysis, references) counts in the budget; a round builds 4 candidates in
  // about a second each here, so 8 s is a generous bound for one candidate and the exit.
  EXPECT_LT(wall_s, 28) << r.out;
  auto store = open_read(db);
  for (const std::string& spec : specs) {
    EXPECT_GE(store.measured_schedule_hashes(key_of(spec), device_key()).size(), 1u) << spec << "\n" << r.out;
  }
}

// The best that tune prints is the database's best, re-timed: query shows the same figure.
TEST(CmdTune, ThePrintedBestIsTheStoredBest) {
  const std::string db = fresh_db("printed_best.db");
  const std::string spec = data("tiny_softmax.json");
  const auto r = run_ktune("tune " + spec + kQuick + " --db " + db + " --trials 12 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto best = open_read(db).best(key_of(spec), device_key());
  ASSERT_TRUE(best.has_value());
  EXPECT_THAT(r.out, HasSubstr(ktune::format_ns(*best->measurement.median_ns))) << r.out;
}

TEST(CmdTune, HeavierSubgraphGetsMoreTrials) {
  const std::string db = fresh_db("weights.db");
  const std::string light = data("tiny_matmul.json"), heavy = data("tiny_matmul_heavy.json");
  const auto r = run_ktune("tune " + light + " " + heavy + kQuick + " --db " + db + " --trials 32 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto store = open_read(db);
  const size_t light_trials = store.measured_schedule_hashes(key_of(light), device_key()).size();
  const size_t heavy_trials = store.measured_schedule_hashes(key_of(heavy), device_key()).size();
  EXPECT_EQ(light_trials + heavy_trials, 32u);
  EXPECT_GT(heavy_trials, light_trials);
}

// With several CPU subgraphs the default rule measures the roofline first and the summary
// gives each subgraph's percent of it; the time rule needs no roofline.
TEST(CmdTune, TheGapRuleMeasuresTheRooflineAndTheSummaryShowsEachSubgraphsShare) {
  const std::string specs = " " + data("tiny_matmul.json") + " " + data("tiny_softmax.json");
  const auto gap = run_ktune("tune" + specs + kQuick + " --db " + fresh_db("gap_rule.db") + " --trials 8 2>&1");
  ASSERT_EQ(gap.exit_code, 0) << gap.out;
  EXPECT_THAT(gap.out, HasSubstr("task scheduler ranks by the gap to the roofline: peak ")) << gap.out;
  EXPECT_THAT(gap.out, ::testing::ContainsRegex("tiny_softmax +[0-9.]+ [mun]?s +[0-9.]+ G(FLOP|B)/s +[0-9]+%")) << gap.out;

  const auto time = run_ktune("tune" + specs + kQuick + " --db " + fresh_db("time_rule.db") + " --trials 8 --task-rule time 2>&1");
  ASSERT_EQ(time.exit_code, 0) << time.out;
  EXPECT_THAT(time.out, ::testing::Not(HasSubstr("roofline:"))) << time.out;
  EXPECT_THAT(time.out, ::testing::ContainsRegex("tiny_softmax +[0-9.]+ [mun]?s +[0-9.]+ G(FLOP|B)/s +- ")) << time.out;
}

TEST(CmdTune, UsageErrors) {
  EXPECT_EQ(run_ktune("tune " + data("tiny_softmax.json") + " --trials 3").exit_code, 2);     // no --db
  EXPECT_EQ(run_ktune("tune " + data("tiny_softmax.json") + " --db /tmp/x.db").exit_code, 2);  // no budget
  const auto bad = run_ktune("tune " + data("tiny_softmax.json") + " --db /tmp/x.db --budget 5x");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.out, HasSubstr("--budget: expected a duration"));
  const auto rule = run_ktune("tune " + data("tiny_softmax.json") + " --db /tmp/x.db --trials 3 --task-rule fastest 2>&1");
  EXPECT_EQ(rule.exit_code, 2);
  EXPECT_THAT(rule.out, HasSubstr("--task-rule")) << rule.out;
}

// A subgraph whose reference cannot be computed is not tuned at all: one line says why, the
// others get the budget, and with nothing tuned the command fails.
TEST(CmdTune, ASubgraphThatCannotRunIsGivenUpAndSaysWhy) {
  const std::string gen = std::string(KTUNE_TEST_GENERATORS) + ":ktune_test_required_limit";
  const std::string db = fresh_db("tune_required_limit.db");
  const auto failing = run_ktune("tune --generator " + gen + kQuick + " --db " + db + " --budget 2m 2>&1");
  EXPECT_EQ(failing.exit_code, 1) << failing.out;
  EXPECT_THAT(failing.out, HasSubstr("ktune_test_required_limit: not tuned: computing the reference"));
  EXPECT_THAT(failing.out, HasSubstr("limit must be above 2"));
  EXPECT_THAT(failing.out, HasSubstr("no subgraph has a schedule that ran correctly"));
  // At a value the pipeline accepts, the same Generator tunes.
  const auto ok = run_ktune("tune --generator " + gen + " --input limit=3" + kQuick + " --db " + db + " --trials 4 2>&1");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
}

// A GPU is tuned on the machine that has it; elsewhere the error says how to tune for it
// with a bundle. --target must agree with --device.
TEST(CmdTune, GpuDeviceNeedsAGpuHereOrABundle) {
  const std::string db = fresh_db("tune_gpu.db");
  const std::string tiny = data("tiny_softmax.json");
  const auto mismatch = run_ktune("tune " + tiny + " --db " + db + " --trials 1 --device host --target cuda");
  EXPECT_EQ(mismatch.exit_code, 2);
  EXPECT_THAT(mismatch.out, HasSubstr("--target cuda but --device host is a cpu device"));
  const auto bad_target = run_ktune("tune " + tiny + " --db " + db + " --trials 1 --target opencl");
  EXPECT_EQ(bad_target.exit_code, 2);
  EXPECT_THAT(bad_target.out, HasSubstr("opencl"));
  if (!targets::detect_cuda_devices().devices.empty()) {
    // This machine has a GPU: a short run measures on it and stores the results.
    const auto run = run_ktune("tune " + tiny + " --db " + db + " --trials 2 --target cuda" + kQuick);
    ASSERT_EQ(run.exit_code, 0) << run.out;
    EXPECT_THAT(run.out, HasSubstr("tiny_softmax"));
    return;
  }
  const auto h100 = run_ktune("tune " + tiny + " --db " + db + " --trials 1 --device h100");
  EXPECT_EQ(h100.exit_code, 2);
  EXPECT_THAT(h100.out, HasSubstr("\"h100\" is a GPU and this machine has none"));
  EXPECT_THAT(h100.out, HasSubstr("ktune bundle"));
  EXPECT_THAT(h100.out, HasSubstr("--device h100"));
  const auto cuda = run_ktune("tune " + tiny + " --db " + db + " --trials 1 --target cuda");
  EXPECT_EQ(cuda.exit_code, 2);
  EXPECT_THAT(cuda.out, HasSubstr("this machine's first GPU, but there is none"));
  std::ifstream created(db);
  EXPECT_FALSE(created.good()) << "a refused run must not create the database";
}

}  // namespace
}  // namespace ktune
