// Ingest of a bundle runner's results: each result is matched to the manifest's candidate and
// checked before anything is written, then all are recorded in one transaction as
// measurements of the bundle's device, under the workload of the bundled spec.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "kernels/bundle_ingest.h"
#include "schedule_store/stored_database.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/device_lookup.h"
#include "tests/tuning_db/test_util.h"

namespace ktune::kernels {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class BundleIngest : public tuning_db::testing::TempDirTest {
 protected:
  fs::path dir() const { return dir_; }
  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(dir() / "specs");
    const std::string spec = std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_softmax.json";
    fs::copy_file(spec, dir() / "specs/0_tiny_softmax.json");
    const auto sg = subgraphs::load_spec_subgraph(spec);
    manifest_.device_name = "h100";
    manifest_.device = targets::device_by_name("h100");
    manifest_.device_key = targets::device_key(manifest_.device);
    const scheduler::Space space(scheduler::analyze(*sg, scheduler::target_info_from_device(manifest_.device)));
    for (int id = 0; id < 2; ++id) {
      BundleCandidate c;
      c.id = id;
      c.function = "ktune_c" + std::to_string(id);
      c.workload_name = sg->name();
      c.workload_key = sg->key().key;
      c.spec = "specs/0_tiny_softmax.json";
      c.schedule = id == 0 ? space.heuristic() : space.naive();
      c.schedule_hash = c.schedule.hash();
      manifest_.candidates.push_back(c);
    }
  }

  RunnerResults parse(const nlohmann::json& j) const {
    return parse_runner_results(j, "results.json", manifest_, dir().string());
  }
  std::string parse_error(const nlohmann::json& j) const {
    try {
      parse(j);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }
  static nlohmann::json results() {
    return nlohmann::json::parse(R"({"device_key": "", "candidates": [
      {"id": 0, "function": "ktune_c0", "status": "ok", "median_ns": 2500, "min_ns": 2400, "iqr_ns": 30, "repeats": 20, "max_error": 0},
      {"id": 1, "function": "ktune_c1", "status": "wrong_result", "message": "max error 3.5", "max_error": 3.5}]})");
  }
  nlohmann::json matching_results() const {
    nlohmann::json j = results();
    j["device_key"] = manifest_.device_key;
    return j;
  }

  BundleManifest manifest_;
};

TEST_F(BundleIngest, ResultsAreMatchedToTheirCandidatesWithTimingsWhenOk) {
  const RunnerResults r = parse(matching_results());
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].candidate, &manifest_.candidates[0]);
  EXPECT_TRUE(r.results[0].result.ok());
  EXPECT_DOUBLE_EQ(r.results[0].result.median_ns, 2500);
  EXPECT_EQ(r.results[0].result.repeats, 20);
  EXPECT_FALSE(r.results[1].result.ok());
  EXPECT_EQ(r.results[1].result.message, "max error 3.5");
  EXPECT_EQ(r.threads, 0);  // a CUDA runner does not say
}

TEST_F(BundleIngest, EachBadResultIsRefusedNamingTheField) {
  nlohmann::json j = matching_results();
  nlohmann::json unknown = j;
  unknown["candidates"][1]["id"] = 9;
  EXPECT_THAT(parse_error(unknown), HasSubstr("candidates[1].id"));
  nlohmann::json function = j;
  function["candidates"][0]["function"] = "ktune_c1";
  EXPECT_THAT(parse_error(function), HasSubstr("candidates[0].function"));
  nlohmann::json status = j;
  status["candidates"][0]["status"] = "fast";
  EXPECT_THAT(parse_error(status), HasSubstr("unknown status \"fast\""));
  nlohmann::json no_time = j;
  no_time["candidates"][0].erase("median_ns");
  EXPECT_THAT(parse_error(no_time), HasSubstr("candidates[0].median_ns"));
  nlohmann::json threads = j;
  threads["threads"] = 0;
  EXPECT_THAT(parse_error(threads), HasSubstr("threads"));
  nlohmann::json other = j;
  other["device_key"] = "0123";
  EXPECT_THAT(parse_error(other), HasSubstr("results of another bundle"));
  EXPECT_THAT(parse_error(nlohmann::json{{"error", "no CUDA device"}}), HasSubstr("measured nothing"));
  nlohmann::json emulated = j;
  emulated["emulated"] = true;
  EXPECT_THAT(parse_error(emulated), HasSubstr("ran under an emulator"));
  emulated["emulated"] = false;  // a CPU runner on the device itself says so
  EXPECT_EQ(parse_error(emulated), "");
  EXPECT_EQ(parse_error(j), "");
}

TEST_F(BundleIngest, RecordsEveryResultOnTheBundlesDeviceAndTheOkOneIsTheBest) {
  const RunnerResults r = parse(matching_results());
  const std::string db_path = (dir() / "t.db").string();
  {
    tuning_db::TuningDb db = schedule_store::open_tuning_db(db_path, sqlite::OpenMode::kCreate);
    const IngestSummary s = ingest_results(manifest_, dir().string(), r, db);
    EXPECT_EQ(s.measurements, 2u);
    EXPECT_EQ(s.ok, 1);
  }
  tuning_db::TuningDb db = schedule_store::open_tuning_db(db_path, sqlite::OpenMode::kReadOnly);
  const auto best = db.best(manifest_.candidates[0].workload_key, manifest_.device_key);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->schedule_hash, manifest_.candidates[0].schedule_hash);
  EXPECT_DOUBLE_EQ(best->measurement.median_ns.value_or(-1), 2500);
}

TEST_F(BundleIngest, ASpecWhoseKeyDiffersFromTheManifestWritesNothing) {
  manifest_.candidates[1].workload_key = "not-the-key";
  manifest_.candidates[1].spec = "specs/1_other.json";
  fs::copy_file(std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_matmul.json", dir() / "specs/1_other.json");
  const RunnerResults r = parse(matching_results());
  const std::string db_path = (dir() / "t.db").string();
  tuning_db::TuningDb db = schedule_store::open_tuning_db(db_path, sqlite::OpenMode::kCreate);
  EXPECT_THROW(ingest_results(manifest_, dir().string(), r, db), UserError);
  EXPECT_FALSE(db.best(manifest_.candidates[0].workload_key, manifest_.device_key));  // rolled back
}

}  // namespace
}  // namespace ktune::kernels
