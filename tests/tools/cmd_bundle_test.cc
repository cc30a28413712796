// `ktune bundle` and `ktune ingest` run as the real binary: a bundle of tiny_softmax for an
// H100 built on this GPU-less machine (candidates valid in the CUDA space, a runner that
// reports the missing device as JSON with exit 3), and ingest of a results file shaped like
// the runner's output (written here: no GPU produces real ones on this machine); and, end to
// end, a bundle for this CPU (`--device host`) whose runner verifies and times every
// candidate, with a corrupted reference caught as a wrong result, and whose results ingest
// as measurements on the host device.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "scheduler/space.h"
#include "subgraphs/compare.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "tests/tools/cli_runner.h"
#include "tuning_db/tuning_db.h"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::run_command;
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
    made_ = run_ktune("bundle " + data("tiny_softmax.json") + " --device h100 --target cuda --candidates 2 --out " +
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
  const auto run = run_command((bundle_ / "run").string() + " --json");
  EXPECT_EQ(run.exit_code, 3) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);  // stdout is one JSON object
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("no CUDA device: "));
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("CUDA"));
  EXPECT_TRUE(j["candidates"].empty());
}

// CI has no GPU, so the runner's CUDA path is checked in its source: a GPU kernel copies an
// input to the device only when its host data are marked dirty, and on an H200 a runner
// without the mark computed on uninitialized device memory (every candidate wrong_result).
TEST_F(CmdBundle, RunnerMarksEveryLoadedBufferHostDirty) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  std::ifstream in(bundle_ / "run.cc");
  std::stringstream source;
  source << in.rdbuf();
  const std::string text = source.str();
  const size_t load = text.find("bool load(Buffer<T>& b");
  ASSERT_NE(load, std::string::npos);
  const size_t end = text.find("\n}\n", load);
  EXPECT_THAT(text.substr(load, end - load), HasSubstr("b.set_host_dirty();"));
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

TEST_F(CmdBundle, IngestRejectsResultsOfAnotherDevicesBundle) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  const fs::path results = dir_ / "other.json";
  write_file(results, R"({"device_key": "0123abcd", "candidates": []})");
  const auto r = run_ktune("ingest " + results.string() + " --bundle " + bundle_.string() + " --db " +
                           (dir_ / "other.db").string());
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr(results.string()));
  EXPECT_THAT(r.out, HasSubstr("device_key"));
  EXPECT_THAT(r.out, HasSubstr(read_json(bundle_ / "manifest.json")["device"]["key"].get<std::string>()));
  EXPECT_FALSE(fs::exists(dir_ / "other.db"));
}

// A bundle of tiny_softmax for this CPU, three candidates, built once per process.
class CmdBundleCpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::path(::testing::TempDir()) / ("bundle_cpu_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    bundle_ = dir_ / "b";
    made_ = run_ktune("bundle " + data("tiny_softmax.json") + " --device host --candidates 3 --out " +
                      bundle_.string());
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // The runner of `bundle`, quick: 3 timed runs, 2 threads; stdout only.
  static testing::CliResult run(const fs::path& bundle, const std::string& extra = "") {
    return run_command((bundle / "run").string() + " --json --min-repeats 3 --min-ms 1 --threads 2 " + extra);
  }

  static inline fs::path dir_, bundle_;
  static inline testing::CliResult made_;
};

TEST_F(CmdBundleCpu, RunnerVerifiesAndTimesEveryCandidateAndIngestRecordsTheBest) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  const nlohmann::json m = read_json(bundle_ / "manifest.json");
  EXPECT_EQ(m["device"]["name"], "host");
  EXPECT_EQ(m["device"]["kind"], "cpu");
  EXPECT_THAT(m["halide_target"].get<std::string>(), ::testing::Not(HasSubstr("cuda")));
  ASSERT_EQ(m["candidates"].size(), 3u);
  const std::string device_key = m["device"]["key"];
  const std::string workload_key = m["candidates"][0]["workload_key"];
  // The runner is the CPU branch of the one generated source: no CUDA in it.
  std::ifstream source(bundle_ / "run.cc");
  std::stringstream text;
  text << source.rdbuf();
  EXPECT_THAT(text.str(), ::testing::Not(HasSubstr("halide_cuda_device_interface")));

  const auto r = run(bundle_);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["device_key"], device_key);
  EXPECT_EQ(j["threads"], 2);
  ASSERT_EQ(j["candidates"].size(), 3u);
  double fastest = 1e300;
  std::string fastest_hash;
  for (size_t c = 0; c < 3; ++c) {
    const nlohmann::json& got = j["candidates"][c];
    EXPECT_EQ(got["id"], c);
    EXPECT_EQ(got["function"], m["candidates"][c]["function"]);
    EXPECT_EQ(got["status"], "ok") << got.dump();
    EXPECT_GT(got["median_ns"].get<double>(), 0) << got.dump();
    EXPECT_GE(got["min_ns"].get<double>(), 0) << got.dump();
    EXPECT_LE(got["min_ns"].get<double>(), got["median_ns"].get<double>()) << got.dump();
    EXPECT_GE(got["repeats"].get<int>(), 3) << got.dump();
    EXPECT_GE(got["max_error"].get<double>(), 0) << got.dump();
    EXPECT_LT(got["max_error"].get<double>(), 1e-4) << got.dump();
    if (got["median_ns"].get<double>() < fastest) {
      fastest = got["median_ns"];
      fastest_hash = m["candidates"][c]["schedule_hash"];
    }
  }

  write_file(dir_ / "results.json", r.out);
  const std::string db = (dir_ / "cpu.db").string();
  const auto ingested = run_ktune("ingest " + (dir_ / "results.json").string() + " --bundle " + bundle_.string() +
                                  " --db " + db);
  ASSERT_EQ(ingested.exit_code, 0) << ingested.out;
  EXPECT_THAT(ingested.out, HasSubstr("3 ok, 0 failed"));
  {
    tuning_db::OpenOptions options;
    options.mode = sqlite::OpenMode::kReadOnly;
    auto tdb = tuning_db::TuningDb::open(db, options);
    const auto best = tdb.best(workload_key, device_key);
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->schedule_hash, fastest_hash);
    EXPECT_DOUBLE_EQ(best->measurement.median_ns.value_or(-1), fastest);
    EXPECT_EQ(best->measurement.threads, 2);
    EXPECT_EQ(best->candidates, 3);
  }

  // Built for `host`, so the default device of query is the bundle's.
  const auto q = run_ktune("query --db " + db + " --workload tiny_softmax --format json");
  ASSERT_EQ(q.exit_code, 0) << q.out;
  const nlohmann::json best = nlohmann::json::parse(q.out);
  EXPECT_EQ(best["device_key"], device_key);
  EXPECT_EQ(best["schedule_hash"], fastest_hash);
  EXPECT_DOUBLE_EQ(best["median_ns"].get<double>(), fastest);
}

TEST_F(CmdBundleCpu, RunnerTakesItsThreadsFromHlNumThreadsAndRefusesABadCount) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  const std::string runner = (bundle_ / "run").string();
  const auto r = run_command("HL_NUM_THREADS=3 " + runner + " --json --min-repeats 1 --min-ms 0");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["threads"], 3);
  // --threads wins over HL_NUM_THREADS.
  const auto flag = run_command("HL_NUM_THREADS=3 " + runner + " --json --min-repeats 1 --min-ms 0 --threads 1");
  ASSERT_EQ(flag.exit_code, 0) << flag.out;
  EXPECT_EQ(nlohmann::json::parse(flag.out)["threads"], 1);
  const auto bad = run_command(runner + " --threads 0 2>&1");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_THAT(bad.out, HasSubstr("[--threads N]"));
}

// The candidates of one spec share one copy of its test data: a corrupted reference makes
// every one of them a wrong result, and ingest records them as failed, none as best.
TEST_F(CmdBundleCpu, CorruptedReferenceIsAWrongResultAndIngestsAsFailed) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  const fs::path copy = dir_ / "corrupt";
  fs::remove_all(copy);
  fs::copy(bundle_, copy, fs::copy_options::recursive);
  const nlohmann::json m = read_json(copy / "manifest.json");
  size_t folders = 0;
  for (const auto& entry : fs::directory_iterator(copy / "test_data")) folders += entry.is_directory();
  EXPECT_EQ(folders, 1u) << "one folder of inputs and references for the one spec";
  for (const auto& c : m["candidates"]) EXPECT_EQ(c["outputs"][0]["file"], m["candidates"][0]["outputs"][0]["file"]);
  // Softmax outputs lie in (0, 1): a reference of 5s is wrong everywhere.
  const fs::path ref = copy / m["candidates"][1]["outputs"][0]["file"].get<std::string>();
  const std::vector<float> fives(fs::file_size(ref) / sizeof(float), 5.0f);
  std::ofstream(ref, std::ios::binary).write(reinterpret_cast<const char*>(fives.data()),
                                             static_cast<std::streamsize>(fives.size() * sizeof(float)));

  const auto r = run(copy);
  EXPECT_EQ(r.exit_code, 1) << r.out;  // candidates failed
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 3u);
  for (const nlohmann::json& wrong : j["candidates"]) {
    EXPECT_EQ(wrong["status"], "wrong_result") << wrong.dump();
    EXPECT_GT(wrong["max_error"].get<double>(), subgraphs::kTolerance);
    EXPECT_THAT(wrong["message"].get<std::string>(), HasSubstr("beyond the output's tolerance"));
    EXPECT_EQ(wrong["repeats"], 0);
  }

  write_file(dir_ / "corrupt.json", r.out);
  const std::string db = (dir_ / "corrupt.db").string();
  const auto ingested = run_ktune("ingest " + (dir_ / "corrupt.json").string() + " --bundle " + copy.string() +
                                  " --db " + db);
  ASSERT_EQ(ingested.exit_code, 0) << ingested.out;
  EXPECT_THAT(ingested.out, HasSubstr("0 ok, 3 failed"));
  tuning_db::OpenOptions options;
  options.mode = sqlite::OpenMode::kReadOnly;
  auto tdb = tuning_db::TuningDb::open(db, options);
  const std::string workload_key = m["candidates"][1]["workload_key"];
  const std::string device_key = m["device"]["key"];
  const auto history = tdb.measurement_history(workload_key, device_key);
  ASSERT_EQ(history.size(), 3u);
  for (const auto& h : history) {
    EXPECT_EQ(h.status, tuning_db::MeasureStatus::kWrongResult);
    EXPECT_THAT(h.error, HasSubstr("beyond the output's tolerance"));
    EXPECT_FALSE(h.median_ns.has_value());
  }
  EXPECT_FALSE(tdb.best(workload_key, device_key).has_value());  // a wrong result is no candidate
}

TEST_F(CmdBundleCpu, StoredDeviceKeyWithDbBuildsForThatDevice) {
  ASSERT_EQ(made_.exit_code, 0) << made_.out;
  const nlohmann::json m = read_json(bundle_ / "manifest.json");
  const std::string key = m["device"]["key"];
  // Ingesting no results still stores the bundle's device.
  write_file(dir_ / "none.json", R"({"candidates": []})");
  const std::string db = (dir_ / "devices.db").string();
  const auto ingested = run_ktune("ingest " + (dir_ / "none.json").string() + " --bundle " + bundle_.string() +
                                  " --db " + db);
  ASSERT_EQ(ingested.exit_code, 0) << ingested.out;

  const fs::path out = dir_ / "by_key";
  const auto r = run_ktune("bundle " + data("tiny_softmax.json") + " --device " + key + " --db " + db +
                           " --target host --candidates 1 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const nlohmann::json by_key = read_json(out / "manifest.json");
  EXPECT_EQ(by_key["device"]["key"], key);
  EXPECT_EQ(by_key["device"]["description"], m["device"]["description"]);
  EXPECT_EQ(by_key["halide_target"], m["halide_target"]);

  const auto unknown = run_ktune("bundle " + data("tiny_softmax.json") + " --device 0123abcd --db " + db +
                                 " --out " + (dir_ / "unknown").string());
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out;
  EXPECT_THAT(unknown.out, HasSubstr(db));
  EXPECT_THAT(unknown.out, HasSubstr("no device with key \"0123abcd\""));
  const auto no_db = run_ktune("bundle " + data("tiny_softmax.json") + " --device 0123abcd --out " +
                               (dir_ / "unknown").string());
  EXPECT_EQ(no_db.exit_code, 2) << no_db.out;
  EXPECT_THAT(no_db.out, HasSubstr("accepted names: host"));
  EXPECT_FALSE(fs::exists(dir_ / "unknown"));
}

TEST(CmdBundleTarget, MismatchNamesBothFlagsAndWritesNothing) {
  const fs::path out = fs::path(::testing::TempDir()) / ("bundle_target_" + std::to_string(getpid()));
  fs::remove_all(out);
  const auto cpu = run_ktune("bundle " + data("tiny_softmax.json") + " --device host --target cuda --out " +
                             out.string());
  EXPECT_EQ(cpu.exit_code, 2) << cpu.out;
  EXPECT_THAT(cpu.out, HasSubstr("--target cuda but --device host is a cpu device"));
  const auto gpu = run_ktune("bundle " + data("tiny_softmax.json") + " --device h100 --target host --out " +
                             out.string());
  EXPECT_EQ(gpu.exit_code, 2) << gpu.out;
  EXPECT_THAT(gpu.out, HasSubstr("--target host but --device h100 is a cuda device"));
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace ktune
