// ktune_db_bench: fills a fresh tuning database with synthetic measurements (by default
// 1,000,000 over 1,000 workloads), then prints the insert rate (batched, and one commit per
// measurement as a tuning session writes), the latency of best() over many random queries,
// and the file size. Quick run: ktune_db_bench --measurements 20000 --workloads 100.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "tuning_db/tuning_db.h"

namespace {

using ktune::tuning_db::MeasurementRecord;
using ktune::tuning_db::MeasureStatus;
using ktune::tuning_db::TuningDb;
using Clock = std::chrono::steady_clock;

struct BenchOptions {
  int64_t measurements = 1000000;         // measurements in the fill
  int64_t workloads = 1000;               // workloads they spread over
  int64_t per_schedule = 2;               // measurements per schedule, on average
  int64_t batch = 10000;                  // measurements per transaction in the fill
  int64_t committed = 10000;              // measurements in the one-commit-each sample
  int64_t queries = 10000;                // best() calls timed
  std::string out = "ktune_db_bench.db";  // database file; replaced if present
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string workload_key(int64_t w) { return "bench-workload-" + std::to_string(w); }

// A schedule JSON of realistic size (a few hundred bytes).
std::string schedule_json(int64_t w, int64_t s) {
  return R"({"stages":[{"func":"matmul","compute_at":"root","tiles":[[)" +
         std::to_string(8 << (s % 4)) + "," + std::to_string(4 << (s % 3)) +
         R"(],[4,4]],"order":["xi","yi","xo","yo","k"],)" +
         R"("parallel":["yo"],"vectorize":{"var":"xi","width":8},"unroll":{"var":"yi","factor":)" +
         std::to_string(1 + s % 4) + R"(}},{"func":"bias_gelu","compute_at":"matmul.xo",)" +
         R"("vectorize":{"var":"x","width":8}}],"variant":[)" + std::to_string(w) + "," +
         std::to_string(s) + "]}";
}

// Per-workload synthetic data: a base time, schedules, and a random stream of measurements.
class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  MeasurementRecord measurement(int64_t schedule_id, int64_t device_id, double base_ns,
                                int64_t created_at_ms) {
    MeasurementRecord m;
    m.schedule_id = schedule_id;
    m.device_id = device_id;
    m.created_at_ms = created_at_ms;
    m.build_ms = 200 + 800 * unit_(rng_);
    if (unit_(rng_) < 0.1) {  // one in ten fails, as in a real search
      m.status = static_cast<MeasureStatus>(1 + rng_() % 7);
      m.error = "synthetic failure";
      return m;
    }
    const double median = base_ns * std::exp(0.7 * normal_(rng_));
    m.median_ns = median;
    m.min_ns = median * 0.97;
    m.spread_ns = median * (0.005 + 0.02 * unit_(rng_));
    m.repeats = 10 + static_cast<int64_t>(rng_() % 40);
    m.threads = 16;
    m.predicted = normal_(rng_);
    return m;
  }

  uint64_t next() { return rng_(); }

 private:
  std::mt19937_64 rng_;                                // deterministic stream
  std::uniform_real_distribution<double> unit_{0, 1};  // uniform in [0, 1)
  std::normal_distribution<double> normal_{0, 1};      // standard normal
};

// How the fill spreads its measurements: per workload, and over how many schedules each.
struct FillShape {
  int64_t per_workload = 1;
  int64_t schedules = 1;
};

FillShape fill_shape(const BenchOptions& o) {
  FillShape shape;
  shape.per_workload = std::max<int64_t>(1, o.measurements / o.workloads);
  shape.schedules = std::max<int64_t>(1, shape.per_workload / std::max<int64_t>(1, o.per_schedule));
  return shape;
}

// Workload `w` of the fill: a matmul + bias + gelu of its own size.
ktune::tuning_db::WorkloadRecord workload_record(int64_t w) {
  ktune::tuning_db::WorkloadRecord record;
  record.key = workload_key(w);
  record.name = "matmul_bias_gelu_" + std::to_string(w);
  record.family_key = "bench-family-" + std::to_string(w % 10);
  record.shapes = R"({"A":[)" + std::to_string(64 + w) + ",512]}";
  record.spec = R"({"ops":["matmul","bias","gelu"],"n":)" + std::to_string(w) + "}";
  record.flops = 2 * 512 * 512 * (64 + w);
  record.bytes = 4 * 512 * (64 + w) * 3;
  return record;
}

// The synthetic data every phase draws from, and the clock of its measurements.
struct FillState {
  Generator gen{42};
  int64_t device_id = 0;
  int64_t now_ms = 1700000000000;
};

// Stores workload `w`, its schedules and its measurements; returns how many measurements.
int64_t fill_workload(TuningDb& db, FillState& state, const FillShape& shape, int64_t w) {
  const int64_t workload_id = db.upsert_workload(workload_record(w));
  const double base = 1e4 * (1 + static_cast<double>(w % 100));
  std::vector<int64_t> ids(shape.schedules);
  for (int64_t s = 0; s < shape.schedules; ++s) {
    ids[s] = db.upsert_schedule(workload_id, "h" + std::to_string(w) + "-" + std::to_string(s), schedule_json(w, s));
  }
  for (int64_t i = 0; i < shape.per_workload; ++i) {
    db.record_measurement(state.gen.measurement(ids[state.gen.next() % shape.schedules], state.device_id, base,
                                                state.now_ms++));
  }
  return shape.per_workload;
}

// Fill: workload by workload, `batch` measurements per transaction; prints the rate.
void fill(TuningDb& db, FillState& state, const BenchOptions& o, const FillShape& shape) {
  int64_t stored = 0;
  const auto fill_start = Clock::now();
  int64_t w = 0;
  while (w < o.workloads) {
    db.batch([&] {
      int64_t in_batch = 0;
      while (w < o.workloads && in_batch < o.batch) {
        stored += fill_workload(db, state, shape, w++);
        in_batch += shape.per_workload;
      }
    });
  }
  const double fill_s = seconds_since(fill_start);
  std::printf(
      "fill, batched (~%lld per transaction): %lld measurements + %lld schedules in %.1f s = %.0f "
      "measurements/s\n",
      static_cast<long long>(o.batch), static_cast<long long>(stored),
      static_cast<long long>(shape.schedules * o.workloads), fill_s, stored / fill_s);
}

// One commit per measurement, as a tuning session writes, into the full database.
void time_one_commit_each(TuningDb& db, FillState& state, int64_t committed) {
  ktune::tuning_db::WorkloadRecord extra;
  extra.key = "bench-committed";
  extra.name = "committed_sample";
  extra.family_key = "bench-family-committed";
  const int64_t extra_id = db.upsert_workload(extra);
  std::vector<int64_t> ids;
  for (int64_t s = 0; s < 100; ++s) ids.push_back(db.upsert_schedule(extra_id, "c" + std::to_string(s), schedule_json(-1, s)));
  const auto start = Clock::now();
  for (int64_t i = 0; i < committed; ++i) {
    db.record_measurement(state.gen.measurement(ids[i % 100], state.device_id, 5e4, state.now_ms++));
  }
  const double s = seconds_since(start);
  std::printf("one commit per measurement: %lld in %.2f s = %.0f measurements/s (%.1f us each)\n",
              static_cast<long long>(committed), s, committed / s, 1e6 * s / committed);
}

// best() on random workloads of the full database, then top_k once.
void time_queries(TuningDb& db, FillState& state, const BenchOptions& o, const FillShape& shape) {
  std::vector<double> latency_us;
  latency_us.reserve(o.queries);
  int64_t found = 0;
  for (int64_t q = 0; q < o.queries; ++q) {
    const std::string key = workload_key(static_cast<int64_t>(state.gen.next() % o.workloads));
    const auto start = Clock::now();
    auto best = db.best(key, "bench-device");
    latency_us.push_back(1e6 * seconds_since(start));
    found += best.has_value();
  }
  std::sort(latency_us.begin(), latency_us.end());
  auto pct = [&](double p) { return latency_us[static_cast<size_t>(p * (latency_us.size() - 1))]; };
  std::printf(
      "best() over %lld queries (%lld answered, ~%lld ok rows per workload): median %.0f us, "
      "p90 %.0f us, p99 %.0f us, max %.0f us\n",
      static_cast<long long>(o.queries), static_cast<long long>(found),
      static_cast<long long>(shape.per_workload * 9 / 10), pct(0.5), pct(0.9), pct(0.99), latency_us.back());

  const auto top_start = Clock::now();
  const auto top = db.top_k(workload_key(0), "bench-device", 10);
  std::printf("top_k(10) once: %.0f us (%zu rows)\n", 1e6 * seconds_since(top_start), top.size());
}

int run(const BenchOptions& o) {
  if (o.measurements < 1 || o.workloads < 1 || o.queries < 1) {
    throw ktune::UserError("--measurements, --workloads and --queries must be at least 1");
  }
  for (const std::string& f : {o.out, o.out + "-wal", o.out + "-shm"}) std::filesystem::remove(f);
  ktune::tuning_db::OpenOptions options;
  options.versions = {"bench", "14.0.0"};
  TuningDb db = TuningDb::open(o.out, options);

  ktune::tuning_db::DeviceRecord device;
  device.key = "bench-device";
  device.target = "x86-64-linux-avx2";
  FillState state;
  state.device_id = db.upsert_device(device);

  const FillShape shape = fill_shape(o);
  std::printf("ktune_db_bench: %lld measurements over %lld workloads (%lld schedules each), 1 device\n",
              static_cast<long long>(shape.per_workload * o.workloads), static_cast<long long>(o.workloads),
              static_cast<long long>(shape.schedules));
  std::printf("file: %s\n", o.out.c_str());
  fill(db, state, o, shape);
  if (o.committed > 0) time_one_commit_each(db, state, o.committed);
  time_queries(db, state, o, shape);

  const auto stats = db.stats();
  std::printf(
      "file size: %.1f MiB (+ WAL %.1f MiB); %lld measurements, %lld schedules, %lld workloads\n",
      stats.file_bytes / 1048576.0, stats.wal_bytes / 1048576.0,
      static_cast<long long>(stats.rows.measurements), static_cast<long long>(stats.rows.schedules),
      static_cast<long long>(stats.rows.workloads));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ktune_db_bench: insert rate, best() latency and file size of a tuning database"};
  BenchOptions o;
  app.add_option("--measurements", o.measurements, "Measurements in the fill")
      ->capture_default_str();
  app.add_option("--workloads", o.workloads, "Workloads they spread over")->capture_default_str();
  app.add_option("--per-schedule", o.per_schedule, "Measurements per schedule, on average")
      ->capture_default_str();
  app.add_option("--batch", o.batch, "Measurements per transaction in the fill")
      ->capture_default_str();
  app.add_option("--committed", o.committed, "Measurements committed one at a time (0: skip)")
      ->capture_default_str();
  app.add_option("--queries", o.queries, "best() calls timed")->capture_default_str();
  app.add_option("--out", o.out, "Database file (replaced)")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return run(o);
  } catch (const ktune::UserError& e) {
    std::fprintf(stderr, "ktune_db_bench: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune_db_bench: failure: %s\n", e.what());
    return 1;
  }
}
