#include "schedule_store/db_records.h"

#include <gtest/gtest.h>

#include "tuning_db/records.h"

namespace ktune::schedule_store {
namespace {

TEST(DbRecords, EveryMeasureStatusIsStoredUnderItsOwnName) {
  // The measurement layer and the database each have a status enum; rows go through names.
  for (int i = 0; i <= static_cast<int>(measure::MeasureStatus::kWrongResult); ++i) {
    const auto status = static_cast<measure::MeasureStatus>(i);
    measure::MeasureResult r;
    r.status = status;
    const tuning_db::MeasurementRecord m = measurement_record(r, 1, 2, 3);
    EXPECT_EQ(tuning_db::to_string(m.status), measure::to_string(status));
  }
  EXPECT_EQ(tuning_db::measure_status_names().size(), static_cast<size_t>(measure::MeasureStatus::kWrongResult) + 1);
}

TEST(DbRecords, TimingsOnlyForOkResults) {
  measure::MeasureResult ok;
  ok.status = measure::MeasureStatus::kOk;
  ok.median_ns = 100;
  ok.min_ns = 90;
  ok.spread_ns = 5;
  ok.repeats = 10;
  const auto m = measurement_record(ok, 1, 2, -1);
  EXPECT_EQ(m.median_ns.value_or(-1), 100);
  EXPECT_EQ(m.min_ns.value_or(-1), 90);
  EXPECT_FALSE(m.run_id.has_value());
  measure::MeasureResult crash = ok;
  crash.status = measure::MeasureStatus::kCrash;
  crash.message = "signal 11";
  const auto c = measurement_record(crash, 1, 2, 3);
  EXPECT_FALSE(c.median_ns.has_value());
  EXPECT_FALSE(c.min_ns.has_value());
  EXPECT_EQ(c.error, "signal 11");
  EXPECT_EQ(c.run_id.value_or(-1), 3);
}

}  // namespace
}  // namespace ktune::schedule_store
