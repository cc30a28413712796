// Tests which model ranks a task's candidates (search/tuner.cc): a stored learned model ranks
// only the algorithms it learned from; a pipeline it never saw is ranked by the analytical
// model, as in a fresh database.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cost_model/features.h"
#include "cost_model/model_store.h"
#include "nlohmann/json.hpp"
#include "schedule_store/db_records.h"
#include "search/local_measurer.h"
#include "search/progress.h"
#include "search/tuner.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "tuning_db/tuning_db.h"

namespace ktune::search {
namespace {

const char* kRelu = R"({"name": "model_relu", "inputs": [{"name": "x", "shape": [64, 64]}],
  "ops": [{"op": "relu", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})";

std::string relu_key() {
  return subgraphs::SpecSubgraph(subgraphs::parse_spec_text(kRelu, "relu.json")).key().key;
}

// A fresh temporary path; the database files at it are removed when the test ends.
class TunerModel : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& path : {db, log}) {
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    }
  }
  const std::string stem = (std::filesystem::temp_directory_path() / ("ktune_model_" + std::to_string(getpid()))).string();
  const std::string db = stem + ".db";
  const std::string log = stem + ".log";
};

// Tunes the relu for `trials` with its rounds logged to `log`, retraining when `train` is set.
void tune_relu(const std::string& db, const std::string& log, int trials, bool train = false) {
  TuneOptions options;
  options.db_path = db;
  options.device = targets::detect_host_device();
  options.budget.trials = trials;
  options.search.batch = 2;
  options.threads = 1;
  options.repeat_min_ms = 0;
  options.min_repeats = 1;
  options.train_model = train;
  std::vector<std::unique_ptr<subgraphs::Subgraph>> subgraphs;
  subgraphs.push_back(std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(kRelu, "relu.json")));
  Progress progress(false, log, std::nullopt, trials);
  Tuner tuner(options, std::move(subgraphs), progress, std::make_unique<LocalMeasurer>(local_measurer_options(options)));
  const std::atomic<int> no_stop{0};
  tuner.run(no_stop);
}

// Stores a learned model trained on 40 random samples of workload `key`.
void store_model_trained_on(const std::string& db, const std::string& key) {
  tuning_db::TuningDb store = tuning_db::TuningDb::open(db, {});
  const targets::Device device = targets::detect_host_device();
  store.upsert_device(schedule_store::device_record(device));
  cost_model::Dataset data;
  for (int i = 0; i < 40; ++i) {
    std::vector<float> features(cost_model::feature_count(), 0.f);
    features[0] = static_cast<float>(i);
    data.samples.push_back({features, 1000.0 + 100 * i, key});
    data.schedule_hashes.push_back("h" + std::to_string(i));
    data.analytical_scores.push_back(0);
  }
  cost_model::train_and_store(store, targets::device_key(device), data);
}

// The model each logged round of the log ranked with, in order.
std::vector<std::string> round_models(const std::string& log) {
  std::vector<std::string> models;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("round") && j.contains("model")) models.push_back(j.at("model").get<std::string>());
  }
  return models;
}

TEST_F(TunerModel, AStoredModelOfAnotherPipelineDoesNotRankANewOne) {
  store_model_trained_on(db, "another-pipeline");
  tune_relu(db, log, 4);
  const std::vector<std::string> models = round_models(log);
  ASSERT_FALSE(models.empty());
  for (const std::string& m : models) EXPECT_EQ(m, "analytical");
}

TEST_F(TunerModel, ThePipelineIsRankedByTheModelOnceItHasLearnedIt) {
  store_model_trained_on(db, "another-pipeline");
  tune_relu(db, log, 28, /*train=*/true);
  const std::vector<std::string> models = round_models(log);
  ASSERT_GE(models.size(), 3u);
  EXPECT_EQ(models.front(), "analytical");
  EXPECT_EQ(models.back(), "xgboost-rank") << "retrained once the relu had 16 ok timings";
}

TEST_F(TunerModel, AStoredModelThatLearnedThePipelineRanksIt) {
  store_model_trained_on(db, relu_key());
  tune_relu(db, log, 4);
  const std::vector<std::string> models = round_models(log);
  ASSERT_FALSE(models.empty());
  for (const std::string& m : models) EXPECT_EQ(m, "xgboost-rank");
}

}  // namespace
}  // namespace ktune::search
