// Models through a real tuning database file: stored, the file closed and reopened, loaded
// back with identical predictions; models of another feature version refused; training
// data read back from stored schedules and measurements.
#include "cost_model/model_store.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "cost_model/extractor.h"
#include "cost_model/features.h"
#include "cost_model/model_blob.h"
#include "schedule_store/db_records.h"
#include "scheduler/space.h"
#include "tests/cost_model/synthetic.h"
#include "tests/cost_model/test_support.h"

namespace ktune::cost_model {
namespace {

using tuning_db::TuningDb;

class ModelStore : public testing::TempDirTest {
 protected:
  TuningDb open() {
    tuning_db::OpenOptions options;
    options.versions = {"0.1.0-test", "14.0.0"};
    return TuningDb::open(file("tuning.db"), options);
  }
  static tuning_db::DeviceRecord device() {
    tuning_db::DeviceRecord d;
    d.key = "test-device";
    d.target = "x86-64-linux-avx2";
    return d;
  }
  static Dataset synthetic_dataset() {
    Dataset d;
    d.samples = testing::synthetic_samples(0, 4, 30, 9);
    for (size_t i = 0; i < d.samples.size(); ++i) {
      d.schedule_hashes.push_back("h" + std::to_string(i));
      d.analytical_scores.push_back(0.f);
    }
    return d;
  }
  static std::vector<std::vector<float>> rows(const Dataset& d) {
    std::vector<std::vector<float>> r;
    for (const TrainingSample& s : d.samples) r.push_back(s.features);
    return r;
  }
};

TEST_F(ModelStore, ModelRoundTripsThroughTheDatabaseFile) {
  const Dataset data = synthetic_dataset();
  XgboostModel trained;
  trained.train(data.samples);
  const std::vector<float> before = trained.predict(rows(data));
  {
    TuningDb db = open();
    tuning_db::ModelRecord rec;
    rec.device_id = db.upsert_device(device());
    rec.kind = trained.kind();
    rec.feature_version = kFeatureVersion;
    rec.blob = trained.save();
    rec.samples = static_cast<int64_t>(data.samples.size());
    db.save_model(rec);
  }  // closed
  TuningDb db = open();
  const std::optional<StoredModel> loaded = load_latest_model(db, "test-device");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->record.samples, 120);
  EXPECT_EQ(loaded->model->predict(rows(data)), before);
}

TEST_F(ModelStore, TrainAndStoreRecordsHeldOutMetrics) {
  const Dataset data = synthetic_dataset();
  std::vector<float> stored_predictions;
  {
    TuningDb db = open();
    db.upsert_device(device());
    const TrainResult r = train_and_store(db, "test-device", data);
    EXPECT_GT(r.record.id, 0);
    EXPECT_GT(r.held_out.model.pairwise_accuracy, 0.7);
    EXPECT_EQ(r.held_out.model.workloads, 4);
    XgboostModel from_blob;
    from_blob.load(r.record.blob);
    stored_predictions = from_blob.predict(rows(data));
  }
  TuningDb db = open();
  const auto loaded = load_latest_model(db, "test-device");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->record.samples, static_cast<int64_t>(data.samples.size()));
  const nlohmann::json metrics = nlohmann::json::parse(loaded->record.metrics);
  EXPECT_EQ(metrics.at("split"), "random split within workloads");
  EXPECT_GT(metrics.at("model").at("pairwise_accuracy").get<double>(), 0.7);
  EXPECT_EQ(metrics.at("feature_count").get<int>(), feature_count());
  EXPECT_EQ(workload_samples(loaded->record), data.samples_per_workload());
  EXPECT_EQ(workload_samples(loaded->record).size(), 4u);
  EXPECT_EQ(loaded->model->predict(rows(data)), stored_predictions);
  EXPECT_THROW(train_and_store(db, "no-such-device", data), UserError);
}

TEST(ModelWorkloadSamples, AModelStoredWithoutThemKnowsNoWorkload) {
  tuning_db::ModelRecord record;
  for (const char* metrics : {"{}", "not json", R"({"workload_samples": [1, 2]})"}) {
    record.metrics = metrics;
    EXPECT_TRUE(workload_samples(record).empty()) << metrics;
  }
  record.metrics = R"({"workload_samples": {"a": 20, "b": "x"}})";
  EXPECT_EQ(workload_samples(record), (std::map<std::string, int>{{"a", 20}}));
}

TEST_F(ModelStore, OtherFeatureVersionsAreRefused) {
  const Dataset data = synthetic_dataset();
  XgboostModel trained;
  trained.train(data.samples);
  std::vector<uint8_t> blob = trained.save();
  // The envelope: magic, format, kind length, kind, feature version (little-endian).
  const size_t version_at = 4 + 4 + 4 + trained.kind().size();
  ASSERT_EQ(read_model_header(blob).feature_version, kFeatureVersion);
  blob[version_at] = static_cast<uint8_t>(kFeatureVersion + 1);
  ASSERT_EQ(read_model_header(blob).feature_version, kFeatureVersion + 1);
  XgboostModel other;
  try {
    other.load(blob);
    FAIL() << "a blob of another feature version must be refused";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("feature version " + std::to_string(kFeatureVersion + 1)), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(other.trained());
  // Stored under another version: never returned, so the caller retrains.
  TuningDb db = open();
  tuning_db::ModelRecord rec;
  rec.device_id = db.upsert_device(device());
  rec.kind = trained.kind();
  rec.feature_version = kFeatureVersion + 1;
  rec.blob = blob;
  db.save_model(rec);
  EXPECT_FALSE(load_latest_model(db, "test-device").has_value());
  // A truncated blob is corrupt.
  std::vector<uint8_t> cut = trained.save();
  cut.resize(cut.size() / 2);
  EXPECT_THROW(other.load(cut), UserError);
  EXPECT_THROW(other.load({1, 2, 3}), UserError);
}

TEST_F(ModelStore, DatasetComesFromStoredSchedulesAndMeasurements) {
  const auto sg = testing::spec_subgraph(testing::kMatmulSpec);
  const scheduler::Analysis analysis = scheduler::analyze(*sg, testing::test_target());
  const scheduler::Space space(analysis);
  scheduler::Rng rng(2);
  std::vector<scheduler::Schedule> schedules = {space.naive(), space.heuristic()};
  while (schedules.size() < 6) {
    if (auto s = space.sample(rng)) schedules.push_back(*s);
  }
  TuningDb db = open();
  const int64_t device_id = db.upsert_device(device());
  const tuning_db::WorkloadRecord w = schedule_store::workload_record(*sg);
  const int64_t workload_id = db.upsert_workload(w);
  tuning_db::WorkloadRecord other = w;
  other.key = "another-workload";
  other.name = "unbuildable";
  const int64_t other_id = db.upsert_workload(other);
  std::map<std::string, double> runtime;
  for (size_t i = 0; i < schedules.size(); ++i) {
    const std::string hash = schedules[i].hash();
    if (runtime.count(hash)) continue;
    runtime[hash] = 1000.0 * static_cast<double>(i + 1);
    tuning_db::MeasurementRecord m;
    m.schedule_id = db.upsert_schedule(workload_id, hash, schedules[i].to_json().dump());
    m.device_id = device_id;
    m.median_ns = runtime[hash] + 50;
    m.min_ns = runtime[hash];  // the dataset's runtime
    m.spread_ns = 1;
    m.repeats = 10;
    db.record_measurement(m);
    m.schedule_id = db.upsert_schedule(other_id, hash, schedules[i].to_json().dump());
    db.record_measurement(m);
  }
  const FeatureExtractor extractor(analysis);
  const Dataset data = load_dataset(db, "test-device", [&](const tuning_db::WorkloadRecord& r) {
    return r.key == w.key ? &extractor : nullptr;
  });
  ASSERT_EQ(data.samples.size(), runtime.size());
  ASSERT_EQ(data.skipped.size(), 1u);
  EXPECT_NE(data.skipped[0].find("unbuildable"), std::string::npos);
  EXPECT_EQ(data.workloads(), 1);
  const FeatureExtractor ex(analysis);
  for (size_t i = 0; i < data.samples.size(); ++i) {
    EXPECT_EQ(data.samples[i].group, w.key);
    EXPECT_EQ(data.samples[i].runtime_ns, runtime.at(data.schedule_hashes[i]));
    bool found = false;
    for (const scheduler::Schedule& sch : schedules) {
      if (sch.hash() != data.schedule_hashes[i]) continue;
      found = true;
      EXPECT_EQ(data.samples[i].features, ex.extract_one(sch));
    }
    EXPECT_TRUE(found) << data.schedule_hashes[i];
  }
  EXPECT_EQ(data.analytical_scores.size(), data.samples.size());
  EXPECT_THROW(load_dataset(db, "no-such-device", [](const tuning_db::WorkloadRecord&) { return nullptr; }), UserError);
}

TEST_F(ModelStore, AKilledScheduleTrainsAsSlowerThanEveryFinishedOne) {
  const auto sg = testing::spec_subgraph(testing::kMatmulSpec);
  const scheduler::Analysis analysis = scheduler::analyze(*sg, testing::test_target());
  const scheduler::Space space(analysis);
  TuningDb db = open();
  const int64_t device_id = db.upsert_device(device());
  const tuning_db::WorkloadRecord w = schedule_store::workload_record(*sg);
  const int64_t workload_id = db.upsert_workload(w);
  const auto store = [&](const scheduler::Schedule& schedule, tuning_db::MeasureStatus status, double ns) {
    tuning_db::MeasurementRecord m;
    m.schedule_id = db.upsert_schedule(workload_id, schedule.hash(), schedule.to_json().dump());
    m.device_id = device_id;
    m.status = status;
    if (status == tuning_db::MeasureStatus::kOk) {
      m.median_ns = m.min_ns = ns;
      m.spread_ns = 1;
      m.repeats = 5;
    }
    db.record_measurement(m);
  };
  store(space.heuristic(), tuning_db::MeasureStatus::kOk, 1000);
  store(space.naive(), tuning_db::MeasureStatus::kRunTimeout, 0);
  const FeatureExtractor extractor(analysis);
  const ExtractorLookup lookup = [&](const tuning_db::WorkloadRecord&) { return &extractor; };

  Dataset data = load_dataset(db, "test-device", lookup);
  ASSERT_EQ(data.samples.size(), 2u);
  EXPECT_EQ(data.timed_out, 1);
  EXPECT_EQ(data.schedule_hashes[1], space.naive().hash());
  EXPECT_EQ(data.samples[1].runtime_ns, 2000);  // twice the slowest finished one
  EXPECT_EQ(data.samples[1].features, extractor.extract_one(space.naive()));
  EXPECT_EQ(data.samples_per_workload(), (std::map<std::string, int>{{w.key, 2}}));

  // Once it runs to an ok timing, that timing is its sample.
  store(space.naive(), tuning_db::MeasureStatus::kOk, 5000);
  data = load_dataset(db, "test-device", lookup);
  EXPECT_EQ(data.timed_out, 0);
  ASSERT_EQ(data.samples.size(), 2u);
  EXPECT_EQ(data.samples[1].runtime_ns, 5000);
}

}  // namespace
}  // namespace ktune::cost_model
