// The stored-schedule layer: the best of a workload read back with its schedule parsed, the
// reasons there is none usable, a stored schedule lowered for a target, and the database
// opened with this build's version stamps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "common/halide_version.h"
#include "common/version.h"
#include "schedule_store/stored_database.h"
#include "schedule_store/stored_schedule.h"
#include "scheduler/space.h"
#include "scheduler/target_info.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "tests/schedule_store/store_test_db.h"
#include "tests/tuning_db/test_util.h"

namespace ktune::schedule_store {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class StoredSchedule : public tuning_db::testing::TempDirTest {
 protected:
  fs::path dir() const { return dir_; }
  void SetUp() override {
    TempDirTest::SetUp();
    sg_ = subgraphs::load_spec_subgraph(std::string(KTUNE_SOURCE_DIR) + "/tests/data/tiny_softmax.json");
    host_ = targets::detect_host_device();
    space_ = std::make_unique<scheduler::Space>(scheduler::analyze(*sg_, scheduler::target_info_from_device(host_)));
  }
  std::string db_path() const { return (dir() / "t.db").string(); }

  std::unique_ptr<subgraphs::SpecSubgraph> sg_;
  targets::Device host_;
  std::unique_ptr<scheduler::Space> space_;
};

TEST_F(StoredSchedule, TheFastestStoredScheduleComesBackParsedWithItsMeasurement) {
  tuning_db::TuningDb db = open_tuning_db(db_path(), sqlite::OpenMode::kCreate);
  testing::store_measured(db, *sg_, space_->naive(), host_, 9000);
  const std::string fast = testing::store_measured(db, *sg_, space_->heuristic(), host_, 3000);

  const StoredLookup found = find_stored_best(db, sg_->key().key, targets::device_key(host_));
  ASSERT_TRUE(found.stored) << found.reason;
  EXPECT_TRUE(found.measured);
  EXPECT_EQ(found.stored->entry.schedule_hash, fast);
  EXPECT_EQ(found.stored->schedule, space_->heuristic());
  EXPECT_DOUBLE_EQ(found.stored->entry.measurement.median_ns.value_or(-1), 3000);
  EXPECT_EQ(found.stored->entry.candidates, 2);
  EXPECT_FALSE(found.stored->entry.stale);  // stamped with this build's versions on both sides
}

TEST_F(StoredSchedule, NoMeasurementOnTheDeviceIsAReasonNotAnError) {
  tuning_db::TuningDb db = open_tuning_db(db_path(), sqlite::OpenMode::kCreate);
  testing::store_measured(db, *sg_, space_->heuristic(), host_, 3000);
  const StoredLookup found = find_stored_best(db, sg_->key().key, "another-device");
  EXPECT_FALSE(found.stored);
  EXPECT_FALSE(found.measured);
  EXPECT_THAT(found.reason, HasSubstr("no ok measurement on device another-device"));
}

TEST_F(StoredSchedule, ARowThatDoesNotParseNamesTheDatabaseAndTheHash) {
  EXPECT_THROW(
      {
        try {
          parse_stored_schedule("{\"funcs\": 3}", "t.db (schedule abc)");
        } catch (const UserError& e) {
          EXPECT_THAT(e.what(), HasSubstr("t.db (schedule abc)"));
          throw;
        }
      },
      UserError);
  EXPECT_THROW(parse_stored_schedule("not json", "t.db"), UserError);
  EXPECT_EQ(parse_stored_schedule(space_->heuristic().to_json().dump(), "t.db"), space_->heuristic());
}

TEST_F(StoredSchedule, LoweringSaysWhyAStoredScheduleNoLongerApplies) {
  tuning_db::TuningDb db = open_tuning_db(db_path(), sqlite::OpenMode::kCreate);
  testing::store_unappliable(db, *sg_, space_->heuristic(), host_, 1000);
  const StoredLookup found = find_stored_best(db, sg_->key().key, targets::device_key(host_));
  ASSERT_TRUE(found.stored) << found.reason;
  const LoweredSchedule lowered = lower_stored(found.stored->schedule, *sg_, space_->analysis(), host_.halide_target);
  EXPECT_FALSE(lowered.ok());
  EXPECT_THAT(lowered.problem, HasSubstr("no longer applies"));

  const LoweredSchedule good = lower_stored(space_->heuristic(), *sg_, space_->analysis(), host_.halide_target);
  EXPECT_TRUE(good.ok()) << good.problem;
  EXPECT_FALSE(good.applied.source.empty());
}

TEST_F(StoredSchedule, OpeningStampsThisBuildsVersionsAndRefusesAMissingFileReadOnly) {
  {
    tuning_db::TuningDb db = open_tuning_db(db_path(), sqlite::OpenMode::kCreate);
    testing::store_measured(db, *sg_, space_->heuristic(), host_, 3000);
  }
  tuning_db::TuningDb db = open_tuning_db(db_path(), sqlite::OpenMode::kReadOnly, PageCheck::kIfSmall);
  const std::optional<tuning_db::BestEntry> best = db.best(sg_->key().key, targets::device_key(host_));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->measurement.ktune_version, ktune_version());
  EXPECT_EQ(best->measurement.halide_version, kHalideVersion);
  EXPECT_THROW(open_tuning_db((dir() / "missing.db").string(), sqlite::OpenMode::kReadOnly), UserError);
  EXPECT_FALSE(fs::exists(dir() / "missing.db"));
}

TEST_F(StoredSchedule, ADeviceKeyResolvesThroughTheDatabaseAndAKnownNameWithoutOne) {
  {
    tuning_db::TuningDb db = open_tuning_db(db_path(), sqlite::OpenMode::kCreate);
    testing::store_measured(db, *sg_, space_->heuristic(), host_, 3000);
  }
  const std::string key = targets::device_key(host_);
  EXPECT_EQ(targets::device_key(resolve_device_in(key, db_path(), "--device")), key);
  EXPECT_EQ(targets::device_key(resolve_device_in("host", "", "--device")), key);
  EXPECT_TRUE(resolve_device_in("h100", "", "--device").is_gpu());
  EXPECT_THROW(resolve_device_in("0123abcd", db_path(), "--device"), UserError);
  EXPECT_THROW(resolve_device_in(key, "", "--device"), UserError);  // a key needs a database
}

}  // namespace
}  // namespace ktune::schedule_store
