// ktune_coordinator_sim: where does the coordinator of a distributed tuning run (rank 0:
// search, retraining, commits) become the bottleneck? It takes the per-candidate times of a
// real run from a tuning database (each measurement's build time shared over the rank's
// cores, plus its isolated run: warm-up, check and timed repeats, plus the fork), measures
// the coordinator's own costs on this machine (one round of the evolutionary search at two
// batch sizes, a commit into a scratch database, one retraining on the database's data), and
// simulates 1 to 256 measuring ranks at several batch sizes, without and with overlap of the
// search and the measuring (cluster/coordinator_model.h). It prints candidates per second,
// the ranks' busy fraction and the coordinator's.
//
//   ktune_coordinator_sim --db suite.db [--cores 2] [--candidates 20000]
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "cluster/coordinator_model.h"
#include "cost_model/analytical_model.h"
#include "cost_model/dataset.h"
#include "cost_model/extractor.h"
#include "cost_model/model_store.h"
#include "cost_model/xgboost_model.h"
#include "schedule_store/db_records.h"
#include "scheduler/space.h"
#include "search/evolutionary_search.h"
#include "targets/device.h"

namespace {

using namespace ktune;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Per-candidate rank time of every measurement on the device, and the workload with the most.
std::vector<double> worker_times(tuning_db::TuningDb& db, const std::string& device_key, int cores,
                                 tuning_db::WorkloadRecord& busiest) {
  std::vector<double> out;
  int64_t most = -1;
  for (const tuning_db::MeasuredPair& p : db.measured_pairs()) {
    if (p.device.key != device_key) continue;
    if (p.measurements > most) {
      most = p.measurements;
      busiest = p.workload;
    }
    for (const tuning_db::MeasurementRecord& m : db.measurement_history(p.workload.key, device_key)) {
      const double build = m.build_ms.value_or(0) / 1000.0 / cores;
      // The run: correctness check, one warm-up and the timed repeats, plus about 2 ms to fork.
      const double run = m.median_ns ? (m.repeats + 2) * *m.median_ns * 1e-9 + 0.002 : 0.002;
      out.push_back(build + run);
    }
  }
  return out;
}

// One round of the evolutionary search at batch 8 and at batch 512 on `busiest`: the
// search's fixed cost per round and its cost per candidate.
void measure_search_costs(tuning_db::TuningDb& db, const std::string& device_key, const targets::Device& device,
                          const tuning_db::WorkloadRecord& busiest, cluster::CoordinatorCosts& costs) {
  const auto subgraph = schedule_store::subgraph_from_record(busiest);
  const scheduler::Space space(scheduler::analyze(*subgraph, scheduler::target_info_from_device(device)));
  const cost_model::FeatureExtractor features(space.analysis());
  std::unique_ptr<cost_model::CostModel> model;
  if (auto stored = cost_model::load_latest_model(db, device_key)) model = std::move(stored->model);
  const cost_model::AnalyticalModel analytical(scheduler::target_info_from_device(device));
  const cost_model::CostModel& scorer = model ? *model : static_cast<const cost_model::CostModel&>(analytical);
  std::map<int, double> propose_s;
  for (int batch : {8, 512}) {
    search::SearchParams params;
    params.batch = batch;
    search::EvolutionarySearch search(space, features, params);
    scheduler::Rng rng(1);
    const auto t = Clock::now();
    search.propose({space.heuristic()}, {}, scorer, rng);
    propose_s[batch] = seconds_since(t);
  }
  costs.propose_per_item_s = std::max(0.0, (propose_s[512] - propose_s[8]) / (512 - 8));
  costs.propose_fixed_s = std::max(0.0, propose_s[8] - 8 * costs.propose_per_item_s);
}

// Seconds of one committed measurement, over 200 into a scratch database.
double commit_seconds(const targets::Device& device, const tuning_db::WorkloadRecord& busiest) {
  const std::string scratch = (std::filesystem::temp_directory_path() / "ktune_coordinator_sim.db").string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(scratch + suffix);
  tuning_db::OpenOptions create;
  create.mode = sqlite::OpenMode::kCreate;
  tuning_db::TuningDb store = tuning_db::TuningDb::open(scratch, create);
  const int64_t device_id = store.upsert_device(schedule_store::device_record(device));
  const int64_t workload_id = store.upsert_workload(busiest);
  const int commits = 200;
  const auto t = Clock::now();
  for (int i = 0; i < commits; ++i) {
    const int64_t schedule = store.upsert_schedule(workload_id, "h" + std::to_string(i), "{\"funcs\": []}");
    tuning_db::MeasurementRecord m;
    m.schedule_id = schedule;
    m.device_id = device_id;
    m.median_ns = 1000;
    m.spread_ns = 10;
    store.record_measurement(m);
  }
  return seconds_since(t) / commits;
}

// Seconds per stored sample of loading the device's dataset and training the model on it.
double train_seconds_per_sample(tuning_db::TuningDb& db, const std::string& device_key, const targets::Device& device) {
  std::map<std::string, std::unique_ptr<cost_model::FeatureExtractor>> extractors;
  std::map<std::string, std::unique_ptr<subgraphs::Subgraph>> subgraphs;
  std::map<std::string, std::unique_ptr<scheduler::Space>> spaces;
  const auto t = Clock::now();
  const cost_model::Dataset data = cost_model::load_dataset(db, device_key, [&](const tuning_db::WorkloadRecord& w) {
    auto sg = schedule_store::subgraph_from_record(w);
    if (!sg) return static_cast<const cost_model::FeatureExtractor*>(nullptr);
    auto sp = std::make_unique<scheduler::Space>(scheduler::analyze(*sg, scheduler::target_info_from_device(device)));
    auto ex = std::make_unique<cost_model::FeatureExtractor>(sp->analysis());
    const cost_model::FeatureExtractor* raw = ex.get();
    subgraphs[w.key] = std::move(sg);
    spaces[w.key] = std::move(sp);
    extractors[w.key] = std::move(ex);
    return raw;
  });
  cost_model::XgboostModel trained{cost_model::XgboostParams{}};
  trained.train(data.samples);
  return data.samples.empty() ? 0 : seconds_since(t) / data.samples.size();
}

// The simulated runs as a markdown table: 1 to 256 ranks, batches of 8 and 32, without and
// with overlap.
void print_simulations(const cluster::CoordinatorCosts& costs, const std::vector<double>& worker_s, int candidates) {
  std::printf("| ranks | batch per rank | overlap | candidates/s | ranks busy | coordinator busy |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (int workers : {1, 2, 4, 8, 64, 256}) {
    for (int batch : {8, 32}) {
      for (bool overlap : {false, true}) {
        const cluster::SimulatedRun run{workers, batch, overlap, candidates};
        const cluster::SimulationResult r = cluster::simulate(run, costs, worker_s);
        std::printf("| %d | %d | %s | %.1f | %.0f%% | %.0f%% |\n", workers, batch, overlap ? "yes" : "no",
                    r.candidates_per_s, 100 * r.worker_busy, 100 * r.coordinator_busy);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Simulates a distributed tuning run's coordinator on a real run's measurements"};
  std::string db_path;
  int cores = 2;
  int candidates = 20000;
  app.add_option("--db", db_path, "tuning database of a real run")->required();
  app.add_option("--cores", cores, "cores of each measuring rank (its builds run in parallel)")->capture_default_str();
  app.add_option("--candidates", candidates, "candidates each simulated run measures")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  tuning_db::OpenOptions open;
  open.mode = sqlite::OpenMode::kReadOnly;
  tuning_db::TuningDb db = tuning_db::TuningDb::open(db_path, open);
  const std::vector<tuning_db::DeviceRecord> devices = db.devices();
  if (devices.empty()) {
    std::fprintf(stderr, "%s holds no device\n", db_path.c_str());
    return 1;
  }
  const std::string device_key = devices.front().key;
  tuning_db::WorkloadRecord busiest;
  const std::vector<double> worker_s = worker_times(db, device_key, cores, busiest);
  double mean_worker = 0;
  for (double t : worker_s) mean_worker += t / worker_s.size();

  // The coordinator's costs, measured here.
  const targets::Device device = targets::device_from_json(nlohmann::json::parse(devices.front().description));
  cluster::CoordinatorCosts costs;
  measure_search_costs(db, device_key, device, busiest, costs);
  costs.commit_s = commit_seconds(device, busiest);
  costs.train_per_sample_s = train_seconds_per_sample(db, device_key, device);

  std::printf("database %s: %zu measurements on %s; a candidate takes a %d-core rank %.3f s on average\n",
              db_path.c_str(), worker_s.size(), device_key.c_str(), cores, mean_worker);
  std::printf("coordinator, measured here: search %.3f s per round + %.2f ms per candidate (%s), commit %.2f ms, "
              "retraining %.3f ms per stored sample\n\n",
              costs.propose_fixed_s, costs.propose_per_item_s * 1000, busiest.name.c_str(), costs.commit_s * 1000,
              costs.train_per_sample_s * 1000);
  print_simulations(costs, worker_s, candidates);
  return 0;
}
