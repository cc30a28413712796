// Tests the Tuner's side of confirming a new best in turns with the incumbent
// (search/local_measurer.h): the incumbent's new timing is stored as another measurement of
// the stored best and weighed by the database's rule, and it is not a trial of the search.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "search/local_measurer.h"
#include "search/progress.h"
#include "search/tuner.h"
#include "subgraphs/spec_subgraph.h"
#include "targets/host_detect.h"
#include "tuning_db/sqlite.h"
#include "tuning_db/tuning_db.h"

namespace ktune::search {
namespace {

const char* kRelu = R"({"name": "incumbent_relu", "inputs": [{"name": "x", "shape": [64, 64]}],
  "ops": [{"op": "relu", "inputs": ["x"], "output": "y"}], "outputs": ["y"]})";

TuneSummary tune_relu(const std::string& db, int trials) {
  TuneOptions options;
  options.db_path = db;
  options.device = targets::detect_host_device();
  options.budget.trials = trials;
  options.search.batch = 4;
  options.threads = 1;
  options.repeat_min_ms = 0;
  options.min_repeats = 3;
  options.train_model = false;
  std::vector<std::unique_ptr<subgraphs::Subgraph>> subgraphs;
  subgraphs.push_back(std::make_unique<subgraphs::SpecSubgraph>(subgraphs::parse_spec_text(kRelu, "relu.json")));
  Progress progress(false, "", std::nullopt, trials);
  auto measurer = std::make_unique<LocalMeasurer>(local_measurer_options(options));
  Tuner tuner(options, std::move(subgraphs), progress, std::move(measurer));
  const std::atomic<int> no_stop{0};
  return tuner.run(no_stop);
}

tuning_db::BestEntry stored_best(const std::string& db) {
  tuning_db::OpenOptions open;
  open.mode = sqlite::OpenMode::kReadOnly;
  tuning_db::TuningDb store = tuning_db::TuningDb::open(db, open);
  const std::string key = subgraphs::SpecSubgraph(subgraphs::parse_spec_text(kRelu, "relu.json")).key().key;
  const std::optional<tuning_db::BestEntry> best = store.best(key, targets::device_key(targets::detect_host_device()));
  EXPECT_TRUE(best.has_value());
  return best.value_or(tuning_db::BestEntry{});
}

// The fastest ok median of `schedule_hash`'s measurements, ns; -1 when it has none.
double fastest_median_of(const std::string& db, const std::string& schedule_hash) {
  const sqlite::Connection raw = sqlite::Connection::open(db, sqlite::OpenMode::kReadOnly);
  sqlite::Statement fastest(raw, "SELECT min(m.median_ns) FROM measurements m JOIN schedules s ON s.id = m.schedule_id "
                                 "WHERE s.hash = ?1 AND m.status = 'ok'");
  fastest.bind(1, schedule_hash);
  return fastest.step() && !fastest.is_null(0) ? fastest.column_double(0) : -1;
}

int64_t ok_measurements_of(const std::string& db, const std::string& schedule_hash) {
  const sqlite::Connection raw = sqlite::Connection::open(db, sqlite::OpenMode::kReadOnly);
  sqlite::Statement count(raw, "SELECT count(*) FROM measurements m JOIN schedules s ON s.id = m.schedule_id "
                               "WHERE s.hash = ?1 AND m.status = 'ok'");
  count.bind(1, schedule_hash);
  return count.step() ? count.column_int64(0) : -1;
}

// Every measurement of `schedule_hash`, whatever its status.
int64_t measurements_of(const std::string& db, const std::string& schedule_hash) {
  const sqlite::Connection raw = sqlite::Connection::open(db, sqlite::OpenMode::kReadOnly);
  sqlite::Statement count(raw, "SELECT count(*) FROM measurements m JOIN schedules s ON s.id = m.schedule_id "
                               "WHERE s.hash = ?1");
  count.bind(1, schedule_hash);
  return count.step() ? count.column_int64(0) : -1;
}

TEST(TunerIncumbent, AChallengerIsWeighedAgainstTheIncumbentTimedAgainBesideIt) {
  const std::string db =
      (std::filesystem::temp_directory_path() / ("ktune_incumbent_" + std::to_string(getpid()) + ".db")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  ASSERT_EQ(tune_relu(db, 1).trials, 1);
  // The incumbent as if it had been timed in a minute when the machine was very slow.
  sqlite::Connection::open(db, sqlite::OpenMode::kReadWrite)
      .exec("UPDATE measurements SET median_ns = median_ns * 1000, min_ns = min_ns * 1000 WHERE status = 'ok'");
  const tuning_db::BestEntry slow = stored_best(db);
  ASSERT_EQ(ok_measurements_of(db, slow.schedule_hash), 1);

  const TuneSummary summary = tune_relu(db, 4);

  ASSERT_EQ(summary.tasks.size(), 1u);
  EXPECT_EQ(summary.tasks[0].trials_this_run, 4) << "timing the incumbent again is not a trial";
  EXPECT_GE(ok_measurements_of(db, slow.schedule_hash), 2)
      << "the first challenger beat the slow figure, so the incumbent was timed again beside it";
  const double retimed = fastest_median_of(db, slow.schedule_hash);
  EXPECT_GT(retimed, 0);
  EXPECT_LT(retimed, *slow.measurement.median_ns / 10) << "the incumbent's new timing is at the machine's real scale";
  const tuning_db::BestEntry best = stored_best(db);
  EXPECT_LT(*best.measurement.median_ns, *slow.measurement.median_ns / 10)
      << "the best is judged by timings of the same minutes, not by the slow one";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
}

// A stored best the validators now refuse (one an earlier version measured, whose loop the
// analysis has since found to race) is never run again, though Halide would run it:
// challengers are confirmed alone.
TEST(TunerIncumbent, AStoredBestTheValidatorsRefuseIsNotTimedAgain) {
  const std::string db =
      (std::filesystem::temp_directory_path() / ("ktune_refused_" + std::to_string(getpid()) + ".db")).string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  ASSERT_EQ(tune_relu(db, 1).trials, 1);
  {
    sqlite::Connection store = sqlite::Connection::open(db, sqlite::OpenMode::kReadWrite);
    store.exec("UPDATE measurements SET median_ns = median_ns * 1000, min_ns = min_ns * 1000 WHERE status = 'ok'");
    // x split by 8 and three loops unrolled: 512 copies of the body, which Halide compiles and
    // runs but the unroll validator refuses (at most 256).
    store.exec("UPDATE schedules SET json = json_set(json, '$.funcs[0].stages[0].splits[0].factor', 8, "
               "'$.funcs[0].stages[0].unroll', json_array('x_o', 'y_i', 'y_o'))");
  }
  const tuning_db::BestEntry refused = stored_best(db);
  ASSERT_EQ(measurements_of(db, refused.schedule_hash), 1);

  const TuneSummary summary = tune_relu(db, 4);

  ASSERT_EQ(summary.tasks.size(), 1u);
  EXPECT_EQ(summary.tasks[0].trials_this_run, 4);
  EXPECT_EQ(measurements_of(db, refused.schedule_hash), 1) << "the refused best was run again";
  EXPECT_NE(stored_best(db).schedule_hash, refused.schedule_hash) << "a challenger that ran is the best now";
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
}

}  // namespace
}  // namespace ktune::search
