// Hostile input to the real binary: every refusal is exit 2 with one line that names the
// file, the field or the flag, and a refused database file is left byte-identical.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/cli_runner.h"
#include "tuning_db/sqlite.h"

namespace ktune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_ktune;

std::string suite(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/bench/suite/" + name + ".json"; }

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = testing::scratch_path(name);
  std::ofstream(path) << text;
  return path;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Exit 2 and one line, "ktune: error: ..." containing `expected`, no library exception text.
void expect_one_line_usage_error(const std::string& args, const std::string& expected) {
  const auto r = run_ktune(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
  EXPECT_THAT(r.out, HasSubstr(expected)) << args;
  EXPECT_THAT(r.out, Not(HasSubstr("json.exception"))) << args;
  EXPECT_THAT(r.out, Not(HasSubstr("internal error"))) << args;
}

TEST(CliHardening, UnknownCommandSaysSoAndListsTheCommands) {
  expect_one_line_usage_error("frobnicate", "unknown command \"frobnicate\" (commands: show, tune,");
}

// The exit-code rule of docs/usage.md, for every command: help is 0, an unknown flag is 2, and so is a
// missing input file or database.
TEST(CliHardening, EveryCommandFollowsTheExitCodeRule) {
  const std::string missing_spec = "/nonexistent/spec.json", missing_db = "/nonexistent/tuning.db";
  const std::string out = testing::scratch_path("exit_rule_out");
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"show", "show " + missing_spec},
      {"tune", "tune " + missing_spec + " --db " + testing::scratch_path("exit_rule.db") + " --budget 1m"},
      {"query", "query --db " + missing_db + " --workload x"},
      {"export", "export --db " + missing_db + " --all --out " + out},
      {"bundle", "bundle " + missing_spec + " --device host --out " + out + " --candidates 1"},
      {"ingest", "ingest " + out + "/missing.json --bundle " + out + "/missing_bundle --db " +
                     testing::scratch_path("exit_rule.db")},
      {"space", "space " + missing_spec},
      {"db", "db stats --db " + missing_db},
      {"devices", "devices --format yaml"},
      {"measure", "measure " + missing_spec},
      {"sample", "sample " + missing_spec + " --db " + testing::scratch_path("exit_rule.db") + " --count 1"},
      {"model", "model eval --db " + missing_db},
      {"bench", "bench " + missing_spec + " --db " + testing::scratch_path("exit_rule.db")},
      {"report", "report --db " + missing_db},
  };
  for (const auto& [command, bad_input] : commands) {
    EXPECT_EQ(run_ktune(command + " --help").exit_code, 0) << command;
    const auto unknown_flag = run_ktune(command + " --no-such-flag");
    EXPECT_EQ(unknown_flag.exit_code, 2) << command << "\n" << unknown_flag.out;
    const auto bad = run_ktune(bad_input);
    EXPECT_EQ(bad.exit_code, 2) << bad_input << "\n" << bad.out;
    EXPECT_THAT(bad.out, HasSubstr("ktune: error:")) << bad_input;
  }
}

TEST(CliHardening, OutOfRangeFlagsAreUsageErrors) {
  const std::string spec = suite("eltwise");
  const std::string db = testing::scratch_path("flags.db");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tune " + spec + " --db " + db + " --budget 1m --threads -1", "--threads: expected 0 (every core) to"},
      {"tune " + spec + " --db " + db + " --budget 1m --threads 1000", "--threads: expected 0 (every core) to"},
      {"tune " + spec + " --db " + db + " --budget 1m --epsilon 2", "--epsilon: expected a number in [0, 1]"},
      {"tune " + spec + " --db " + db + " --budget 1m --epsilon nan", "--epsilon: expected a number in [0, 1]"},
      {"tune " + spec + " --db " + db + " --budget 1m --repeat-min-ms -1", "--repeat-min-ms: expected a number in"},
      {"tune " + spec + " --db " + db + " --budget 1m --min-repeats 0", "--min-repeats"},
      {"tune " + spec + " --db " + db + " --budget 99999999999999999999h", "longer than the longest budget, 30 days"},
      {"tune " + spec + " --db " + db + " --trials -1", "--trials"},
      {"space " + spec + " --sample -5", "--sample"},
      {"measure " + spec + " --named naive --timeout-ms 0", "--timeout-ms: expected a number in"},
      {"bench " + spec + " --threads 1000", "--threads: expected 0 (every core) to"},
      {"bench " + spec + " --db " + db + " --run-timeout 0", "--run-timeout"},
      {"bench " + spec + " --db " + db + " --roofline-trials 0", "--roofline-trials"},
      {"bench " + spec + " --db " + db + " --triad-mib -1", "--triad-mib"},
      {"model train --db " + db + " --rounds 0", "--rounds"},
      {"model train --db " + db + " --max-depth 0", "--max-depth"},
      {"model train --db " + db + " --eta nan", "--eta"},
      {"model train --db " + db + " --threads -1", "--threads"},
      {"model eval --db " + db + " --folds 1", "--folds"},
      {"export --db " + db + " --all --out " + db + ".out --jobs -1", "--jobs"},
      {"db best --db " + db + " --top 0", "--top"},
      {"db revalidate --db " + db + " --top 0", "--top"},
      {"space " + spec + " --stats -1", "--stats"},
      {"bundle " + spec + " --device host --out " + db + ".out --candidates 0", "--candidates"},
  };
  for (const auto& [args, expected] : cases) expect_one_line_usage_error(args, expected);
  EXPECT_FALSE(std::ifstream(db).good()) << "a refused run created its database";
}

TEST(CliHardening, HostileJsonFilesAreUsageErrorsNamingTheFile) {
  const std::string deep = write_file("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  expect_one_line_usage_error("show " + deep, deep + ": ");
  const std::string overflow = write_file("overflow.json", R"({"name": "o", "inputs": [{"name": "a", "shape": [4]}],
      "ops": [{"op": "scale", "inputs": ["a"], "output": "b", "factor": 1e999}], "outputs": ["b"]})");
  expect_one_line_usage_error("show " + overflow, overflow + ": invalid JSON: number overflow");
  expect_one_line_usage_error("show " + ::testing::TempDir(), "is a directory; expected a spec file");
  expect_one_line_usage_error("measure " + suite("eltwise") + " --schedule " + ::testing::TempDir(),
                              "is a directory; expected a schedule file");
  const std::string structure = write_file("structure.json", R"({"funcs": [5]})");
  expect_one_line_usage_error("measure " + suite("eltwise") + " --schedule " + structure,
                              structure + ": funcs[0]: expected an object, found 5");
}

TEST(CliHardening, AForeignSqliteFileIsRefusedAndLeftByteIdentical) {
  const std::string path = testing::scratch_path("foreign.db");
  std::remove(path.c_str());
  {
    sqlite::Connection conn = sqlite::Connection::open(path, sqlite::OpenMode::kCreate);
    conn.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
  }
  const std::string before = file_bytes(path);
  for (const std::string& args : {"db stats --db " + path, "query --db " + path + " --workload x",
                                  "tune " + suite("eltwise") + " --db " + path + " --trials 1"}) {
    const auto r = run_ktune(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("not a ktune tuning database")) << args;
  }
  EXPECT_EQ(file_bytes(path), before);
  EXPECT_FALSE(std::ifstream(path + "-wal").good());
  EXPECT_FALSE(std::ifstream(path + "-shm").good());
}

// Build-time queries run on read-only trees (install prefixes, CI caches): on a read-only
// mount every command that only reads answers. Needs a mount namespace (root, unshare);
// skipped where there is none.
TEST(CliHardening, EveryReadCommandWorksOnAReadOnlyMount) {
  const std::string dir = testing::scratch_path("read_only_dir");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db = dir + "/tuned.db";
  const std::string spec = std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_softmax.json";
  ASSERT_EQ(std::system((std::string(KTUNE_EXPORT_TEST_DB) + " " + db + " 1000 10 " + spec + " >/dev/null").c_str()), 0);
  const std::string ktune = KTUNE_EXE;
  const std::string out = testing::scratch_path("read_only_out");
  const std::string script =
      "mount --bind " + dir + " " + dir + " && mount -o remount,bind,ro " + dir + " || exit 77; " +
      "touch " + dir + "/probe 2>/dev/null && exit 78; " +
      ktune + " db stats --db " + db + " && " + ktune + " db best --db " + db + " && " +
      ktune + " query --db " + db + " --workload tiny_softmax && " +
      ktune + " report --db " + db + " --out " + out + ".html && " +
      ktune + " export --db " + db + " --all --out " + out;
  const auto r = testing::run_command("unshare -m sh -c '" + script + "' 2>&1");
  if (r.exit_code == 77 || r.exit_code == 127) GTEST_SKIP() << "no mount namespace here: " << r.out;
  ASSERT_NE(r.exit_code, 78) << "the bind mount is not read-only";
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("tiny_softmax")) << r.out;
  EXPECT_TRUE(std::filesystem::exists(out + "/manifest.json"));
}

// A damaged page that no best query reads: query and export still notice it before they
// answer, and exit 1 (the file failed, the request was fine) naming the file.
TEST(CliHardening, ADamagedDatabaseIsReportedBeforeAnAnswerWithExitOne) {
  const std::string db = testing::scratch_path("damaged.db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
  const std::string spec = std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_softmax.json";
  ASSERT_EQ(std::system((std::string(KTUNE_EXPORT_TEST_DB) + " " + db + " 1000 10 " + spec + " >/dev/null").c_str()), 0);
  ASSERT_EQ(run_ktune("query --db " + db + " --workload tiny_softmax").exit_code, 0);
  int64_t page = 0, page_size = 0;
  {
    sqlite::Connection conn = sqlite::Connection::open(db, sqlite::OpenMode::kReadOnly);
    sqlite::Statement root(conn, "SELECT rootpage FROM sqlite_master WHERE name = 'bench_results'");
    ASSERT_TRUE(root.step());
    page = root.column_int64(0);
    sqlite::Statement size(conn, "PRAGMA page_size");
    ASSERT_TRUE(size.step());
    page_size = size.column_int64(0);
  }
  {
    std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((page - 1) * page_size);
    f.write(std::string(64, '\xA5').data(), 64);
  }
  const auto query = run_ktune("query --db " + db + " --workload tiny_softmax");
  EXPECT_EQ(query.exit_code, 1) << query.out;
  EXPECT_THAT(query.out, HasSubstr(db + ": the database file is corrupted")) << query.out;
  const auto exported = run_ktune("export --db " + db + " --all --out " + testing::scratch_path("damaged_out"));
  EXPECT_EQ(exported.exit_code, 1) << exported.out;
  EXPECT_THAT(exported.out, HasSubstr("corrupted")) << exported.out;
  // Every other command that reads measurements back checks the pages too, even where the
  // damaged page (bench results) is one it would not read.
  for (const std::string& command : {"model train --db " + db, "db best --db " + db,
                                     "report --db " + db + " --out " + testing::scratch_path("damaged.html"),
                                     "bench " + spec + " --db " + db + " --methods ktune"}) {
    const auto r = run_ktune(command);
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr(db + ": the database file is corrupted")) << command;
  }
}

}  // namespace
}  // namespace ktune
