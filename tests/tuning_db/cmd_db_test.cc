// Tests of `ktune db ...` (tools/ktune/cmd_db.cc), run as the real binary: help, exit codes,
// missing and foreign files, and the output of every subcommand on a real database.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/tuning_db/test_util.h"

namespace ktune::tuning_db {
namespace {

using testing::seed;
using testing::TempDirTest;

struct Result {
  int exit_code = -1;  // process exit code
  std::string out;     // stdout only
  std::string err;     // stderr only
};

class DbCli : public TempDirTest {
 protected:
  // Runs `ktune db ARGS` (shell words).
  Result ktune_db(const std::string& args) {
    Result r;
    const std::string err_file = file("stderr.txt");
    const std::string cmd = std::string(KTUNE_EXE) + " db " + args + " 2>" + err_file;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (pipe == nullptr) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(err_file);
    std::stringstream text;
    text << in.rdbuf();
    r.err = text.str();
    return r;
  }

  // A database with two schedules on one device and one failure.
  std::string make_db(const std::string& name) {
    const std::string path = file(name);
    auto s = seed(path);
    s.add("fast-schedule", 1000, 5, 1);
    s.add("slow-schedule", 5000, 5, 2);
    const int64_t bad = s.db.upsert_schedule(s.workload_id, "bad", testing::schedule_json("bad"));
    s.db.record_measurement(
        testing::failed_measurement(bad, s.device_id, MeasureStatus::kCrash, 3));
    return path;
  }

  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
};

TEST_F(DbCli, HelpListsEverySubcommand) {
  const Result r = ktune_db("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub :
       {"stats", "best", "merge", "prune", "vacuum", "export-json", "import-json", "revalidate"}) {
    EXPECT_NE(r.out.find(sub), std::string::npos) << sub;
  }
}

TEST_F(DbCli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(ktune_db("").exit_code, 2);  // no subcommand
  const Result no_db = ktune_db("stats");
  EXPECT_EQ(no_db.exit_code, 2);
  EXPECT_NE(no_db.err.find("--db"), std::string::npos) << no_db.err;
  EXPECT_EQ(ktune_db("stats --db x.db --format yaml").exit_code, 2);
  const std::string path = make_db("a.db");
  const Result bad_keep = ktune_db("prune --db " + path + " --keep 0");
  EXPECT_EQ(bad_keep.exit_code, 2);
  EXPECT_NE(bad_keep.err.find("keep: expected at least 1"), std::string::npos) << bad_keep.err;
}

TEST_F(DbCli, ReadCommandsNameAMissingFileAndDoNotCreateIt) {
  const std::string missing = file("missing.db");
  for (const std::string cmd : {"stats", "best", "export-json", "prune", "vacuum"}) {
    const Result r = ktune_db(cmd + " --db " + missing);
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_NE(r.err.find(missing + ": no such tuning database"), std::string::npos)
        << cmd << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(missing)) << cmd;
  }
}

TEST_F(DbCli, ForeignFileIsRefusedWithItsName) {
  const std::string path = file("notes.txt");
  std::ofstream(path) << std::string(5000, 'n');
  const Result r = ktune_db("stats --db " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ": not a ktune tuning database (file is not SQLite"),
            std::string::npos)
      << r.err;
}

TEST_F(DbCli, StatsInTextAndJson) {
  const std::string path = make_db("a.db");
  const Result text = ktune_db("stats --db " + path);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("1 devices, 1 workloads, 3 schedules, 0 runs, 3 measurements"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("host-avx2"), std::string::npos);
  EXPECT_NE(text.out.find("fast-schedule"), std::string::npos);

  const Result json = ktune_db("stats --db " + path + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["rows"]["measurements"], 3);
  EXPECT_EQ(doc["statuses"]["crash"], 1);
  EXPECT_EQ(doc["devices"][0]["ok"], 2);
  EXPECT_EQ(doc["best"][0]["schedule_hash"], "fast-schedule");
  EXPECT_GT(doc["file_bytes"].get<int64_t>() + doc["wal_bytes"].get<int64_t>(), 0);
  // How the tuning went: three measured within milliseconds, two ok, built in 120.5 ms each.
  ASSERT_EQ(doc["measured"].size(), 1u);
  EXPECT_EQ(doc["measured"][0]["measured"], 3);
  EXPECT_EQ(doc["measured"][0]["ok"], 2);
  EXPECT_EQ(doc["measured"][0]["median_build_ms"], 120.5);
  EXPECT_EQ(doc["measured"][0]["measured_in_first_2_min"], 3);
  EXPECT_NE(text.out.find("measured per workload and device"), std::string::npos) << text.out;
}

TEST_F(DbCli, BestListsAndFilters) {
  const std::string path = make_db("a.db");
  const Result all = ktune_db("best --db " + path + " --format json");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  auto doc = nlohmann::json::parse(all.out);
  ASSERT_EQ(doc["best"].size(), 1u);
  EXPECT_EQ(doc["best"][0]["median_ns"], 1000.0);
  EXPECT_EQ(doc["best"][0]["stale"], true);  // written by the test versions, read by ktune

  const Result top = ktune_db("best --db " + path + " --workload matmul_64 --top 5 --format json");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  doc = nlohmann::json::parse(top.out);
  ASSERT_EQ(doc["best"].size(), 2u);
  EXPECT_EQ(doc["best"][1]["schedule_hash"], "slow-schedule");

  const Result none = ktune_db("best --db " + path + " --workload nothing-like-it");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no workload named or keyed \"nothing-like-it\""), std::string::npos);
  EXPECT_EQ(ktune_db("best --db " + path + " --device nope").exit_code, 2);
}

TEST_F(DbCli, MergeTwiceAddsNothingTheSecondTime) {
  const std::string a = make_db("a.db");
  const std::string b = file("b.db");
  {
    auto s = seed(b);
    s.add("from-b", 100, 1, 10);
  }
  const Result first = ktune_db("merge --db " + a + " " + b + " --format json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(nlohmann::json::parse(first.out)["merged"][0]["added"]["measurements"], 1);
  const Result second = ktune_db("merge --db " + a + " " + b);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("added 0 devices, 0 workloads, 0 schedules, 0 runs, 0 measurements"),
            std::string::npos)
      << second.out;
  const Result missing = ktune_db("merge --db " + a + " " + file("nope.db"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.db: no such tuning database"), std::string::npos) << missing.err;
}

TEST_F(DbCli, ExportImportRoundTrip) {
  const std::string a = make_db("a.db");
  const std::string json = file("a.json");
  ASSERT_EQ(ktune_db("export-json --db " + a + " --out " + json).exit_code, 0);
  const Result imported = ktune_db("import-json " + json + " --db " + file("b.db"));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("3 measurements"), std::string::npos) << imported.out;
  const Result again = ktune_db("export-json --db " + file("b.db"));
  ASSERT_EQ(again.exit_code, 0);
  EXPECT_EQ(again.out, slurp(json));
  EXPECT_FALSE(std::filesystem::exists(json + ".partial"));

  std::ofstream(file("bad.json"))
      << R"({"format":"ktune-tuning-db","format_version":1,"devices":5})";
  const Result bad = ktune_db("import-json " + file("bad.json") + " --db " + file("b.db"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.json: devices: expected an array"), std::string::npos) << bad.err;
}

TEST_F(DbCli, AFullDiskIsAFailureNotBadInput) {
  // /dev/full refuses every write with ENOSPC: the command ran and the machine failed (1).
  const std::string path = make_db("a.db");
  const Result r = ktune_db("export-json --db " + path + " > /dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("free some space"), std::string::npos) << r.err;
}

TEST_F(DbCli, ImportReadsItsFileAsAUserFile) {
  // Deep nesting and numbers out of range are refused with the file named, exit 2.
  const std::string path = make_db("a.db");
  const std::string deep = file("deep.json");
  std::ofstream(deep) << std::string(100000, '[') << std::string(100000, ']');
  Result r = ktune_db("import-json --db " + path + " " + deep);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(deep), std::string::npos) << r.err;
  const std::string huge = file("huge.json");
  std::ofstream(huge) << R"({"format": 1e999})";
  r = ktune_db("import-json --db " + path + " " + huge);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
}

TEST_F(DbCli, PruneAndVacuum) {
  const std::string path = make_db("a.db");
  const Result pruned = ktune_db("prune --db " + path + " --keep 1 --vacuum --format json");
  ASSERT_EQ(pruned.exit_code, 0) << pruned.err;
  const auto doc = nlohmann::json::parse(pruned.out);
  EXPECT_EQ(doc["deleted"]["measurements"], 1);  // slow-schedule; the crash row stays
  EXPECT_EQ(doc["deleted"]["schedules"], 1);
  EXPECT_EQ(doc["vacuumed"], true);
  const Result vacuumed = ktune_db("vacuum --db " + path);
  EXPECT_EQ(vacuumed.exit_code, 0) << vacuumed.err;
  EXPECT_NE(vacuumed.out.find("vacuumed " + path), std::string::npos);
  EXPECT_EQ(testing::query_int(path, "SELECT count(*) FROM measurements"), 2);
}

}  // namespace
}  // namespace ktune::tuning_db
