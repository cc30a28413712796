// `mpirun -n 3 ktune tune` for real: rank 0 tunes two small specs and writes the database,
// ranks 1 and 2 measure. The database then holds measurements from both measuring ranks
// with their host, passes its page check, and measured no schedule twice but the stored
// bests timed again beside a challenger; a measuring rank killed mid-run (SIGKILL to its
// process) ends the job but leaves every committed row, and the same command resumes.
// Skipped when ktune was built without MPI or mpirun is missing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "tuning_db/tuning_db.h"

namespace ktune::cluster {
namespace {

namespace fs = std::filesystem;

bool have_mpirun() { return std::system("command -v mpirun >/dev/null 2>&1") == 0; }

// Ranks on one host talk through shared memory; in a container without ptrace rights its
// single-copy mechanism fails, so the test turns it off (as such containers need).
std::string mpirun(int ranks) {
  return "OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun --allow-run-as-root --oversubscribe -n " + std::to_string(ranks) + " " + std::string(KTUNE_EXE) + " tune " +
         std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_matmul.json " + std::string(KTUNE_SOURCE_DIR) +
         "/tests/data/tiny_softmax.json --threads 1 --repeat-min-ms 5 --min-repeats 3 ";
}

// What `ktune ARGS` prints on stdout.
std::string ktune_output(const std::string& args) {
  std::string out;
  FILE* pipe = popen((std::string(KTUNE_EXE) + " " + args).c_str(), "r");
  if (!pipe) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;) out.append(buf, n);
  pclose(pipe);
  return out;
}

// The text of `path`, for a failure message: what the ranks printed.
std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ktune_mpi_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::remove(dir / name);
  return dir / name;
}

class MpiTune : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!KTUNE_WITH_MPI_BUILD || !have_mpirun()) GTEST_SKIP() << "ktune was built without MPI, or mpirun is missing";
  }
};

TEST_F(MpiTune, TwoMeasuringRanksFillOneDatabaseWithProvenance) {
  const fs::path db_path = scratch("two.db");
  const fs::path log = scratch("two.log");
  const std::string cmd = mpirun(3) + "--db " + db_path.string() + " --trials 24 > " + log.string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n" << file_text(log);
  tuning_db::OpenOptions open;
  open.mode = sqlite::OpenMode::kReadOnly;
  tuning_db::TuningDb db = tuning_db::TuningDb::open(db_path.string(), open);
  const tuning_db::DbStats stats = db.stats();
  EXPECT_EQ(stats.rows.schedules, 24) << "24 trials, no schedule measured twice";
  // Beyond them, only stored bests timed again beside a challenger that beat them.
  EXPECT_GE(stats.rows.measurements, 24);
  std::set<int64_t> ranks;
  for (const tuning_db::MeasurerStats& m : stats.measurers) {
    EXPECT_FALSE(m.host.empty());
    ASSERT_TRUE(m.rank.has_value()) << "every row of a distributed run names its rank";
    ranks.insert(*m.rank);
  }
  EXPECT_EQ(ranks, (std::set<int64_t>{1, 2})) << "both measuring ranks measured; rank 0 only coordinated";
  EXPECT_NO_THROW(db.check_pages());

  // The provenance reaches the user: db stats, export-json and the report name the ranks.
  const std::string stats_text = ktune_output("db stats --db " + db_path.string());
  EXPECT_NE(stats_text.find("rank 1"), std::string::npos) << stats_text;
  EXPECT_NE(stats_text.find("rank 2"), std::string::npos) << stats_text;
  const std::string exported = ktune_output("db export-json --db " + db_path.string());
  EXPECT_NE(exported.find("\"rank\": 2"), std::string::npos);
  const fs::path report = scratch("two.html");
  ktune_output("report --db " + db_path.string() + " --out " + report.string());
  const std::string html = file_text(report);
  EXPECT_NE(html.find("\"measured_by\":[{"), std::string::npos) << "the report lists who measured";
  EXPECT_NE(html.find("\"rank\":2"), std::string::npos);
}

// The pid of the ktune process that MPI started as `rank` of the job writing `db_path`, or -1.
// The database names the job: another test's `mpirun` may be running beside this one.
pid_t rank_pid(int rank, const fs::path& db_path) {
  const std::string want = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream environ(entry.path() / "environ", std::ios::binary);
    const std::string env((std::istreambuf_iterator<char>(environ)), std::istreambuf_iterator<char>());
    std::ifstream cmdline(entry.path() / "cmdline", std::ios::binary);
    const std::string cmd((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    const bool this_job = cmd.find(std::string("--db") + '\0' + db_path.string() + '\0') != std::string::npos;
    if (cmd.find(KTUNE_EXE) == 0 && this_job && env.find(want + '\0') != std::string::npos) return std::stoi(name);
  }
  return -1;
}

int64_t measurements_in(const fs::path& db_path) {
  try {
    tuning_db::OpenOptions open;
    open.mode = sqlite::OpenMode::kReadOnly;
    return tuning_db::TuningDb::open(db_path.string(), open).stats().rows.measurements;
  } catch (const std::exception&) {
    return 0;  // not created yet
  }
}

TEST_F(MpiTune, AKilledMeasuringRankLosesOnlyItsCandidatesAndTheRunResumes) {
  const fs::path db_path = scratch("killed.db");
  const std::string log = scratch("killed.log").string();
  const std::string cmd = mpirun(3) + "--db " + db_path.string() + " --trials 400 > " + log + " 2>&1";
  const pid_t job = fork();
  ASSERT_GE(job, 0);
  if (job == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Once results have been committed, rank 2 is killed: Open MPI then ends the whole job.
  for (int i = 0; i < 1200 && measurements_in(db_path) < 4; ++i) usleep(100 * 1000);
  const pid_t victim = rank_pid(2, db_path);
  ASSERT_GT(victim, 0) << "rank 2 not found";
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(job, &status, 0), job);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the job ends when a rank dies";
  int64_t committed = 0;
  {
    tuning_db::OpenOptions open;
    open.mode = sqlite::OpenMode::kReadOnly;
    tuning_db::TuningDb db = tuning_db::TuningDb::open(db_path.string(), open);
    EXPECT_NO_THROW(db.check_pages());
    committed = db.stats().rows.schedules;
    EXPECT_LE(committed, db.stats().rows.measurements);
  }
  EXPECT_GE(committed, 4) << "results committed before the rank died stay";
  EXPECT_LT(committed, 400);
  const std::string again = mpirun(3) + "--db " + db_path.string() + " --trials 8 > " + log + " 2>&1";
  ASSERT_EQ(std::system(again.c_str()), 0) << again << "\n" << file_text(log);
  tuning_db::OpenOptions open;
  open.mode = sqlite::OpenMode::kReadOnly;
  tuning_db::TuningDb db = tuning_db::TuningDb::open(db_path.string(), open);
  EXPECT_EQ(db.stats().rows.schedules, committed + 8) << "the rerun resumes: 8 new schedules, none measured again";
}

}  // namespace
}  // namespace ktune::cluster
