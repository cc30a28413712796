// Hostile input to the real binary: every refusal is exit 2 with one line that names the
// file, the field or the flag, and a refused database file is left byte-identical.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ktune
