// `ktune bench` run as the real binary on tiny specs with a briefly tuned database: every
// method gives a verified row or an explicit failure status, the JSON parses, the markdown
// has the table rows and the command line, and the rows are stored where latest_bench finds
// them. Minimal repeats and microbenchmark sizes keep it fast.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <cstdio>
#include <fstream>
#include <set>

#include "bench/bench_methods.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device.h"
#include "targets/host_detect.h"
#include "tests/tools/cli_runner.h"
#include "tuning_db/tuning_db.h"

namespace ktune {
namespace {

using testing::run_ktune;

std::string data(const std::string& name) { return std::string(KTUNE_SOURCE_DIR) + "/tests/data/" + name; }

// The JSON document at the end of `out` (progress lines on stderr come first).
nlohmann::json json_of(const std::string& out) {
  const size_t start = out.rfind("\n{");
  return nlohmann::json::parse(start == std::string::npos ? out : out.substr(start + 1));
}

const char* kQuickBench = " --threads 2 --rounds 2 --min-repeats 3 --repeat-min-ms 2 --roofline-trials 1 --triad-mib 16";

class CmdBench : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = testing::scratch_path("bench.db");
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db_ + suffix).c_str());
    // Only tiny_matmul is tuned: tiny_softmax shows the "not tuned" row.
    const auto tuned = run_ktune("tune " + data("tiny_matmul.json") + " --db " + db_ +
                                 " --trials 4 --batch 4 --population 16 --generations 1 --repeat-min-ms 5 --min-repeats 3 2>&1");
    ASSERT_EQ(tuned.exit_code, 0) << tuned.out;
    json_ = run_ktune("bench " + data("tiny_matmul.json") + " " + data("tiny_softmax.json") + " --db " + db_ +
                      kQuickBench + " --format json");
  }
  static std::string db_;
  static testing::CliResult json_;
};
std::string CmdBench::db_;
testing::CliResult CmdBench::json_;

TEST_F(CmdBench, EveryMethodIsVerifiedOrAnExplicitFailure) {
  ASSERT_EQ(json_.exit_code, 0) << json_.out;
  const nlohmann::json j = json_of(json_.out);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_GT(j["peak_flops"].get<double>(), 0);
  EXPECT_GT(j["bandwidth_bytes_per_s"].get<double>(), 0);
  ASSERT_EQ(j["subgraphs"].size(), 2u);
  const std::set<std::string> statuses = {"ok", "failed", "wrong_result", "crash", "timeout", "unsupported"};
  for (const auto& s : j["subgraphs"]) {
    EXPECT_GT(s["roofline_ns"].get<double>(), 0);
    std::set<std::string> methods;
    for (const auto& m : s["methods"]) {
      const std::string method = m["method"], status = m["status"];
      methods.insert(method);
      EXPECT_EQ(statuses.count(status), 1u) << method << " " << status;
      if (status == "ok") {
        EXPECT_GT(m["median_ns"].get<double>(), 0) << method;
        EXPECT_GE(m["repeats"].get<int>(), 6) << method;  // 2 rounds of at least 3
        EXPECT_GE(m["max_error"].get<double>(), 0) << method;
        EXPECT_LE(m["max_error"].get<double>(), 1e-3) << method;
      } else {
        EXPECT_FALSE(m["detail"].get<std::string>().empty()) << method;
      }
    }
    EXPECT_EQ(methods, (std::set<std::string>{"ktune", "ktune-heuristic", "hand", "Adams2019", "Mullapudi2016",
                                              "Li2018", "openblas", "onednn"}));
  }
  const auto& matmul = j["subgraphs"][0];
  EXPECT_EQ(matmul["name"], "tiny_matmul");
  for (const auto& m : matmul["methods"]) {
    // The tuned workload's ktune row, its heuristic and both libraries run for a matmul.
    if (m["method"] == "ktune" || m["method"] == "ktune-heuristic" || m["method"] == "openblas" || m["method"] == "onednn") {
      EXPECT_EQ(m["status"], "ok") << m.dump();
    }
    if (m["method"] == "ktune") {
      EXPECT_DOUBLE_EQ(m["ratio"].get<double>(), 1.0);
    }
  }
  const auto& softmax = j["subgraphs"][1];
  for (const auto& m : softmax["methods"]) {
    if (m["method"] == "ktune") {
      EXPECT_EQ(m["status"], "unsupported");
      EXPECT_NE(m["detail"].get<std::string>().find("not tuned"), std::string::npos);
    }
    if (m["method"] == "openblas" || m["method"] == "hand") {
      EXPECT_EQ(m["status"], "unsupported");  // a spec has no schedule of its own
    }
  }
}

// A Generator whose input estimate exceeds what its output reads and whose hand schedule
// computes whole tiles past it, and bounds its output to whole strips: every method runs,
// as in the Generator's own program, the hand schedule over the rows its bound gives.
TEST(CmdBenchGenerator, EveryMethodRunsWhereTheGeneratorsOwnProgramRunsIt) {
  const std::string gen = std::string(KTUNE_REAL_GENERATORS) + ":ktune_padded_blur";
  const std::string db = testing::scratch_path("bench_padded_blur.db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
  const auto tuned = run_ktune("tune --generator " + gen + " --db " + db +
                               " --trials 4 --batch 4 --population 16 --generations 1 --repeat-min-ms 5"
                               " --min-repeats 3 2>&1");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.out;
  const auto bench = run_ktune("bench --generator " + gen + " --db " + db + kQuickBench +
                               " --methods ktune,ktune-heuristic,hand,Adams2019 --format json");
  ASSERT_EQ(bench.exit_code, 0) << bench.out;
  const nlohmann::json j = json_of(bench.out);
  ASSERT_EQ(j["subgraphs"].size(), 1u);
  std::set<std::string> methods;
  for (const auto& m : j["subgraphs"][0]["methods"]) {
    methods.insert(m["method"].get<std::string>());
    EXPECT_EQ(m["status"], "ok") << m.dump();
    if (m["method"] == "hand") {
      EXPECT_NE(m["detail"].get<std::string>().find("output 288x500 at (1, 1) (the workload: 300x500 at (1, 1))"),
                std::string::npos)
          << m.dump();
    }
  }
  EXPECT_EQ(methods, (std::set<std::string>{"ktune", "ktune-heuristic", "hand", "Adams2019"}));
}

TEST_F(CmdBench, RowsAreStoredAndLatestBenchReturnsThem) {
  ASSERT_EQ(json_.exit_code, 0) << json_.out;
  const nlohmann::json j = json_of(json_.out);
  tuning_db::OpenOptions open;
  open.mode = sqlite::OpenMode::kReadOnly;
  tuning_db::TuningDb db = tuning_db::TuningDb::open(db_, open);
  const std::string device = targets::device_key(targets::detect_host_device());
  const auto sg = subgraphs::load_spec_subgraph(data("tiny_matmul.json"));
  const auto rows = db.latest_bench(sg->key().key, device);
  ASSERT_EQ(rows.size(), 9u);  // eight methods and the roofline
  for (const auto& r : rows) EXPECT_EQ(r.bench_uuid, j["bench_uuid"]);
  EXPECT_EQ(rows.back().method, "roofline");
  EXPECT_GT(rows.back().median_ns, 0);
  for (size_t i = 0; i + 1 < rows.size(); ++i) {
    const auto& m = j["subgraphs"][0]["methods"][i];
    EXPECT_EQ(rows[i].method, m["method"]);
    EXPECT_EQ(rows[i].status, m["status"]);
    EXPECT_DOUBLE_EQ(rows[i].median_ns, m["median_ns"].get<double>());
  }
}

TEST_F(CmdBench, MarkdownHasTheTableAndTheCommandLine) {
  const auto r = run_ktune("bench " + data("tiny_matmul.json") + " --db " + db_ + kQuickBench +
                           " --methods ktune,ktune-heuristic,onednn --format markdown");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("bench " + data("tiny_matmul.json")), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| subgraph | roofline ms | ktune | ktune-heuristic | oneDNN |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| tiny_matmul |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| geometric mean of ratios |"), std::string::npos) << r.out;
}

// Needs no tuned database: these fail before measuring anything.
TEST(CmdBenchUsage, BadInputIsAUsageError) {
  const std::string db = testing::scratch_path("bench_usage.db");
  EXPECT_EQ(run_ktune("bench " + data("tiny_matmul.json")).exit_code, 2);  // no --db
  const auto bad = run_ktune("bench " + data("tiny_matmul.json") + " --db " + db + " --methods ktune,Halide2030");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("Halide2030"), std::string::npos) << bad.out;
  const auto device = run_ktune("bench " + data("tiny_matmul.json") + " --db " + db + " --device gpu0");
  EXPECT_EQ(device.exit_code, 2);
  EXPECT_NE(device.out.find("--device"), std::string::npos) << device.out;
  EXPECT_EQ(run_ktune("bench " + data("tiny_matmul.json") + " --db " + db + " --rounds 0").exit_code, 2);
  EXPECT_EQ(run_ktune("bench " + data("missing.json") + " --db " + db).exit_code, 2);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((db + suffix).c_str());
}

TEST(CmdBenchUsage, HelpListsTheCommandAndItsDefaults) {
  const auto top = run_ktune("--help");
  EXPECT_NE(top.out.find("bench"), std::string::npos) << top.out;
  const auto help = run_ktune("bench --help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag : {"--db", "--threads INT:0 to ", "--format TEXT:{text,json,markdown}=text", "--methods", "--rounds INT:INT in [1 - 1000]=3",
                           "--autoscheduler-timeout"}) {
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag << "\n" << help.out;
  }
}

// --methods takes its help text and its validation from the table of bench methods: every
// row is listed and accepted, an unknown name is a usage error that lists them all, before
// the database is created.
TEST(CmdBenchUsage, MethodsFollowTheTableOfBenchMethods) {
  const auto help = run_ktune("bench --help");
  EXPECT_NE(help.out.find("--methods TEXT              " + bench::methods_option_help()), std::string::npos) << help.out;
  std::string all;
  for (const std::string& name : bench::bench_method_names()) {
    EXPECT_NE(help.out.find(name), std::string::npos) << name;
    all += (all.empty() ? "" : ",") + name;
  }
  const std::string db = testing::scratch_path("bench_methods.db");
  std::remove(db.c_str());
  // Every name passes the parser: the run stops at the missing spec instead.
  const auto accepted = run_ktune("bench " + data("missing.json") + " --db " + db + " --methods " + all);
  EXPECT_EQ(accepted.exit_code, 2);
  EXPECT_EQ(accepted.out.find("--methods"), std::string::npos) << accepted.out;
  const auto refused = run_ktune("bench " + data("tiny_matmul.json") + " --db " + db + " --methods ktune,Halide2030");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.out.find("--methods: " + bench::unknown_method_error({"Halide2030"})), std::string::npos)
      << refused.out;
  EXPECT_FALSE(std::ifstream(db).good()) << "a refused run created its database";
}

}  // namespace
}  // namespace ktune
