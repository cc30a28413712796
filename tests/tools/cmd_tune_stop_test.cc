// `ktune tune` ends when it must, on a pipeline whose analysis followed every path and never
// ended (tests/generators/many_paths.cc): a time budget holds within 30 s, and SIGTERM (what
// timeout, Slurm and systemd send) ends the run within 5 s from any phase, exit 0, with what
// was measured committed and no process of the run left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/tools/cli_runner.h"
#include "tuning_db/sqlite.h"
#include "tuning_db/tuning_db.h"

namespace ktune {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
using testing::start_ktune;

const std::string kManyPaths = std::string(KTUNE_REAL_GENERATORS) + ":ktune_many_paths";

// Small, fast settings so that a round takes seconds on 2 cores.
const std::vector<std::string> kQuick = {"--batch", "2", "--population", "16", "--generations", "1",
                                         "--repeat-min-ms", "10", "--min-repeats", "3", "--threads", "2"};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string fresh_db(const std::string& name) {
  const std::string path = testing::scratch_path(name);
  for (const char* suffix : {"", "-wal", "-shm", ".out"}) std::remove((path + suffix).c_str());
  return path;
}

std::vector<std::string> tune_args(const std::string& db, const std::string& budget) {
  std::vector<std::string> args = {"tune", "--generator", kManyPaths, "--db", db, "--budget", budget};
  args.insert(args.end(), kQuick.begin(), kQuick.end());
  return args;
}

// Waits up to `seconds` for `pid` to end; its wait status, or nullopt (then it is killed).
std::optional<int> wait_for_exit(pid_t pid, double seconds) {
  const Clock::time_point start = Clock::now();
  int status = 0;
  while (seconds_since(start) < seconds) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, &status, 0);
  return std::nullopt;
}

// Processes of group `group` still running (zombies nobody reaped yet have ended).
std::vector<pid_t> running_in_group(pid_t group) {
  std::vector<pid_t> found;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid pgrp ...: comm may hold spaces, so read after its ')'.
    std::istringstream rest(line.substr(line.rfind(')') + 1));
    std::string state;
    pid_t ppid = 0, pgrp = 0;
    if (rest >> state >> ppid >> pgrp && pgrp == group && state != "Z" && state != "X") found.push_back(std::stoi(name));
  }
  return found;
}

// Waits a little for the group to empty (the kernel delivers the parent-death SIGKILL
// asynchronously) and returns what is left.
std::vector<pid_t> left_in_group(pid_t group) {
  const Clock::time_point start = Clock::now();
  std::vector<pid_t> left = running_in_group(group);
  while (!left.empty() && seconds_since(start) < 2) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = running_in_group(group);
  }
  return left;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int64_t measurements_in(const std::string& db_path) {
  if (access(db_path.c_str(), F_OK) != 0) return 0;
  try {
    tuning_db::OpenOptions o;
    o.mode = sqlite::OpenMode::kReadOnly;
    return tuning_db::TuningDb::open(db_path, o).stats().rows.measurements;
  } catch (const std::exception&) {
    return 0;  // not created yet
  }
}

std::optional<tuning_db::RunStatus> run_status(const std::string& db_path) {
  tuning_db::OpenOptions o;
  o.mode = sqlite::OpenMode::kReadOnly;
  const auto run = tuning_db::TuningDb::open(db_path, o).find_run(1);
  if (!run) return std::nullopt;
  return run->status;
}

// Sends SIGTERM to the run alone (not its group: what systemd's main-process mode and a
// plain `kill` do) and checks that it ends within 5 s, exit 0, leaving no process behind.
void stop_with_sigterm(pid_t pid, const std::string& out_path) {
  const Clock::time_point sent = Clock::now();
  kill(pid, SIGTERM);
  const std::optional<int> status = wait_for_exit(pid, 30);
  const double took = seconds_since(sent);
  ASSERT_TRUE(status.has_value()) << "still running 30 s after SIGTERM:\n" << read_file(out_path);
  EXPECT_LT(took, 5) << read_file(out_path);
  ASSERT_TRUE(WIFEXITED(*status)) << "ended by signal " << WTERMSIG(*status) << ":\n" << read_file(out_path);
  EXPECT_EQ(WEXITSTATUS(*status), 0) << read_file(out_path);
  EXPECT_THAT(left_in_group(pid), ::testing::IsEmpty()) << "processes of the run outlived it";
}

TEST(CmdTuneStop, ABudgetHoldsOnAPipelineWithExponentiallyManyPaths) {
  const std::string db = fresh_db("many_paths_budget.db");
  const Clock::time_point start = Clock::now();
  const pid_t pid = start_ktune(tune_args(db, "20s"), db + ".out");
  const std::optional<int> status = wait_for_exit(pid, 20 + 30);
  const double took = seconds_since(start);
  ASSERT_TRUE(status.has_value()) << "a 20 s budget still ran after 50 s:\n" << read_file(db + ".out");
  EXPECT_LT(took, 20 + 30);
  ASSERT_TRUE(WIFEXITED(*status)) << read_file(db + ".out");
  EXPECT_THAT(read_file(db + ".out"), HasSubstr("Done after")) << "it was not stopped by a signal";
  EXPECT_THAT(left_in_group(pid), ::testing::IsEmpty());
}

TEST(CmdTuneStop, SigtermAfterMeasurementsEndsWithin5sWithRowsCommitted) {
  const std::string db = fresh_db("many_paths_sigterm.db");
  const pid_t pid = start_ktune(tune_args(db, "10m"), db + ".out");
  const Clock::time_point start = Clock::now();
  while (measurements_in(db) < 1 && seconds_since(start) < 240) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  if (measurements_in(db) < 1) {
    kill(-pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    FAIL() << "nothing measured within 240 s:\n" << read_file(db + ".out");
  }
  // Into the next round: its search, its compiles or a measurement.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  stop_with_sigterm(pid, db + ".out");
  EXPECT_THAT(read_file(db + ".out"), HasSubstr("Interrupted after"));
  EXPECT_GE(measurements_in(db), 1);
  EXPECT_EQ(run_status(db), tuning_db::RunStatus::kInterrupted);
}

// Earlier phases: loading and analyzing the Generator, the reference, the first compiles.
TEST(CmdTuneStop, SigtermInAnyEarlyPhaseEndsWithin5s) {
  for (const int after_ms : {300, 2000, 6000}) {
    SCOPED_TRACE("SIGTERM after " + std::to_string(after_ms) + " ms");
    const std::string db = fresh_db("many_paths_early_" + std::to_string(after_ms) + ".db");
    const pid_t pid = start_ktune(tune_args(db, "10m"), db + ".out");
    std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
    stop_with_sigterm(pid, db + ".out");
    EXPECT_THAT(read_file(db + ".out"), HasSubstr("Interrupted")) << read_file(db + ".out");
  }
}

}  // namespace
}  // namespace ktune
