// `ktune bundle` and `ktune ingest` run as the real binary: a bundle of tiny_softmax for an
// H100 built on this GPU-less machine (candidates valid in the CUDA space, a runner that
// reports the missing device as JSON with exit 3), and ingest of a results file shaped like
// the runner's output (written here: no GPU produces real ones on this machine).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "tests/tools/cli_runner.h"
#include "tuning_db/tuning_db.h"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::run_ktune;

std::string data(const char* name) { return std::string(KTUNE_SOURCE_DIR) + "/tests/data/" + name; }

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

class CmdBundle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One folder per process: ctest runs each test of this suite in its own process.
    dir_ = fs::path(::testing::TempDir()) / ("bundle_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    bundle_ = dir_ / "b";
    made_ = run_ktune("bundle " + data("tiny_softmax.json") + " --device h100 --candidates 2 --out " +
                      bundle_.string());
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static inline fs::path dir_, bundle_;
  static inline testing::CliResult made_;
};

TEST_F(CmdBundle, ManifestListsTwoValidGpuCandidates) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  const nlohmann::json m = read_json(bundle_ / "manifest.json");
  EXPECT_EQ(m["device"]["name"], "h100");
  EXPECT_FALSE(m["device"]["key"].get<std::string>().empty());
  EXPECT_THAT(m["halide_target"].get<std::string>(), HasSubstr("cuda"));
  ASSERT_EQ(m["candidates"].size(), 2u);
  const auto sg = subgraphs::load_spec_subgraph(data("tiny_softmax.json"));
  const scheduler::Space space(scheduler::analyze(*sg, scheduler::cuda_target_info("h100")));
  std::set<std::string> hashes;
  for (const auto& c : m["candidates"]) {
    const auto s = scheduler::Schedule::from_json(c["schedule"], "manifest");
    EXPECT_EQ(s.hash(), c["schedule_hash"]);
    EXPECT_EQ(space.validate(s), std::nullopt) << c["schedule"].dump();
    EXPECT_EQ(c["workload_key"], sg->key().key);
    hashes.insert(c["schedule_hash"].get<std::string>());
    // 64 x 256 float32 input and reference, written by the bundle.
    EXPECT_EQ(fs::file_size(bundle_ / c["inputs"][0]["file"].get<std::string>()), 64u * 256 * 4);
    EXPECT_EQ(fs::file_size(bundle_ / c["outputs"][0]["file"].get<std::string>()), 64u * 256 * 4);
  }
  EXPECT_EQ(hashes.size(), 2u);
  EXPECT_EQ(m["candidates"][0]["schedule_hash"], space.heuristic().hash());
  EXPECT_TRUE(fs::exists(bundle_ / "lib" / "libktune_bundle.a"));
}

TEST_F(CmdBundle, RunnerWithoutGpuReportsJsonErrorAndExits3) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  const std::string cmd = (bundle_ / "run").string() + " --json";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 3) << out;
  const nlohmann::json j = nlohmann::json::parse(out);  // stdout is one JSON object
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("no CUDA device: "));
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("CUDA"));
  EXPECT_TRUE(j["candidates"].empty());
}

TEST_F(CmdBundle, IngestRecordsResultsAsMeasurementsOfTheDevice) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  const nlohmann::json m = read_json(bundle_ / "manifest.json");
  const std::string device_key = m["device"]["key"];
  // Candidate 1 (a sample) is faster; candidate 0 (the heuristic) gave a wrong result.
  nlohmann::json results = {{"device_key", device_key}, {"candidates", nlohmann::json::array()}};
  results["candidates"].push_back({{"id", 0}, {"function", "ktune_c0"}, {"status", "wrong_result"},
                                   {"message", "max relative error 0.5"}, {"max_error", 0.5}, {"median_ns", -1},
                                   {"min_ns", -1}, {"iqr_ns", -1}, {"repeats", 0}});
  results["candidates"].push_back({{"id", 1}, {"function", "ktune_c1"}, {"status", "ok"}, {"message", ""},
                                   {"max_error", 1e-6}, {"median_ns", 4321.0}, {"min_ns", 4000.0},
                                   {"iqr_ns", 50.0}, {"repeats", 40}});
  write_file(dir_ / "results.json", results.dump());
  const std::string db = (dir_ / "gpu.db").string();
  const auto r = run_ktune("ingest " + (dir_ / "results.json").string() + " --bundle " + bundle_.string() +
                           " --db " + db);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("1 ok, 1 failed"));

  tuning_db::OpenOptions options;
  options.mode = sqlite::OpenMode::kReadOnly;
  auto tdb = tuning_db::TuningDb::open(db, options);
  const auto best = tdb.best(m["candidates"][1]["workload_key"], device_key);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->schedule_hash, m["candidates"][1]["schedule_hash"]);
  EXPECT_DOUBLE_EQ(best->measurement.median_ns.value_or(-1), 4321.0);
  EXPECT_EQ(best->measurement.repeats, 40);
  EXPECT_EQ(tdb.measured_schedule_hashes(m["candidates"][1]["workload_key"], device_key).size(), 2u);
  ASSERT_TRUE(tdb.find_device(device_key).has_value());

  // The card's name means the key the bundle was built with.
  const auto q = run_ktune("query --db " + db + " --device h100 --workload " + data("tiny_softmax.json"));
  EXPECT_EQ(q.exit_code, 0) << q.out;
  EXPECT_THAT(q.out, HasSubstr(m["candidates"][1]["schedule_hash"].get<std::string>()));
}

TEST_F(CmdBundle, IngestRejectsAnUnknownCandidateNamingFileAndField) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  const fs::path results = dir_ / "unknown.json";
  write_file(results, R"({"candidates": [{"id": 7, "status": "ok", "median_ns": 10, "repeats": 3}]})");
  const auto r = run_ktune("ingest " + results.string() + " --bundle " + bundle_.string() + " --db " +
                           (dir_ / "unknown.db").string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr(results.string()));
  EXPECT_THAT(r.out, HasSubstr("candidates[0].id"));
  EXPECT_FALSE(fs::exists(dir_ / "unknown.db"));  // nothing is written before every result checks
}

}  // namespace
}  // namespace ktune
