// Tests of tuning_db/tuning_db_history.cc: which (workload, device) pairs have measurements,
// and every measurement of one pair in the order it was recorded, failures included.
#include <gtest/gtest.h>

#include "tests/tuning_db/test_util.h"
#include "tuning_db/tuning_db.h"

namespace ktune::tuning_db {
namespace {

using testing::sample_device;
using testing::sample_workload;
using testing::seed;
using testing::TempDirTest;

class TuningDbHistoryTest : public TempDirTest {};

TEST_F(TuningDbHistoryTest, PairsCountEveryStatusAndSkipUnmeasuredWorkloads) {
  auto s = seed(file("a.db"));
  s.add("a", 2000, 10, 1000);
  const int64_t broken = s.db.upsert_schedule(s.workload_id, "b", testing::schedule_json("b"));
  s.db.record_measurement(
      testing::failed_measurement(broken, s.device_id, MeasureStatus::kCrash, 2000));
  // A second device with one measurement, and a workload never measured.
  const int64_t other = s.db.upsert_device(sample_device("arm-neon"));
  s.db.record_measurement(testing::ok_measurement(broken, other, 500, 5, 3000));
  s.db.upsert_workload(sample_workload("wl-unmeasured", "aaa_first_by_name"));

  const auto pairs = s.db.measured_pairs();
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].workload.key, "wl-matmul-64");
  EXPECT_EQ(pairs[0].device.key, "arm-neon");
  EXPECT_EQ(pairs[0].measurements, 1);
  EXPECT_EQ(pairs[1].device.key, "host-avx2");
  EXPECT_EQ(pairs[1].measurements, 2);
  EXPECT_EQ(pairs[1].workload.name, "matmul_64");
}

TEST_F(TuningDbHistoryTest, HistoryIsInRecordingOrderWithFailures) {
  auto s = seed(file("a.db"));
  // Recorded out of time order: the history follows created_at, not insertion.
  s.add("late", 900, 10, 5000);
  s.add("early", 3000, 10, 1000);
  const int64_t wrong = s.db.upsert_schedule(s.workload_id, "w", testing::schedule_json("w"));
  s.db.record_measurement(
      testing::failed_measurement(wrong, s.device_id, MeasureStatus::kWrongResult, 3000));

  const auto history = s.db.measurement_history("wl-matmul-64", "host-avx2");
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0].created_at_ms, 1000);
  EXPECT_DOUBLE_EQ(*history[0].median_ns, 3000);
  EXPECT_EQ(history[1].status, MeasureStatus::kWrongResult);
  EXPECT_FALSE(history[1].median_ns.has_value());
  EXPECT_EQ(history[2].created_at_ms, 5000);
  EXPECT_TRUE(s.db.measurement_history("wl-matmul-64", "no-such-device").empty());
  EXPECT_TRUE(s.db.measurement_history("no-such-workload", "host-avx2").empty());
}

TEST_F(TuningDbHistoryTest, HistoryKeepsPredictedScoresAndRuns) {
  auto s = seed(file("a.db"));
  RunRecord run;
  run.command = "[\"ktune\",\"tune\"]";
  const int64_t run_id = s.db.begin_run(run);
  const int64_t schedule = s.db.upsert_schedule(s.workload_id, "p", testing::schedule_json("p"));
  MeasurementRecord m = testing::ok_measurement(schedule, s.device_id, 1200, 10, 1000);
  m.run_id = run_id;
  m.predicted = 0.25;
  s.db.record_measurement(m);
  const auto history = s.db.measurement_history("wl-matmul-64", "host-avx2");
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].run_id, run_id);
  ASSERT_TRUE(history[0].predicted.has_value());
  EXPECT_DOUBLE_EQ(*history[0].predicted, 0.25);
}

}  // namespace
}  // namespace ktune::tuning_db
