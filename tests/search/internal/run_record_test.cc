// Tests of search/internal/run_record.h on a real database file: the run's row with its
// command, budget, host and process, and an earlier run of this host whose process is gone
// marked as killed when the next run begins.
#include "search/internal/run_record.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

namespace ktune::search::internal {
namespace {

TEST(RunRecord, ARunBeginsItsRowAndMarksADeadEarlierRunOfThisHostKilled) {
  TuneOptions opt;
  opt.db_path = (std::filesystem::temp_directory_path() / ("ktune_run_record_" + std::to_string(getpid()) + ".db")).string();
  opt.command = {"ktune", "tune", "--budget", "2m"};
  opt.budget.text = "2m";
  tuning_db::TuningDb store = open_database(opt);
  ASSERT_TRUE(std::filesystem::exists(opt.db_path));

  const pid_t child = fork();  // a process that has ended by the time the next run begins
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);
  tuning_db::RunRecord earlier;
  earlier.host = host_name();
  earlier.pid = child;
  const int64_t earlier_id = store.begin_run(earlier);

  Progress progress(false, "", std::nullopt, std::nullopt);
  ::testing::internal::CaptureStderr();
  const int64_t id = begin_run_record(store, opt, progress);
  const std::string noted = ::testing::internal::GetCapturedStderr();

  EXPECT_NE(noted.find("1 earlier run of this host ended without a word (killed)"), std::string::npos) << noted;
  EXPECT_EQ(store.find_run(earlier_id)->status, tuning_db::RunStatus::kKilled);
  const std::optional<tuning_db::RunRecord> run = store.find_run(id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, tuning_db::RunStatus::kRunning);
  EXPECT_EQ(run->command, R"(["ktune","tune","--budget","2m"])");
  EXPECT_EQ(run->budget, "2m");
  EXPECT_EQ(run->host, host_name());
  EXPECT_EQ(run->pid, static_cast<int64_t>(getpid()));
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(opt.db_path + suffix);
}

}  // namespace
}  // namespace ktune::search::internal
