#include "cluster/worker.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>

#include "schedule_store/db_records.h"
#include "scheduler/analysis.h"
#include "scheduler/target_info.h"
#include "subgraphs/subgraph.h"

namespace ktune::cluster {
namespace {

// A workload this rank was sent: the subgraph rebuilt from its stored spec, and its analysis.
struct Workload {
  std::unique_ptr<subgraphs::Subgraph> subgraph;
  std::unique_ptr<scheduler::Analysis> analysis;
  std::string error;  // why it could not be rebuilt; every candidate of it fails with this
};

std::string host_name() {
  char buf[256] = {0};
  return gethostname(buf, sizeof(buf) - 1) == 0 ? std::string(buf) : std::string();
}

measure::MeasureResult failed(const std::string& message) {
  measure::MeasureResult r;
  r.status = measure::MeasureStatus::kBuildError;
  r.message = message;
  return r;
}

class Worker {
 public:
  Worker(Transport& transport, WorkerOptions options)
      : transport_(transport), options_(std::move(options)), measurer_(local_options()) {}

  int run() {
    transport_.send(0, Tag::kHello, encode(Hello{transport_.rank(), options_.local.host, options_.device}));
    for (;;) {
      const Transport::Received m = transport_.receive();
      if (m.tag == Tag::kStop) return stopped(m.text);
      if (m.tag == Tag::kWorkload) add_workload(m.text);
      if (m.tag == Tag::kBatch) measure_batch(m.text);
    }
  }

 private:
  search::LocalMeasurerOptions local_options() {
    search::LocalMeasurerOptions local = options_.local;
    if (local.host.empty()) local.host = host_name();
    local.rank = transport_.rank();
    options_.local = local;
    return local;
  }

  int stopped(const std::string& text) {
    const auto stop = decode_stop(text);
    if (stop && !stop->reason.empty()) {
      // A refused rank leaves quietly: a non-zero exit would make the launcher end the whole job.
      std::fprintf(stderr, "ktune: rank %d: %s\n", transport_.rank(), stop->reason.c_str());
      return 0;
    }
    measurer_.finish();
    return 0;
  }

  void add_workload(const std::string& text) {
    const auto m = decode_workload(text);
    if (!m) return;
    Workload& w = workloads_[m->key];
    tuning_db::WorkloadRecord record;
    record.key = m->key;
    record.name = m->name;
    record.spec = m->spec;
    w.subgraph = schedule_store::subgraph_from_record(record);
    if (!w.subgraph) {
      w.error = "rank " + std::to_string(transport_.rank()) + " cannot rebuild workload " + m->name + " from its spec";
      return;
    }
    w.analysis = std::make_unique<scheduler::Analysis>(
        scheduler::analyze(*w.subgraph, scheduler::target_info_from_device(options_.device)));
    w.error = measurer_.prepare(*w.subgraph);
  }

  void measure_batch(const std::string& text) {
    const auto batch = decode_batch(text);
    if (!batch) return;
    const auto w = workloads_.find(batch->workload_key);
    search::MeasureRound round;
    std::vector<int> ids;  // the coordinator's item id of each round item
    for (const BatchItem& item : batch->items) {
      std::string why = w == workloads_.end() ? "rank " + std::to_string(transport_.rank()) + " was not sent workload " +
                                                    batch->workload_key
                                              : w->second.error;
      std::optional<scheduler::Schedule> schedule;
      if (why.empty()) {
        try {
          schedule = scheduler::Schedule::from_json(nlohmann::json::parse(item.schedule_json), "batch item");
        } catch (const std::exception& e) {
          why = std::string("malformed schedule: ") + e.what();
        }
      }
      if (!why.empty()) {
        transport_.send(0, Tag::kResult, encode(ResultMessage{batch->batch, item.id, failed(why)}));
        continue;
      }
      round.items.push_back({item.schedule_hash, *schedule, item.label});
      ids.push_back(item.id);
    }
    if (!round.items.empty()) {
      round.subgraph = w->second.subgraph.get();
      round.analysis = w->second.analysis.get();
      round.workload_key = batch->workload_key;
      round.incumbent_ns = batch->incumbent_ns;
      round.incumbent = incumbent_of(*batch);
      if (batch->start_before_unix_ms >= 0) round.start_before = steady_time(batch->start_before_unix_ms);
      measurer_.measure(round, no_stop_, [&](size_t i, const measure::MeasureResult& r, const search::Provenance&) {
        const int id = i < ids.size() ? ids[i] : kIncumbentItem;  // past the items: the stored best's new timing
        transport_.send(0, Tag::kResult, encode(ResultMessage{batch->batch, id, r}));
        return true;
      });
    }
    transport_.send(0, Tag::kBatchDone, encode(BatchDone{batch->batch}));
  }

  // The stored best the batch names, parsed; nullopt when it names none or its JSON does
  // not parse (the challengers are then confirmed alone).
  static std::optional<search::MeasureItem> incumbent_of(const Batch& batch) {
    if (!batch.incumbent) return std::nullopt;
    try {
      const auto schedule =
          scheduler::Schedule::from_json(nlohmann::json::parse(batch.incumbent->schedule_json), "batch incumbent");
      return search::MeasureItem{batch.incumbent->schedule_hash, schedule, batch.incumbent->label};
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  Transport& transport_;
  WorkerOptions options_;
  search::LocalMeasurer measurer_;
  std::map<std::string, Workload> workloads_;
  const std::atomic<int> no_stop_{0};  // a rank stops between batches, when told
};

}  // namespace

int run_worker(Transport& transport, WorkerOptions options) { return Worker(transport, std::move(options)).run(); }

}  // namespace ktune::cluster
